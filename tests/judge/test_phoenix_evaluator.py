"""`bertscore-plugins judge serve` (the real local model, offline) as users point things at it: Phoenix's own
FaithfulnessEvaluator labels every row, beside our evaluators' cells in one DataFrame; and configured as the
README shows, with no other flag, the local judge (measured near chance) never decides the disagreement: the
README's Thursday row is high_sim_unfaithful in evaluate_rows, the recipe and trace evaluation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pandas as pd
import pytest

from bertscore_plugins.judge.local_model import LOCAL_MODEL
from bertscore_plugins.judge.server import PID_FILE_NAME
from tests.support.judge_rows import CLINIC

pytestmark = pytest.mark.slow  # a model server started by the command line

FRAME = pd.DataFrame(
    {
        "input": ["When does the clinic open?", "When does the clinic open?", "Is parking free?"],
        "output": [
            "The clinic opens at 8 am on weekdays.",
            "The clinic opens at 10 pm on Sundays.",
            "Parking is free for patients.",
        ],
        "context": [CLINIC, CLINIC, CLINIC],
        "reference": [CLINIC, CLINIC, CLINIC],
    }
)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[dict[str, str]]:
    """`bertscore-plugins judge serve` as a user runs it; the variables it prints. Stopped by its pid."""
    workdir = tmp_path_factory.mktemp("judge-cli")
    command = [sys.executable, "-m", "bertscore_plugins.cli", "judge", "serve", "--threads", "1"]
    process = subprocess.Popen(
        [*command, "--workdir", str(workdir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    variables: dict[str, str] = {}
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            if line.strip().startswith("export "):
                name, _, value = line.strip().removeprefix("export ").partition("=")
                variables[name] = value
            if line.startswith("log:"):
                break
        assert variables.get("BERTSCORE_JUDGE_MODEL") == LOCAL_MODEL, variables
        yield variables
    finally:
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=60) == 130  # Ctrl-C's status: it stopped its server
        assert not (workdir / PID_FILE_NAME).exists()


def _llm(served: dict[str, str]):
    from phoenix.evals import LLM

    return LLM(
        provider="openai", base_url=served["BERTSCORE_JUDGE_BASE_URL"], model=LOCAL_MODEL, api_key="sk-local"
    )


def test_phoenixs_faithfulness_evaluator_labels_every_row(served):
    from phoenix.evals import evaluate_dataframe
    from phoenix.evals.metrics import FaithfulnessEvaluator

    evaluator = FaithfulnessEvaluator(llm=_llm(served))
    result = evaluate_dataframe(dataframe=FRAME, evaluators=[evaluator], max_retries=0, hide_tqdm_bar=True)
    details = list(result["faithfulness_execution_details"])
    assert [d["status"] for d in details] == ["COMPLETED"] * 3, details
    labels = [score["label"] for score in result["faithfulness_score"]]
    assert set(labels) <= {"faithful", "unfaithful"} and len(labels) == 3


def test_phoenixs_evaluator_and_ours_fill_their_cells_side_by_side(served):
    from bertscore_plugins.integrations.phoenix import evaluate_rows

    results = evaluate_rows(FRAME, llm=_llm(served))
    for column in (
        "bertscore_score",
        "groundedness_score",
        "offline_faithfulness_score",
        "faithfulness_score",
    ):
        cells = list(results[column])
        assert all(isinstance(cell, dict) and cell.get("label") for cell in cells), (column, cells)
    assert {cell["label"] for cell in results["faithfulness_score"]} <= {"faithful", "unfaithful"}


# -- the local judge configured as the README shows, and no other flag: it never decides the disagreement

THURSDAY = {
    "question": "When was the patient discharged?",
    "output": "The patient was discharged on Thursday.",
    "context": "The patient was admitted on Monday and discharged on Tuesday after treatment for pneumonia.",
    "reference": "The patient was discharged on Tuesday.",
}


def _configured(served: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in served.items():
        monkeypatch.setenv(name, value)


def test_the_local_judge_configured_never_decides_the_thursday_row_in_evaluate_rows(served, monkeypatch):
    from bertscore_plugins.evaluation.dataframe import evaluate_rows
    from bertscore_plugins.judge.environment import judge_from_env

    _configured(served, monkeypatch)
    judge = judge_from_env()
    assert judge is not None and judge.near_chance and judge.measured_auc < 0.6
    frame = pd.DataFrame([THURSDAY]).rename(columns={"question": "input"})
    with pytest.warns(UserWarning, match="near chance"):
        result = evaluate_rows(frame, judge=judge)
    assert result["faithfulness_score"].iloc[0]["label"] in ("faithful", "unfaithful")  # its verdict, kept
    assert result["sim_faith_disagreement_score"].iloc[0]["label"] == "high_sim_unfaithful"


def test_the_local_judge_configured_never_decides_the_thursday_row_in_the_recipe(
    served, monkeypatch, tmp_path
):
    import json

    from bertscore_plugins.cli.main import main

    _configured(served, monkeypatch)
    table = tmp_path / "answers.jsonl"
    table.write_text(json.dumps(THURSDAY) + "\n", encoding="utf-8")
    assert main(["disagreement", str(table), "--out", str(tmp_path / "run"), "--no-phoenix"]) == 0
    [row] = [json.loads(line) for line in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    assert row["output"] == THURSDAY["output"]  # the user's own columns, kept
    assert row["faithfulness_label"] in ("faithful", "unfaithful")
    assert row["sim_faith_disagreement_label"] == "high_sim_unfaithful"


def test_the_local_judge_configured_never_decides_the_thursday_row_in_trace_evaluation(
    served, monkeypatch, request, tmp_path
):
    import json

    from openinference.semconv.trace import DocumentAttributes, SpanAttributes
    from phoenix.client import Client
    from phoenix.otel import register

    from bertscore_plugins.cli.main import main
    from tests.support.projects import unique_project, wait_for_roots

    server = request.getfixturevalue("phoenix_server")
    project = unique_project("thursday")
    provider = register(
        project_name=project, endpoint=server.otlp_http_endpoint, batch=False, verbose=False,
        set_global_tracer_provider=False,
    )  # fmt: skip
    document = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.0.{DocumentAttributes.DOCUMENT_CONTENT}"
    try:
        tracer = provider.get_tracer("thursday")
        with tracer.start_as_current_span("rag_query", openinference_span_kind="chain") as root:
            root.set_input(THURSDAY["question"])
            root.set_attribute(SpanAttributes.METADATA, json.dumps({"reference": THURSDAY["reference"]}))
            with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as span:
                span.set_attribute(document, THURSDAY["context"])
            root.set_output(THURSDAY["output"])
            span_id = format(root.get_span_context().span_id, "016x")
    finally:
        provider.force_flush()
        provider.shutdown()
    client = Client(base_url=server.base_url)
    wait_for_roots(client, project, 1)
    _configured(served, monkeypatch)
    argv = ["phoenix", "evaluate", "--project", project, "--base-url", server.base_url]
    argv += ["--reference-key", "metadata.reference"]
    assert main([*argv, "--store", str(tmp_path / "store.sqlite")]) == 0
    found = {
        a["name"]: a["result"]["label"]
        for a in client.spans.get_span_annotations(span_ids=[span_id], project_identifier=project)
    }
    assert found["faithfulness"] in ("faithful", "unfaithful")
    assert found["sim_faith_disagreement"] == "high_sim_unfaithful"

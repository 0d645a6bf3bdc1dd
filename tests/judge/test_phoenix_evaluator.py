"""Phoenix's own FaithfulnessEvaluator, pointed at `bertscore-plugins judge serve` (the real local model,
offline): it labels every row, and beside our evaluators'
cells in one DataFrame."""

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

pytestmark = pytest.mark.slow  # a model server started by the command line

CLINIC = "The clinic opens at 8 am on weekdays. Parking at the clinic is free for patients."
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

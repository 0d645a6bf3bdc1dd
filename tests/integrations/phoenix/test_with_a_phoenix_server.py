"""Acceptance 1 and 2 against a real Phoenix server and the stub judge, both on 127.0.0.1.

traces sent -> evaluated (BERTScore batch path, groundedness, Phoenix's FaithfulnessEvaluator through
the OpenAI adapter: json_schema refused with HTTP 400 -> tool calling; one row failing with HTTP 500)
-> annotations logged -> the disagreement span filter returns exactly the expected rows -> an
experiment with the three evaluators -> its compare filter returns them too. While all of that runs,
``ss -ltnp`` shows the server and the stub listening on loopback only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from types import SimpleNamespace

import httpx
import pandas as pd
import pytest
from openinference.semconv.trace import DocumentAttributes, SpanAttributes
from phoenix.client import Client
from phoenix.client.helpers.spans import get_input_output_context
from phoenix.client.types.spans import SpanQuery
from phoenix.evals import bind_evaluator
from phoenix.otel import register

from bertscore_plugins import get_scorer
from bertscore_plugins.evaluation.disagreement import Thresholds
from bertscore_plugins.integrations.phoenix import (
    BERTScoreEvaluator,
    GroundednessEvaluator,
    create_dataset,
    disagreement_filters,
    ensure_annotation_configs,
    evaluate_rows,
    experiment_evaluators,
    experiment_url,
    faithfulness_evaluator,
    gateway,
    log_experiment,
    log_span_annotations,
    project_id,
    project_url,
)
from tests.support.projects import unique_project
from tests.support.stub_judge import StubJudge

pytestmark = pytest.mark.slow

THRESHOLDS = Thresholds(similarity=0.9, faithfulness=0.5)
FAIL_MARKER = "FAIL-ME"

ROWS = [
    {
        "key": "paraphrase",
        "question": "When does the museum open?",
        "context": "The Harbour Museum opens at nine in the morning and closes at five in the afternoon.",
        "output": "The museum opens at nine in the morning.",
        "reference": "The museum opens at nine in the morning.",
        "expected": "agree",
    },
    {
        "key": "wrong_day",
        "question": "When was the patient discharged?",
        "context": "The patient was admitted on Saturday with a fractured wrist and was discharged on Tuesday.",
        "output": "The patient was discharged on Thursday.",
        "reference": "The patient was discharged on Tuesday.",
        "expected": "high_sim_unfaithful",
    },
    {
        "key": "wrong_number",
        "question": "How many rooms does the hotel have?",
        "context": "The Seaview Hotel has 36 rooms, a small restaurant and a rooftop terrace.",
        "output": "The hotel has 48 rooms.",
        "reference": "The hotel has 36 rooms.",
        "expected": "high_sim_unfaithful",
    },
    {
        "key": "bad_reference",
        "question": "Who founded the choir?",
        "context": "The Millbrook choir was founded in 1961 by Aoife Brennan, a music teacher at the village school.",
        "output": "A local music teacher, Aoife Brennan, started it in 1961.",
        "reference": "The choir is one of the oldest in the county and rehearses every week in the church hall.",
        "expected": "low_sim_faithful",
    },
    {
        "key": "off_topic",
        "question": "What time does the bakery close?",
        "context": "The corner bakery closes at six in the evening on weekdays and at noon on Saturdays.",
        "output": "Penguins can dive to several hundred metres in search of fish.",
        "reference": "It closes at six on weekdays and at noon on Saturdays.",
        "expected": "agree",
    },
    {
        "key": "judge_fails",
        "question": f"{FAIL_MARKER} Where is the lost property office?",
        "context": "The lost property office is on the ground floor of the central station.",
        "output": "It is on the ground floor of the central station.",
        "reference": "The lost property office is on the ground floor of the central station.",
        # the judge answers HTTP 500: no faithfulness verdict, so the offline faithfulness decides the
        # disagreement (supported, worded unlike its longer reference), the reason in its explanation
        "expected": "low_sim_faithful",
    },
]
DISAGREEING = {"wrong_day", "wrong_number", "bad_reference"}
#: what the engine (span annotations, stored results) finds: the judge's failed row read offline too; an
#: experiment's own evaluators have no offline signal, so there that row has no disagreement
DISAGREEING_WITH_FALLBACK = DISAGREEING | {"judge_fails"}

COMPARE_QUERY = """
query ($base: ID!, $filter: String) {
  compareExperiments(baseExperimentId: $base, compareExperimentIds: [], filterCondition: $filter, first: 100) {
    edges { node { example { id } } }
  }
}"""


def _send_traces(endpoint: str, project: str, **options) -> tuple[object, dict[str, str]]:
    provider = register(
        project_name=project,
        endpoint=endpoint,
        batch=False,
        verbose=False,
        set_global_tracer_provider=False,
        **options,
    )
    tracer = provider.get_tracer(__name__)
    span_ids = {}
    for row in ROWS:
        with tracer.start_as_current_span("rag_query", openinference_span_kind="chain") as root:
            root.set_input(row["question"])
            with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as retrieve:
                retrieve.set_input(row["question"])
                retrieve.set_attribute(
                    f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.0.{DocumentAttributes.DOCUMENT_CONTENT}",
                    row["context"],
                )
            root.set_output(row["output"])
            span_ids[format(root.get_span_context().span_id, "016x")] = row["key"]
    provider.force_flush()
    return provider, span_ids


def _wait_for_rows(client: Client, project: str, count: int) -> pd.DataFrame:
    deadline = time.monotonic() + 60
    while True:
        rows = get_input_output_context(client, project_name=project)
        if rows is not None and len(rows) == count:
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(
                f"expected {count} root spans in {project!r}, got {0 if rows is None else len(rows)}"
            )
        time.sleep(0.5)


def _compare(base_url: str, experiment_id: str, condition: str) -> list[str]:
    reply = httpx.post(
        f"{base_url}/graphql",
        json={"query": COMPARE_QUERY, "variables": {"base": experiment_id, "filter": condition}},
        timeout=60,
    )
    reply.raise_for_status()
    body = reply.json()
    assert "errors" not in body, body
    return [edge["node"]["example"]["id"] for edge in body["data"]["compareExperiments"]["edges"]]


@pytest.fixture(scope="module")
def logged(phoenix_server):
    """Traces sent, rows evaluated with the stub judge, annotations logged; the stub stays up meanwhile."""
    project = unique_project("bertscore-it")
    stub = StubJudge(reject_response_format=True, fail_when=[FAIL_MARKER]).start()
    provider = None
    try:
        provider, span_keys = _send_traces(phoenix_server.otlp_http_endpoint, project)
        client = Client(base_url=phoenix_server.base_url)
        rows = _wait_for_rows(client, project, len(ROWS))
        reference_of = {row["question"]: row["reference"] for row in ROWS}
        rows["reference"] = [reference_of[question] for question in rows["input"]]
        results = evaluate_rows(rows, llm=stub.llm(), thresholds=THRESHOLDS, judge_concurrency=2)
        ensure_annotation_configs(client, project=project)
        written = log_span_annotations(client, results)
        yield SimpleNamespace(
            client=client,
            project=project,
            span_keys=span_keys,
            results=results,
            written=written,
            stub=stub,
            judge_answers=list(stub.log.answers),
        )
    finally:
        stub.stop()
        if provider is not None:
            provider.shutdown()


def test_results_and_judge_paths(logged):
    key_of = logged.span_keys
    labels = {key_of[s]: c and c["label"] for s, c in logged.results["sim_faith_disagreement_score"].items()}
    assert labels == {row["key"]: row["expected"] for row in ROWS}
    details = {key_of[s]: d["status"] for s, d in logged.results["faithfulness_execution_details"].items()}
    assert details["judge_fails"] == "FAILED"
    assert {status for key, status in details.items() if key != "judge_fails"} == {"COMPLETED"}
    modes = [mode for _, mode in logged.judge_answers]
    assert "rejected_response_format" in modes  # json_schema refused with HTTP 400 ...
    assert modes.count("tool_calling") == len(ROWS) - 1  # ... so every answered row came by tool calling
    assert modes.count("failed") >= 1 and "json_schema" not in modes
    fallback = logged.results["sim_faith_disagreement_score"][
        next(s for s, k in key_of.items() if k == "judge_fails")
    ]
    assert fallback["metadata"]["faithfulness_signal"] == "offline_faithfulness"
    assert "the judge gave no verdict (" in fallback["explanation"]
    # 6 similarity + 6 groundedness + 6 offline faithfulness (groundedness, lexical and fact check, computed for
    # every row even with a judge) + 5 faithfulness (the failed row has none) + 6 disagreement
    assert logged.written == 29


def test_annotations_read_back_with_kinds(logged):
    spans = logged.client.spans.get_spans_dataframe(project_identifier=logged.project)
    back = logged.client.spans.get_span_annotations_dataframe(
        spans_dataframe=spans, project_identifier=logged.project
    )
    kinds = back.groupby("annotation_name")["annotator_kind"].first().to_dict()
    assert kinds == {
        "bertscore": "CODE",
        "groundedness": "CODE",
        "offline_faithfulness": "CODE",
        "faithfulness": "LLM",
        "sim_faith_disagreement": "CODE",
    }
    wrong_day = next(s for s, k in logged.span_keys.items() if k == "wrong_day")
    rows = back[(back.index == wrong_day) & (back["annotation_name"] == "bertscore")]
    assert "Thursday -> Tuesday" in rows["result.explanation"].iloc[0]
    base_url = gateway.base_url_of(logged.client)
    configs = httpx.get(f"{base_url}/v1/projects/{logged.project}/annotation_configs", timeout=60).json()[
        "data"
    ]
    assert {c["name"] for c in configs} >= {"bertscore", "faithfulness", "sim_faith_disagreement"}


def test_span_filter_returns_exactly_the_disagreeing_rows(logged):
    filters = disagreement_filters(similarity_threshold=THRESHOLDS.similarity)["spans"]

    def keys(condition: str) -> set[str]:
        found = logged.client.spans.get_spans_dataframe(
            query=SpanQuery().where(condition), project_identifier=logged.project
        )
        return {logged.span_keys.get(span_id, span_id) for span_id in found.index}

    assert keys(filters["disagreements"]) == DISAGREEING_WITH_FALLBACK
    assert keys(filters["high_sim_unfaithful"]) == {"wrong_day", "wrong_number"}
    assert keys(filters["low_sim_faithful"]) == {"bad_reference", "judge_fails"}
    assert keys(filters["similar_but_unfaithful"]) == {"wrong_day", "wrong_number"}
    url = project_url(gateway.base_url_of(logged.client), project_id(logged.client, logged.project))
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/projects/[A-Za-z0-9=]+", url)


def test_experiment_with_the_three_evaluators_and_its_compare_filter(logged, phoenix_server):
    client = logged.client
    frame = pd.DataFrame(ROWS).rename(columns={"question": "input"})
    dataset = create_dataset(client, frame, name=f"{logged.project}-live")
    key_of_example = {e["id"]: ROWS[int(e["metadata"]["row"])]["key"] for e in dataset.examples}
    with StubJudge(fail_when=[FAIL_MARKER]) as stub:
        evaluators = experiment_evaluators(
            BERTScoreEvaluator(THRESHOLDS.similarity, scorer=get_scorer()),
            faithfulness_evaluator(stub.llm()),
            THRESHOLDS,
        )
        experiment = client.experiments.run_experiment(
            dataset=dataset,
            task=lambda metadata: metadata["output"],
            evaluators=evaluators,
            experiment_name="live evaluators",
            print_summary=False,
        )
        answered = [mode for _, mode in stub.log.answers if mode != "failed"]
        assert len(answered) == len(ROWS) - 1  # the judge ran once per row: shared with the disagreement
    grounded = bind_evaluator(
        evaluator=GroundednessEvaluator(scorer=get_scorer()),
        input_mapping={"output": "output", "context": "input.context"},
    )
    later = client.experiments.evaluate_experiment(
        experiment=experiment, evaluators=[grounded], print_summary=False
    )
    runs = [run for run in later["evaluation_runs"] if run.name == "groundedness"]
    assert len(runs) == len(ROWS) and [run.error for run in runs if run.error] == []
    assert {run.result["label"] for run in runs} <= {"grounded", "ungrounded"}
    names = {run.name for run in later["evaluation_runs"]}
    assert names >= {"bertscore", "faithfulness", "sim_faith_disagreement", "groundedness"}

    condition = disagreement_filters()["experiments"]["disagreements"]
    found = {
        key_of_example[example_id]
        for example_id in _compare(phoenix_server.base_url, experiment["experiment_id"], condition)
    }
    assert found == DISAGREEING
    rows = httpx.get(
        f"{phoenix_server.base_url}/v1/experiments/{experiment['experiment_id']}/json", timeout=60
    ).json()
    by_name = {a["name"]: a for a in rows[0]["annotations"]}
    assert (
        by_name["bertscore"]["annotator_kind"] == "CODE"
        and by_name["faithfulness"]["annotator_kind"] == "LLM"
    )
    url = experiment_url(phoenix_server.base_url, experiment["dataset_id"], experiment["experiment_id"])
    assert url.startswith(f"{phoenix_server.base_url}/datasets/")


def test_stored_experiment_replays_scores_without_rescoring(logged):
    answers_before = len(logged.stub.log.answers)
    stored = logged.results.reset_index()
    dataset, experiment = log_experiment(
        logged.client, stored, dataset_name=f"{logged.project}-stored", experiment_name="stored scores"
    )
    assert len(logged.stub.log.answers) == answers_before  # the judge was not called again
    key_of_example = {
        e["id"]: logged.span_keys[stored["context.span_id"][int(e["metadata"]["row"])]]
        for e in dataset.examples
    }
    condition = disagreement_filters()["experiments"]["disagreements"]
    found = {
        key_of_example[i]
        for i in _compare(gateway.base_url_of(logged.client), experiment["experiment_id"], condition)
    }
    assert found == DISAGREEING_WITH_FALLBACK
    errors = sorted(run.name for run in experiment["evaluation_runs"] if run.error)
    assert errors == ["faithfulness"]  # the row whose judge failed, only: its disagreement was read offline


def _listening(pids: set[int]) -> list[tuple[int, str]]:
    """(pid, local address) of every TCP listener owned by ``pids``, from ``ss -ltnp``."""
    out = subprocess.run(["ss", "-H", "-ltnp"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        for pid in map(int, re.findall(r"pid=(\d+),", line)):
            if pid in pids:
                found.append((pid, fields[3]))
    return found


def _descendants(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = {pid}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.skipif(shutil.which("ss") is None, reason="needs `ss` (iproute2) to list listening sockets")
def test_nothing_of_ours_listens_beyond_loopback(logged, phoenix_server):
    assert phoenix_server.healthy() and logged.stub.port  # both still up (the stub runs in this process)
    server_pids = _descendants(phoenix_server.pid)
    listeners = _listening(server_pids | {os.getpid()})
    loopback = re.compile(r"(127\.\d+\.\d+\.\d+|\[::ffff:127\.\d+\.\d+\.\d+\]|\[::1\]):\d+")
    assert listeners, "ss showed no listeners for our processes"
    exposed = [(pid, address) for pid, address in listeners if not loopback.fullmatch(address)]
    assert exposed == []
    server_ports = {int(a.rsplit(":", 1)[1]) for p, a in listeners if p in server_pids}
    assert {phoenix_server.port, phoenix_server.grpc_port} <= server_ports
    own_ports = {int(a.rsplit(":", 1)[1]) for p, a in listeners if p == os.getpid()}
    assert logged.stub.port in own_ports


def test_otlp_grpc_on_loopback_accepts_traces(phoenix_server, fresh_project):
    project = fresh_project
    provider, span_keys = _send_traces(phoenix_server.grpc_endpoint, project, protocol="grpc")
    try:
        rows = _wait_for_rows(Client(base_url=phoenix_server.base_url), project, len(ROWS))
        assert set(rows.index) == set(span_keys)
    finally:
        provider.shutdown()

"""The one evaluation pipeline against a live Phoenix: a clinic RAG app (instrumented as users do it)
sends twelve traces, six with one wrong fact; rows and spans must get the same answer.

Each test has its own project (a fresh name), so tests never see each other's spans.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections import Counter
from itertools import count
from types import SimpleNamespace

import pandas as pd
import pytest
from phoenix.client import Client

from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
)
from tests.support.clinic import WRONG, clinic_requests
from tests.support.projects import wait_for_roots
from tests.support.rag_app import RagStub, send

pytestmark = pytest.mark.slow

NAMES = [SIMILARITY, GROUNDEDNESS, OFFLINE_FAITHFULNESS, FAITHFULNESS, DISAGREEMENT]
_PROJECTS = count()


@pytest.fixture(scope="module")
def clinic(phoenix_server, tmp_path_factory):
    """``new(tag) -> (project, {span id: request})``: twelve clinic traces in a project of their own."""
    with RagStub() as stub:

        def new(tag: str) -> tuple[str, dict]:
            project = f"clinic-rag-{tag}-{os.getpid()}-{next(_PROJECTS)}"
            requests = clinic_requests(tag)
            sent = send(phoenix_server.otlp_http_endpoint, project, stub, requests)
            client = Client(base_url=phoenix_server.base_url)
            wait_for_roots(client, project, len(requests))
            by_key = {r.key: r for r in requests}
            return project, {span: by_key[key] for span, key in sent.items()}

        yield SimpleNamespace(
            new=new,
            client=Client(base_url=phoenix_server.base_url),
            base_url=phoenix_server.base_url,
            folder=tmp_path_factory.mktemp("clinic"),
        )


def _annotations(client: Client, project: str, spans) -> list[dict]:
    return client.spans.get_span_annotations(
        span_ids=list(spans), project_identifier=project, include_annotation_names=NAMES
    )


def _ours(annotations: list[dict], identifier_start: str = "bertscore-plugins") -> dict:
    """``{(span id, name): annotation}`` of our annotations."""
    return {
        (a["span_id"], a["name"]): a
        for a in annotations
        if (a.get("identifier") or "").startswith(identifier_start)
    }


def _cli(clinic, project: str, *extra: str, judge: RagStub | None = None) -> SimpleNamespace:
    """`bertscore-plugins phoenix evaluate` run by ``cli.main`` in this process (the command, not its
    process, is what these tests are about; tests/integrations/phoenix/test_trace_evaluation.py runs it as a
    process): ``.stdout`` and ``.stderr``, the judge configured by its variables or not at all."""
    from bertscore_plugins.cli.main import main

    argv = [
        "phoenix", "evaluate", "--project", project, "--base-url", clinic.base_url,
        "--store", str(clinic.folder / f"{project}.sqlite"), "--reference-key", "metadata.reference", *extra,
    ]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as env,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        for name in [name for name in os.environ if name.startswith("BERTSCORE_JUDGE_")]:
            env.delenv(name)
        if judge is not None:
            env.setenv("BERTSCORE_JUDGE_MODEL", "stub-judge")
            env.setenv("BERTSCORE_JUDGE_BASE_URL", judge.base_url)
            env.setenv("BERTSCORE_JUDGE_API_KEY", "sk")
        code = main(argv)
    assert code == 0, err.getvalue()[-3000:]
    return SimpleNamespace(stdout=out.getvalue(), stderr=err.getvalue())


def _frame(sent: dict) -> pd.DataFrame:
    """The same rows as a DataFrame, indexed by span id."""
    return pd.DataFrame(
        {
            "input": [r.question for r in sent.values()],
            "output": [r.answer for r in sent.values()],
            "context": [list(r.documents) for r in sent.values()],
            "reference": [r.reference for r in sent.values()],
        },
        index=pd.Index(list(sent), name="context.span_id"),
    )


def test_without_a_judge_the_wrong_answers_are_unfaithful_and_scores_equal_the_core(clinic):
    from bertscore_plugins import ScoreConfig, get_scorer

    project, sent = clinic.new("offline")
    done = _cli(clinic, project, "--format", "json")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["evaluated"] == 12 and report["failed"] == {} and report["judge_calls"]["judged"] == 0
    assert "No LLM judge configured: the offline faithfulness" in done.stderr
    ours = _ours(_annotations(clinic.client, project, sent))
    wrong = [span for span, r in sent.items() if r.key.endswith(WRONG)]
    right = [span for span in sent if span not in wrong]
    caught = [s for s in wrong if ours[(s, OFFLINE_FAITHFULNESS)]["result"]["label"] == "unfaithful"]
    assert len(caught) >= 5, [sent[s].key for s in wrong if s not in caught]
    for span in caught:  # in the high-similarity quadrant (the wrong fact looks like the reference)
        assert ours[(span, DISAGREEMENT)]["result"]["label"] == "high_sim_unfaithful"
        assert "context says" in ours[(span, OFFLINE_FAITHFULNESS)]["result"]["explanation"]
    assert all(ours[(s, OFFLINE_FAITHFULNESS)]["result"]["label"] == "faithful" for s in right)
    assert all(ours[(s, DISAGREEMENT)]["result"]["label"] == "agree" for s in right)
    # scores equal the core's (the trace evaluation reads contexts whole: long_text="window")
    scorer = get_scorer(ScoreConfig(long_text="window"))
    rows = list(sent.values())
    core = scorer.score([r.answer for r in rows], ["\n\n".join(r.documents) for r in rows])
    similar = scorer.score([r.answer for r in rows], [r.reference for r in rows])
    for span, precision, f1 in zip(sent, core.precision, similar.f1, strict=True):
        assert abs(ours[(span, GROUNDEDNESS)]["result"]["score"] - float(precision)) < 1e-5
        assert abs(ours[(span, SIMILARITY)]["result"]["score"] - float(f1)) < 1e-5


def test_rows_as_a_dataframe_and_as_spans_get_identical_cells_for_every_signal(clinic, tmp_path):
    from bertscore_plugins import ScoreConfig
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
    from bertscore_plugins.integrations.phoenix import evaluate_project, evaluate_rows, faithfulness_judge

    project, sent = clinic.new("parity")
    with RagStub() as judge:
        config = EvaluationConfig(
            judge=faithfulness_judge(judge.llm()),
            judge_rows="unsettled",
            reference_key="metadata.reference",
            score=ScoreConfig(long_text="window"),
        )
        report = evaluate_project(project, config=config, client=clinic.client, store=tmp_path / "s.sqlite")
        frame = evaluate_rows(_frame(sent), config=config)
    assert report.evaluated == 12 and 0 < report.judge_calls["judged"] < 12
    ours = _ours(_annotations(clinic.client, project, sent))
    compared = Counter()
    for name in NAMES:
        for span, cell in zip(frame.index, frame[f"{name}_score"], strict=True):
            logged = ours[(span, name)]["result"]
            assert logged.get("label") == cell["label"], (name, sent[span].key)
            assert logged.get("explanation") == cell["explanation"], (name, sent[span].key)
            assert abs(logged["score"] - cell["score"]) < 1e-9, (name, sent[span].key)
            compared[name] += 1
    assert compared == dict.fromkeys(NAMES, 12)
    assert frame.attrs["judge_triage"]["judged"] == report.judge_calls["judged"]


def test_phoenix_evaluate_with_judge_triage_asks_the_judge_less_and_says_so(clinic):
    project, sent = clinic.new("triage")
    with RagStub() as judge:
        done = _cli(clinic, project, "--judge-rows", "unsettled", "--format", "json", judge=judge)
        calls = len(judge.log.answers)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["evaluated"] == 12 and 0 < calls < 12
    assert report["judge_calls"] == {"judged": calls, "saved": 12 - calls}
    assert f"judge triage: {calls} of 12 rows sent to the judge; {12 - calls} calls saved" in done.stderr
    ours = _ours(_annotations(clinic.client, project, sent))
    settled = [a for (_, name), a in ours.items() if name == FAITHFULNESS and a["annotator_kind"] == "CODE"]
    assert len(settled) == 12 - calls  # a settled row's verdict says so and is a CODE annotation
    assert all(a["result"]["explanation"].startswith("settled offline") for a in settled)


def _native_run(clinic, project: str, sent: dict, judge: RagStub, similarity: float) -> None:
    """Phoenix's own flow: evaluate_dataframe with its FaithfulnessEvaluator and a code evaluator named
    like ours, then to_annotation_dataframe + log_span_annotations_dataframe (no identifier)."""
    from phoenix.evals import Score, create_evaluator, evaluate_dataframe
    from phoenix.evals.metrics import FaithfulnessEvaluator
    from phoenix.evals.utils import to_annotation_dataframe

    @create_evaluator(name=SIMILARITY, kind="code")
    def bertscore(output: str) -> Score:
        return Score(score=similarity, label="native")

    frame = _frame(sent)[["input", "output"]].assign(context=[r.documents[0] for r in sent.values()])
    results = evaluate_dataframe(
        frame, [bertscore, FaithfulnessEvaluator(llm=judge.llm())], hide_tqdm_bar=True
    )
    annotations = to_annotation_dataframe(dataframe=results)
    clinic.client.spans.log_span_annotations_dataframe(dataframe=annotations, sync=True)


def test_phoenix_native_evaluators_and_ours_never_overwrite_each_other(clinic, tmp_path):
    from bertscore_plugins.integrations.phoenix import evaluate_project

    project, sent = clinic.new("native")
    store = tmp_path / "store.sqlite"
    with RagStub() as judge:
        _native_run(clinic, project, sent, judge, similarity=0.25)
        first = evaluate_project(
            project, client=clinic.client, llm=judge.llm(), store=store, reference_key="metadata.reference"
        )
        ours_before = _ours(_annotations(clinic.client, project, sent))
        _native_run(clinic, project, sent, judge, similarity=0.75)
        rerun = evaluate_project(
            project, client=clinic.client, llm=judge.llm(), store=store, reference_key="metadata.reference"
        )
    assert first.evaluated == 12 and len(ours_before) == 12 * 5
    assert (rerun.evaluated, rerun.logged, rerun.already_done) == (0, 0, 12)
    annotations = _annotations(clinic.client, project, sent)
    native = [a for a in annotations if not a.get("identifier")]
    assert Counter(a["name"] for a in native) == {SIMILARITY: 12, FAITHFULNESS: 12}
    assert {a["result"]["score"] for a in native if a["name"] == SIMILARITY} == {0.75}  # its own, updated
    ours_after = _ours(annotations)
    assert {k: a["result"] for k, a in ours_after.items()} == {k: a["result"] for k, a in ours_before.items()}
    assert max(Counter((a["span_id"], a["name"], a.get("identifier")) for a in annotations).values()) == 1

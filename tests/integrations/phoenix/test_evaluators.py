"""Unit tests of the Phoenix integration: evaluators, batch cells, judge runner, disagreement, stub judge.

No Phoenix server here (see test_with_a_phoenix_server.py). Numbers come from the packaged model; judges
are Phoenix-style fake LLM objects or the stub judge over real HTTP.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading

import httpx
import numpy as np
import pandas as pd
import pytest
from phoenix.evals import async_evaluate_dataframe, bind_evaluator, evaluate_dataframe
from phoenix.evals.utils import to_annotation_dataframe

from bertscore_plugins import EmptyTextWarning, get_scorer
from bertscore_plugins.errors import InputError
from bertscore_plugins.evaluation.dataframe import add_disagreement
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_label
from bertscore_plugins.integrations.phoenix import (
    BERTScoreEvaluator,
    DisagreementEvaluator,
    GroundednessEvaluator,
    batch_evaluate_dataframe,
    disagreement_filters,
    evaluate_rows,
    experiment_evaluators,
    experiment_url,
    faithfulness_evaluator,
    project_url,
    run_judge,
)
from bertscore_plugins.tools.phoenix_server import PhoenixServer, PhoenixServerError, ensure_phoenix_venv
from tests.support import stub_judge as stub_judge_module
from tests.support.stub_judge import careful_judge, lookup_judge

SCORE_KEYS = {"name", "score", "label", "explanation", "metadata", "kind", "direction"}
DETAIL_KEYS = {"status", "exceptions", "execution_seconds"}

ROWS = pd.DataFrame(
    {
        "input": [
            "When was the patient discharged?",
            "How many rooms does the hotel have?",
            "Who founded the choir?",
            "When does the museum open?",
        ],
        "context": [
            "The patient was admitted on Saturday and was discharged on Tuesday after surgery.",
            "The Seaview Hotel has 36 rooms, a small restaurant and a rooftop terrace.",
            "The Millbrook choir was founded in 1961 by Aoife Brennan, a music teacher.",
            "The Harbour Museum opens at nine in the morning and closes at five.",
        ],
        "output": [
            "The patient was discharged on Thursday.",
            "The hotel has 48 rooms.",
            "A local music teacher, Aoife Brennan, started it in 1961.",
            "The museum opens at nine in the morning.",
        ],
        "reference": [
            "The patient was discharged on Tuesday.",
            "The hotel has 36 rooms.",
            "The choir rehearses every week in the church hall and is one of the oldest in the county.",
            "The museum opens at nine in the morning.",
        ],
    },
    index=pd.Index(["s-day", "s-number", "s-choir", "s-museum"], name="context.span_id"),
)


class FakeJudgeLLM:
    """Duck-typed Phoenix LLM (as in Phoenix's own tests): verdict by a substring of the prompt."""

    provider, model = "fake", "fake-judge"

    def __init__(self, verdicts: dict[str, str], fail_on: str | None = None, delay: float = 0.0) -> None:
        self.verdicts, self.fail_on, self.delay = verdicts, fail_on, delay
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def generate_classification(self, prompt, labels, include_explanation=True, method=None, **kwargs):
        text = prompt[0]["content"] if isinstance(prompt, list) else str(prompt)
        with self._lock:
            self.calls += 1
        if self.fail_on and self.fail_on in text:
            raise RuntimeError("judge exploded on this row")
        label = next(v for k, v in self.verdicts.items() if k in text)
        return {"label": label, "explanation": f"fake verdict {label}"}

    async def async_generate_classification(self, *args, **kwargs):
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return self.generate_classification(*args, **kwargs)
        finally:
            with self._lock:
                self.in_flight -= 1


VERDICTS = {
    "Thursday": "unfaithful",
    "48 rooms": "unfaithful",
    "Aoife": "faithful",
    "museum opens": "faithful",
}


def assert_same_cell(fast: dict, slow: dict) -> None:
    """Equal cells, up to float32 rounding: a batched forward pass uses other matrix-multiply kernels
    than a one-row pass (measured differences up to 1.8e-7), which can also reorder tied worst matches."""
    for key in ("name", "label", "kind", "direction"):
        assert fast[key] == slow[key]
    assert fast["score"] == pytest.approx(slow["score"], abs=1e-6)
    assert fast["explanation"].split("; worst")[0] == slow["explanation"].split("; worst")[0]
    fast_meta, slow_meta = fast["metadata"], slow["metadata"]
    assert set(fast_meta) == set(slow_meta)
    for key in fast_meta:
        if key == "worst_matches":
            assert sorted(m["similarity"] for m in fast_meta[key]) == pytest.approx(
                sorted(m["similarity"] for m in slow_meta[key]), abs=1e-5
            )
        elif isinstance(fast_meta[key], float):
            assert fast_meta[key] == pytest.approx(slow_meta[key], abs=1e-6)
        else:
            assert fast_meta[key] == slow_meta[key]


@pytest.fixture(scope="module")
def scorer():
    return get_scorer()


@pytest.fixture(scope="module")
def similarity(scorer):
    return BERTScoreEvaluator(0.9, scorer=scorer)


# -- BERTScoreEvaluator -----------------------------------------------------------------------------


def test_bertscore_evaluator_describes_itself(similarity):
    description = similarity.describe()
    assert description["name"] == "bertscore"
    assert description["kind"] == "code"
    assert description["direction"] == "maximize"
    assert set(description["input_schema"]["properties"]) == {"output", "reference"}


def test_bertscore_score_is_f1_with_threshold_label_and_worst_tokens(similarity, scorer):
    [score] = similarity.evaluate({"output": ROWS.output.iloc[0], "reference": ROWS.reference.iloc[0]})
    core = scorer.score([ROWS.output.iloc[0]], [ROWS.reference.iloc[0]])
    assert score.name == "bertscore" and score.kind == "code" and score.direction == "maximize"
    assert score.score == pytest.approx(float(core.f1[0]), abs=1e-6)
    assert score.score > 0.9 and score.label == "similar"
    assert "Thursday -> Tuesday" in score.explanation
    assert score.metadata["precision"] == pytest.approx(float(core.precision[0]), abs=1e-6)
    assert score.metadata["recall"] == pytest.approx(float(core.recall[0]), abs=1e-6)
    assert score.metadata["threshold"] == 0.9
    assert score.metadata["signature"] == core.signature
    assert score.metadata["worst_matches"][0]["token"] == "Thursday"
    [strict] = BERTScoreEvaluator(0.99, scorer=scorer).evaluate(
        {"output": ROWS.output.iloc[0], "reference": ROWS.reference.iloc[0]}
    )
    assert strict.score == score.score and strict.label == "dissimilar"


def test_a_warning_about_a_row_names_the_frame_row_even_after_a_failed_row(scorer):
    frame = pd.DataFrame(
        {"output": ["A cat.", None, "", "A dog."], "reference": ["A cat.", "x", "A dog.", "A dog."]},
        index=["s1", "s2", "s3", "s4"],
    )
    with pytest.warns(EmptyTextWarning) as caught:
        result = batch_evaluate_dataframe(frame, BERTScoreEvaluator(0.9, scorer=scorer), exit_on_error=False)
    assert result["bertscore_score"].iloc[1] is None  # row 1 failed and was not scored
    [empty] = [w.message for w in caught if isinstance(w.message, EmptyTextWarning)]
    assert empty.candidate_rows == ("2 (index 's3')",)


@pytest.mark.parametrize("cut", [float("nan"), float("inf"), 1.5, -0.1, "0.9", True])
def test_a_cut_no_score_can_meet_or_that_is_no_number_is_refused(cut):
    with pytest.raises(ValueError, match=r"^threshold must be a finite number from 0 to 1, got"):
        BERTScoreEvaluator(cut)
    with pytest.raises(ValueError, match=r"^threshold must be"):
        GroundednessEvaluator(cut)


def test_bertscore_evaluator_rejects_bad_settings():
    with pytest.raises(TypeError):
        BERTScoreEvaluator(0.9, no_such_setting=1)


@pytest.mark.slow
def test_batch_cells_equal_evaluate_dataframe_cells(similarity):
    per_row = evaluate_dataframe(dataframe=ROWS, evaluators=[similarity], hide_tqdm_bar=True)
    batch = batch_evaluate_dataframe(ROWS, similarity)
    assert list(batch.columns) == list(per_row.columns)
    assert list(batch.columns[-2:]) == ["bertscore_execution_details", "bertscore_score"]
    assert batch.index.equals(ROWS.index)
    for fast, slow in zip(batch["bertscore_score"], per_row["bertscore_score"], strict=True):
        assert set(fast) == SCORE_KEYS
        assert_same_cell(fast, slow)
    assert batch["bertscore_score"].iloc[0]["metadata"]["worst_matches"][0]["token"] == "Thursday"
    for details in batch["bertscore_execution_details"]:
        assert (
            set(details) == DETAIL_KEYS and details["status"] == "COMPLETED" and details["exceptions"] == []
        )


def test_async_evaluate_dataframe_gives_the_same_cells(similarity):
    result = asyncio.run(
        async_evaluate_dataframe(dataframe=ROWS, evaluators=[similarity], concurrency=2, hide_tqdm_bar=True)
    )
    for fast, slow in zip(
        batch_evaluate_dataframe(ROWS, similarity)["bertscore_score"], result["bertscore_score"], strict=True
    ):
        assert_same_cell(fast, slow)


@pytest.mark.slow
def test_batch_path_honours_bound_mapping_and_multiple_references(similarity, scorer):
    frame = pd.DataFrame(
        {
            "answer": ["The hotel has 48 rooms."],
            "gold": [{"texts": ["It has 36 rooms.", "The hotel has 36 rooms."]}],
        }
    )
    bound = bind_evaluator(
        evaluator=similarity, input_mapping={"output": "answer", "reference": "gold.texts"}
    )
    [cell] = batch_evaluate_dataframe(frame, bound)["bertscore_score"]
    best = scorer.score(["The hotel has 48 rooms."], [["It has 36 rooms.", "The hotel has 36 rooms."]])
    assert cell["score"] == pytest.approx(float(best.f1[0]), abs=1e-6)
    renamed = batch_evaluate_dataframe(
        frame.assign(ref=["The hotel has 36 rooms."]),
        similarity,
        input_mapping={"output": "answer", "reference": "ref"},
    )
    assert renamed["bertscore_score"].iloc[0]["score"] == pytest.approx(
        float(scorer.score(["The hotel has 48 rooms."], ["The hotel has 36 rooms."]).f1[0]), abs=1e-6
    )


def test_batch_path_bad_row_raises_or_is_marked(similarity):
    frame = pd.DataFrame(
        {"output": ["fine text", None, "more text"], "reference": ["fine text", "x", "more"]}
    )
    with pytest.raises(InputError, match="row 1"):
        batch_evaluate_dataframe(frame, similarity)
    marked = batch_evaluate_dataframe(frame, similarity, exit_on_error=False)
    statuses = [d["status"] for d in marked["bertscore_execution_details"]]
    assert statuses == ["COMPLETED", "FAILED", "COMPLETED"]
    assert "row 1" in marked["bertscore_execution_details"].iloc[1]["exceptions"][0]
    assert marked["bertscore_score"].iloc[1] is None
    assert marked["bertscore_score"].iloc[0]["score"] == pytest.approx(1.0, abs=1e-5)


def test_batch_cells_become_code_annotations_unchanged(similarity):
    annotations = to_annotation_dataframe(dataframe=batch_evaluate_dataframe(ROWS, similarity))
    assert list(annotations["context.span_id"]) == list(ROWS.index)
    assert set(annotations["annotation_name"]) == {"bertscore"}
    assert set(annotations["annotator_kind"]) == {"CODE"}
    assert annotations["metadata"].iloc[0]["direction"] == "maximize"
    assert set(annotations["label"]) <= {"similar", "dissimilar"}


# -- GroundednessEvaluator --------------------------------------------------------------------------


def test_groundedness_is_precision_against_the_context(scorer):
    grounded = GroundednessEvaluator(0.8, scorer=scorer)
    assert grounded.describe()["kind"] == "code"
    assert set(grounded.describe()["input_schema"]["properties"]) == {"output", "context"}
    passages = ["Opening hours are posted online.", ROWS.context.iloc[3]]
    [score] = grounded.evaluate({"output": ROWS.output.iloc[3], "context": passages})
    core = scorer.score([ROWS.output.iloc[3]], ["\n\n".join(passages)])
    assert score.name == "groundedness"
    assert score.score == pytest.approx(float(core.precision[0]), abs=1e-6)
    assert score.metadata["f1"] == pytest.approx(float(core.f1[0]), abs=1e-6)
    assert score.label == "grounded"
    assert score.explanation.startswith("precision against the context")
    [off_topic] = grounded.evaluate({"output": "Penguins dive for fish.", "context": ROWS.context.iloc[3]})
    assert off_topic.label == "ungrounded" and off_topic.score < 0.8


# -- judge runner -----------------------------------------------------------------------------------


def test_run_judge_marks_a_failing_row_and_finishes_the_rest():
    fake = FakeJudgeLLM(VERDICTS, fail_on="48 rooms", delay=0.05)
    judged = run_judge(ROWS, fake, concurrency=2, max_retries=1)
    statuses = [d["status"] for d in judged["faithfulness_execution_details"]]
    assert statuses == ["COMPLETED", "FAILED", "COMPLETED", "COMPLETED"]
    assert "judge exploded" in judged["faithfulness_execution_details"].iloc[1]["exceptions"][-1]
    labels = [c and c["label"] for c in judged["faithfulness_score"]]
    assert labels == ["unfaithful", None, "faithful", "faithful"]
    cell = judged["faithfulness_score"].iloc[0]
    assert cell["kind"] == "llm" and cell["score"] == 0.0 and cell["metadata"]["model"] == "fake-judge"
    assert fake.max_in_flight <= 2
    assert fake.calls == 5  # 4 rows + one retry of the failing row


def test_ctrl_c_during_the_judge_reaches_the_caller_and_cancels_the_requests():
    """Phoenix's executor on the main thread takes SIGINT for itself and returns the rows judged so far as
    if the run had finished; then `phoenix evaluate --follow` kept polling after Ctrl-C."""
    import signal
    import time

    slow = FakeJudgeLLM(VERDICTS, delay=3.0)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a library's may be left here
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_judge(ROWS, slow, concurrency=1, max_retries=0)
    finally:
        timer.cancel()
        after = signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 2.5  # not after the 4 x 3 s of judging
    time.sleep(0.5)
    assert slow.calls == 0 and slow.in_flight == 0  # the sleeping request was cancelled, none finished
    assert after is signal.default_int_handler  # run_judge left no handler of its own


def test_run_judge_keeps_the_score_column_when_every_row_fails():
    judged = run_judge(ROWS, FakeJudgeLLM(VERDICTS, fail_on="<query>"), max_retries=0)
    assert "faithfulness_score" in judged.columns
    assert judged["faithfulness_score"].isna().all()


# -- disagreement -----------------------------------------------------------------------------------


def test_disagreement_label_quadrants():
    cuts = Thresholds(similarity=0.9, faithfulness=0.5)
    assert disagreement_label(0.95, 0.0, cuts) == "high_sim_unfaithful"
    assert disagreement_label(0.50, 1.0, cuts) == "low_sim_faithful"
    assert disagreement_label(0.95, 1.0, cuts) == "agree"
    assert disagreement_label(0.50, 0.0, cuts) == "agree"
    assert disagreement_label(0.90, 0.5, cuts) == "agree"  # cuts are inclusive: high and faithful


def test_thresholds_from_quantiles():
    binary = Thresholds.from_quantiles([0.1, 0.5, 0.9, 1.0], [0.0, 1.0, 1.0, 0.0])
    assert binary.similarity == pytest.approx(0.7) and binary.faithfulness == 0.5
    assert binary.source.startswith("quantile(") and "binary" in binary.source
    continuous = Thresholds.from_quantiles([0.1, 0.5, 0.9], [0.2, 0.4, 0.8], similarity_quantile=0.0)
    assert continuous.similarity == pytest.approx(0.1) and continuous.faithfulness == pytest.approx(0.4)
    with pytest.raises(ValueError, match="no similarity scores"):
        Thresholds.from_quantiles([None], [1.0])
    with pytest.raises(ValueError, match="similarity_quantile must be a finite number from 0 to 1, got 2"):
        Thresholds.from_quantiles([0.5], [1.0], similarity_quantile=2)


@pytest.mark.slow
def test_evaluate_rows_with_a_judge(scorer):
    fake = FakeJudgeLLM(VERDICTS)
    results = evaluate_rows(
        ROWS, judge=faithfulness_evaluator(fake), scorer=scorer, thresholds=Thresholds(0.9, 0.5)
    )
    assert results.index.equals(ROWS.index)
    labels = [c["label"] for c in results["sim_faith_disagreement_score"]]
    assert labels == ["high_sim_unfaithful", "high_sim_unfaithful", "low_sim_faithful", "agree"]
    cell = results["sim_faith_disagreement_score"].iloc[0]
    assert set(cell) == SCORE_KEYS and cell["kind"] == "code" and cell["direction"] == "minimize"
    assert cell["score"] == 1.0 and results["sim_faith_disagreement_score"].iloc[3]["score"] == 0.0
    meta = cell["metadata"]
    assert meta["similarity"] == results["bertscore_score"].iloc[0]["score"]
    assert meta["faithfulness"] == 0.0 and meta["faithfulness_label"] == "unfaithful"
    assert meta["similarity_threshold"] == 0.9 and meta["faithfulness_threshold"] == 0.5
    assert meta["threshold_source"] == "fixed"
    assert meta["judge_explanation"] == "fake verdict unfaithful"
    assert "Thursday -> Tuesday" in meta["similarity_explanation"]
    annotations = to_annotation_dataframe(dataframe=results)
    kinds = annotations.groupby("annotation_name")["annotator_kind"].first().to_dict()
    assert kinds == {
        "bertscore": "CODE",
        "groundedness": "CODE",
        "offline_faithfulness": "CODE",
        "faithfulness": "LLM",
        "sim_faith_disagreement": "CODE",
    }


@pytest.mark.slow
def test_evaluate_rows_without_a_judge_uses_groundedness(scorer):
    results = evaluate_rows(ROWS, scorer=scorer)
    assert "faithfulness_score" not in results.columns
    meta = results["sim_faith_disagreement_score"].iloc[0]["metadata"]
    # the offline signal reads groundedness and the fact check from one core call
    assert meta["faithfulness_signal"] == "offline_faithfulness"
    assert meta["faithfulness"] == results["offline_faithfulness_score"].iloc[0]["score"]
    offline_meta = results["offline_faithfulness_score"].iloc[0]["metadata"]
    assert offline_meta["groundedness"] == results["groundedness_score"].iloc[0]["score"]
    assert meta["faithfulness_threshold"] == 0.5  # the offline faithfulness label cut (facts)
    quantiles = evaluate_rows(ROWS, scorer=scorer, thresholds="quantile")
    qmeta = quantiles["sim_faith_disagreement_score"].iloc[0]["metadata"]
    sims = [c["score"] for c in quantiles["bertscore_score"]]
    assert qmeta["similarity_threshold"] == pytest.approx(float(np.quantile(sims, 0.5)))
    assert qmeta["threshold_source"].startswith("quantile(")


def test_evaluate_rows_names_missing_columns(scorer):
    with pytest.raises(KeyError, match=r"'reference'.*reference_column"):
        evaluate_rows(ROWS.drop(columns="reference"), scorer=scorer)


@pytest.mark.slow
def test_failed_judge_row_gets_the_offline_disagreement_with_the_reason(scorer):
    results = evaluate_rows(
        ROWS,
        judge=faithfulness_evaluator(FakeJudgeLLM(VERDICTS, fail_on="Aoife")),
        scorer=scorer,
        judge_max_retries=0,
    )
    assert results["faithfulness_score"].iloc[2] is None  # the judge's own cell stays failed
    cell = results["sim_faith_disagreement_score"].iloc[2]
    offline = results["offline_faithfulness_score"].iloc[2]
    assert cell["metadata"]["faithfulness_signal"] == "offline_faithfulness"
    assert cell["metadata"]["faithfulness"] == offline["score"]
    assert "the judge gave no verdict (" in cell["explanation"] and cell["metadata"]["judge_failed"]
    assert results["sim_faith_disagreement_execution_details"].iloc[2]["status"] == "COMPLETED"
    assert results["sim_faith_disagreement_score"].iloc[0]["label"] == "high_sim_unfaithful"
    annotations = to_annotation_dataframe(dataframe=results, score_names=["sim_faith_disagreement"])
    assert annotations["label"].notna().sum() == 4


def test_experiment_evaluators_share_the_judge_call(similarity):
    fake = FakeJudgeLLM(VERDICTS)
    sim, faith, disagreement = experiment_evaluators(
        similarity, faithfulness_evaluator(fake), Thresholds(0.9, 0.5)
    )
    assert [e.name for e in (sim, faith, disagreement)] == [
        "bertscore",
        "faithfulness",
        "sim_faith_disagreement",
    ]
    assert [e.kind for e in (sim, faith, disagreement)] == ["code", "llm", "code"]
    example = {  # what run_experiment hands a phoenix.evals evaluator
        "input": {"question": ROWS.input.iloc[0], "context": ROWS.context.iloc[0]},
        "output": ROWS.output.iloc[0],
        "expected": {"reference": ROWS.reference.iloc[0]},
        "metadata": {},
    }
    [verdict] = disagreement.evaluate(example)
    [judged] = faith.evaluate(example)
    assert verdict.label == "high_sim_unfaithful" and judged.label == "unfaithful"
    assert fake.calls == 1
    assert isinstance(disagreement, DisagreementEvaluator)
    [grounded] = experiment_evaluators(
        similarity, GroundednessEvaluator(scorer=similarity.scorer), Thresholds(0.9, 0.8)
    )[1].evaluate(example)
    assert grounded.name == "groundedness"


def test_filters_and_links():
    filters = disagreement_filters(similarity_threshold=0.9)
    assert filters["spans"]["high_sim_unfaithful"] == (
        "annotations['sim_faith_disagreement'].label == 'high_sim_unfaithful'"
    )
    assert "experiments[0].evals['sim_faith_disagreement']" in filters["experiments"]["disagreements"]
    assert "annotations['bertscore'].score >= 0.9" in filters["spans"]["similar_but_unfaithful"]
    assert (
        project_url("http://127.0.0.1:6006/", "UHJvamVjdDox") == "http://127.0.0.1:6006/projects/UHJvamVjdDox"
    )
    assert experiment_url("http://h:1", "D", "E") == "http://h:1/datasets/D/compare?experimentId=E"


def test_add_disagreement_needs_both_columns(similarity):
    with pytest.raises(KeyError, match="faithfulness_score"):
        add_disagreement(batch_evaluate_dataframe(ROWS, similarity), Thresholds(0.9))


# -- stub judge over real HTTP (Phoenix's OpenAI adapter) -------------------------------------------


def test_careful_judge_rules():
    context = (
        "Adults may take one tablet every six hours, with no more than four tablets a day. Do not drive."
    )
    assert careful_judge("q", context, "Take at most four tablets a day.")[0] == "faithful"
    label, why = careful_judge("q", context, "Take no more than six tablets a day.")
    assert label == "unfaithful" and "six tablets" in why
    label, why = careful_judge("q", "The clinic opens on Tuesday.", "The clinic opens on Thursday.")
    assert label == "unfaithful" and "Thursday" in why
    assert (
        careful_judge("q", "The jacket can be machine washed.", "It cannot be machine washed.")[0]
        == "unfaithful"
    )
    assert (
        careful_judge("q", "The council approved the plan.", "The council rejected the plan.")[0]
        == "unfaithful"
    )
    assert careful_judge("q", "Ferries leave hourly.", "Penguins dive deep.")[0] == "unfaithful"
    assert lookup_judge({"deep": "unfaithful"})("q", "c", "Penguins dive deep.")[0] == "unfaithful"


def test_stub_judge_structured_output(stub_judge):
    [score] = faithfulness_evaluator(stub_judge.llm()).evaluate(
        {"input": ROWS.input.iloc[0], "output": ROWS.output.iloc[0], "context": ROWS.context.iloc[0]}
    )
    assert score.label == "unfaithful" and "Thursday" in score.explanation
    assert stub_judge.log.answers == [(200, "json_schema")]
    assert stub_judge.log.bodies[0]["response_format"]["type"] == "json_schema"


@pytest.mark.slow
def test_stub_judge_tool_calling_fallback_and_failing_row(make_stub_judge):
    stub = make_stub_judge(reject_response_format=True, fail_when=["48 rooms"])
    judged = run_judge(ROWS, stub.llm(), concurrency=1, max_retries=0)
    labels = [c and c["label"] for c in judged["faithfulness_score"]]
    assert labels == ["unfaithful", None, "faithful", "faithful"]
    assert judged["faithfulness_execution_details"].iloc[1]["status"] == "FAILED"
    modes = [mode for _, mode in stub.log.answers]
    assert modes[0] == "rejected_response_format"  # first try json_schema -> HTTP 400
    assert modes.count("tool_calling") == 3 and modes.count("failed") == 1
    assert all(
        "tools" in body
        for body, (_, mode) in zip(stub.log.bodies, stub.log.answers, strict=True)
        if mode != "rejected_response_format"
    )


def test_stub_judge_plain_text_fails_the_row(make_stub_judge):
    stub = make_stub_judge(plain_text=True)
    judged = run_judge(ROWS.iloc[:1], stub.llm(), max_retries=0)
    assert judged["faithfulness_execution_details"].iloc[0]["status"] == "FAILED"


# -- server launcher (no server started here) -------------------------------------------------------


def test_server_refuses_non_loopback_hosts(tmp_path):
    with pytest.raises(ValueError, match="loopback"):
        PhoenixServer(host="0.0.0.0", workdir=tmp_path)
    assert PhoenixServer(host="localhost", workdir=tmp_path).host == "127.0.0.1"


def test_missing_venv_is_reported_with_the_fix(tmp_path):
    with pytest.raises(PhoenixServerError, match=re.escape("pip install 'arize-phoenix==20.26.1'")):
        ensure_phoenix_venv(tmp_path / "no-venv", create=False)


def test_stale_pid_file_is_removed(tmp_path):
    # a live server of ours is refused: tests/tools/test_phoenix_launcher.py
    server = PhoenixServer(workdir=tmp_path)
    server.pid_file.write_text("999999999\n")  # no such process
    server._claim_pid_file()
    assert not server.pid_file.exists()
    server.pid_file.write_text(f"{os.getpid()}\n")  # a live process, but not Phoenix: this test
    server._claim_pid_file()
    assert not server.pid_file.exists()


@pytest.mark.slow
def test_stub_judge_process_mode_serves_on_loopback():
    stub = subprocess.Popen(
        [sys.executable, stub_judge_module.__file__, "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = stub.stdout.readline().split()
        assert first[0] == "LISTENING" and int(first[1]) > 0
        reply = httpx.get(f"http://127.0.0.1:{first[1]}/v1/models", timeout=10)
        assert reply.json()["data"][0]["id"] == "stub-judge"
    finally:
        stub.terminate()  # SIGTERM to its pid
        stub.wait(timeout=30)
    assert stub.returncode == 0


def test_phoenix_serve_command_options(capsys):
    import argparse

    from bertscore_plugins.cli import phoenix as command

    parser = argparse.ArgumentParser(prog="bertscore-plugins")
    command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        [
            "phoenix",
            "serve",
            "--port",
            "0",
            "--grpc-port",
            "4318",
            "--workdir",
            "w",
            "--database-url",
            "postgresql://u@h/db",
        ]
    )
    assert (args.phoenix_command, args.port, args.grpc_port, args.workdir) == ("serve", 0, 4318, "w")
    assert args.database_url == "postgresql://u@h/db"
    assert command.run(parser.parse_args(["phoenix"])) == 2
    assert "phoenix serve" in capsys.readouterr().err

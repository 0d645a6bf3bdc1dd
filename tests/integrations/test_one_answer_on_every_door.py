"""One answer on every door: the offline faithfulness of the same rows, computed through every way in.

The rows (tests/support/door_rows.py, 54 of them) cross sources of about 50, 600 and 3,000 tokens, the
supporting sentence first, in the middle or last, answers in plain text, HTML or markdown, and one context
against the same context split into passages. Each door scores all of them once, with one shared scorer
(the packaged model, reading sources whole): the Python API, the ``faithfulness`` command, ``evaluate_rows``,
the Phoenix evaluator row by row and ``batch_evaluate_dataframe``, trace evaluation on a live Phoenix
server, the disagreement recipe and judge triage. Every door must give the API's score (within 1e-6; the
largest difference seen is 2e-8, a row scored alone rather than in a batch) and label for every row it can
express (the command line holds one text per line: not a list of passages; an empty answer or a refusal
gets the API's label and no score), and refuse a context with no
text (an empty text, a blank one, no passages) in the same words; a span cannot hold one (Phoenix keeps no
blank document), so trace evaluation skips it for "no context".

The API encodes each source with nothing cached; the other doors share one encoding of it (the fixture
says why that still tests them). The ``score`` command reports precision, recall and F1 only: it is no door
to this signal.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bertscore_plugins.errors import InputError
from bertscore_plugins.evaluation.cells import row_number
from bertscore_plugins.evaluation.names import OFFLINE_FAITHFULNESS
from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL
from bertscore_plugins.faithfulness.reading import NO_TEXT
from tests.support.door_rows import (
    FACTS,
    FORMATS,
    OUTCOME_ANSWERS,
    POSITIONS,
    SHAPES,
    SIZES,
    DoorRow,
    door_rows,
    empty_rows,
    hedged_rows,
    outcome_rows,
)
from tests.support.projects import unique_project, wait_for_roots

pytestmark = [pytest.mark.slow, pytest.mark.model]

TOLERANCE = 1e-6
JUDGE_VARIABLES = ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY")
CROSSED = door_rows()
#: empty, content-free and refusing answers: their own label (empty, abstained) on every door
OUTCOMES = outcome_rows()
#: answers that hedge, then claim: fact-checked like any answer on every door
HEDGED = hedged_rows()
ROWS = CROSSED + OUTCOMES + HEDGED
EMPTY = empty_rows()


@dataclass
class DoorAnswer:
    """What a door said: ``scores`` {row id: (score, label)} for the rows it can express (no score for an
    empty answer or a refusal, but in the API's result), ``refusals`` {row id: what it said} for the rows
    with an empty context."""

    scores: dict[str, tuple[float | None, str]] = field(default_factory=dict)
    refusals: dict[str, str] = field(default_factory=dict)


@dataclass
class Doors:
    """What the doors share: the scorer, a folder, the pytest request (for the Phoenix server)."""

    scorer: Any
    folder: Path
    request: pytest.FixtureRequest
    answers: dict[str, DoorAnswer] = field(default_factory=dict)
    triage: tuple[pd.DataFrame, EveryRowFaithful] | None = None

    def answer(self, door: str) -> DoorAnswer:
        """The door's answer, computed once per module."""
        if door not in self.answers:
            self.answers[door] = DOORS[door](self)
        return self.answers[door]


def one_text(row: DoorRow) -> bool:
    """A row the command line can hold: its texts on one line each, its context one text."""
    return isinstance(row.context, str) and "\n" not in row.context + row.output


def frame_of(rows: Sequence[DoorRow]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "input": [row.question for row in rows],
            "output": [row.output for row in rows],
            "context": [row.context for row in rows],
            "reference": [row.reference for row in rows],
        },
        index=[row.row_id for row in rows],
    )


def from_cells(frame: pd.DataFrame, name: str = OFFLINE_FAITHFULNESS) -> DoorAnswer:
    """Scores of the completed cells; the failure reason of the others."""
    found = DoorAnswer()
    for row_id, cell, details in zip(
        frame.index, frame[f"{name}_score"], frame[f"{name}_execution_details"], strict=True
    ):
        if cell is None:
            found.refusals[row_id] = details["exceptions"][0]
        else:
            found.scores[row_id] = (cell.get("score"), cell["label"])
    return found


def batch_reason(position: int, row_id: str) -> str:
    """How a batch door names a row with no context text in its failure cell."""
    return f"row {row_number(row_id, position)}: InputError: context {NO_TEXT}"


# -- the doors ---------------------------------------------------------------------------------------


def python_api(doors: Doors) -> DoorAnswer:
    from bertscore_plugins.faithfulness import offline_faithfulness

    found = offline_faithfulness([r.output for r in ROWS], [r.context for r in ROWS], scorer=doors.scorer)
    answer = DoorAnswer(
        {row.row_id: (result.score, result.label) for row, result in zip(ROWS, found, strict=True)}
    )
    for row in EMPTY:
        with pytest.raises(InputError) as refused:
            offline_faithfulness([row.output], [row.context], scorer=doors.scorer)
        answer.refusals[row.row_id] = str(refused.value)
    return answer


def run_command(argv: list[str]) -> tuple[int, str]:
    """``bertscore-plugins ARGV`` in this process: (exit status, stderr)."""
    from bertscore_plugins.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def faithfulness_command(doors: Doors) -> DoorAnswer:
    rows = [row for row in ROWS if one_text(row)]
    folder = doors.folder / "command"
    folder.mkdir()

    def files(tag: str, chosen: list[DoorRow]) -> list[str]:
        outputs, sources = folder / f"{tag}-outputs.txt", folder / f"{tag}-sources.txt"
        outputs.write_text("".join(row.output + "\n" for row in chosen), encoding="utf-8")
        sources.write_text("".join(row.context + "\n" for row in chosen), encoding="utf-8")
        return ["faithfulness", "-c", str(outputs), "-s", str(sources), "--summary", str(folder / "s.json")]

    result = folder / "rows.jsonl"
    code, err = run_command([*files("rows", rows), "-o", str(result), "--format", "jsonl"])
    assert code == 0, err
    written = [json.loads(line) for line in result.read_text(encoding="utf-8").splitlines()]
    answer = DoorAnswer({rows[r["row"]].row_id: (r["score"], r["label"]) for r in written})
    for row in filter(one_text, EMPTY):  # a list of passages has no form in a file of lines
        code, err = run_command(files(row.row_id, [row]))
        assert code == 2 and len(err.splitlines()) == 1, err
        answer.refusals[row.row_id] = err.strip()
    return answer


def dataframe_door(doors: Doors) -> DoorAnswer:
    from bertscore_plugins.evaluation.dataframe import evaluate_rows

    return from_cells(evaluate_rows(frame_of(ROWS + EMPTY), scorer=doors.scorer, exit_on_error=False))


def evaluator_row_by_row(doors: Doors) -> DoorAnswer:
    from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator

    evaluator = OfflineFaithfulnessEvaluator(scorer=doors.scorer)
    answer = DoorAnswer()
    for row in ROWS:
        [score] = evaluator.evaluate({"output": row.output, "context": row.context})
        answer.scores[row.row_id] = (score.score, score.label)
    for row in EMPTY:
        with pytest.raises(InputError) as refused:
            evaluator.evaluate({"output": row.output, "context": row.context})
        answer.refusals[row.row_id] = str(refused.value)
    return answer


def batch_evaluate_door(doors: Doors) -> DoorAnswer:
    from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator, batch_evaluate_dataframe

    evaluator = OfflineFaithfulnessEvaluator(scorer=doors.scorer)
    frame = frame_of(ROWS + EMPTY)[["output", "context"]]
    return from_cells(batch_evaluate_dataframe(frame, evaluator, exit_on_error=False))


def trace_evaluation(doors: Doors) -> DoorAnswer:
    """Each row a trace (a CHAIN root with the question and the answer, a RETRIEVER child with the
    passages, as instrumentors write them) on the session's Phoenix; evaluate_project annotates them."""
    from phoenix.client import Client

    from bertscore_plugins.integrations.phoenix import evaluate_project

    server = doors.request.getfixturevalue("phoenix_server")
    project = unique_project("one-answer")
    spans = log_rows(server.otlp_http_endpoint, project, ROWS + EMPTY)
    client = Client(base_url=server.base_url)
    wait_for_roots(client, project, len(spans))
    report = evaluate_project(
        project, client=client, store=doors.folder / "store.sqlite", scorer=doors.scorer
    )
    annotations = {
        a["span_id"]: a["result"]
        for a in client.spans.get_span_annotations(
            span_ids=list(spans), project_identifier=project, include_annotation_names=[OFFLINE_FAITHFULNESS]
        )
    }
    answer = DoorAnswer()
    for span_id, row_id in spans.items():
        if span_id in annotations:
            answer.scores[row_id] = (annotations[span_id].get("score"), annotations[span_id]["label"])
        else:  # Phoenix keeps no blank document: such a span has no context, and says so
            skipped = report.skipped[f"{OFFLINE_FAITHFULNESS}: no context"]
            answer.refusals[row_id] = f"skipped ({skipped} spans): no context"
    return answer


def log_rows(endpoint: str, project: str, rows: Sequence[DoorRow]) -> dict[str, str]:
    """``{root span id: row id}`` of one trace per row, exported to ``project``."""
    from openinference.semconv.trace import DocumentAttributes, SpanAttributes
    from phoenix.otel import register

    provider = register(
        project_name=project, endpoint=endpoint, batch=False, verbose=False, set_global_tracer_provider=False
    )
    tracer = provider.get_tracer("one-answer-on-every-door")
    content = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{{}}.{DocumentAttributes.DOCUMENT_CONTENT}"
    spans = {}
    try:
        for row in rows:
            with tracer.start_as_current_span("rag_query", openinference_span_kind="chain") as root:
                root.set_input(row.question)
                with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as span:
                    passages = row.context if isinstance(row.context, list) else [row.context]
                    for position, passage in enumerate(passages):
                        span.set_attribute(content.format(position), passage)
                root.set_output(row.output)
                spans[format(root.get_span_context().span_id, "016x")] = row.row_id
    finally:
        provider.force_flush()
        provider.shutdown()
    return spans


def recipe(doors: Doors) -> DoorAnswer:
    """``bertscore-plugins disagreement table.jsonl --no-phoenix`` with no judge configured."""
    from bertscore_plugins.cli import disagreement

    def run(tag: str, rows: Sequence[DoorRow]) -> tuple[int, str, Path]:
        table, out = doors.folder / f"{tag}.jsonl", doors.folder / f"{tag}-run"
        lines = [
            {"id": r.row_id, "question": r.question, "context": r.context, "output": r.output,
             "reference": r.reference}
            for r in rows
        ]  # fmt: skip
        table.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        err = io.StringIO()
        with (
            pytest.MonkeyPatch.context() as env,
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(err),
        ):
            for name in JUDGE_VARIABLES:
                env.delenv(name, raising=False)
            code = disagreement.main([str(table), "--out", str(out), "--no-phoenix"])
        return code, err.getvalue(), out

    code, err, out = run("rows", ROWS)
    assert code == disagreement.EXIT_OK, err
    scored = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    answer = DoorAnswer(
        {
            r["id"]: (r.get(f"{OFFLINE_FAITHFULNESS}_score"), r[f"{OFFLINE_FAITHFULNESS}_label"])
            for r in scored
        }
    )  # the flat scores table: one column per signal and part
    for row in EMPTY:
        code, err, _ = run(row.row_id, [row])
        assert code == disagreement.EXIT_BAD_INPUT and len(err.splitlines()) == 1, err
        answer.refusals[row.row_id] = err.strip()
    return answer


class EveryRowFaithful:
    """A judge (the engine's interface) that says every row it is asked about is faithful."""

    name, model = "faithfulness", "test/every-row-faithful"

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def verdicts(self, rows, *, concurrency, max_retries):
        from bertscore_plugins.evaluation.judge import Verdict

        self.asked += [row.key for row in rows]
        return [Verdict({"name": self.name, "score": 1.0, "label": FAITHFUL}) for _ in rows]


def judge_triage(doors: Doors) -> DoorAnswer:
    """``evaluate_rows`` with a judge asked only about the rows the offline signals do not settle."""
    from bertscore_plugins.evaluation.dataframe import evaluate_rows

    judge = EveryRowFaithful()
    frame = evaluate_rows(
        frame_of(ROWS + EMPTY), scorer=doors.scorer, exit_on_error=False, judge=judge, judge_rows="unsettled"
    )
    doors.triage = (frame, judge)
    return from_cells(frame)


DOORS: dict[str, Callable[[Doors], DoorAnswer]] = {
    "python API": python_api,
    "faithfulness command": faithfulness_command,
    "evaluate_rows": dataframe_door,
    "OfflineFaithfulnessEvaluator.evaluate": evaluator_row_by_row,
    "batch_evaluate_dataframe": batch_evaluate_door,
    "trace evaluation": trace_evaluation,
    "disagreement recipe": recipe,
    "judge triage": judge_triage,
}

#: how each door says a row's context has no text (the API's words; a batch's failure cell; a span)
REFUSALS: dict[str, Callable[[int, str], str]] = {
    "python API": lambda position, row_id: f"contexts[0] {NO_TEXT}",
    "faithfulness command": lambda position, row_id: f"error: contexts[0] {NO_TEXT}",
    "evaluate_rows": batch_reason,
    "OfflineFaithfulnessEvaluator.evaluate": lambda position, row_id: f"context {NO_TEXT}",
    "batch_evaluate_dataframe": batch_reason,
    "trace evaluation": lambda position, row_id: f"skipped ({len(EMPTY)} spans): no context",
    # a table of that one row: its data row 1, named by its id as the user counts rows
    "disagreement recipe": lambda position, row_id: (
        f"error: data row 1 (id {row_id!r}): column 'context' {NO_TEXT}"
    ),
    "judge triage": batch_reason,
}


@pytest.fixture(scope="module")
def doors(request, tmp_path_factory) -> Doors:
    """The API's answer is computed first, with nothing cached; the other doors then share a reference
    cache on the process-wide scorer (the one the command and the recipe build for themselves too), so
    each source is encoded once, not once per door. The cache is keyed by the exact text a door hands
    the scorer: a door that read a row differently (markup, passages joined another way, a source cut)
    misses it and is encoded afresh. Every door must still give the uncached answer within 1e-6."""
    from bertscore_plugins import ScoreConfig, get_scorer

    scorer = get_scorer(ScoreConfig(long_text="window"))
    assert scorer.reference_cache is None, "a test left a reference cache on the process-wide scorer"
    found = Doors(scorer, tmp_path_factory.mktemp("doors"), request)
    found.answer("python API")
    scorer.enable_reference_cache()
    try:
        yield found
    finally:
        scorer.disable_reference_cache()  # the process-wide scorer goes back as it was


# -- the tests ---------------------------------------------------------------------------------------


def test_the_rows_cross_every_size_position_form_and_shape(doors):
    assert len(CROSSED) == 54 and len({row.row_id for row in ROWS}) == 54 + len(OUTCOMES) + len(HEDGED)
    for row in CROSSED:
        text = row.context if isinstance(row.context, str) else " ".join(row.context)
        tokens = len(doors.scorer.tokenizer.content([text])[0][0])
        assert 0.8 * row.size <= tokens <= 1.25 * row.size, (row.row_id, tokens)
        [supporting] = [fact.sentence for fact in FACTS if fact.sentence in text]
        where = text.index(supporting) / (len(text) - len(supporting))
        assert where == {"first": 0.0, "last": 1.0}.get(row.position, where) and (
            row.position != "middle" or 0.25 < where < 0.75
        ), (row.row_id, where)
    assert {(row.size, row.position, row.form, row.shape) for row in CROSSED} == set(
        product(SIZES, POSITIONS, FORMATS, SHAPES)
    )
    api = doors.answer("python API").scores
    labels = [api[row.row_id][1] for row in CROSSED]
    assert labels.count(FAITHFUL) >= 10 and labels.count(UNFAITHFUL) >= 10


def test_empty_answers_and_refusals_get_their_own_label_never_faithful_or_unfaithful(doors):
    """The API's label for each; every other door must give the same (the test above), and the judge is
    never asked about them (the triage test below)."""
    api = doors.answer("python API").scores
    found = {row.row_id: api[row.row_id] for row in OUTCOMES}
    expected = {name: outcome for name, (_, outcome) in OUTCOME_ANSWERS.items()}
    assert {row_id: label for row_id, (_, label) in found.items()} == expected
    # an empty answer supports nothing: score 0; a refusal keeps the signal's (low) score
    assert all(score == 0.0 for row_id, (score, label) in found.items() if label == "empty")


def test_answers_that_hedge_then_claim_are_fact_checked_not_abstained(doors):
    """A refusal followed by a claim is read for faithfulness (every other door must give the API's label:
    the test below): the changed fine is unfaithful, never a refusal that escapes the check."""
    api = doors.answer("python API").scores
    labels = {row.row_id: api[row.row_id][1] for row in HEDGED}
    assert set(labels.values()) <= {FAITHFUL, UNFAITHFUL}
    assert labels["hedge-then-changed-fine"] == UNFAITHFUL


@pytest.mark.parametrize("door", [door for door in DOORS if door != "python API"])
def test_every_door_gives_the_api_score_and_label_for_every_row(doors, door):
    expected = doors.answer("python API").scores
    found = doors.answer(door).scores
    expressible = [row.row_id for row in ROWS if door != "faithfulness command" or one_text(row)]
    assert sorted(found) == sorted(expressible)
    differing = {
        row_id: (found[row_id], expected[row_id])
        for row_id in expressible
        if not gives_the_api_answer(found[row_id], expected[row_id])
    }
    assert differing == {}


def gives_the_api_answer(found: tuple[float | None, str], api: tuple[float, str]) -> bool:
    """The API's label, and its score within the tolerance; an answer that is no answer to judge (empty,
    abstained) has no score on any other door (the API's result alone keeps the signal's reading)."""
    (score, label), (api_score, api_label) = found, api
    if api_label in ("empty", "abstained"):
        return label == api_label and score is None
    return label == api_label and score is not None and abs(score - api_score) <= TOLERANCE


@pytest.mark.parametrize("door", list(DOORS))
def test_every_door_refuses_a_context_with_no_text_in_the_same_words(doors, door):
    refused = doors.answer(door).refusals
    rows = [row for row in EMPTY if door != "faithfulness command" or one_text(row)]
    expected = {row.row_id: REFUSALS[door](len(ROWS) + EMPTY.index(row), row.row_id) for row in rows}
    assert refused == expected


def test_rows_settled_offline_carry_the_offline_score_and_only_the_others_go_to_the_judge(doors):
    doors.answer("judge triage")
    (frame, judge), expected = doors.triage, doors.answer("python API").scores
    settled, asked, outcomes = [], [], {}
    for position, (row_id, offline, judged, details) in enumerate(
        zip(
            frame.index,
            frame[f"{OFFLINE_FAITHFULNESS}_score"],
            frame["faithfulness_score"],
            frame["faithfulness_execution_details"],
            strict=True,
        )
    ):
        if offline is None:  # no context: the judge is not asked either, and says why in the same words
            assert judged is None and details["exceptions"] == [batch_reason(position, row_id)]
        elif (judged.get("metadata") or {}).get("source") == "outcome":  # empty or a refusal: never asked
            outcomes[row_id] = judged["label"]
            assert judged["label"] == offline["label"] == expected[row_id][1]
        elif (judged.get("metadata") or {}).get("source") == "offline":
            settled.append(row_id)
            assert judged["metadata"]["offline_score"] == offline["score"]
            assert abs(offline["score"] - expected[row_id][0]) <= TOLERANCE
            assert judged["label"] == expected[row_id][1]  # the triage cuts lie on the label's side
        else:
            asked.append(row_id)
    assert judge.asked == asked and len(settled) >= 10 and len(asked) >= 5
    assert sorted(outcomes) == sorted(row.row_id for row in OUTCOMES)
    assert frame.attrs["judge_triage"] == {
        "rows": len(ROWS),
        "judged": len(asked),
        "saved": len(settled) + len(outcomes),
        "mode": "unsettled",
    }

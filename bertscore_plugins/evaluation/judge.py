"""The judge as an interface: rows in, verdicts out, a bounded number of requests in flight.

The engine asks a :class:`Judge` whether each output is faithful to its context; it never writes a judge
prompt and never imports an LLM library. Phoenix's own ``FaithfulnessEvaluator`` plugs in from the Phoenix
integration (``bertscore_plugins.integrations.phoenix.phoenix_judge.faithfulness_judge``); anything with a
``name`` and a ``verdicts`` method does too (a stub in tests, another framework's judge).

With ``judge_rows="unsettled"`` the offline signals settle the rows whose verdict is not in doubt
(:func:`settled_label`) and the judge sees only the rest.

    >>> class Always:
    ...     name, model = "faithfulness", "stub/always"
    ...     def verdicts(self, rows, *, concurrency, max_retries):
    ...         return [Verdict(Cell(self.name, 1.0, "faithful", None)) for _ in rows]
    >>> is_judge(Always())
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeGuard, runtime_checkable

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.cells import (
    FAILED,
    Cell,
    FactCheckMetadata,
    VerdictMetadata,
    as_cell,
    completed,
    exceptions_of,
    execution_details,
    outcome_cell,
    usable,
)
from bertscore_plugins.evaluation.names import FAITHFULNESS
from bertscore_plugins.faithfulness.outcome import WHY
from bertscore_plugins.faithfulness.result import FAITHFUL, UNFAITHFUL

#: the offline faithfulness score at or above which a row whose facts were checked and all carried needs
#: no judge ("faithful"), and at or below which a row with concrete evidence against it (an unsupported
#: fact, or a rare word the source never writes) needs none ("unfaithful"). Fitted on the development sets
#: (benchmarks/quality/triage.py -> results/triage.json, QUALITY.md section 8): the thresholds that settle the most rows
#: at no more than 5% disagreement with people: 35.3% of rows at 5.0%, against 20.5% at 7.3% for the
#: earlier rule (a fact alone, or groundedness >= 0.9).
SETTLED_FAITHFUL = 0.877
SETTLED_UNFAITHFUL = 0.131


@dataclass(frozen=True)
class JudgeRow:
    """What the judge reads of a row: the question, the answer and its context (passages joined)."""

    key: object
    input: object
    output: str
    #: the context: one text, or passages (a judge joins them as it reads them)
    context: str | Sequence[str]
    #: (start, end) spans of the context as the offline signal read it: the passages the answer aligns
    #: to, which a judge with a short window is shown instead of a long source
    passages: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for one row: a cell (None when it failed; a ``Score.to_dict()`` dict from another
    framework's judge is read as one by :func:`ask`) and its execution details (status, exceptions,
    seconds)."""

    cell: Cell | Mapping[str, object] | None
    details: Mapping[str, object] = field(default_factory=completed)


@runtime_checkable
class Judge(Protocol):
    """A faithfulness judge: ``name`` is its signal's name, ``model`` what the signature records of it
    (``provider/model``), ``verdicts`` answers for every row, in order, at most ``concurrency`` requests
    in flight and ``max_retries`` extra attempts per failing row; a failing row is a Verdict with no cell,
    never an exception that stops the others."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    def verdicts(self, rows: Sequence[JudgeRow], *, concurrency: int, max_retries: int) -> list[Verdict]: ...


def is_judge(value: object) -> TypeGuard[Judge]:
    """Whether ``value`` can serve as the judge (a :class:`Judge`)."""
    return isinstance(value, Judge) and isinstance(getattr(value, "name", None), str)


def ask(judge: Judge, rows: Sequence[JudgeRow], *, concurrency: int, max_retries: int) -> list[Verdict]:
    """The judge's verdicts, one per row, each with a usable cell or FAILED with the reason."""
    verdicts = list(judge.verdicts(rows, concurrency=concurrency, max_retries=max_retries))
    if len(verdicts) != len(rows):
        raise ArgumentError(f"judge {judge.name!r} gave {len(verdicts)} verdicts for {len(rows)} rows")
    return [_checked(verdict) for verdict in verdicts]


def _checked(verdict: Verdict) -> Verdict:
    details = dict(verdict.details or {})
    cell = as_cell(verdict.cell)
    if cell is not None and usable(cell):
        if not isinstance(cell.metadata, VerdictMetadata):  # another framework's judge: its metadata kept
            cell = replace(cell, metadata=VerdictMetadata(details=cell.metadata.to_dict()))
        return Verdict(cell, {**completed(), **details})
    reason = "; ".join(exceptions_of(details)) or "no verdict"
    return Verdict(None, {**completed(), **details, "status": FAILED, "exceptions": [reason[:500]]})


def verdict_cell(verdict: Verdict) -> Cell | None:
    """The cell of a verdict :func:`ask` checked."""
    return as_cell(verdict.cell)


def failed_verdict(reason: str, seconds: float = 0.0) -> Verdict:
    """A row the judge could not answer."""
    return Verdict(None, execution_details(FAILED, (reason,), seconds))


# -- triage: the rows the offline signals settle ----------------------------------------------------------


def settled_label(cell: Cell | None) -> str | None:
    """ "faithful" / "unfaithful" when the offline signal settles the row, None when the judge must see it.

    The one triage rule, on every door (the recipe, the DataFrame functions, the Phoenix evaluators, trace
    evaluation: all go through the batch engine). Settled faithful: the offline score at least
    ``SETTLED_FAITHFUL`` with every fact carried. Settled unfaithful: the offline score at most
    ``SETTLED_UNFAITHFUL`` with concrete evidence, an unsupported fact or a rare word the source never
    writes (a faithful answer in polite padding or in other words scores as low, and must be judged). A
    row whose facts were not checked (not English) is never settled, and an unsupported fact alone settles
    nothing (a third of the development rows it flags are faithful for people). The rest is for the judge.
    """
    if cell is None or cell.score is None or not usable(cell):
        return None
    meta = cell.metadata
    if not isinstance(meta, FactCheckMetadata) or not meta.fact_checked:
        return None  # not English (or not the offline signal's cell): the judge must see the row
    score = cell.score
    evidence = meta.fact_label == "unsupported" or bool(meta.novel_rare_word)
    if score <= SETTLED_UNFAITHFUL and evidence:
        return UNFAITHFUL
    if score >= SETTLED_FAITHFUL and meta.fact_label != "unsupported":
        return FAITHFUL
    return None


def outcome_judge_cell(outcome: str, name: str = FAITHFULNESS) -> Cell:
    """A judge-shaped cell for an answer that is no answer to judge (``empty``, ``abstained``:
    faithfulness/outcome.py): no judge is asked, on any door, so no judge can call an empty answer
    faithful or a refusal a hallucination."""
    explanation = f"judge not asked: the answer is {outcome} ({WHY.get(outcome, 'no answer to judge')})"
    return outcome_cell(name, outcome, explanation, VerdictMetadata("outcome"))


def settled_judge_cell(cell: Cell, label: str, name: str = FAITHFULNESS) -> Cell:
    """A judge-shaped cell for a row the offline signals settled (the judge was not asked)."""
    explanation = f"settled offline, judge not asked: {cell.explanation or ''}"
    score = 1.0 if label == FAITHFUL else 0.0
    return Cell(name, score, label, explanation, VerdictMetadata("offline", cell.score))

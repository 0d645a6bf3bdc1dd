"""What a signal says about one row (a cell) and how its run went (execution details), as typed values.

A :class:`Cell` holds the fields of ``phoenix.evals.Score`` (name, score, label, explanation, metadata, kind,
direction) with a typed metadata record per signal: :class:`BertScoreMetadata` (similarity, groundedness:
precision, recall, the worst and every token match), :class:`FactCheckMetadata` (the offline faithfulness:
the fact check's verdict and unsupported facts beside the groundedness it read), :class:`VerdictMetadata`
(the judge: where its verdict came from) and :class:`DisagreementMetadata` (the two scores and the thresholds
that place a row in its quadrant). It flows from the signals through the engine, the store and every sink,
and becomes a dict (``Cell.to_dict()``, the shape ``Score.to_dict()`` writes) only at the three edges: the
store's JSON, a Phoenix annotation or DataFrame cell, the flat scores table. :meth:`Cell.from_dict` reads
such a dict back (a DataFrame column, a stored cell).

A row that is no answer to judge (``empty``, ``abstained``: ``faithfulness.outcome``) carries its outcome
on every signal: as the label of each cell, with no score (None: never 0, never NaN; :func:`outcome_cell`), so
no mean, no score statistic and no threshold reads it; its metadata keeps what the signal read
(``metadata.outcome`` where a signal has parts of its own).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bertscore_plugins.core.token_match import TokenMatch
from bertscore_plugins.json_types import JSONValue

COMPLETED, FAILED, DID_NOT_RUN = "COMPLETED", "FAILED", "DID NOT RUN"


def _number(value: object) -> float | None:
    """``value`` as a finite float, or None (a bool is no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _matches(value: object) -> tuple[TokenMatch, ...] | None:
    """Token matches read back from ``[{"token", "matched_token", "similarity"}]`` or ``[[t, m, s]]``."""
    if not isinstance(value, list):
        return None
    found = []
    for item in value:
        if isinstance(item, Mapping):
            item = [item.get("token"), item.get("matched_token"), item.get("similarity")]
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            return None
        token, matched, similarity = item
        number = _number(similarity)
        if not isinstance(token, str) or not isinstance(matched, str) or number is None:
            return None
        found.append(TokenMatch(token, matched, number))
    return tuple(found)


@dataclass(frozen=True)
class BertScoreMetadata:
    """A BERTScore signal's parts: precision, recall (and F1 where the headline is another part), its
    threshold, the scorer's signature, the worst-matched tokens and (similarity) every token's best match
    in output order, which the report shades the answer with."""

    precision: float
    recall: float
    threshold: float
    signature: str
    worst_matches: tuple[TokenMatch, ...] = ()
    f1: float | None = None
    token_matches: tuple[TokenMatch, ...] | None = None
    outcome: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        found: dict[str, JSONValue] = {"precision": self.precision, "recall": self.recall}
        if self.f1 is not None:
            found["f1"] = self.f1
        found["threshold"] = self.threshold
        found["signature"] = self.signature
        found["worst_matches"] = [
            {"token": m.token, "matched_token": m.matched_token, "similarity": m.similarity}
            for m in self.worst_matches
        ]
        if self.token_matches is not None:
            found["token_matches"] = [[m.token, m.matched_token, m.similarity] for m in self.token_matches]
        if self.outcome is not None:
            found["outcome"] = self.outcome
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, JSONValue]) -> BertScoreMetadata | None:
        precision, recall = _number(data.get("precision")), _number(data.get("recall"))
        threshold, signature = _number(data.get("threshold")), _text(data.get("signature"))
        worst = _matches(data.get("worst_matches", []))
        token_matches = _matches(data["token_matches"]) if "token_matches" in data else None
        if None in (precision, recall, threshold, signature, worst) or (
            "token_matches" in data and token_matches is None
        ):
            return None
        assert precision is not None and recall is not None and threshold is not None  # for mypy
        return cls(
            precision,
            recall,
            threshold,
            str(signature),
            worst or (),
            _number(data.get("f1")),
            token_matches,
            _text(data.get("outcome")),
        )


#: the keys of the offline faithfulness' metadata read by name (the rest is carried as it is)
_FACT_KEYS = ("outcome", "fact_checked", "fact_label", "unsupported_facts", "novel_rare_word")


@dataclass(frozen=True)
class FactCheckMetadata:
    """The offline faithfulness' parts: the groundedness it was read with, its outcome (``empty`` /
    ``abstained``), whether the fact check read every fact, its verdict and the facts the context does not
    carry, whether the output writes a rare word the context never writes; ``parts`` carries its other
    parts (lexical support, the weakest sentence, the facts) as they are."""

    grounded: BertScoreMetadata
    outcome: str | None
    fact_checked: bool
    fact_label: str | None
    unsupported_facts: tuple[str, ...]
    novel_rare_word: float = 0.0
    parts: Mapping[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            **self.grounded.to_dict(),
            **self.parts,
            "outcome": self.outcome,
            "fact_checked": self.fact_checked,
            "fact_label": self.fact_label,
            "unsupported_facts": list(self.unsupported_facts),
            "novel_rare_word": self.novel_rare_word,
        }

    @property
    def vouched(self) -> bool:
        """The fact check read every fact and found none unsupported."""
        return self.fact_checked and self.fact_label != "unsupported"

    @classmethod
    def from_dict(cls, data: Mapping[str, JSONValue]) -> FactCheckMetadata | None:
        grounded = BertScoreMetadata.from_dict({k: v for k, v in data.items() if k != "outcome"})
        unsupported = data.get("unsupported_facts", [])
        checked = data.get("fact_checked")
        rare = _number(data.get("novel_rare_word", 0.0))
        if (
            grounded is None
            or not isinstance(checked, bool)
            or not isinstance(unsupported, list)
            or rare is None
        ):
            return None
        parts = {k: v for k, v in data.items() if k not in _FACT_KEYS and k not in grounded.to_dict()}
        return cls(
            grounded,
            _text(data.get("outcome")),
            checked,
            _text(data.get("fact_label")),
            tuple(str(item) for item in unsupported),
            rare,
            parts,
        )


#: where a judge-shaped cell's verdict came from: the judge itself, the offline signals (triage settled the
#: row, the judge was not asked), or the answer's outcome (no answer to judge: empty or abstained)
JUDGE_SOURCES = ("judge", "offline", "outcome")


@dataclass(frozen=True)
class VerdictMetadata:
    """The judge's cell: where its verdict came from (``source``, one of :data:`JUDGE_SOURCES`; None for a
    judge that does not say), the offline score a settled row carries, and what the judge adds (``details``:
    its model, prompt, first token, ...)."""

    source: str | None = None
    offline_score: float | None = None
    details: Mapping[str, JSONValue] = field(default_factory=dict)

    @property
    def asked(self) -> bool:
        """The judge read this row (it was neither settled offline nor no answer to judge)."""
        return self.source not in ("offline", "outcome")

    def to_dict(self) -> dict[str, JSONValue]:
        found: dict[str, JSONValue] = {}
        if self.source is not None:
            found["source"] = self.source
        if self.offline_score is not None or self.source == "offline":
            found["offline_score"] = self.offline_score
        return {**found, **self.details}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSONValue]) -> VerdictMetadata:
        details = {k: v for k, v in data.items() if k not in ("source", "offline_score")}
        return cls(_text(data.get("source")), _number(data.get("offline_score")), details)


@dataclass(frozen=True)
class DisagreementMetadata:
    """The disagreement's reading of a row: both scores (None where the answer is no answer to judge and
    similarity has none), both thresholds and where they came from, which signals were read, the
    faithfulness label and both explanations; ``judge_failed`` says why the offline faithfulness stood in
    for a judge that gave no verdict."""

    similarity: float | None
    faithfulness: float | None
    similarity_threshold: float
    faithfulness_threshold: float
    threshold_source: str
    similarity_signal: str
    faithfulness_signal: str
    faithfulness_label: str | None = None
    judge_explanation: str | None = None
    similarity_explanation: str | None = None
    judge_failed: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        found: dict[str, JSONValue] = {
            "similarity": self.similarity,
            "faithfulness": self.faithfulness,
            "similarity_threshold": self.similarity_threshold,
            "faithfulness_threshold": self.faithfulness_threshold,
            "threshold_source": self.threshold_source,
            "similarity_signal": self.similarity_signal,
            "faithfulness_signal": self.faithfulness_signal,
            "faithfulness_label": self.faithfulness_label,
            "judge_explanation": self.judge_explanation,
            "similarity_explanation": self.similarity_explanation,
        }
        if self.judge_failed is not None:
            found["judge_failed"] = self.judge_failed
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, JSONValue]) -> DisagreementMetadata | None:
        similarity_threshold = _number(data.get("similarity_threshold"))
        faithfulness_threshold = _number(data.get("faithfulness_threshold"))
        if similarity_threshold is None or faithfulness_threshold is None:
            return None
        return cls(
            _number(data.get("similarity")),
            _number(data.get("faithfulness")),
            similarity_threshold,
            faithfulness_threshold,
            _text(data.get("threshold_source")) or "fixed",
            _text(data.get("similarity_signal")) or "similarity",
            _text(data.get("faithfulness_signal")) or "faithfulness",
            _text(data.get("faithfulness_label")),
            _text(data.get("judge_explanation")),
            _text(data.get("similarity_explanation")),
            _text(data.get("judge_failed")),
        )


@dataclass(frozen=True)
class OtherMetadata:
    """The metadata of a cell this package did not write (another evaluator's column), carried as it is."""

    values: Mapping[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return dict(self.values)


Metadata = BertScoreMetadata | FactCheckMetadata | VerdictMetadata | DisagreementMetadata | OtherMetadata


def metadata_from_dict(data: Mapping[str, JSONValue]) -> Metadata:
    """The typed record a metadata dict holds, told by its keys (names are the user's to choose)."""
    found: Metadata | None = None
    if "similarity_threshold" in data and "faithfulness_threshold" in data:
        found = DisagreementMetadata.from_dict(data)
    elif "fact_checked" in data:
        found = FactCheckMetadata.from_dict(data)
    elif "precision" in data and "signature" in data:
        found = BertScoreMetadata.from_dict(data)
    elif "source" in data:
        found = VerdictMetadata.from_dict(data)
    return found if found is not None else OtherMetadata(dict(data))


@dataclass(frozen=True)
class Cell:
    """One signal's result for one row (the fields of ``phoenix.evals.Score``, in its order)."""

    name: str
    score: float | None
    label: str | None
    explanation: str | None
    metadata: Metadata = field(default_factory=OtherMetadata)
    kind: str | None = "code"
    direction: str = "maximize"

    def to_dict(self) -> dict[str, JSONValue]:
        """The cell as ``Score.to_dict()`` writes it: every field that is not None."""
        found: dict[str, JSONValue] = {"name": self.name}
        for key in ("score", "label", "explanation"):
            if getattr(self, key) is not None:
                found[key] = getattr(self, key)
        found["metadata"] = self.metadata.to_dict()
        if self.kind is not None:
            found["kind"] = self.kind
        found["direction"] = self.direction
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Cell:
        """A cell from its ``Score.to_dict()`` dict (a DataFrame column, a stored cell); a score that is no
        finite number, or a label that is no text, is read as missing."""
        metadata = data.get("metadata")
        kind = data.get("kind", "code")
        return cls(
            str(data.get("name", "")),
            _number(data.get("score")),
            _text(data.get("label")),
            _text(data.get("explanation")),
            metadata_from_dict(metadata) if isinstance(metadata, Mapping) else OtherMetadata(),
            kind if isinstance(kind, str) or kind is None else "code",
            _text(data.get("direction")) or "maximize",
        )

    def relabelled(self, label: str | None, metadata: Metadata | None = None) -> Cell:
        """This cell with another label (and metadata)."""
        return replace(self, label=label, metadata=self.metadata if metadata is None else metadata)


def outcome_cell(
    name: str, outcome: str, explanation: str, metadata: Metadata, direction: str = "maximize"
) -> Cell:
    """The cell of a row that is no answer to judge (``outcome``: ``empty`` or ``abstained``), on any signal:
    the outcome is its label and it has no score, so every sink (the store, the flat table, the report, a
    Phoenix annotation) shows none and every mean leaves it out."""
    return Cell(name, None, outcome, explanation, metadata, direction=direction)


def as_cell(value: object) -> Cell | None:
    """``value`` as a cell: a :class:`Cell` as it is, a ``Score.to_dict()`` dict read back, else None (a
    DataFrame's empty cell, a failed row)."""
    if isinstance(value, Cell):
        return value
    if isinstance(value, Mapping):
        return Cell.from_dict(value)
    return None


#: execution details as Phoenix's dataframe evaluation writes them: status, exceptions, seconds
Details = dict[str, object]


def execution_details(status: str, exceptions: Sequence[str] = (), seconds: float = 0.0) -> Details:
    """``{"status", "exceptions", "execution_seconds"}`` as Phoenix's dataframe evaluation writes them."""
    return {"status": status, "exceptions": list(exceptions), "execution_seconds": seconds}


def completed(seconds: float = 0.0) -> Details:
    return execution_details(COMPLETED, (), seconds)


def failed(reason: str, seconds: float = 0.0) -> Details:
    return execution_details(FAILED, (reason,), seconds)


def exceptions_of(details: Mapping[str, object] | None) -> list[str]:
    """The exception texts of execution details (none when there are none or they are not texts)."""
    found = (details or {}).get("exceptions")
    return [str(item) for item in found] if isinstance(found, list) else []


def usable(cell: Cell | None) -> bool:
    """A cell with a finite numeric score (a failed row's cell is None)."""
    return cell is not None and cell.score is not None and math.isfinite(cell.score)


def row_number(index: object, position: int) -> str:
    """How errors name a row: its position, and its index when that differs ("3 (index 'q-7')")."""
    return str(position) if index == position else f"{position} (index {index!r})"

"""The BERTScore signals of a row, computed with the core: similarity, groundedness, offline faithfulness.

Each :class:`Signal` turns one row of a core ``Scores`` (scored with ``explain=True``) into a cell; the
three share one reading of the result, differing in which score is the headline, their labels and what they
add. :func:`signal_cells` scores a batch of (output, reference-or-context) pairs in ONE core call and gives
every signal's cell for every pair, so groundedness and the offline faithfulness read the same alignment.

    >>> signal = Similarity(name="bertscore", threshold=0.9)
    >>> cells = signal_cells(get_scorer(), [signal], {0: ("Left on Thursday.", "Left on Tuesday.")})
    ...                                                                               # doctest: +SKIP
    >>> cells["bertscore"][0]["label"]                                                # doctest: +SKIP
    'similar'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bertscore_plugins.core.token_match import TokenMatch
from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.cells import BertScoreMetadata, Cell, FactCheckMetadata, outcome_cell
from bertscore_plugins.evaluation.names import (
    DISSIMILAR,
    GROUNDED,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILAR,
    SIMILARITY,
    UNGROUNDED,
)
from bertscore_plugins.faithfulness import (
    FAITHFUL,
    UNFAITHFUL,
    OfflineFaithfulness,
    context_problem,
    join_context,
    read_batch,
)
from bertscore_plugins.faithfulness.outcome import WHY
from bertscore_plugins.inputs import text_problem
from bertscore_plugins.thresholds import (
    DEFAULT_GROUNDEDNESS_THRESHOLD,
    DEFAULT_SIMILARITY_THRESHOLD,
    FAITHFULNESS_THRESHOLD,
)

if TYPE_CHECKING:
    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.core.scores import Scores


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def no_score(outcome: str) -> str:
    """The explanation of a signal's cell for an answer that is no answer to judge."""
    return f"no score: the answer is {outcome} ({WHY.get(outcome, 'no answer to judge')})"


@dataclass(frozen=True)
class Signal:
    """A BERTScore signal: its annotation name, label threshold and how many worst-matched tokens it names.

    ``reads`` is the row field scored against the output ("reference" or "context").
    """

    name: str
    threshold: float
    explain_k: int = 3

    reads = "reference"
    labels = (SIMILAR, DISSIMILAR)
    #: whether the cell keeps every output token's best match (``token_matches``: [token, matched token,
    #: similarity] in output order), read by reports that shade the answer: no second core call for them
    keeps_matches = False

    def __post_init__(self) -> None:
        # the threshold was checked where the user gave it (thresholds.check_threshold: the configuration, an evaluator)
        object.__setattr__(self, "threshold", float(self.threshold))
        object.__setattr__(self, "explain_k", int(self.explain_k))

    def headline(self, precision: float, recall: float, f1: float) -> float:
        return f1

    def explanation_head(self, precision: float, recall: float, f1: float) -> str:
        return f"F1 {_fmt(f1)} (P {_fmt(precision)}, R {_fmt(recall)})"

    def extra_f1(self, f1: float) -> float | None:
        """F1 as a part of the metadata, where the headline is another part (groundedness)."""
        return None

    def cell(self, result: Scores, row: int, outcome: str | None = None) -> Cell:
        """This signal's cell for row ``row`` of a core ``Scores`` (computed with ``explain=True``)."""
        precision, recall, f1 = (
            float(result.precision[row]),
            float(result.recall[row]),
            float(result.f1[row]),
        )
        value = self.headline(precision, recall, f1)
        explained = result.explanations[row] if result.explanations else None
        worst = explained.worst(self.explain_k) if explained is not None else []
        summary = explained.summary(self.explain_k) if explained is not None else ""
        explanation = self.explanation_head(precision, recall, f1) + (
            f"; worst: {summary}" if summary else ""
        )
        metadata = BertScoreMetadata(
            precision,
            recall,
            self.threshold,
            str(result.signature),
            tuple(TokenMatch(m.token, m.matched_token, float(m.similarity)) for m in worst),
            self.extra_f1(f1),
            tuple(
                TokenMatch(m.token, m.matched_token, round(float(m.similarity), 4))
                for m in explained.candidate_matches
            )
            if self.keeps_matches and explained is not None
            else None,
            outcome,
        )
        if outcome is not None:  # no answer to judge: that is its label, and it has no score to average
            return outcome_cell(self.name, outcome, no_score(outcome), metadata)
        label = self.labels[0] if value >= self.threshold else self.labels[1]
        return Cell(self.name, value, label, explanation, metadata)


class Similarity(Signal):
    """BERTScore F1 of the output against a reference: "similar" at or above the threshold; its cell keeps the
    token matches (the report shades the answer with them)."""

    keeps_matches = True


class Groundedness(Signal):
    """BERTScore precision of the output against its context: is each output token supported by some
    context token? (On FRANK, BERTScore-P against the article correlates 0.62 with human factuality,
    F1 against the reference 0.08.)"""

    reads = "context"
    labels = (GROUNDED, UNGROUNDED)

    def headline(self, precision: float, recall: float, f1: float) -> float:
        return precision

    def explanation_head(self, precision: float, recall: float, f1: float) -> str:
        return f"precision against the context {precision:.3f} (R {recall:.3f}, F1 {f1:.3f})"

    def extra_f1(self, f1: float) -> float | None:
        return f1


class OfflineSignal(Groundedness):
    """The offline faithfulness (``bertscore_plugins.faithfulness``) as a cell: groundedness combined with
    the fact check, read from the same alignment. Its cells come from the batch's one call into
    ``faithfulness.read_batch`` (:func:`signal_cells`), never from a second reading of the row."""

    labels = (FAITHFUL, UNFAITHFUL)

    def offline_cell(self, result: Scores, row: int, found: OfflineFaithfulness) -> Cell:
        """The cell of row ``row``: ``found`` (read at this signal's threshold) with the groundedness
        metadata of the same core result."""
        grounded = super().cell(result, row).metadata
        assert isinstance(grounded, BertScoreMetadata)
        score, label, explanation, parts = found.cell_parts()
        unsupported = parts.pop("unsupported_facts")
        metadata = FactCheckMetadata(
            grounded,
            parts.pop("outcome"),
            parts.pop("fact_checked"),
            parts.pop("fact_label"),
            tuple(str(item) for item in unsupported),
            float(parts.pop("novel_rare_word")),
            parts,
        )
        if found.outcome is not None:
            return outcome_cell(self.name, found.outcome, no_score(found.outcome), metadata)
        return Cell(self.name, score, label, explanation, metadata)

    def cell(self, result: Scores, row: int, outcome: str | None = None) -> Cell:
        raise ArgumentError("the offline faithfulness is read once per batch: use signal_cells")


def default_signals() -> tuple[Signal, Signal, Signal]:
    """The three signals with their default names and thresholds."""
    return (
        Similarity(SIMILARITY, DEFAULT_SIMILARITY_THRESHOLD),
        Groundedness(GROUNDEDNESS, DEFAULT_GROUNDEDNESS_THRESHOLD),
        OfflineSignal(OFFLINE_FAITHFULNESS, FAITHFULNESS_THRESHOLD),
    )


# -- the pairs a batch scores ----------------------------------------------------------------------------


def pair_problem(output: Any, other: Any, reads: str) -> str | None:
    """What makes (output, reference-or-context) unscorable, naming the field ("output is None (a missing
    value?)"), or None. A reference may be several texts (the best one counts), a context several passages;
    a context with no text is refused as every door refuses it ("context has no text: each output needs a
    context", ``faithfulness.reading.context_problem``).
    """
    problem = text_problem(output)
    if problem:
        return f"output {problem}"
    texts = list(other) if isinstance(other, (list, tuple)) else [other]
    if not texts and reads != "context":
        return f"{reads} is an empty list"
    for text in texts:
        problem = text_problem(text)
        if problem:
            return f"{reads} {problem}"
    problem = context_problem(texts) if reads == "context" else None
    return f"{reads} {problem}" if problem else None


def scorable(output: Any, other: Any, reads: str) -> tuple[str, Any]:
    """The pair the core scores: a context's passages joined, a reference's list kept (multi-reference)."""
    if reads == "context":
        return output, join_context(other)
    return output, list(other) if isinstance(other, tuple) else other


def signal_cells(
    scorer: Scorer,
    signals: Sequence[Signal],
    pairs: Mapping[int, tuple[str, Any]],
    row_names: Mapping[int, str] | None = None,
    progress: bool | None = None,
    outcomes: Mapping[int, str] | None = None,
) -> dict[str, dict[int, Cell]]:
    """``{signal name: {position: cell}}`` for every pair, from ONE core call.

    Args:
        scorer: the core scorer.
        signals: the signals to read from the call (all read the same side of the pairs).
        pairs: ``{position: (output, reference or context)}``, already checked with :func:`pair_problem`.
        row_names: how the core's warnings name each position's row (default: the position).
        progress: the core's progress bar (None: its default).
        outcomes: ``{position: "empty" or "abstained"}`` for the answers that are no answer to judge: that
            is their label on every signal, and they have no score (``faithfulness.outcome``,
            :func:`~.cells.outcome_cell`).
    """
    if not pairs:
        return {signal.name: {} for signal in signals}
    from bertscore_plugins.core.row_warnings import row_names_in_warnings

    offline = [signal for signal in signals if isinstance(signal, OfflineSignal)]
    if len({signal.threshold for signal in offline}) > 1:
        raise ArgumentError("one offline faithfulness threshold per call")
    positions = list(pairs)
    texts = [pairs[p] for p in positions]
    found: list[OfflineFaithfulness] = []
    # the core's warnings count positions among the scored pairs; name the caller's rows instead
    with row_names_in_warnings([(row_names or {}).get(p, str(p)) for p in positions]):
        if offline:  # the faithfulness reading of the rows; the signals sharing the call read its alignment
            read = read_batch(scorer, texts, offline[0].threshold, progress)
            result, found = read.scores, read.rows
        else:
            outputs, others = [output for output, _ in texts], [other for _, other in texts]
            result = scorer.score(outputs, others, progress=progress, explain=True)
    outcome = outcomes or {}
    return {
        signal.name: {
            p: (
                signal.offline_cell(result, row, found[row])
                if isinstance(signal, OfflineSignal)
                else signal.cell(result, row, outcome.get(p))
            )
            for row, p in enumerate(positions)
        }
        for signal in signals
    }

"""Where similarity and faithfulness disagree: a derived, named result per row.

``high_sim_unfaithful``: looks like the reference but is not supported by the source (the wrong-day
case: a hallucinated detail, a bad reference, or a judge false negative). ``low_sim_faithful``:
supported by the source but worded or scoped unlike the reference. ``agree``: both signals say the same.
Those two disagreement labels are where a person should look.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.cells import (
    DID_NOT_RUN,
    Cell,
    Details,
    DisagreementMetadata,
    as_cell,
    completed,
    execution_details,
    outcome_cell,
    usable,
)
from bertscore_plugins.evaluation.names import (
    AGREE,
    DISAGREEMENT,
    DISAGREEMENT_LABELS,
    FAITHFULNESS,
    HIGH_SIM_UNFAITHFUL,
    LOW_SIM_FAITHFUL,
    SIMILARITY,
)
from bertscore_plugins.faithfulness.outcome import OUTCOMES
from bertscore_plugins.settings import as_float, shown
from bertscore_plugins.thresholds import check_threshold

LABELS = DISAGREEMENT_LABELS
#: how the source of thresholds set from the data begins: "quantile(similarity=0.5, faithfulness=0.5)"
QUANTILE_SOURCE = "quantile("


def _check_number(name: str, value: object) -> float:
    """A threshold set from the data (any finite number: rescaled similarity can sit below 0), read as every
    numeric setting is (``settings.as_float``: 10**400 is refused by name, not an OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating)):
        raise ArgumentError(f"{name} must be a finite number, got {shown(value)}")
    number = as_float(value)
    if not math.isfinite(number):
        raise ArgumentError(f"{name} must be a finite number, got {shown(value)}")
    return number


@dataclass(frozen=True)
class Thresholds:
    """The two thresholds that define the quadrants, and where they came from.

    A row is "high similarity" when ``similarity >= self.similarity`` and "faithful" when
    ``faithfulness >= self.faithfulness``. The judge's scores are 1.0 / 0.0, so 0.5 splits them.
    """

    similarity: float
    faithfulness: float = 0.5
    source: str = "fixed"

    def __post_init__(self) -> None:
        # a threshold the user set is checked as every threshold is, whatever its source says; one set from the data
        # (from_quantiles) is a quantile of finite scores (rescaled similarity can sit below 0)
        check = _check_number if self.source.startswith(QUANTILE_SOURCE) else check_threshold
        object.__setattr__(self, "similarity", check("similarity_threshold", self.similarity))
        object.__setattr__(self, "faithfulness", check("faithfulness_threshold", self.faithfulness))

    @classmethod
    def from_quantiles(
        cls,
        similarity_scores: Iterable[float],
        faithfulness_scores: Iterable[float],
        *,
        similarity_quantile: float = 0.5,
        faithfulness_quantile: float = 0.5,
    ) -> Thresholds:
        """Thresholds at the given quantiles of the data (missing values ignored).

        A faithfulness signal that only takes the values 0 and 1 (an LLM judge) keeps the threshold at 0.5:
        a quantile of a binary signal would put every row on one side.
        """
        similarity_quantile = check_threshold("similarity_quantile", similarity_quantile)
        faithfulness_quantile = check_threshold("faithfulness_quantile", faithfulness_quantile)
        similarity = _finite(similarity_scores, "similarity")
        faithfulness = _finite(faithfulness_scores, "faithfulness")
        binary = set(np.unique(faithfulness)).issubset({0.0, 1.0})
        effective_faithfulness_threshold = (
            0.5 if binary else float(np.quantile(faithfulness, faithfulness_quantile))
        )
        return cls(
            similarity=float(np.quantile(similarity, similarity_quantile)),
            faithfulness=effective_faithfulness_threshold,
            source=(
                f"{QUANTILE_SOURCE}similarity={similarity_quantile:g}, "
                + ("faithfulness=binary 0.5)" if binary else f"faithfulness={faithfulness_quantile:g})")
            ),
        )

    @classmethod
    def from_cells(
        cls,
        similarity: Sequence[Cell | Mapping[str, object] | None],
        faithfulness: Sequence[Cell | Mapping[str, object] | None],
        **quantiles: float,
    ) -> Thresholds:
        """`from_quantiles` over the rows whose two cells (or ``Score.to_dict()`` dicts, a DataFrame's column)
        both have a score."""
        cells = [(as_cell(sim), as_cell(faith)) for sim, faith in zip(similarity, faithfulness, strict=True)]
        pairs = [
            (sim.score, faith.score)
            for sim, faith in cells
            if sim is not None and faith is not None and usable(sim) and usable(faith)
        ]
        return cls.from_quantiles(
            [s for s, _ in pairs if s is not None], [f for _, f in pairs if f is not None], **quantiles
        )

    @classmethod
    def of(cls, metadata: DisagreementMetadata) -> Thresholds:
        """The thresholds a disagreement cell was read at."""
        return cls(metadata.similarity_threshold, metadata.faithfulness_threshold, metadata.threshold_source)

    def to_dict(self) -> dict[str, float | str]:
        return asdict(self)


def _finite(values: Iterable[float], what: str) -> npt.NDArray[np.float64]:
    array = np.asarray([v for v in values if v is not None], dtype=np.float64)
    finite: npt.NDArray[np.float64] = array[np.isfinite(array)]
    if finite.size == 0:
        raise ArgumentError(f"cannot set thresholds from quantiles: no {what} scores to take them from")
    return finite


def disagreement_label(similarity: float, faithfulness: float, thresholds: Thresholds) -> str:
    """``agree``, ``high_sim_unfaithful`` or ``low_sim_faithful`` for one row's two scores."""
    high_similarity = similarity >= thresholds.similarity
    faithful = faithfulness >= thresholds.faithfulness
    if high_similarity and not faithful:
        return HIGH_SIM_UNFAITHFUL
    if faithful and not high_similarity:
        return LOW_SIM_FAITHFUL
    return AGREE


def disagreement_cell(
    similarity: Cell | None,
    faithfulness: Cell,
    thresholds: Thresholds,
    *,
    name: str = DISAGREEMENT,
) -> Cell:
    """The disagreement cell from two cells (similarity, faithfulness): score 1.0 where they disagree.

    An answer that is no answer to judge (the faithfulness label ``empty`` or ``abstained``) has no
    quadrant: its disagreement label is that outcome, with no score (as on every signal), so it is counted
    apart, never as ``agree`` and never as a disagreement to look at."""
    faith_label = faithfulness.label
    if faith_label in OUTCOMES:
        return _outcome_cell(faith_label, similarity, faithfulness, thresholds, name)
    if similarity is None:
        raise ArgumentError("similarity score must be a finite number, got None")
    sim_value = _check_number("similarity score", similarity.score)
    faith_value = _check_number("faithfulness score", faithfulness.score)
    label = disagreement_label(sim_value, faith_value, thresholds)
    sim_name = similarity.name or "similarity"
    faith_name = faithfulness.name or FAITHFULNESS
    explanation = (
        f"{sim_name} {sim_value:.3f} {'>=' if sim_value >= thresholds.similarity else '<'} "
        f"{thresholds.similarity:.3f}; {faith_name} {faith_value:.3f}"
        + (f" ({faith_label})" if faith_label else "")
        + f" {'>=' if faith_value >= thresholds.faithfulness else '<'} {thresholds.faithfulness:.3f}"
    )
    metadata = DisagreementMetadata(
        sim_value,
        faith_value,
        thresholds.similarity,
        thresholds.faithfulness,
        thresholds.source,
        sim_name,
        faith_name,
        faith_label,
        faithfulness.explanation,
        similarity.explanation,
    )
    score = 0.0 if label == AGREE else 1.0
    return Cell(name, score, label, explanation, metadata, direction="minimize")


def _outcome_cell(
    outcome: str, similarity: Cell | None, faithfulness: Cell, thresholds: Thresholds, name: str
) -> Cell:
    metadata = DisagreementMetadata(
        None,  # no answer to judge has no score on any signal
        None,
        thresholds.similarity,
        thresholds.faithfulness,
        thresholds.source,
        similarity.name if similarity is not None else "similarity",
        faithfulness.name or FAITHFULNESS,
        outcome,
        faithfulness.explanation,
        similarity.explanation if similarity is not None else None,
    )
    explanation = f"the answer is {outcome}: similarity and faithfulness do not apply"
    return outcome_cell(name, outcome, explanation, metadata, direction="minimize")


def disagreement_cells(
    similarity: Sequence[Cell | None],
    faithfulness: Sequence[Cell | None],
    thresholds: Thresholds,
    *,
    names: tuple[str, str, str] = (SIMILARITY, FAITHFULNESS, DISAGREEMENT),
    row_names: Iterable[object],
) -> tuple[list[Cell | None], list[Details]]:
    """The disagreement cell and execution details of each row from its two cells (``names``: similarity,
    faithfulness, disagreement). A row missing either score gets None and "DID NOT RUN" naming it."""
    similarity_name, faithfulness_name, name = names
    cells: list[Cell | None] = []
    details: list[Details] = []
    for row_name, sim_cell, faith_cell in zip(row_names, similarity, faithfulness, strict=True):
        if faith_cell is not None and faith_cell.label in OUTCOMES:
            cells.append(disagreement_cell(sim_cell, faith_cell, thresholds, name=name))
            details.append(completed())
            continue
        pairs = ((similarity_name, sim_cell), (faithfulness_name, faith_cell))
        missing = [n for n, cell in pairs if not usable(cell)]
        if missing or sim_cell is None or faith_cell is None:
            cells.append(None)
            details.append(
                execution_details(
                    DID_NOT_RUN, [f"row {row_name}: no {' or '.join(missing)} score (that evaluator failed)"]
                )
            )
            continue
        cells.append(disagreement_cell(sim_cell, faith_cell, thresholds, name=name))
        details.append(completed())
    return cells, details

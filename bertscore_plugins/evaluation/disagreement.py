"""Where similarity and faithfulness disagree: a derived, named result per row.

``high_sim_unfaithful``: looks like the reference but is not supported by the source (the wrong-day
case: a hallucinated detail, a bad reference, or a judge false negative). ``low_sim_faithful``:
supported by the source but worded or scoped unlike the reference. ``agree``: both signals say the same.
Those two disagreement labels are where a person should look.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from phoenix.evals import Evaluator, Score
from pydantic import BaseModel, ConfigDict

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, ColumnNotFoundError
from bertscore_plugins.evaluation.names import (
    AGREE,
    DISAGREEMENT,
    DISAGREEMENT_LABELS,
    FAITHFULNESS,
    HIGH_SIM_UNFAITHFUL,
    LOW_SIM_FAITHFUL,
    SIMILARITY,
    details_column,
    score_column,
)

LABELS = DISAGREEMENT_LABELS


def _check_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or math.isnan(value):
        raise ArgumentError(f"{name} must be a number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Thresholds:
    """The two cuts that define the quadrants, and where they came from.

    A row is "high similarity" when ``similarity >= self.similarity`` and "faithful" when
    ``faithfulness >= self.faithfulness``. The judge's scores are 1.0 / 0.0, so 0.5 splits them.
    """

    similarity: float
    faithfulness: float = 0.5
    source: str = "fixed"

    def __post_init__(self) -> None:
        object.__setattr__(self, "similarity", _check_number("similarity threshold", self.similarity))
        object.__setattr__(self, "faithfulness", _check_number("faithfulness threshold", self.faithfulness))

    @classmethod
    def from_quantiles(
        cls,
        similarity_scores: Iterable[float],
        faithfulness_scores: Iterable[float],
        *,
        similarity_quantile: float = 0.5,
        faithfulness_quantile: float = 0.5,
    ) -> Thresholds:
        """Cuts at the given quantiles of the data (missing values ignored).

        A faithfulness signal that only takes the values 0 and 1 (an LLM judge) keeps the cut at 0.5:
        a quantile of a binary signal would put every row on one side.
        """
        for name, q in (
            ("similarity_quantile", similarity_quantile),
            ("faithfulness_quantile", faithfulness_quantile),
        ):
            if not 0.0 <= _check_number(name, q) <= 1.0:
                raise ArgumentError(f"{name} must be between 0 and 1, got {q!r}")
        similarity = _finite(similarity_scores, "similarity")
        faithfulness = _finite(faithfulness_scores, "faithfulness")
        binary = set(np.unique(faithfulness)).issubset({0.0, 1.0})
        faithfulness_cut = 0.5 if binary else float(np.quantile(faithfulness, faithfulness_quantile))
        return cls(
            similarity=float(np.quantile(similarity, similarity_quantile)),
            faithfulness=faithfulness_cut,
            source=(
                f"quantile(similarity={similarity_quantile:g}, "
                + ("faithfulness=binary 0.5)" if binary else f"faithfulness={faithfulness_quantile:g})")
            ),
        )

    @classmethod
    def from_cells(
        cls, similarity: Sequence[Any], faithfulness: Sequence[Any], **quantiles: float
    ) -> Thresholds:
        """`from_quantiles` over the rows whose two ``Score.to_dict()`` cells both have a score."""
        both = [i for i in range(len(similarity)) if _usable(similarity[i]) and _usable(faithfulness[i])]
        return cls.from_quantiles(
            [similarity[i]["score"] for i in both], [faithfulness[i]["score"] for i in both], **quantiles
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _finite(values: Iterable[float], what: str) -> np.ndarray:
    array = np.asarray([v for v in values if v is not None], dtype=float)
    array = array[np.isfinite(array)]
    if array.size == 0:
        raise ArgumentError(f"cannot set thresholds from quantiles: no {what} scores to take them from")
    return array


def disagreement_label(similarity: float, faithfulness: float, thresholds: Thresholds) -> str:
    """``agree``, ``high_sim_unfaithful`` or ``low_sim_faithful`` for one row's two scores."""
    high_similarity = similarity >= thresholds.similarity
    faithful = faithfulness >= thresholds.faithfulness
    if high_similarity and not faithful:
        return HIGH_SIM_UNFAITHFUL
    if faithful and not high_similarity:
        return LOW_SIM_FAITHFUL
    return AGREE


def disagreement_score(
    similarity: Mapping[str, Any],
    faithfulness: Mapping[str, Any],
    thresholds: Thresholds,
    *,
    name: str = DISAGREEMENT,
) -> Score:
    """The disagreement ``Score`` from two ``Score.to_dict()`` dicts (similarity, faithfulness)."""
    sim_value = _check_number("similarity score", similarity.get("score"))
    faith_value = _check_number("faithfulness score", faithfulness.get("score"))
    label = disagreement_label(sim_value, faith_value, thresholds)
    sim_name = similarity.get("name", "similarity")
    faith_name = faithfulness.get("name", FAITHFULNESS)
    faith_label = faithfulness.get("label")
    explanation = (
        f"{sim_name} {sim_value:.3f} {'>=' if sim_value >= thresholds.similarity else '<'} "
        f"{thresholds.similarity:.3f}; {faith_name} {faith_value:.3f}"
        + (f" ({faith_label})" if faith_label else "")
        + f" {'>=' if faith_value >= thresholds.faithfulness else '<'} {thresholds.faithfulness:.3f}"
    )
    return Score(
        name=name,
        score=0.0 if label == AGREE else 1.0,
        label=label,
        explanation=explanation,
        metadata={
            "similarity": sim_value,
            "faithfulness": faith_value,
            "similarity_threshold": thresholds.similarity,
            "faithfulness_threshold": thresholds.faithfulness,
            "threshold_source": thresholds.source,
            "similarity_signal": sim_name,
            "faithfulness_signal": faith_name,
            "faithfulness_label": faith_label,
            "judge_explanation": faithfulness.get("explanation"),
            "similarity_explanation": similarity.get("explanation"),
        },
        kind="code",
        direction="minimize",
    )


def _score_cells(dataframe: pd.DataFrame, name: str) -> list[Any]:
    column = score_column(name)
    if column not in dataframe.columns:
        raise ColumnNotFoundError(
            f"no {column!r} column: run the {name!r} evaluator first (columns: {list(dataframe.columns)})"
        )
    return list(dataframe[column])


def _usable(cell: Any) -> bool:
    if not isinstance(cell, Mapping):
        return False
    value = cell.get("score")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def disagreement_cells(
    similarity: Sequence[Any],
    faithfulness: Sequence[Any],
    thresholds: Thresholds,
    *,
    names: tuple[str, str, str] = (SIMILARITY, FAITHFULNESS, DISAGREEMENT),
    labels: Iterable[Any],
) -> tuple[list[dict[str, Any] | None], list[dict[str, Any]]]:
    """The disagreement cell and execution details of each row from its two cells (``names``: similarity,
    faithfulness, disagreement). A row missing either score gets None and "DID NOT RUN" naming it."""
    similarity_name, faithfulness_name, name = names
    cells: list[dict[str, Any] | None] = []
    details: list[dict[str, Any]] = []
    for label, sim_cell, faith_cell in zip(labels, similarity, faithfulness, strict=True):
        pairs = ((similarity_name, sim_cell), (faithfulness_name, faith_cell))
        missing = [n for n, cell in pairs if not _usable(cell)]
        if missing:
            cells.append(None)
            details.append(
                {
                    "status": "DID NOT RUN",
                    "exceptions": [f"row {label}: no {' or '.join(missing)} score (that evaluator failed)"],
                    "execution_seconds": 0.0,
                }
            )
            continue
        cells.append(disagreement_score(sim_cell, faith_cell, thresholds, name=name).to_dict())
        details.append({"status": "COMPLETED", "exceptions": [], "execution_seconds": 0.0})
    return cells, details


def add_disagreement(
    dataframe: pd.DataFrame,
    thresholds: Thresholds | str | None = None,
    *,
    similarity: str = SIMILARITY,
    faithfulness: str = FAITHFULNESS,
    name: str = DISAGREEMENT,
    similarity_quantile: float = 0.5,
    faithfulness_quantile: float = 0.5,
) -> pd.DataFrame:
    """Add ``<name>_score`` and ``<name>_execution_details`` from two existing score columns.

    Args:
        dataframe: has ``<similarity>_score`` and ``<faithfulness>_score`` cells (``Score.to_dict()``).
        thresholds: a :class:`Thresholds`; "quantile" (or None) to set them from this data's quantiles.
        similarity, faithfulness: the two score names to compare (e.g. faithfulness="groundedness").
        name: the result's name.

    Returns:
        A copy with the new columns. Score 1.0 = the signals disagree, 0.0 = agree (direction
        "minimize"); metadata records both scores, both thresholds and where they came from, and the
        judge's explanation. A row missing either score gets a None cell and status "DID NOT RUN".
    """
    sim_cells = _score_cells(dataframe, similarity)
    faith_cells = _score_cells(dataframe, faithfulness)
    if thresholds is None or thresholds == "quantile":
        thresholds = Thresholds.from_cells(
            sim_cells,
            faith_cells,
            similarity_quantile=similarity_quantile,
            faithfulness_quantile=faithfulness_quantile,
        )
    elif not isinstance(thresholds, Thresholds):
        raise ArgumentError(f"thresholds must be a Thresholds, 'quantile' or None, got {thresholds!r}")

    cells, details = disagreement_cells(
        sim_cells,
        faith_cells,
        thresholds,
        names=(similarity, faithfulness, name),
        labels=range(len(dataframe)),
    )
    result = dataframe.copy()
    result[details_column(name)] = details
    result[score_column(name)] = cells
    return result


class _NoInput(BaseModel):
    """The disagreement evaluator reads whatever its two inner evaluators read: keep every key."""

    model_config = ConfigDict(extra="allow")


class DisagreementEvaluator(Evaluator):
    """Per-row disagreement as a Phoenix evaluator (for experiments and ``evaluate_dataframe``).

    It runs the two inner evaluators on the same input (reuse :func:`annotations.experiment_evaluators`
    to share their results so the judge runs once per row) and applies fixed ``thresholds``: an
    experiment sees one row at a time, so quantile thresholds must be computed beforehand.
    """

    def __init__(
        self,
        similarity: Evaluator,
        faithfulness: Evaluator,
        thresholds: Thresholds,
        *,
        name: str = DISAGREEMENT,
    ) -> None:
        if not isinstance(thresholds, Thresholds):
            raise ArgumentTypeError(f"DisagreementEvaluator needs fixed Thresholds, got {thresholds!r}")
        super().__init__(name=name, kind="code", direction="minimize", input_schema=_NoInput)
        self.similarity = similarity
        self.faithfulness = faithfulness
        self.thresholds = thresholds

    def _evaluate(self, eval_input: Mapping[str, Any]) -> list[Score]:
        sim = self.similarity.evaluate(dict(eval_input))[0]
        faith = self.faithfulness.evaluate(dict(eval_input))[0]
        return [disagreement_score(sim.to_dict(), faith.to_dict(), self.thresholds, name=self.name)]

    async def _async_evaluate(self, eval_input: Mapping[str, Any]) -> list[Score]:
        sim = (await self.similarity.async_evaluate(dict(eval_input)))[0]
        faith = (await self.faithfulness.async_evaluate(dict(eval_input)))[0]
        return [disagreement_score(sim.to_dict(), faith.to_dict(), self.thresholds, name=self.name)]

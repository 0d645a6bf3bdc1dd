"""Two systems' outputs against the same references: which is better, by how much, and how sure we are.

Each system is scored on its own (so idf fitted on the references is the same as in a plain `score`
call); with the scorer's reference cache enabled the references are encoded once for both. The
difference of corpus-level scores gets a paired test from `stats` and the rows that moved most are
listed, since they are where a reviewer should look.

Example:
    >>> result = compare_systems(outputs_v1, outputs_v2, references, seed=1)   # doctest: +SKIP
    >>> print(result.verdict())                                               # doctest: +SKIP
    B is better than A: F1 +0.0117 (95% CI +0.0060 .. +0.0170), p = 0.0010 ...
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bertscore_plugins.analysis.stats import (
    DECIMALS,
    DEFAULT_SEED,
    PAIRED_METHODS,
    SCORE_NAMES,
    Interval,
    PairedResult,
    corpus_intervals,
    paired_test,
    rows_that_moved,
)
from bertscore_plugins.core.scorer import resolve_scorer
from bertscore_plugins.core.signature import Signature
from bertscore_plugins.errors import ArgumentError, InputError
from bertscore_plugins.settings import as_float, shown

if TYPE_CHECKING:
    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.core.scorer import BERTScorer


@dataclass(frozen=True)
class MovedRow:
    """One row whose score changed a lot between the two systems."""

    row: int
    score_a: float
    score_b: float
    change: float
    candidate_a: str
    candidate_b: str
    references: tuple[str, ...]


@dataclass(frozen=True)
class SystemComparison:
    """The outcome of `compare_systems`: the paired test on `metric`, per-system intervals, moved rows."""

    metric: str
    test: PairedResult
    intervals_a: dict[str, Interval]
    intervals_b: dict[str, Interval]
    moved: tuple[MovedRow, ...]
    signature: Signature
    scores_a: np.ndarray
    scores_b: np.ndarray

    def better(self, alpha: float = 0.05) -> str:
        """'a', 'b' or 'neither' at significance level `alpha`."""
        return self.test.better(alpha)

    def verdict(self, alpha: float = 0.05) -> str:
        """One sentence: which system is better, by how much, with its interval and p-value.

        On too few rows for any difference to be significant at `alpha` (`stats.minimum_rows`), the
        verdict is withheld and no interval or p-value is given: they would be numbers without meaning
        (on one row every resample is that row, so p would read 0.0000)."""
        t, d = self.test, DECIMALS
        too_few = t.too_few_rows(alpha)
        if too_few:
            return (
                f"no verdict: {too_few}; B - A = {self.metric} {t.difference:+.{d}f} (n = {t.n}, no p-value)"
            )
        what = (
            f"{self.metric} {t.difference:+.{d}f} "
            f"({t.confidence:.0%} CI {t.low:+.{d}f} .. {t.high:+.{d}f}), p = {t.p_value:.{d}f} "
            f"({_method_name(t.method)}, {t.resamples} resamples, n = {t.n})"
        )
        winner = self.better(alpha)
        if winner == "b":
            return f"B is better than A: {what}"
        if winner == "a":
            return f"A is better than B: {what}"
        if t.significant(alpha):  # p below alpha, but the interval a reader sees does not exclude zero
            what += f"; p is below {alpha:.0%} but the interval reaches zero, so neither is called better"
        return f"no significant difference at the {alpha:.0%} level: B - A = {what}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            # too few rows: no p-value or interval, as in the verdict
            "test": self.test.to_dict()
            | ({"p_value": None, "low": None, "high": None} if self.test.too_few_rows() else {}),
            "better": self.better(),
            "too_few_rows": self.test.too_few_rows(),
            "a": {name: _interval_dict(interval) for name, interval in self.intervals_a.items()},
            "b": {name: _interval_dict(interval) for name, interval in self.intervals_b.items()},
            "moved": [dict(row.__dict__, references=list(row.references)) for row in self.moved],
            "signature": self.signature,
        }


def _interval_dict(interval: Interval) -> dict[str, Any]:
    """An interval's fields; on one row no interval (low and high None): it would be one point."""
    found = interval.to_dict()
    return found | ({"low": None, "high": None} if interval.n < 2 else {})


def _method_name(method: str) -> str:
    # the interval and the p-value come from this one procedure (stats.paired_bootstrap / approximate_randomization)
    return "paired bootstrap" if method == "bootstrap" else "approximate randomization"


@dataclass(frozen=True)
class ComparisonOptions:
    """How two systems are compared (every field is also a keyword of `compare_systems`).

    metric: "f1", "precision" or "recall". method: "bootstrap" (paired bootstrap resampling) or
    "randomization" (approximate randomization). resamples: resamples/trials, a positive whole number
    (None: the method's default, 1000 or 10000). confidence: the intervals' coverage, in (0, 1).
    seed: a non-negative whole number (None: unreproducible). top: how many of the rows that moved most
    to return (0 or more).

    Raises:
        ArgumentError: a value outside these ranges, naming the setting.
    """

    metric: str = "f1"
    method: str = "bootstrap"
    resamples: int | None = None
    confidence: float = 0.95
    seed: int | None = DEFAULT_SEED
    top: int = 5

    def __post_init__(self) -> None:
        if self.metric not in SCORE_NAMES:
            raise ArgumentError(f"metric must be one of {SCORE_NAMES}, got {self.metric!r}")
        if self.method not in PAIRED_METHODS:
            raise ArgumentError(f"method must be one of {PAIRED_METHODS}, got {self.method!r}")
        if self.resamples is not None:
            _whole("resamples", self.resamples, 1)
        if not (_is_number(self.confidence) and 0.0 < self.confidence < 1.0):  # also refuses NaN
            raise ArgumentError(f"confidence must be a number between 0 and 1, got {shown(self.confidence)}")
        if self.seed is not None:
            _whole("seed", self.seed, 0)
        _whole("top", self.top, 0)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _whole(name: str, value: Any, smallest: int) -> None:
    # as_float: 10**400 (an int or a Fraction) is refused here by name, not by float()'s OverflowError
    whole = _is_number(value) and math.isfinite(as_float(value)) and value == int(value)
    if not (whole and value >= smallest):
        kind = "a positive whole number" if smallest == 1 else f"a whole number >= {smallest}"
        raise ArgumentError(f"{name} must be {kind}, got {shown(value)}")


def compare_systems(
    candidates_a: Sequence[str],
    candidates_b: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    scorer: BERTScorer | ScoreConfig | None = None,
    *,
    options: ComparisonOptions | None = None,
    progress: bool | None = None,
    **settings: Any,
) -> SystemComparison:
    """Score systems A and B against the same references and test the difference of their means.

    Args:
        candidates_a, candidates_b: the two systems' outputs, row-aligned with `references`.
        references: one string or a list of strings per row.
        scorer: a `BERTScorer`, a `ScoreConfig`, or None for the default configuration.
        options: how to compare (`ComparisonOptions`); its fields may also be given as keywords
            (`metric="recall", resamples=2000, seed=1, top=10`), which are applied on top.
        progress: the core's progress for each system's scoring (core/progress.py; None: automatic).
        settings: ScoreConfig names, applied on top of `scorer`.

    Returns:
        A `SystemComparison`; `.verdict()` says which is better, by how much, with CI and p-value.

    Raises:
        InputError / ValueError: the systems do not have one output per reference row, or a bad setting.
        SignatureMismatch (a ValueError): the two systems' scores were made with different settings
            (the message names them), so their difference would not be the systems'.
    """
    chosen = {name: settings.pop(name) for name in _OPTION_NAMES if name in settings}
    options = replace(options or ComparisonOptions(), **chosen)
    _check_one_output_per_row(candidates_a, candidates_b, references)
    scorer = resolve_scorer(scorer, settings)
    shown = {} if progress is None else {"progress": progress}  # a stand-in scorer may take no progress
    result_a = scorer.score(list(candidates_a), references, **shown)
    result_b = scorer.score(list(candidates_b), references, **shown)
    result_a.signature.require_same(result_b.signature, "system A's and system B's scores")
    scores_a = np.asarray(getattr(result_a, options.metric), dtype=np.float64)
    scores_b = np.asarray(getattr(result_b, options.metric), dtype=np.float64)
    test = paired_test(
        scores_a,
        scores_b,
        method=options.method,
        resamples=options.resamples,
        confidence=options.confidence,
        seed=options.seed,
    )
    return SystemComparison(
        options.metric,
        test,
        corpus_intervals(result_a, confidence=options.confidence, seed=options.seed),
        corpus_intervals(result_b, confidence=options.confidence, seed=options.seed),
        _moved_rows(scores_a, scores_b, (candidates_a, candidates_b, references), options.top),
        result_a.signature,
        scores_a,
        scores_b,
    )


_OPTION_NAMES = tuple(field.name for field in fields(ComparisonOptions))


def _check_one_output_per_row(
    candidates_a: Sequence[str],
    candidates_b: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
) -> None:
    """Raise InputError when either system does not have one output per reference row."""
    for name, candidates in (("candidates_a", candidates_a), ("candidates_b", candidates_b)):
        if len(candidates) != len(references):
            raise InputError(
                f"{name} has {len(candidates)} rows but references has {len(references)}: "
                "both systems need one output per reference row"
            )


def _moved_rows(
    scores_a: np.ndarray, scores_b: np.ndarray, texts: tuple[Sequence, Sequence, Sequence], top: int
) -> tuple[MovedRow, ...]:
    candidates_a, candidates_b, references = texts
    return tuple(
        MovedRow(
            row,
            float(scores_a[row]),
            float(scores_b[row]),
            change,
            candidates_a[row],
            candidates_b[row],
            (references[row],) if isinstance(references[row], str) else tuple(references[row]),
        )
        for row, change in rows_that_moved(scores_a, scores_b, k=top)
    )


def format_comparison(
    comparison: SystemComparison,
    name_a: str = "A",
    name_b: str = "B",
    alpha: float = 0.05,
    width: int = 70,
    ids: Sequence[object] | None = None,
) -> str:
    """A plain-text report: per-system scores with intervals, the verdict, the rows that moved most (each
    with its id from `ids`, the rows' ids in order, when given)."""
    metric, d = comparison.metric, DECIMALS
    lines = []
    for label, name, intervals in (
        ("A", name_a, comparison.intervals_a),
        ("B", name_b, comparison.intervals_b),
    ):
        interval = intervals[metric]
        spread = (
            f"{interval.confidence:.0%} CI {interval.low:.{d}f} .. {interval.high:.{d}f}"
            if interval.n >= 2
            else "one row: no interval"
        )
        lines.append(f"{label}: {name}  {metric} {interval.estimate:.{d}f} ({spread})")
    lines.append(comparison.verdict(alpha))
    if comparison.moved:
        lines.append("")
        lines.append(f"rows that moved most ({metric}, B - A):")
        for row in comparison.moved:
            lines.append(
                f"  row {row.row}{'' if ids is None else f' (id {ids[row.row]!r})'}: {row.change:+.{d}f}  "
                f"(A {row.score_a:.{d}f} -> B {row.score_b:.{d}f})"
            )
            lines.append(f"    A:   {_clip(row.candidate_a, width)}")
            lines.append(f"    B:   {_clip(row.candidate_b, width)}")
            lines.append(f"    ref: {_clip(row.references[0], width)}")
    elif not rows_that_moved(comparison.scores_a, comparison.scores_b, k=1):  # (not --top 0)
        lines.append("")
        lines.append(f"no row moved: every row's {metric} is the same for A and B at {d} decimals")
    lines.append("")
    lines.append(comparison.signature)
    return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."

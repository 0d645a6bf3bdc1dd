"""Uncertainty for corpus-level scores and paired significance tests between two systems.

A corpus-level BERTScore is the mean of the per-row scores, so everything here works on per-row score
arrays: bootstrap confidence intervals for one system, and a paired test for two systems scored against
the same references (paired bootstrap resampling or approximate randomization, the two tests sacrebleu
offers for BLEU). Every function takes a seed, so a reported interval or p-value can be reproduced.

Example:
    >>> a = np.array([0.91, 0.88, 0.95, 0.90]); b = np.array([0.93, 0.90, 0.95, 0.94])
    >>> result = paired_test(a, b, method="randomization", seed=1)
    >>> round(result.difference, 4)  # mean(b) - mean(a)
    0.02
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.settings import beyond_floats, shown

#: default seed, so that two runs on the same scores print the same interval and p-value
DEFAULT_SEED = 12345
PAIRED_METHODS = ("bootstrap", "randomization")
SCORE_NAMES = ("precision", "recall", "f1")


#: decimals every score, difference and interval of a comparison is printed with: a verdict, and a row
#: listed as moved, must show at this precision ("+0.0000 .. +0.1293" excludes no zero that a reader sees)
DECIMALS = 4


def as_printed(value: float, decimals: int = DECIMALS) -> float:
    """`value` as printed with `decimals` decimals (round half to even, as the printed digits are)."""
    return float(f"{value:.{decimals}f}") + 0.0  # + 0.0: "-0.0000" reads back as 0.0


def minimum_rows(alpha: float) -> int:
    """The fewest rows on which a difference can be called significant at `alpha`.

    On n rows an exact paired randomization test cannot go below p = 2 / 2**n, even when every row moved
    the same way; with fewer rows than this (6 at alpha = 0.05, 8 at 0.01), a small p-value from a
    resampling test is an artefact of resampling a handful of values (one row gave "p = 0.001"), not
    evidence. So below it no verdict is given, whatever the p-value.
    """
    return math.floor(1 + math.log2(1 / alpha)) + 1


@dataclass(frozen=True)
class Interval:
    """A corpus-level score (mean over rows) with its bootstrap confidence interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    n: int
    resamples: int
    seed: int | None

    def __str__(self) -> str:
        return f"{self.estimate:.4f} ({self.confidence:.0%} CI {self.low:.4f} .. {self.high:.4f}, n={self.n})"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PairedResult:
    """The outcome of a paired test of system B against system A on the same rows.

    `difference` is mean(B) - mean(A): positive means B scores higher. `low`/`high` bound that
    difference (paired bootstrap percentile interval, also reported for the randomization test).
    `p_value` is two-sided, for the null hypothesis that the two systems are exchangeable.
    """

    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    p_value: float
    n: int
    method: str
    resamples: int
    confidence: float
    seed: int | None

    def better(self, alpha: float = 0.05) -> str:
        """'a', 'b', or 'neither': 'b' only when the difference is significant (`significant`) AND its
        interval, as printed (`DECIMALS`), lies above zero ('a': below); 'neither' when the p-value is
        not below `alpha`, there are too few rows to say, or the printed interval reaches zero."""
        if not self.significant(alpha):
            return "neither"
        if as_printed(self.low) > 0:
            return "b"
        if as_printed(self.high) < 0:
            return "a"
        return "neither"

    def interval_reaches_zero(self) -> bool:
        """The interval, as printed, holds zero (or ends on it)."""
        return as_printed(self.low) <= 0 <= as_printed(self.high)

    def significant(self, alpha: float = 0.05) -> bool:
        """p < alpha, on enough rows for that to mean something (`minimum_rows`)."""
        return self.too_few_rows(alpha) is None and self.p_value < alpha

    def too_few_rows(self, alpha: float = 0.05) -> str | None:
        """Why no difference can be called significant at `alpha` whatever the p-value, or None."""
        needed = minimum_rows(alpha)
        if self.n >= needed:
            return None
        return (
            f"too few rows to call a difference significant at the {alpha:.0%} level (n = {self.n}; at least "
            f"{needed} are needed: on fewer rows not even every row moving the same way would be significant "
            "under an exact randomization test)"
        )

    def __str__(self) -> str:
        return (
            f"B - A = {self.difference:+.4f} ({self.confidence:.0%} CI {self.low:+.4f} .. {self.high:+.4f}), "
            f"p = {self.p_value:.4f} ({self.method}, {self.resamples} resamples, n={self.n})"
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _as_scores(values: Any, name: str) -> np.ndarray:
    """Per-row scores as a float64 vector; names the first bad row."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad_rows = [row for row, value in enumerate(values) if not isinstance(value, (int, float, np.number))]
        if not bad_rows:
            raise
        row = bad_rows[0]
        raise ArgumentError(
            f"{name}: row {row} is {values[row]!r}; every score must be a finite number"
        ) from None
    if array.ndim != 1:
        raise ArgumentError(f"{name}: expected one score per row (a 1-D sequence), got shape {array.shape}")
    if array.size == 0:
        raise ArgumentError(f"{name}: no rows to test")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ArgumentError(
            f"{name}: row {int(bad[0])} is {array[bad[0]]!r}; every score must be a finite number"
        )
    return array


def _check_common(confidence: float, resamples: int) -> None:
    if not 0.0 < confidence < 1.0:
        raise ArgumentError(f"confidence must be between 0 and 1 (exclusive), got {shown(confidence)}")
    whole = (isinstance(resamples, numbers.Integral) and not beyond_floats(resamples)) or (
        isinstance(resamples, float) and math.isfinite(resamples) and resamples == int(resamples)
    )
    if isinstance(resamples, bool) or not whole or resamples < 1:
        raise ArgumentError(f"resamples must be a positive integer, got {shown(resamples)}")


def _percentiles(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(samples, [tail, 100.0 - tail])
    return float(low), float(high)


def _resample_indices(n: int, resamples: int, seed: int | None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(resamples, n))


def bootstrap_interval(
    scores: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap confidence interval of the mean of per-row scores.

    Args:
        scores: one score per row (e.g. `Scores.f1`).
        confidence: coverage of the interval (0.95 = 95%).
        resamples: bootstrap resamples of the rows (with replacement).
        seed: random seed; None for a fresh, unreproducible draw.

    Returns:
        An `Interval` with the corpus-level mean and its bounds.

    Raises:
        ValueError: empty input, a non-finite score (the row is named) or a bad setting.
    """
    values = _as_scores(scores, "scores")
    _check_common(confidence, resamples)
    means = values[_resample_indices(values.size, resamples, seed)].mean(axis=1)
    low, high = _percentiles(means, confidence)
    return Interval(float(values.mean()), low, high, confidence, int(values.size), int(resamples), seed)


def corpus_intervals(
    scores: Any,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, Interval]:
    """Bootstrap intervals for corpus-level precision, recall and F1.

    The three share the same resampled rows, as they describe the same corpus.

    Args:
        scores: a `Scores` result (anything with `.precision`, `.recall`, `.f1`) or a mapping with
            those keys.

    Returns:
        {"precision": Interval, "recall": Interval, "f1": Interval}
    """
    columns: dict[str, np.ndarray] = {}
    for name in SCORE_NAMES:
        column = scores.get(name) if isinstance(scores, Mapping) else getattr(scores, name, None)
        if column is None:
            raise ArgumentError(
                f"scores has no {name!r}; pass a Scores result or a mapping with {SCORE_NAMES}"
            )
        columns[name] = _as_scores(column, name)
    sizes = {name: column.size for name, column in columns.items()}
    if len(set(sizes.values())) != 1:
        raise ArgumentError(f"precision, recall and f1 must have the same number of rows, got {sizes}")
    _check_common(confidence, resamples)
    n = next(iter(sizes.values()))
    indices = _resample_indices(n, resamples, seed)
    intervals = {}
    for name, column in columns.items():
        low, high = _percentiles(column[indices].mean(axis=1), confidence)
        intervals[name] = Interval(float(column.mean()), low, high, confidence, n, int(resamples), seed)
    return intervals


def _paired_arrays(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray]:
    a = _as_scores(scores_a, "scores_a")
    b = _as_scores(scores_b, "scores_b")
    if a.size != b.size:
        raise ArgumentError(
            f"a paired test needs the same rows for both systems: scores_a has {a.size} rows, "
            f"scores_b has {b.size}"
        )
    return a, b


def paired_bootstrap(
    scores_a: Sequence[float] | np.ndarray,
    scores_b: Sequence[float] | np.ndarray,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = DEFAULT_SEED,
) -> PairedResult:
    """Paired bootstrap of system B against system A (Koehn 2004), with `scipy.stats.bootstrap`.

    Rows are resampled with replacement, the same rows for both systems (the per-row differences are
    resampled). The interval and the p-value come from the same bootstrap distribution of the mean
    difference d*: the interval is its percentile interval and the two-sided p-value is the smallest
    1 - confidence whose interval leaves out 0, p = 2 * min(#{d* <= 0}, #{d* >= 0}) / resamples (at most
    1). So "significant at alpha" and "the (1 - alpha) interval excludes 0" always agree.
    """
    from scipy.stats import bootstrap

    a, b = _paired_arrays(scores_a, scores_b)
    _check_common(confidence, resamples)
    deltas = b - a
    if np.ptp(deltas) == 0:  # every row moved by the same amount: no spread to resample
        sample_deltas = np.full(int(resamples), float(deltas.mean()))
        low = high = float(deltas.mean())
    else:
        found = bootstrap(
            (deltas,),
            np.mean,
            n_resamples=int(resamples),
            confidence_level=confidence,
            method="percentile",
            random_state=np.random.default_rng(seed),
            vectorized=True,
        )
        sample_deltas = found.bootstrap_distribution
        low, high = float(found.confidence_interval.low), float(found.confidence_interval.high)
    below = int(np.count_nonzero(sample_deltas <= 0))
    above = int(np.count_nonzero(sample_deltas >= 0))
    p_value = min(1.0, 2 * min(below, above) / sample_deltas.size)
    return _result(
        a, b, (low, high), p_value, method="bootstrap", resamples=resamples, confidence=confidence, seed=seed
    )


def approximate_randomization(
    scores_a: Sequence[float] | np.ndarray,
    scores_b: Sequence[float] | np.ndarray,
    resamples: int = 10000,
    confidence: float = 0.95,
    seed: int | None = DEFAULT_SEED,
) -> PairedResult:
    """Approximate randomization test of system B against system A (Riezler & Maxwell 2005).

    Under the null the two systems' outputs are exchangeable row by row, so each trial swaps every row's
    pair of scores with probability 1/2. p = (1 + #{|mean swapped difference| >= |d|}) / (trials + 1).
    The interval is the same test inverted: the differences delta that the test, run on the per-row
    differences minus delta with the same trials, does not reject at 1 - confidence. So the verdict
    and the interval come from one procedure and agree.
    """
    a, b = _paired_arrays(scores_a, scores_b)
    _check_common(confidence, resamples)
    deltas = b - a
    flipped_sums, sign_sums = _sign_flips(deltas, int(resamples), seed)
    n = deltas.size

    def p_value_for(shift: float) -> float:
        # each trial's mean of signs * (deltas - shift), from the two sums: no second pass over the rows
        trial_means = np.abs(flipped_sums - shift * sign_sums) / n
        observed = abs(float(deltas.mean()) - shift)
        return (int(np.count_nonzero(trial_means >= observed - 1e-12)) + 1) / (resamples + 1)

    alpha = 1.0 - confidence
    centre = float(deltas.mean())
    width = 4.0 * float(np.abs(deltas - centre).max()) + 1e-9
    low = _boundary(p_value_for, alpha, inside=centre, outside=centre - width)
    high = _boundary(p_value_for, alpha, inside=centre, outside=centre + width)
    return _result(
        a,
        b,
        (low, high),
        p_value_for(0.0),
        method="randomization",
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    )


def _sign_flips(deltas: np.ndarray, trials: int, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per trial: sum(signs * deltas) and sum(signs), with signs of +-1 drawn per row (seeded)."""
    rng = np.random.default_rng(seed)
    block = max(1, min(trials, 4_000_000 // max(deltas.size, 1)))  # memory stays bounded
    flipped, sums = [], []
    for start in range(0, trials, block):
        signs = rng.integers(0, 2, size=(min(block, trials - start), deltas.size), dtype=np.int8) * 2 - 1
        flipped.append(signs @ deltas)
        sums.append(signs.sum(axis=1, dtype=np.int64).astype(np.float64))
    return np.concatenate(flipped), np.concatenate(sums)


def _boundary(p_value_for: Callable[[float], float], alpha: float, *, inside: float, outside: float) -> float:
    """Where the test's p-value falls below `alpha`, between `inside` (not rejected) and `outside`."""
    if p_value_for(outside) >= alpha:
        return outside
    for _ in range(60):
        middle = (inside + outside) / 2
        if p_value_for(middle) >= alpha:
            inside = middle
        else:
            outside = middle
    return inside


def _result(
    a: np.ndarray,
    b: np.ndarray,
    interval: tuple[float, float],
    p_value: float,
    *,
    method: str,
    resamples: int,
    confidence: float,
    seed: int | None,
) -> PairedResult:
    """A test's result: the means, the observed difference, its interval and p-value (one procedure)."""
    low, high = interval
    return PairedResult(
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        difference=float((b - a).mean()),
        low=low,
        high=high,
        p_value=p_value,
        n=int(a.size),
        method=method,
        resamples=int(resamples),
        confidence=confidence,
        seed=seed,
    )


def paired_test(
    scores_a: Sequence[float] | np.ndarray,
    scores_b: Sequence[float] | np.ndarray,
    method: str = "bootstrap",
    resamples: int | None = None,
    confidence: float = 0.95,
    seed: int | None = DEFAULT_SEED,
) -> PairedResult:
    """Paired significance test of system B against system A on the same rows.

    Args:
        scores_a, scores_b: per-row scores of the two systems against the same references.
        method: "bootstrap" (paired bootstrap resampling, 1000 resamples by default) or "randomization"
            (approximate randomization, 10000 trials by default).
        resamples: number of resamples/trials; None = the method's default.
        confidence: coverage of the interval on the difference.
        seed: random seed (None = unreproducible).

    Returns:
        A `PairedResult`: difference = mean(B) - mean(A), its interval, the two-sided p-value, n.
    """
    if method == "bootstrap":
        return paired_bootstrap(
            scores_a, scores_b, 1000 if resamples is None else resamples, confidence, seed
        )
    if method in ("randomization", "ar"):
        return approximate_randomization(
            scores_a, scores_b, 10000 if resamples is None else resamples, confidence, seed
        )
    raise ArgumentError(f"method must be one of {PAIRED_METHODS}, got {method!r}")


def rows_that_moved(
    scores_a: Sequence[float] | np.ndarray, scores_b: Sequence[float] | np.ndarray, k: int = 5
) -> list[tuple[int, float]]:
    """The `k` rows whose score changed most from A to B, as (row index, B - A), largest |change| first.

    Only rows that moved: a change that prints as zero (`DECIMALS`) is no move, so fewer than `k` rows
    (none, for two identical systems) may come back."""
    a, b = _paired_arrays(scores_a, scores_b)
    deltas = b - a
    order = np.argsort(-np.abs(deltas), kind="stable")[: max(0, int(k))]
    return [(int(i), float(deltas[i])) for i in order if as_printed(float(deltas[i])) != 0]

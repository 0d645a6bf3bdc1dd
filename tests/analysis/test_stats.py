"""Bootstrap intervals and paired tests: calibration under the null, power, reproducibility, bad input."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from bertscore_plugins.analysis.stats import (
    Interval,
    PairedResult,
    approximate_randomization,
    bootstrap_interval,
    corpus_intervals,
    paired_bootstrap,
    paired_test,
    rows_that_moved,
)

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


def per_row_f1(n: int, seed: int) -> np.ndarray:
    """Precomputed-style per-row F1 scores: skewed towards 1 like real BERTScore F1 on MT output."""
    return 0.55 + 0.45 * np.random.default_rng(seed).beta(5.0, 2.0, size=n)


def same_system_twice(trial: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """One system run twice with shuffled tie-breaking: each row's score moves by independent noise."""
    base = per_row_f1(n, seed=1000)
    rng = np.random.default_rng(trial)
    return base + rng.normal(0.0, 0.02, n), base + rng.normal(0.0, 0.02, n)


@pytest.mark.slow  # hundreds of resampled null trials: a calibration check, the whole suite's
@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_paired_test_rejects_about_five_percent_of_null_trials(method: str) -> None:
    trials = 200
    rejections = sum(
        paired_test(*same_system_twice(trial), method=method, resamples=1000, seed=trial).p_value < 0.05
        for trial in range(trials)
    )
    rate = rejections / trials
    # Binomial(200, 0.05): 95% of seeds give 4..17 rejections; a miscalibrated test is far outside.
    assert 0.02 <= rate <= 0.09, f"{method}: rejected {rejections}/{trials} null trials"


def test_paired_test_detects_a_real_improvement_and_its_size() -> None:
    base = per_row_f1(400, seed=7)
    noise = np.random.default_rng(8).normal(0.0, 0.02, 400)
    better = base + 0.01 + noise
    for method in ("bootstrap", "randomization"):
        result = paired_test(base, better, method=method, seed=3)
        assert isinstance(result, PairedResult)
        assert result.n == 400
        assert result.p_value < 0.001
        assert result.better() == "b"
        assert result.low < result.difference < result.high
        assert result.low < 0.01 < result.high
        assert result.difference == pytest.approx(float(np.mean(better - base)), abs=1e-12)
        assert result.mean_b - result.mean_a == pytest.approx(result.difference, abs=1e-12)
    # Swapping the systems flips the sign and the winner, not the p-value.
    forward = paired_bootstrap(base, better, seed=3)
    backward = paired_bootstrap(better, base, seed=3)
    assert backward.difference == pytest.approx(-forward.difference)
    assert backward.better() == "a"
    assert backward.p_value == forward.p_value


def test_identical_systems_are_never_significant() -> None:
    scores = per_row_f1(50, seed=2)
    result = approximate_randomization(scores, scores, resamples=500, seed=0)
    assert result.difference == 0.0
    assert result.p_value == 1.0
    assert result.better() == "neither"


def test_seed_reproduces_results_and_none_is_allowed() -> None:
    a, b = same_system_twice(5)
    assert paired_bootstrap(a, b, seed=11) == paired_bootstrap(a, b, seed=11)
    assert approximate_randomization(a, b, resamples=300, seed=11) == approximate_randomization(
        a, b, resamples=300, seed=11
    )
    assert 0.0 < paired_bootstrap(a, b, seed=None).p_value <= 1.0


def test_bootstrap_interval_of_the_mean_covers_and_matches_the_normal_width() -> None:
    scores = per_row_f1(1000, seed=4)
    interval = bootstrap_interval(scores, resamples=2000, seed=1)
    assert isinstance(interval, Interval)
    assert interval.estimate == pytest.approx(float(scores.mean()))
    assert interval.low < interval.estimate < interval.high
    normal_half_width = 1.96 * scores.std(ddof=1) / np.sqrt(scores.size)
    assert (interval.high - interval.low) / 2 == pytest.approx(normal_half_width, rel=0.1)
    assert "95% CI" in str(interval)


def test_bootstrap_interval_coverage_is_near_nominal() -> None:
    # 100 samples from a known distribution: the 90% interval should contain the true mean ~90 times.
    true_mean = 0.55 + 0.45 * 5.0 / 7.0
    covered = sum(
        bootstrap_interval(per_row_f1(200, seed=seed), confidence=0.9, resamples=500, seed=seed).low
        <= true_mean
        <= bootstrap_interval(per_row_f1(200, seed=seed), confidence=0.9, resamples=500, seed=seed).high
        for seed in range(100)
    )
    assert 80 <= covered <= 97


def test_corpus_intervals_for_scores_objects_and_mappings() -> None:
    f1 = per_row_f1(100, seed=9)
    scores = SimpleNamespace(precision=f1 - 0.01, recall=f1 + 0.01, f1=f1)
    intervals = corpus_intervals(scores, resamples=200, seed=5)
    assert set(intervals) == {"precision", "recall", "f1"}
    assert intervals["f1"].estimate == pytest.approx(float(f1.mean()))
    # Same resampled rows for the three columns: a constant shift moves the bounds by the shift.
    assert intervals["recall"].low - intervals["precision"].low == pytest.approx(0.02)
    as_mapping = corpus_intervals(
        {"precision": scores.precision, "recall": scores.recall, "f1": f1}, resamples=200, seed=5
    )
    assert as_mapping == intervals


def test_rows_that_moved_orders_by_absolute_change() -> None:
    a = np.array([0.5, 0.5, 0.5, 0.5])
    b = np.array([0.6, 0.2, 0.5, 0.45])
    assert rows_that_moved(a, b, k=2) == [(1, pytest.approx(-0.3)), (0, pytest.approx(0.1))]


def test_a_change_that_prints_as_zero_is_not_a_move() -> None:
    a = np.array([0.5, 0.5, 0.5, 0.5])
    b = np.array([0.6, 0.5, 0.50004, 0.49994])
    assert rows_that_moved(a, b, k=4) == [(0, pytest.approx(0.1)), (3, pytest.approx(-0.00006))]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: paired_test([0.1, 0.2], [0.1]), "scores_a has 2 rows, scores_b has 1"),
        (lambda: paired_test([0.1, float("nan")], [0.1, 0.2]), "scores_a: row 1"),
        (lambda: paired_test([0.1], [None]), "row 0"),
        (lambda: paired_test([0.1], [0.2], method="t-test"), "method must be one of"),
        (lambda: bootstrap_interval([]), "no rows"),
        (lambda: bootstrap_interval([0.1, 0.2], confidence=95), "confidence"),
        (lambda: bootstrap_interval([0.1, 0.2], resamples=0), "resamples"),
        (lambda: corpus_intervals({"precision": [0.1], "recall": [0.1]}), "'f1'"),
    ],
)
def test_bad_input_names_the_problem(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()

"""Scores.means(): the one corpus-level mean, accumulated in float64 (no model)."""

from __future__ import annotations

import numpy as np
import pytest

from bertscore_plugins.core.scores import Scores
from bertscore_plugins.core.signature import Signature


def test_means_are_float64_means_of_the_rows():
    rng = np.random.default_rng(3)
    columns = [rng.random(100_000).astype(np.float32) for _ in range(3)]
    scores = Scores(*columns, Signature("bertscore_plugins:test"), rescaled=False)
    means = scores.means()
    assert list(means) == ["precision", "recall", "f1"]
    for name, column in zip(means, columns, strict=True):
        assert type(means[name]) is float
        assert means[name] == pytest.approx(float(np.mean(column, dtype=np.float64)), rel=1e-12)


def test_comparisons_report_the_same_means():
    from bertscore_plugins.analysis.stats import corpus_intervals

    rng = np.random.default_rng(4)
    scores = Scores(
        *(rng.random(20_000).astype(np.float32) for _ in range(3)), Signature("x:y"), rescaled=False
    )
    intervals = corpus_intervals(scores, resamples=10)
    assert {name: interval.estimate for name, interval in intervals.items()} == scores.means()


def test_means_of_no_rows_is_an_error_not_nan():
    empty = np.zeros(0, dtype=np.float32)
    with pytest.raises(ValueError, match="no rows"):
        Scores(empty, empty, empty, Signature("bertscore_plugins:test"), rescaled=False).means()

"""How two systems are compared is checked when it is given: a resample count of 0 is refused, never
silently replaced by the default."""

from __future__ import annotations

import math

import pytest

from bertscore_plugins.analysis.comparison import ComparisonOptions, compare_systems
from bertscore_plugins.analysis.stats import paired_test
from bertscore_plugins.errors import ArgumentError


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("resamples", 0),
        ("resamples", -3),
        ("resamples", 2.5),
        ("resamples", True),
        ("resamples", math.nan),
        ("confidence", 0.0),
        ("confidence", 1.0),
        ("confidence", math.nan),
        ("seed", -1),
        ("seed", 1.5),
        ("top", -1),
        ("metric", "bleu"),
        ("method", "t-test"),
    ],
)
def test_a_setting_out_of_range_is_refused_naming_it(field, value):
    with pytest.raises(ArgumentError, match=rf"^{field} must be"):
        ComparisonOptions(**{field: value})


def test_compare_systems_checks_its_keywords_before_scoring():
    with pytest.raises(ArgumentError, match="resamples must be a positive whole number, got 0"):
        compare_systems(["a"], ["b"], ["c"], scorer=object(), resamples=0)


def test_a_zero_resample_count_is_refused_by_the_test_itself():
    with pytest.raises(ArgumentError, match="resamples must be a positive integer, got 0"):
        paired_test([0.1, 0.2], [0.2, 0.3], resamples=0)
    assert paired_test([0.1, 0.2, 0.4], [0.2, 0.3, 0.5], resamples=7).resamples == 7

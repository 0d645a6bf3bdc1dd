"""Every bad row of an input is named (up to a few, then a count), so a column with many missing values
is found in one run instead of one row per run."""

from __future__ import annotations

import pytest

from bertscore_plugins.errors import InputError
from bertscore_plugins.inputs import check_pairs

NAN = float("nan")


def test_one_bad_row_is_named_with_its_problem():
    with pytest.raises(InputError) as caught:
        check_pairs(["a", None, "b"], ["a", "b", "c"])
    assert str(caught.value) == "candidates[1] is None (a missing value?)"


def test_many_missing_rows_are_named_up_to_three_then_counted():
    candidates = [NAN if row in (3, 7, 9, 11, 12, 15) else "x" for row in range(20)]
    with pytest.raises(InputError) as caught:
        check_pairs(candidates, ["r"] * 20)
    assert str(caught.value) == "candidates rows 3, 7, 9 and 3 more are NaN (a missing value?)"


def test_rows_with_other_problems_are_counted_after_the_first_kind():
    with pytest.raises(InputError) as caught:
        check_pairs(["a", 5, None, None], ["r"] * 4)
    assert str(caught.value) == (
        "candidates[1] is int 5, expected str; 2 more row(s) have other problems, e.g. candidates[2] is None "
        "(a missing value?)"
    )


def test_bad_references_inside_groups_are_named_by_row_and_position():
    with pytest.raises(InputError) as caught:
        check_pairs(["a", "b", "c"], [["x", None], [None], NAN])
    assert str(caught.value) == (
        "references rows 0 (reference 1), 1 (reference 0) are None (a missing value?); 1 more row(s) have "
        "other problems, e.g. references[2] is NaN (a missing value?)"
    )

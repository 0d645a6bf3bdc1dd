"""The encoder's batch plan: the cheapest cut of length-sorted texts under a token budget (no model)."""

from __future__ import annotations

from itertools import combinations, pairwise

import numpy as np
import pytest

from bertscore_plugins.core.embed import plan_batches


def _cost(lengths: list[int], cuts: list[int], budget: int, overhead: float) -> float:
    bounds = [0, *cuts, len(lengths)]
    batches = list(pairwise(bounds))
    if any(end - start > 1 and (end - start) * lengths[start] > budget for start, end in batches):
        return float("inf")
    return sum(overhead + (end - start) * lengths[start] for start, end in batches)


def _cases(count: int) -> list[tuple[list[int], int]]:
    # seeded random cases (up to 8 texts of 1..40 tokens, budgets 10..120): brute force stays cheap
    rng = np.random.default_rng(11)
    return [
        (rng.integers(1, 41, size=int(rng.integers(1, 9))).tolist(), int(rng.integers(10, 121)))
        for _ in range(count)
    ]


def test_the_plan_is_the_cheapest_cut():
    for lengths, budget in _cases(60):
        lengths = sorted(lengths, reverse=True)
        overhead = budget / 64
        plan = plan_batches(lengths, budget, overhead)
        assert [start for start, _ in plan] == [0] + [end for _, end in plan[:-1]] and plan[-1][1] == len(
            lengths
        )
        best = min(
            _cost(lengths, list(cuts), budget, overhead)
            for size in range(len(lengths))
            for cuts in combinations(range(1, len(lengths)), size)
        )
        assert _cost(lengths, [start for start, _ in plan[1:]], budget, overhead) == pytest.approx(best), (
            lengths
        )


def test_a_text_longer_than_the_budget_goes_alone():
    assert plan_batches([50, 3, 3], 20, 1.0) == [(0, 1), (1, 3)]

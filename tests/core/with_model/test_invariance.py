"""Invariance: row order, batch sizes, duplicates and added rows never change a row's score (<= 1e-6)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bertscore_plugins import ScoreConfig, get_scorer
from tests.support.eval_data import wmt16_pairs

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

TOLERANCE = 1e-6
CANDIDATES, REFERENCES, _ = wmt16_pairs(24)


@pytest.fixture(scope="module")
def baseline_scores():
    return get_scorer().score(CANDIDATES, REFERENCES)


SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.slow
@SLOW
@given(st.permutations(range(len(CANDIDATES))))
def test_shuffling_rows_keeps_each_rows_score(baseline_scores, order):
    shuffled = get_scorer().score([CANDIDATES[i] for i in order], [REFERENCES[i] for i in order])
    np.testing.assert_allclose(shuffled.f1, baseline_scores.f1[list(order)], atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(
        shuffled.precision, baseline_scores.precision[list(order)], atol=TOLERANCE, rtol=0
    )


@pytest.mark.slow
@SLOW
@given(st.integers(min_value=1, max_value=64), st.integers(min_value=1, max_value=30))
def test_batch_sizes_and_chunks_do_not_matter(baseline_scores, texts_per_batch, chunk_pairs):
    # batch_tokens small enough that a batch holds about `texts_per_batch` texts
    scorer = get_scorer(ScoreConfig(batch_tokens=texts_per_batch * 40, chunk_pairs=chunk_pairs))
    scores = scorer.score(CANDIDATES, REFERENCES)
    np.testing.assert_allclose(scores.f1, baseline_scores.f1, atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(scores.recall, baseline_scores.recall, atol=TOLERANCE, rtol=0)


@pytest.mark.slow
@SLOW
@given(st.lists(st.integers(min_value=0, max_value=len(CANDIDATES) - 1), min_size=1, max_size=40))
def test_duplicated_and_added_rows_change_nothing(baseline_scores, extra_rows):
    extra_c = [CANDIDATES[i] for i in extra_rows] + ["An unrelated added row about weather."]
    extra_r = [REFERENCES[i] for i in extra_rows] + ["Rain is expected tomorrow in the north."]
    scores = get_scorer().score(CANDIDATES + extra_c, REFERENCES + extra_r)
    np.testing.assert_allclose(scores.f1[: len(CANDIDATES)], baseline_scores.f1, atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(
        scores.f1[len(CANDIDATES) : -1], baseline_scores.f1[extra_rows], atol=TOLERANCE, rtol=0
    )


def test_output_order_equals_input_order_with_three_items():
    # the torchmetrics mis-ordering case: different length orders on both sides, three items
    candidates = ["a b", "c d e", "f"]
    references = ["a q", "c d r", "f"]
    together = get_scorer().score(candidates, references)
    alone = [get_scorer().score([c], [r]).f1[0] for c, r in zip(candidates, references, strict=True)]
    np.testing.assert_allclose(together.f1, alone, atol=TOLERANCE, rtol=0)
    assert together.f1[2] == pytest.approx(1.0, abs=1e-6)
    assert together.f1[0] < 1.0 and together.f1[1] < 1.0


@pytest.mark.slow
def test_chunks_are_cut_by_tokens_not_only_rows(baseline_scores, monkeypatch):
    # peak memory is one chunk's embeddings: a budget of ~100 tokens per chunk must split these 24
    # rows into many chunks, none over the budget unless it is a single row, and change no score
    import bertscore_plugins.core.scorer as scorer_module

    scorer = get_scorer()
    hidden = scorer._hidden_size()
    monkeypatch.setattr(scorer_module, "CHUNK_VALUES", 100 * hidden)
    groups = [[reference] for reference in REFERENCES]
    chunks = list(scorer._plan(CANDIDATES, groups, [scorer.layer]))
    assert [chunk.rows.start for chunk in chunks] == [0] + [chunk.rows.stop for chunk in chunks[:-1]]
    total = sum(len(tokens.ids) for chunk in chunks for tokens in chunk.tokens)
    assert chunks[-1].rows.stop == len(CANDIDATES) and len(chunks) >= max(total // 100, 5)
    for chunk in chunks:
        rows = chunk.rows
        texts = list(dict.fromkeys(t for row in rows for t in (CANDIDATES[row], REFERENCES[row])))
        assert chunk.texts == texts  # each chunk's texts tokenized once, by the planner
        assert len(rows) == 1 or sum(len(tokens.ids) for tokens in chunk.tokens) <= 100
    scores = scorer.score(CANDIDATES, REFERENCES)
    np.testing.assert_allclose(scores.f1, baseline_scores.f1, atol=TOLERANCE, rtol=0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8), st.integers(10, 120))
def test_batch_plan_is_the_cheapest_cut(lengths, budget):
    # the embedder cuts length-sorted texts into batches minimising padded positions plus a fixed
    # cost per batch, never over the token budget (a text longer than the budget goes alone):
    # compare with brute force over every way to cut the sorted list
    from itertools import combinations

    from bertscore_plugins.core import embed

    lengths = sorted(lengths, reverse=True)
    embedder = get_scorer().embedder
    saved = embedder.batch_tokens
    embedder.batch_tokens = budget
    try:
        plan = embedder._plan_batches(lengths)
    finally:
        embedder.batch_tokens = saved
    overhead = budget * embed.BATCH_COST["cpu"]

    def cost(cuts):
        bounds = [0, *cuts, len(lengths)]
        batches = list(pairwise(bounds))
        if any(end - start > 1 and (end - start) * lengths[start] > budget for start, end in batches):
            return float("inf")
        return sum(overhead + (end - start) * lengths[start] for start, end in batches)

    best = min(
        cost(cuts) for size in range(len(lengths)) for cuts in combinations(range(1, len(lengths)), size)
    )
    assert [start for start, _ in plan] == [0] + [end for _, end in plan[:-1]] and plan[-1][1] == len(lengths)
    assert cost([start for start, _ in plan[1:]]) == pytest.approx(best)

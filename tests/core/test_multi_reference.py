"""The multi-reference rule on hand-made pair scores (no model)."""

from __future__ import annotations

import numpy as np
import pytest

from bertscore_plugins.core.multi_reference import best_pairs, reduce_over_references

# rows with 2, 1 and 3 references; (precision/recall/f1, layers=1, pairs=6)
PAIRS = np.array(
    [
        [[0.9, 0.5, 0.7, 0.2, 0.8, 0.8]],  # precision
        [[0.1, 0.6, 0.7, 0.9, 0.3, 0.6]],  # recall
        [[0.3, 0.55, 0.7, 0.4, 0.5, 0.7]],  # f1: row 2 ties between its 1st and 3rd reference
    ],
    dtype=np.float32,
)
COUNTS = np.array([2, 1, 3])


def test_max_takes_each_column_on_its_own_like_bert_score():
    scores, _ = reduce_over_references(PAIRS, COUNTS, "max")
    expected = np.array([[0.9, 0.7, 0.8], [0.6, 0.7, 0.9], [0.55, 0.7, 0.7]], dtype=np.float32)
    np.testing.assert_array_equal(scores[:, 0], expected)


def test_best_f1_keeps_the_triple_of_the_best_reference_first_on_ties():
    scores, best = reduce_over_references(PAIRS, COUNTS, "best_f1")
    assert best.tolist() == [[1, 2, 5]]
    np.testing.assert_array_equal(scores[:, 0], PAIRS[:, 0, [1, 2, 5]])
    assert best_pairs(np.array([0.2, 0.2, 0.1]), np.array([3])).tolist() == [0]


def test_every_layer_is_reduced_on_its_own():
    layered = np.concatenate([PAIRS, PAIRS[:, :, ::-1]], axis=1)  # layer 1: the pairs reversed
    counts = np.array([3, 3])
    scores, best = reduce_over_references(layered, counts, "best_f1")
    assert scores.shape == (3, 2, 2)
    for layer in range(2):
        alone, alone_best = reduce_over_references(layered[:, layer : layer + 1], counts, "best_f1")
        np.testing.assert_array_equal(scores[:, layer], alone[:, 0])
        assert best[layer].tolist() == alone_best[0].tolist()


def test_a_row_without_references_or_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="at least one reference"):
        reduce_over_references(PAIRS[:, :, :2], np.array([2, 0]), "max")
    with pytest.raises(ValueError, match="multi_ref must be one of"):
        reduce_over_references(PAIRS, COUNTS, "mean")

"""The multi-reference rule: one row's score from the scores of its (candidate, reference) pairs.

"max" is bert_score's: precision, recall and F1 each take their best reference on their own (the
three may come from different references). "best_f1" keeps the whole triple of the reference with the
best F1, so precision and recall describe one real pair.
"""

from __future__ import annotations

import numpy as np

from bertscore_plugins.core.score_config import MULTI_REF_RULES
from bertscore_plugins.errors import ArgumentError


def best_pairs(f1: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The position of each row's best-F1 pair (the first on ties).

    Args:
        f1: (..., pairs) pair F1, rows' pairs consecutive.
        counts: pairs per row (each >= 1).

    Returns:
        (..., rows) pair positions.
    """
    offsets = _offsets(counts)
    best_f1 = np.maximum.reduceat(f1, offsets, axis=-1)
    row_of_pair = np.repeat(np.arange(len(counts)), counts)
    positions = np.where(f1 == best_f1[..., row_of_pair], np.arange(f1.shape[-1]), f1.shape[-1])
    return np.minimum.reduceat(positions, offsets, axis=-1)


def reduce_over_references(
    pair_scores: np.ndarray, counts: np.ndarray, rule: str
) -> tuple[np.ndarray, np.ndarray]:
    """Row scores from pair scores.

    Args:
        pair_scores: (precision/recall/f1, layers, pairs), rows' pairs consecutive.
        counts: references per row (each >= 1).
        rule: "max" or "best_f1".

    Returns:
        (precision/recall/f1, layers, rows) row scores, and (layers, rows) the position of each row's
        best-F1 pair (what an explanation shows).

    Raises:
        ValueError: an unknown rule.
    """
    if rule not in MULTI_REF_RULES:
        raise ArgumentError(f"multi_ref must be one of {MULTI_REF_RULES}, got {rule!r}")
    if len(counts) == 0:
        return pair_scores[..., :0], np.zeros((*pair_scores.shape[1:-1], 0), dtype=np.int64)
    best = best_pairs(pair_scores[2], counts)
    if rule == "max":
        return np.maximum.reduceat(pair_scores, _offsets(counts), axis=-1), best
    return np.take_along_axis(pair_scores, np.broadcast_to(best, (3, *best.shape)), axis=-1), best


def _offsets(counts: np.ndarray) -> np.ndarray:
    if np.min(counts) < 1:
        raise ArgumentError("every row needs at least one reference")
    return np.concatenate(([0], np.cumsum(counts)[:-1]))

"""Greedy cosine matching against a direct formula, on random unit vectors (no model)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertscore_plugins.core.match import greedy_match, match_pairs


def _unit(rng: np.random.Generator, tokens: int, hidden: int = 8) -> torch.Tensor:
    values = rng.standard_normal((tokens, hidden)).astype(np.float32)
    return torch.from_numpy(values / np.linalg.norm(values, axis=1, keepdims=True))


def _weights(rng: np.random.Generator, tokens: int) -> torch.Tensor:
    values = rng.random(tokens).astype(np.float32) + 0.1
    return torch.from_numpy(values / values.sum())


def _direct(cand, cand_w, ref, ref_w) -> tuple[float, float, float]:
    similarity = cand.numpy().astype(np.float64) @ ref.numpy().astype(np.float64).T
    precision = float((similarity.max(axis=1) * cand_w.numpy()).sum())
    recall = float((similarity.max(axis=0) * ref_w.numpy()).sum())
    return precision, recall, 2 * precision * recall / (precision + recall)


@pytest.fixture
def pairs():
    rng = np.random.default_rng(7)
    lengths = [(3, 5), (1, 1), (12, 4), (7, 9), (2, 20)]
    cands = [_unit(rng, c) for c, _ in lengths]
    refs = [_unit(rng, r) for _, r in lengths]
    return cands, [_weights(rng, len(c)) for c in cands], refs, [_weights(rng, len(r)) for r in refs]


def test_greedy_match_equals_the_formula_pair_by_pair(pairs):
    precision, recall, f1 = greedy_match(*pairs)
    for i, expected in enumerate(zip(*pairs, strict=True)):
        assert (float(precision[i]), float(recall[i]), float(f1[i])) == pytest.approx(
            _direct(*expected), abs=1e-6
        )


def test_a_pair_scores_the_same_alone_and_padded_beside_longer_pairs(pairs):
    together = greedy_match(*pairs)
    for i in range(len(pairs[0])):
        alone = greedy_match(*([side[i]] for side in pairs))
        for batched, single in zip(together, alone, strict=True):
            # padding is masked with -inf, never matched: only float rounding of the batched product differs
            assert float(batched[i]) == pytest.approx(float(single[0]), abs=1e-6)


def test_identical_texts_score_one():
    rng = np.random.default_rng(1)
    text, weights = _unit(rng, 6), _weights(rng, 6)
    precision, _recall, f1 = greedy_match([text], [weights], [text], [weights])
    assert float(precision[0]) == pytest.approx(1.0, abs=1e-6) and float(f1[0]) == pytest.approx(
        1.0, abs=1e-6
    )


def test_match_pairs_scores_every_layer_and_zero_for_an_empty_side(pairs):
    cands, cand_w, refs, ref_w = pairs
    # two layers: the second is the first negated on the reference side (cosine flips sign)
    layered_c = [torch.stack([c, c]) for c in cands] + [torch.empty(2, 0, 8)]
    layered_r = [torch.stack([r, -r]) for r in refs] + [torch.stack([refs[0], refs[0]])]
    scores = match_pairs(layered_c, [*cand_w, torch.zeros(0)], layered_r, [*ref_w, ref_w[0]])
    assert scores.shape == (3, 2, len(cands) + 1) and scores.dtype == np.float32
    first = greedy_match(cands, cand_w, refs, ref_w)
    np.testing.assert_array_equal(scores[:, 0, :-1], torch.stack(first).numpy())
    for i in range(len(cands)):
        negated = _direct(cands[i], cand_w[i], -refs[i], ref_w[i])
        assert tuple(scores[:, 1, i]) == pytest.approx(negated, abs=1e-6)
    assert scores[:, :, -1].tolist() == [[0.0, 0.0]] * 3  # the empty candidate


def test_match_pairs_of_no_pairs_is_empty():
    assert match_pairs([], [], [], []).shape == (3, 1, 0)

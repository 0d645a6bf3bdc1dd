"""Greedy cosine matching: P = sum_i w_i max_j cos(c_i, r_j), R symmetrically, F1 their harmonic mean.

Pairs are matched in padded batches on the model's device. Padding cells are masked with -inf (not 0
as in bert_score), so a pair's score never depends on which other pairs share its batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

#: similarity cells (pairs x cand tokens x ref tokens) per matching step; bounds memory
MATCH_CELLS = 1 << 23
#: pairs per matching step
MATCH_PAIRS = 512
#: padded embedding values (pairs x (cand + ref tokens) x hidden) per step: 64 MiB in float32, so a
#: step with one long text cannot hold hundreds of long padded copies (peak memory stays flat)
MATCH_VALUES = 1 << 24


def match_pairs(
    candidate_embeddings: Sequence[torch.Tensor],
    candidate_weights: Sequence[torch.Tensor],
    reference_embeddings: Sequence[torch.Tensor],
    reference_weights: Sequence[torch.Tensor],
) -> np.ndarray:
    """P, R, F1 of aligned pairs at every layer: float32 (precision/recall/f1, layers, pairs).

    Embeddings are (layers, tokens, hidden) with unit-norm rows, weights (tokens,) summing to 1. A pair
    with an empty side (no tokens) scores 0.
    """
    count = len(candidate_embeddings)
    depth = candidate_embeddings[0].shape[0] if count else 1
    scores = np.zeros((3, depth, count), dtype=np.float32)
    scored = [
        i for i in range(count) if candidate_embeddings[i].shape[-2] and reference_embeddings[i].shape[-2]
    ]
    if not scored:
        return scores
    cand_weights = [candidate_weights[i] for i in scored]
    ref_weights = [reference_weights[i] for i in scored]
    for layer in range(depth):
        precision, recall, f1 = greedy_match(
            [candidate_embeddings[i][layer] for i in scored],
            cand_weights,
            [reference_embeddings[i][layer] for i in scored],
            ref_weights,
        )
        scores[:, layer, scored] = torch.stack((precision, recall, f1)).numpy()
    return scores


def greedy_match(
    candidate_embeddings: Sequence[torch.Tensor],
    candidate_weights: Sequence[torch.Tensor],
    reference_embeddings: Sequence[torch.Tensor],
    reference_weights: Sequence[torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """P, R, F1 (float32, CPU) for aligned pairs of (tokens, hidden) unit-norm embeddings and normalised
    weights (every side non-empty)."""
    count = len(candidate_embeddings)
    precision = torch.zeros(count, dtype=torch.float32)
    recall = torch.zeros(count, dtype=torch.float32)
    # sort pairs by size so each step pads little; results go back by index
    order = sorted(range(count), key=lambda i: (len(candidate_embeddings[i]), len(reference_embeddings[i])))
    hidden = candidate_embeddings[0].shape[-1] if count else 1
    position = 0
    while position < count:
        step = [order[position]]
        longest_c, longest_r = len(candidate_embeddings[step[0]]), len(reference_embeddings[step[0]])
        position += 1
        while position < count:
            index = order[position]
            new_c = max(longest_c, len(candidate_embeddings[index]))
            new_r = max(longest_r, len(reference_embeddings[index]))
            grown = len(step) + 1
            if (
                len(step) >= MATCH_PAIRS
                or grown * new_c * new_r > MATCH_CELLS
                or grown * (new_c + new_r) * hidden > MATCH_VALUES
            ):
                break
            step.append(index)
            longest_c, longest_r = new_c, new_r
            position += 1
        step_p, step_r = _match_step(
            [candidate_embeddings[i] for i in step],
            [candidate_weights[i] for i in step],
            [reference_embeddings[i] for i in step],
            [reference_weights[i] for i in step],
        )
        index_tensor = torch.tensor(step, dtype=torch.long)
        precision[index_tensor] = step_p
        recall[index_tensor] = step_r
    f1 = 2 * precision * recall / (precision + recall)
    f1 = f1.masked_fill(torch.isnan(f1), 0.0)
    return precision, recall, f1


def _pad(tensors: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    padded = torch.nn.utils.rnn.pad_sequence(list(tensors), batch_first=True)
    lengths = torch.tensor([len(t) for t in tensors], device=padded.device)
    mask = torch.arange(padded.shape[1], device=padded.device)[None, :] < lengths[:, None]
    return padded, mask


def _match_step(
    cand_emb: Sequence[torch.Tensor],
    cand_w: Sequence[torch.Tensor],
    ref_emb: Sequence[torch.Tensor],
    ref_w: Sequence[torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor]:
    cand, cand_mask = _pad(cand_emb)
    ref, ref_mask = _pad(ref_emb)
    cand_weight, _ = _pad(cand_w)
    ref_weight, _ = _pad(ref_w)
    similarity = torch.bmm(cand, ref.transpose(1, 2))
    # in place, no copies: mask padded candidate rows for the recall max, then padded reference
    # columns for the precision max (padded rows/columns get weight 0 and are zeroed below)
    similarity.masked_fill_(~cand_mask[:, :, None], float("-inf"))
    best_for_ref = similarity.max(dim=1).values
    similarity.masked_fill_(~ref_mask[:, None, :], float("-inf"))
    best_for_cand = similarity.max(dim=2).values
    best_for_cand = best_for_cand.masked_fill(~cand_mask, 0.0)
    best_for_ref = best_for_ref.masked_fill(~ref_mask, 0.0)
    precision = (best_for_cand * cand_weight).sum(dim=1)
    recall = (best_for_ref * ref_weight).sum(dim=1)
    return precision.cpu(), recall.cpu()


def similarity_matrix(candidate: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    """Token-by-token cosine similarities of one pair (cand tokens x ref tokens)."""
    return candidate @ reference.T

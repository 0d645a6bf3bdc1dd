"""Token weights of one text: idf or uniform, summing to 1 (special tokens weigh 0 without idf)."""

from __future__ import annotations

import torch

from bertscore_plugins.core.idf import IdfTable
from bertscore_plugins.core.tokenize import TextTokenizer, TokenizedText


def token_weights(
    tokens: TokenizedText, tokenizer: TextTokenizer, idf_table: IdfTable | None, idf_fallback: set[str]
) -> torch.Tensor:
    """(tokens,) float32 weights summing to 1 (empty for an empty text). A text whose every token has
    idf 0 is weighed uniformly over its content tokens and added to `idf_fallback` (to be warned about)."""
    if tokens.is_empty:
        return torch.zeros(0)
    if idf_table is None:
        zero = tokenizer.zero_weight_ids
        values = [0.0 if token_id in zero else 1.0 for token_id in tokens.ids]
    else:
        values = idf_table.weights_for(tokens.ids)
        if sum(values) <= 0:
            # every token of this text occurs in every idf document: no information; fall back to
            # uniform weights over its content tokens (bert_score returns NaN here)
            idf_fallback.add(tokens.text)
            prefix, suffix = len(tokenizer.prefix_ids), len(tokenizer.suffix_ids)
            values = [0.0] * prefix + [1.0] * (len(tokens.ids) - prefix - suffix) + [0.0] * suffix
    weights = torch.tensor(values, dtype=torch.float32)
    total = weights.sum()
    if total <= 0:  # only special tokens carry weight zero and nothing else is there
        weights = torch.ones_like(weights)
        total = weights.sum()
    return weights / total

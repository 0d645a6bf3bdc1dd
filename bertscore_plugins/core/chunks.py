"""Chunks: consecutive rows whose unique texts are tokenized, embedded and weighed once, sized so that
one chunk's embeddings fit a fixed budget of values: peak memory is one chunk's whatever the input size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import torch

from bertscore_plugins.core.idf import IdfTable, idf_from_token_ids
from bertscore_plugins.core.tokenize import TextTokenizer, TokenizedText

#: rows whose texts are token-counted in one batched tokenizer call when planning chunks
_COUNT_BLOCK = 256


@dataclass
class Chunk:
    """Consecutive rows and their unique texts: each text is tokenized, embedded and weighed once."""

    rows: range  # positions in the call's input
    candidates: list[str]  # one per row
    references: list[list[str]]  # one non-empty list per row
    texts: list[str]  # the unique texts of these rows, first use first
    tokens: list[TokenizedText]  # per text, from the planner
    embeddings: list[torch.Tensor] = field(default_factory=list)  # per text: (layers, tokens, hidden)
    weights: list[torch.Tensor] = field(default_factory=list)  # per text: (tokens,), summing to 1

    @classmethod
    def of(
        cls, candidates: list[str], groups: list[list[str]], rows: range, tokens: dict[str, TokenizedText]
    ) -> Chunk:
        return cls(
            rows,
            candidates[rows.start : rows.stop],
            groups[rows.start : rows.stop],
            list(tokens),
            list(tokens.values()),
        )

    @cached_property
    def index(self) -> dict[str, int]:
        """Text -> its position in `texts`."""
        return {text: i for i, text in enumerate(self.texts)}

    @cached_property
    def reference_texts(self) -> set[str]:
        return {text for group in self.references for text in group}

    @property
    def reference_counts(self) -> np.ndarray:
        """References per row: each row has that many consecutive pairs."""
        return np.array([len(group) for group in self.references], dtype=np.int64)

    def pair_texts(self) -> tuple[list[int], list[int]]:
        """Candidate and reference text positions of every (row, reference) pair, row by row."""
        index = self.index
        candidates = [
            index[cand] for cand, group in zip(self.candidates, self.references, strict=True) for _ in group
        ]
        references = [index[ref] for group in self.references for ref in group]
        return candidates, references


def fit_idf_on_chunks(chunks: list[Chunk], model_identity: str) -> IdfTable:
    """idf over every reference of the call (duplicates counted), from the planner's tokens."""
    documents = (
        chunk.tokens[chunk.index[reference]].ids
        for chunk in chunks
        for group in chunk.references
        for reference in group
    )
    return idf_from_token_ids(documents, model_identity)


def plan_chunks(
    candidates: list[str],
    groups: list[list[str]],
    tokenizer: TextTokenizer,
    *,
    truncate: bool,
    token_budget: int,
    chunk_pairs: int,
) -> Iterator[Chunk]:
    """Chunks of consecutive rows: at most `chunk_pairs` pairs and `token_budget` tokens of unique texts
    (a row alone over the budget is its own chunk), each text tokenized once, here.

    A chunk's embeddings are all held until its pairs are matched, so peak memory is one chunk's:
    budgeting tokens (not rows) keeps it flat when some rows are long or tokenize into many pieces
    (e.g. Cyrillic text in an English vocabulary: 2.3x the tokens per row). A row's references are
    never split.
    """
    chunk: dict[str, TokenizedText] = {}
    start, pairs, tokens = 0, 0, 0
    for block in range(0, len(groups), _COUNT_BLOCK):
        rows = range(block, min(block + _COUNT_BLOCK, len(groups)))
        block_texts = list(dict.fromkeys(text for row in rows for text in (candidates[row], *groups[row])))
        encoded = dict(zip(block_texts, tokenizer.encode(block_texts, truncate=truncate), strict=True))
        for row in rows:
            row_texts = dict.fromkeys((candidates[row], *groups[row]))
            new = [text for text in row_texts if text not in chunk]
            row_tokens = sum(len(encoded[text].ids) for text in new)
            if pairs and (pairs + len(groups[row]) > chunk_pairs or tokens + row_tokens > token_budget):
                yield Chunk.of(candidates, groups, range(start, row), chunk)
                start, pairs, tokens, chunk = row, 0, 0, {}
                new, row_tokens = list(row_texts), sum(len(encoded[text].ids) for text in row_texts)
            chunk.update((text, encoded[text]) for text in new)
            pairs += len(groups[row])
            tokens += row_tokens
    if start < len(groups):
        yield Chunk.of(candidates, groups, range(start, len(groups)), chunk)

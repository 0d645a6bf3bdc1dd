"""The steps of scoring a chunk that need only the chunk: its pairs matched, its best pairs explained, and
the progress credit of its rows as its texts are encoded. `BERTScorer._score_chunk` runs them."""

from __future__ import annotations

import numpy as np

from bertscore_plugins.core.chunks import Chunk
from bertscore_plugins.core.explain import Explanation, explain_pair
from bertscore_plugins.core.match import match_pairs
from bertscore_plugins.core.tokenize import TextTokenizer
from bertscore_plugins.watching import Progress


def match_chunk(chunk: Chunk) -> np.ndarray:
    """(precision/recall/f1, layers, pairs) float32 for the chunk's pairs, row by row."""
    candidates, references = chunk.pair_texts()
    return match_pairs(
        [chunk.embeddings[i] for i in candidates],
        [chunk.weights[i] for i in candidates],
        [chunk.embeddings[i] for i in references],
        [chunk.weights[i] for i in references],
    )


def explain_chunk(chunk: Chunk, depth: int, best: np.ndarray, tokenizer: TextTokenizer) -> list[Explanation]:
    """Per row: the explanation of its best-F1 pair at the `depth`-th layer (`best`: pair per row)."""
    candidates, references = chunk.pair_texts()
    prefix, suffix = len(tokenizer.prefix_ids), len(tokenizer.suffix_ids)
    return [
        explain_pair(
            chunk.tokens[candidates[pair]],
            chunk.embeddings[candidates[pair]][depth],
            chunk.tokens[references[pair]],
            chunk.embeddings[references[pair]][depth],
            prefix,
            suffix,
        )
        for pair in best.tolist()
    ]


class RowCredit:
    """Moves a progress bar by a chunk's rows as its texts are encoded: a chunk takes 30-60 s on a busy
    2-core CPU, so a bar moved only between chunks left a log without a line for over a minute."""

    def __init__(self, bar: Progress | None, rows: int, texts: int) -> None:
        self.bar, self.rows, self.texts = bar, rows, max(texts, 1)
        self.encoded = self.credited = 0

    def __call__(self, texts: int) -> None:
        self.encoded += texts
        self._credit(min(self.rows * self.encoded // self.texts, self.rows))

    def finish(self) -> None:
        self._credit(self.rows)

    def _credit(self, due: int) -> None:
        if self.bar is not None and due > self.credited:
            self.bar.update(due - self.credited)
            self.credited = due

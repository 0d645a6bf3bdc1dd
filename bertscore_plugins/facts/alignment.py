"""The core's token alignment mapped onto the fact check's words: where in the context to look."""

from __future__ import annotations

from typing import Any

import numpy as np

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import TextFacts


class Alignment:
    """The core's token alignment mapped onto the fact check's words.

    ``context_word[k]``: the context word best aligned to output word ``k``; ``similarity[k]``: that
    cosine similarity; :meth:`closest` compares one output word with chosen context words.
    """

    def __init__(
        self, output: TextFacts | None = None, context: TextFacts | None = None, explanation: Any = None
    ) -> None:
        self.context_word: dict[int, int] = {}
        self.similarity: dict[int, float] = {}
        self._matrix: np.ndarray | None = None
        self._output_pieces: dict[int, list[int]] = {}
        self._content: set[int] = set()
        self._context_pieces: dict[int, list[int]] = {}
        self._piece_word = np.zeros(0, dtype=np.int64)
        if output is None or context is None or explanation is None:
            return
        if not getattr(explanation, "candidate_spans", None) or explanation.similarity.numel() == 0:
            return
        self._content = {
            k for k, w in enumerate(output.words) if w.text[:1].isalpha() and w.lower not in lx.STOPWORDS
        }
        matrix = explanation.similarity.numpy()
        self._matrix = matrix
        for piece, word in enumerate(output.word_indexes(explanation.candidate_spans).tolist()):
            if word >= 0:
                self._output_pieces.setdefault(word, []).append(piece)
        # context word of each context piece; the reverse (pieces of a word) only where closest() asks
        self._piece_word = context.word_indexes(explanation.reference_spans)
        best_index = matrix.argmax(axis=1)
        best = matrix[np.arange(matrix.shape[0]), best_index]
        for word, pieces in self._output_pieces.items():
            top = max(pieces, key=lambda piece: best[piece])
            target = int(self._piece_word[best_index[top]])
            if target >= 0:
                self.context_word[word] = target
                self.similarity[word] = float(best[top])

    def _pieces_of(self, context_word: int) -> list[int]:
        if context_word not in self._context_pieces:
            self._context_pieces[context_word] = np.flatnonzero(self._piece_word == context_word).tolist()
        return self._context_pieces[context_word]

    def closest(self, output_word: int, context_words: list[int], reach: int = 4) -> int | None:
        """Of ``context_words``, the one standing in for ``output_word`` (None without an alignment).

        Similarity alone picks "Sunday" for "Thursday" as readily as "Tuesday"; what decides is where
        the output word's neighbours align: "discharged on Thursday" puts "discharged" two words
        before the context's "Tuesday". So each candidate scores its similarity plus how well the
        output word's content neighbours (``reach`` words either side) keep their offsets around it.
        """
        if self._matrix is None or output_word not in self._output_pieces:
            return None
        rows = self._output_pieces[output_word]
        neighbours = [
            (k - output_word, self.context_word[k])
            for k in range(output_word - reach, output_word + reach + 1)
            if k != output_word and k in self.context_word and k in self._content
        ]
        scored = []
        for w in context_words:
            pieces = self._pieces_of(w)
            if not pieces:
                continue
            similarity = float(self._matrix[np.ix_(rows, pieces)].max())
            # nearer neighbours weigh more ("Anna Varga": the surname right after the first name)
            kept = sum(
                max(0.0, 1.0 - abs((n - w) - offset) / (reach + 1)) / abs(offset) for offset, n in neighbours
            )
            weight = sum(1.0 / abs(offset) for offset, _ in neighbours)
            scored.append((similarity + (kept / weight if weight else 0.0), w))
        return max(scored)[1] if scored else None

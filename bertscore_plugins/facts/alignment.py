"""The core's token alignment mapped onto the fact check's words: where in the context to look."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import TextFacts


class SimilarityMatrix(Protocol):
    """The alignment's token similarities (a torch matrix: facts/ reads it without importing torch)."""

    def numel(self) -> int: ...

    def numpy(self) -> np.ndarray: ...


class TokenAlignment(Protocol):
    """What the fact check reads of the core's ``Explanation`` of a pair (facts/ sits below the core and
    never imports it): the similarity of each output token to each context token, the word span of each
    token, and the texts those spans point into."""

    @property
    def similarity(self) -> SimilarityMatrix: ...

    @property
    def candidate_spans(self) -> list[tuple[int, int]]: ...

    @property
    def reference_spans(self) -> list[tuple[int, int]]: ...

    @property
    def candidate_text(self) -> str: ...

    @property
    def reference_text(self) -> str: ...


class Alignment:
    """The core's token alignment mapped onto the fact check's words.

    ``context_word[k]``: the context word best aligned to output word ``k``; ``similarity[k]``: that
    cosine similarity; :meth:`closest` compares one output word with chosen context words.
    """

    def __init__(
        self,
        output: TextFacts | None = None,
        context: TextFacts | None = None,
        explanation: TokenAlignment | None = None,
    ) -> None:
        self.context_word: dict[int, int] = {}
        self.similarity: dict[int, float] = {}
        self._matrix: np.ndarray | None = None
        self._output_pieces: dict[int, list[int]] = {}
        self._content: set[int] = set()
        self._by_word: tuple[np.ndarray, np.ndarray] | None = None
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

    def _pieces_by_word(self) -> tuple[np.ndarray, np.ndarray]:
        """The context's pieces ordered by their word, and those words (built once, on first need)."""
        if self._by_word is None:
            order = np.argsort(self._piece_word, kind="stable")
            self._by_word = (order, self._piece_word[order])
        return self._by_word

    def closest(
        self, output_word: int, context_words: Sequence[int] | np.ndarray, reach: int = 4
    ) -> int | None:
        """Of ``context_words``, the one standing in for ``output_word`` (None without an alignment).

        Similarity alone picks "Sunday" for "Thursday" as readily as "Tuesday"; what decides is where
        the output word's neighbours align: "discharged on Thursday" puts "discharged" two words
        before the context's "Tuesday". So each candidate scores its similarity plus how well the
        output word's content neighbours (``reach`` words either side) keep their offsets around it;
        the highest score wins (on a tie, the later word).

        Every candidate is scored at once (numpy): a long output with many unsupported facts against a
        long context asks this once per fact, over all of the context's rivals.
        """
        if self._matrix is None or output_word not in self._output_pieces or not len(context_words):
            return None
        rows = self._output_pieces[output_word]
        neighbours = [
            (k - output_word, self.context_word[k])
            for k in range(output_word - reach, output_word + reach + 1)
            if k != output_word and k in self.context_word and k in self._content
        ]
        order, words_of_pieces = self._pieces_by_word()
        words = np.asarray(context_words, dtype=np.int64)
        first = np.searchsorted(words_of_pieces, words, side="left")
        counts = np.searchsorted(words_of_pieces, words, side="right") - first
        words, first, counts = words[counts > 0], first[counts > 0], counts[counts > 0]
        if not len(words):
            return None
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        pieces = order[np.repeat(first - starts, counts) + np.arange(int(counts.sum()))]
        similarity = np.maximum.reduceat(self._matrix[np.ix_(rows, pieces)].max(axis=0), starts)
        score = similarity.astype(np.float64)
        weight = sum(1.0 / abs(offset) for offset, _ in neighbours)
        if weight:
            # nearer neighbours weigh more ("Anna Varga": the surname right after the first name)
            kept = np.zeros(len(words))
            for offset, n in neighbours:  # summed in this order, as one candidate at a time would be
                kept += np.maximum(0.0, 1.0 - np.abs((n - words) - offset) / (reach + 1)) / abs(offset)
            score = score + kept / weight
        return int(words[score == score.max()].max())

"""The longest common subsequence (LCS) of words: an output's with its whole source, and an output
sentence's with its best source passage (the lexical parts, parts.py), exact and fast on long texts.

Bit-parallel (Hyyro 2004): the source's words are bits, one big-integer step per output word. Against
passages, every passage is not compared with every sentence: a passage's LCS is at most the words it
shares with the sentence (counted with multiplicity), so passages are compared in the order of that bound
until none left can beat the best found; when many come close (a long source whose passages all say
nearly the same), the sentence is compared with all of them at once, in one pass over one integer that
holds every passage. The result is the same number as comparing with each in turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

#: passages compared one by one, in the order of their bound, before the rest are compared all at once
ONE_BY_ONE = 8
#: a word in at least this share of the passages gets a dense row of counts in the index (a sum over
#: every passage is then one vector operation, not one index per passage)
DENSE_SHARE = 1 / 16


def bit_masks(words: list[str]) -> tuple[dict[str, int], int]:
    """Per word, the bit mask of where ``words`` has it, and their number."""
    masks: dict[str, int] = {}
    for j, word in enumerate(words):
        masks[word] = masks.get(word, 0) | (1 << j)
    return masks, len(words)


def lcs_length(a: list[str], masks: dict[str, int], length: int) -> int:
    """The LCS of ``a`` and the words whose bit masks are ``masks`` (``length`` of them)."""
    full = (1 << length) - 1
    v = full
    for word in a:
        u = v & masks.get(word, 0)
        v = ((v + u) | (v - u)) & full
    return length - bin(v).count("1")


@dataclass
class Passages:
    """A source's passages (lists of words), read once: each one's bit masks, an index by word for the
    bound, and the passages laid end to end, each followed by a zero guard bit, for the all-at-once pass."""

    masks: list[tuple[dict[str, int], int]]
    #: per word: (the passages that hold it, its count in each)
    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    #: per word held by many passages: its count in every passage
    dense: dict[str, np.ndarray]
    #: where each passage starts in the laid-out bits
    starts: np.ndarray
    lengths: np.ndarray
    #: per laid-out bit, the word's number in ``numbers`` (-1: a guard)
    layout: np.ndarray
    numbers: dict[str, int]
    _laid_out: dict[str | None, int] = field(default_factory=dict)

    @classmethod
    def of(cls, passages: list[list[str]]) -> Passages:
        where: dict[str, tuple[list[int], list[int]]] = {}
        for i, passage in enumerate(passages):
            for word, count in Counter(passage).items():
                indexes, counts = where.setdefault(word, ([], []))
                indexes.append(i)
                counts.append(count)
        postings = {
            word: (np.array(i, dtype=np.intp), np.array(c, dtype=np.int64)) for word, (i, c) in where.items()
        }
        dense = {}
        for word, (held, held_counts) in postings.items():
            if len(held) >= DENSE_SHARE * len(passages):
                dense[word] = np.zeros(len(passages), dtype=np.int64)
                dense[word][held] = held_counts
        numbers = {word: n for n, word in enumerate(where)}
        lengths = np.array([len(passage) for passage in passages], dtype=np.int64)
        starts = np.r_[0, np.cumsum(lengths + 1)[:-1]].astype(np.int64)
        layout = np.full(int(lengths.sum()) + len(passages), -1, dtype=np.int64)
        for start, passage in zip(starts, passages, strict=True):
            layout[start : start + len(passage)] = [numbers[word] for word in passage]
        return cls([bit_masks(p) for p in passages], postings, dense, starts, lengths, layout, numbers)

    def _bits(self, word: str | None) -> int:
        """The laid-out bit mask of ``word`` (None: every passage's bits, no guard), built on first use."""
        if word not in self._laid_out:
            bits = self.layout >= 0 if word is None else self.layout == self.numbers.get(word, -2)
            self._laid_out[word] = int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")
        return self._laid_out[word]

    def bound(self, words: list[str]) -> np.ndarray:
        """Per passage, the words it shares with ``words`` (with multiplicity): at least its LCS."""
        bound = np.zeros(len(self.masks), dtype=np.int64)
        for word, count in Counter(words).items():
            row = self.dense.get(word)
            if row is not None:
                bound += np.minimum(row, count)
            elif word in self.postings:
                indexes, counts = self.postings[word]
                bound[indexes] += np.minimum(counts, count)
        return bound

    def lcs_with_all(self, words: list[str]) -> np.ndarray:
        """The LCS of ``words`` with each passage, in one pass: each passage's bits step exactly as on
        their own (:func:`lcs_length`); a carry out of a passage's top bit stops in its guard bit, which
        the mask clears."""
        full = self._bits(None)
        v = full
        for word in words:
            u = v & self._bits(word)
            v = ((v + u) | (v - u)) & full
        size = len(self.layout)
        bits = np.unpackbits(
            np.frombuffer(v.to_bytes((size + 7) // 8, "little"), dtype=np.uint8), bitorder="little"
        )
        return self.lengths - np.add.reduceat(bits[:size], self.starts, dtype=np.int64)

    def best_lcs(self, words: list[str]) -> int:
        """The LCS of ``words`` with the passage where it is longest (0 without a shared word)."""
        bound = self.bound(words)
        candidates = np.flatnonzero(bound)
        best = 0
        for checked, i in enumerate(candidates[np.argsort(-bound[candidates], kind="stable")]):
            if bound[i] <= best:
                break
            if checked == ONE_BY_ONE:
                return int(self.lcs_with_all(words).max())
            best = max(best, lcs_length(words, *self.masks[i]))
        return best

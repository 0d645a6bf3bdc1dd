"""A text read into words: each word with its sentence and clause, and the fact units found in it.

``Word``, ``Fact`` and ``TextFacts`` are the values every fact module passes around; ``tokenize`` makes
the words and ``stem`` the crude English stems the checks compare.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from bertscore_plugins.facts import lexicon as lx

T = TypeVar("T")

# "didn't" (also "didn ’ t" in tokenised text) -> "did" + "n't" (as "did not"); "team's" -> "team" + "'s";
# numbers keep their separators, and a unit written onto a number is its own word ("1,640ft", "6.15pm",
# "$4.2bn"), but an ordinal's ending is not.
_TOKEN = re.compile(
    r"n ?['’] ?t\b|['’][a-z]{1,2}\b|\d+(?:[.,:]\d+)*(?=(?!(?:st|nd|rd|th)\b)[^\W\d_])"
    r"|\d+(?:[.,:]\d+)*(?:st|nd|rd|th)?(?![\w])|\d+"
    r"|[^\W\d_]+(?=n ?['’] ?t\b)|[^\W\d_]+|\S",
    re.IGNORECASE,
)
_SENTENCE_END = {".", "!", "?"}
_CLAUSE_PUNCT = {",", ";", ":", "(", ")", "—", "–", '"', "“", "”", "[", "]"}


@dataclass(frozen=True)
class Word:
    """One word or punctuation mark, where it sits, and which sentence and clause it belongs to."""

    text: str
    lower: str
    start: int
    end: int
    sentence: int
    clause: int
    sentence_start: bool


@dataclass(frozen=True)
class Fact:
    """One checkable statement unit of a text.

    ``value`` is the normalised content compared between output and context: a float for numbers and
    years, a frozenset of (month, day, year) readings for dates (None where not given; "04/08/2024"
    has two readings), a month number, a weekday name,
    "hh:mm" for times, False for a negation (the clause's polarity), the lower-cased word for entities.
    """

    kind: str
    text: str
    value: Any
    words: tuple[int, ...]
    unit: str | None = None
    unit_window: frozenset[str] = frozenset()
    approx: str | None = None  # "about" / "over" / "under": "just over 500", "nearly 40", "up to 3"
    hedge: int = 0  # the number of words of that hedge, just before ``words``
    optional: bool = False  # checked only where the context states the same kind of thing ("no deaths")

    @property
    def head(self) -> int:
        """The word that carries the fact (the number, the day, the cue)."""
        return self.words[0]


@dataclass
class TextFacts:
    """A text's words, its fact units, and what the entity and polarity checks need to know about it."""

    text: str
    words: list[Word]
    facts: list[Fact]
    clause_polarity: dict[int, bool]  # True = positive (no negation cue)
    negated: list[bool]  # per word: after a negation cue in its clause
    proper: set[str]  # lower-cased words written capitalised away from a sentence start
    forms: set[str]  # every lower-cased word (and its stem): what an entity or antonym is looked up in
    starts: list[int] = field(default_factory=list)  # word start offsets, for mapping model tokens
    positions: dict[str, list[int]] = field(default_factory=dict)  # lower-cased word -> where it occurs
    litotes: frozenset[int] = frozenset()  # negative words a cue cancels ("unlikely" in "not unlikely")

    def clause_words(self, clause: int) -> list[int]:
        """The indexes of the words of one clause (an index built once: scanning every word per clause
        would make the fact check quadratic in the text's length)."""
        return self._grouped("clause").get(clause, [])

    def sentence_words(self, sentence: int) -> list[int]:
        """The indexes of the words of one sentence (an index built once, as for clauses)."""
        return self._grouped("sentence").get(sentence, [])

    def derived(self, name: Hashable, make: Callable[[TextFacts], T]) -> T:
        """``make(self)``, computed once per text: a source shared by many rows (one article, many
        summaries) is read into words once by ``extract``'s cache, and so are its stems and indexes."""
        cache = self.__dict__.setdefault("_derived", {})
        if name not in cache:
            cache[name] = make(self)
        found: T = cache[name]
        return found

    def _grouped(self, attribute: str) -> dict[int, list[int]]:
        def build(facts: TextFacts) -> dict[int, list[int]]:
            index: dict[int, list[int]] = {}
            for k, w in enumerate(facts.words):
                index.setdefault(getattr(w, attribute), []).append(k)
            return index

        return self.derived(attribute, build)

    def word_indexes(self, spans: list[tuple[int, int]]) -> np.ndarray:
        """:meth:`word_index_at` of each span's start at once (-1 where it starts no word)."""
        if not spans or not self.words:
            return np.full(len(spans), -1, dtype=np.int64)
        offsets = np.fromiter((start for start, _ in spans), dtype=np.int64, count=len(spans))
        ends = self.derived("ends", lambda f: np.array([w.end for w in f.words], dtype=np.int64))
        starts = self.derived("start_array", lambda f: np.array(f.starts, dtype=np.int64))
        i = np.searchsorted(starts, offsets, side="right") - 1
        inside = (i >= 0) & (offsets < ends[np.clip(i, 0, None)])
        return np.where(inside, i, -1)

    def word_index_at(self, offset: int) -> int | None:
        """The index of the word containing character ``offset`` (None between words)."""
        i = bisect.bisect_right(self.starts, offset) - 1
        if i >= 0 and self.words[i].start <= offset < self.words[i].end:
            return i
        return None


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stem, enough to match "collected"/"collects"/"collect" and plurals."""
    w = word.lower().strip("'’")
    if w in lx.WEEKDAYS or len(w) <= 3:
        return w
    for suffix, keep in (
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("xes", "x"),
        ("ing", ""),
        ("ed", ""),
        ("es", "e"),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            w = w[: len(w) - len(suffix)] + keep
            break
    return w[:-1] if w.endswith("e") and len(w) > 4 else w


def tokenize(text: str) -> list[Word]:
    """Words and punctuation with sentence and clause numbers (clauses split at , ; : and "but" ...)."""
    words: list[Word] = []
    sentence = clause = 0
    new_sentence = fresh_clause = True
    previous_end = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if words and "\n\n" in text[previous_end : match.start()] and not new_sentence:
            sentence, clause, new_sentence, fresh_clause = sentence + 1, clause + 1, True, True
        lower = token.lower()
        if lower.replace(" ", "").replace("’", "'") == "n't":  # "didn ’ t" (tokenised text), "didn’t"
            lower = "n't"
        if lower in lx.CLAUSE_WORDS and not fresh_clause:
            clause += 1
        fresh_clause = False
        words.append(
            Word(
                token,
                lower,
                match.start(),
                match.end(),
                sentence,
                clause,
                new_sentence and token[:1].isalnum(),
            )
        )
        if token[:1].isalnum():
            new_sentence = False
        previous_end = match.end()
        if token in _SENTENCE_END and not _is_abbreviation(words):
            sentence, clause, new_sentence, fresh_clause = sentence + 1, clause + 1, True, True
        elif token in _CLAUSE_PUNCT:
            clause, fresh_clause = clause + 1, True
    return words


def _is_abbreviation(words: list[Word]) -> bool:
    if words[-1].text != "." or len(words) < 2:
        return False
    before = words[-2]
    if before.end != words[-1].start:
        return False
    return before.lower in lx.ABBREVIATIONS or (len(before.text) == 1 and before.text.isupper())


def joined(words: list[Word], first: int, last: int) -> str:
    """The words as written: a space only where the text had one ("25%", "two-year", "14 August")."""
    parts = [words[first].text]
    for j in range(first + 1, last + 1):
        parts.append((" " if words[j].start > words[j - 1].end else "") + words[j].text)
    return "".join(parts).replace(" - ", "-").replace(" ,", ",")

"""Text -> words (with sentence and clause) -> fact units, each with a normalised value.

Fact kinds: ``number`` (digits or words, with its unit: "six tablets", "42 euros", "20%"), ``year``,
``date`` (month, day, year; any of them may be missing), ``month``, ``weekday``, ``time`` ("14:05"),
``negation`` (a cue and the clause it scopes) and ``entity`` (decided in support.py, which also needs
the context's capitalisation). Everything is plain regular expressions and closed word lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from bertscore_plugins.facts import lexicon as lx

# "didn't" (also "didn ’ t" in tokenised text) -> "did" + "n't" (as "did not"); "team's" -> "team" + "'s"; numbers keep their separators, and a
# unit written onto a number is its own word ("1,640ft", "6.15pm", "$4.2bn"), but an ordinal's ending is not.
_TOKEN = re.compile(
    r"n ?['’] ?t\b|['’][a-z]{1,2}\b|\d+(?:[.,:]\d+)*(?=(?!(?:st|nd|rd|th)\b)[^\W\d_])"
    r"|\d+(?:[.,:]\d+)*(?:st|nd|rd|th)?(?![\w])|\d+"
    r"|[^\W\d_]+(?=n ?['’] ?t\b)|[^\W\d_]+|\S",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"^\d+(?:,\d{3})*(?:\.\d+)?$|^\d+(?:\.\d+)?$")
_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.IGNORECASE)
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
# numeric dates, found in the raw text before tokenising: 2024-08-14, 14/08/2024, 14.08.2024
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DMY_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{2}|\d{4})\b")
_SENTENCE_END = {".", "!", "?"}
_MINUS = {"-", "\u2212", "\u2013"}
#: units after which a number from 1800 to 2100 is a quantity, not a year
_MEASURES = {
    "metre",
    "kilometre",
    "mile",
    "foot",
    "yard",
    "kilogram",
    "gram",
    "pound",
    "tonne",
    "ton",
    "litre",
    "dollar",
    "euro",
    "yen",
    "percent",
    "person",
    "people",
    "calorie",
    "hour",
    "minute",
    "second",
    "day",
    "week",
    "month",
    "year",
    "room",
    "seat",
    "job",
    "employee",
    "worker",
    "student",
    "unit",
    "acre",
    "hectare",
    "watt",
    "kilowatt",
    "point",
    "vote",
    "mark",
}
_AUXILIARIES = {
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "must",
    "may",
    "might",
}
_CLAUSE_PUNCT = {",", ";", ":", "(", ")", "—", "–", '"', "“", "”", "[", "]"}
_CURRENCY = {
    "$": "dollar",
    "€": "euro",
    "£": "pound",
    "¥": "yen",
    "usd": "dollar",
    "eur": "euro",
    "gbp": "pound",
}
_UNIT_ALIASES = {
    "m": "metre",
    "meter": "metre",
    "kilometer": "kilometre",
    "centimeter": "centimetre",
    "liter": "litre",
    "min": "minute",
    "mins": "minute",
    "hr": "hour",
    "hrs": "hour",
    "yr": "year",
    "yrs": "year",
    "sec": "second",
    "secs": "second",
    "km": "kilometre",
    "kg": "kilogram",
    "cm": "centimetre",
    "mm": "millimetre",
    "percent": "percent",
    "pct": "percent",
    "%": "percent",
    "euros": "euro",
    "dollars": "dollar",
    "pounds": "pound",
    "people": "person",
    "men": "man",
    "women": "woman",
    "children": "child",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "am": "am",  # "9 am": a time of day, not the verb (after a number only: units are read there)
}


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

    def clause_words(self, clause: int) -> list[int]:
        """The indexes of the words of one clause (an index built once: scanning every word per clause
        would make the fact check quadratic in the text's length)."""
        return self._grouped("clause").get(clause, [])

    def sentence_words(self, sentence: int) -> list[int]:
        """The indexes of the words of one sentence (an index built once, as for clauses)."""
        return self._grouped("sentence").get(sentence, [])

    def derived(self, name: str, make: Any) -> Any:
        """``make(self)``, computed once per text: a source shared by many rows (one article, many
        summaries) is read into words once by ``extract``'s cache, and so are its stems and indexes."""
        cache = self.__dict__.setdefault("_derived", {})
        if name not in cache:
            cache[name] = make(self)
        return cache[name]

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
        import bisect

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


def unit_of(word: str) -> str:
    """The normalised unit a word names: "metres" -> "metre", "%" -> "percent", "Euros" -> "euro"."""
    w = word.lower()
    if w in _UNIT_ALIASES:
        return _UNIT_ALIASES[w]
    if w in _CURRENCY:
        return _CURRENCY[w]
    for suffix, keep in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("ses", "s")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + keep
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


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


@lru_cache(maxsize=4096)
def extract(text: str) -> TextFacts:
    """Every fact unit of ``text`` except entities (which depend on the other side); cached per text."""
    words = tokenize(text)
    facts: list[Fact] = []
    used: set[int] = set()
    facts += _numeric_dates(text, words, used)
    i = 0
    while i < len(words):
        if i in used:
            i += 1
            continue
        found = _fact_at(words, i)
        if found is None:
            i += 1
            continue
        facts.append(found)
        used.update(found.words)
        i = max(found.words) + 1
    facts += _negations(words)
    polarity: dict[int, bool] = {}
    negated: list[bool] = []
    for word_index, word in enumerate(words):
        polarity.setdefault(word.clause, True)
        negated.append(not polarity[word.clause])
        if _is_cue(words, word_index):
            # a second cue in one clause coordinates ("hasn't been seen and isn't answering", "neither
            # ... nor"), it does not cancel the first: real double negation is rare in the texts we read
            polarity[word.clause] = False
    proper = {w.lower.strip("'’") for k, w in enumerate(words) if _capitalised_name(words, k)}
    forms = {w.lower for w in words} | {stem(w.lower) for w in words if w.text[:1].isalpha()}
    positions: dict[str, list[int]] = {}
    for k, w in enumerate(words):
        positions.setdefault(w.lower, []).append(k)
    return TextFacts(
        text, words, facts, polarity, negated, proper, forms, [w.start for w in words], positions
    )


def _capitalised_name(words: list[Word], k: int) -> bool:
    """A capitalised word away from a sentence start (or after a title): written as a name."""
    word = words[k]
    if not word.text[:1].isupper() or not word.text[:1].isalpha() or word.lower in lx.STOPWORDS:
        return False
    if word.sentence_start:
        return k > 0 and words[k - 1].lower.rstrip(".") in lx.TITLES
    return True


# -- numbers, dates, calendar words -----------------------------------------------------------------


def _fact_at(words: list[Word], i: int) -> Fact | None:
    word = words[i]
    lower = word.lower
    if lower in lx.WEEKDAYS or (lower.endswith("s") and lower[:-1] in lx.WEEKDAYS):
        day = lx.WEEKDAYS[lower if lower in lx.WEEKDAYS else lower[:-1]]
        return Fact("weekday", word.text, day, (i,))
    month = _month_at(words, i)
    if month is not None:
        return _date_from_month(words, i, month)
    time = _TIME.match(lower)
    if time:
        return Fact("time", word.text, f"{int(time.group(1))}:{time.group(2)}", (i,))
    number = _number_at(words, i)
    if number is None:
        return None
    value, last, ordinal = number
    date = _date_from_day(words, i, last, value, ordinal)
    if date is not None:
        return date
    if ordinal and words[i].lower in lx.AMBIGUOUS_ORDINALS:
        return None
    unit, window, unit_words = _unit_after(words, last)
    before = words[i - 1].lower if i > 0 else ""
    if before in _CURRENCY:  # "$4.2bn": the symbol is the unit, the next word is not
        unit, window, unit_words = _CURRENCY[before], window | {_CURRENCY[before]}, 0
    if lower == "one" and unit is None:  # "rent one at the desk": a pronoun, not a count
        return None
    first = i
    if _negative_sign(words, i):  # "-5 degrees", U+2212 "5": a sign, not a hyphen or a range
        value, first = -value, i - 1
    if before in _CURRENCY:
        first = i - 1
    approx, hedge = _approximator(words, first)
    span = tuple(range(first, last + 1 + unit_words))
    text = _joined(words, span[0], span[-1])
    if (
        not ordinal
        and float(value).is_integer()
        and 1800 <= value <= 2100
        and lower.isdigit()
        and (unit is None or unit not in _MEASURES)
    ):
        return Fact("year", word.text, float(value), (i,))  # "in 2019", "the 2013 bombings"
    return Fact("number", text, float(value), span, unit, window, approx, hedge)


def _negative_sign(words: list[Word], i: int) -> bool:
    """A minus sign touching the digits, not joining two words ("covid-19") or numbers ("2-5")."""
    if i == 0 or words[i - 1].text not in _MINUS or words[i - 1].end != words[i].start:
        return False
    return i == 1 or words[i - 2].end < words[i - 1].start


def _approximator(words: list[Word], first: int) -> tuple[str | None, int]:
    """ "about", "over" or "under" when the words before ``first`` hedge the number ("just over 500"),
    and how many words the hedge has."""
    before = " ".join(w.lower for w in words[max(0, first - 3) : first])
    for phrase, kind in lx.APPROXIMATORS:
        if before == phrase or before.endswith(" " + phrase):
            return kind, len(phrase.split())
    return None, 0


def _month_at(words: list[Word], i: int) -> int | None:
    lower = words[i].lower.rstrip(".")
    if lower not in lx.MONTHS:
        return None
    if lower in lx.AMBIGUOUS_MONTHS:
        next_word = words[i + 1].lower if i + 1 < len(words) else ""
        previous = words[i - 1].lower if i > 0 else ""
        near_number = (
            _day_value(next_word) is not None or _day_value(previous) is not None or previous == "of"
        )
        if not (
            near_number or (words[i].text[:1].isupper() and not words[i].sentence_start and len(lower) > 3)
        ):
            return None
    return lx.MONTHS[lower]


def _day_value(lower: str) -> int | None:
    match = _ORDINAL_DIGITS.match(lower)
    if match:
        day = int(match.group(1))
    elif lower.isdigit() and len(lower) <= 2:
        day = int(lower)
    elif lower in lx.ORDINALS:
        day = lx.ORDINALS[lower]
    else:
        return None
    return day if 1 <= day <= 31 else None


def _year_at(words: list[Word], k: int) -> int | None:
    if k < len(words) and words[k].lower.isdigit() and len(words[k].lower) == 4:
        return int(words[k].lower)
    return None


def _date_from_month(words: list[Word], i: int, month: int) -> Fact:
    """ "August 14", "August 14th, 2024", "June 2019", or the month alone."""
    k = i + 1
    day = _day_value(words[k].lower) if k < len(words) else None
    if day is not None and not (words[k].lower.isdigit() and len(words[k].lower) == 4):
        span = [i, k]
        k += 1
        if k < len(words) and words[k].text == ",":
            k += 1
        year = _year_at(words, k)
        if year:
            span.append(k)
        return Fact(
            "date",
            _joined(words, i, span[-1]),
            frozenset({(month, day, year)}),
            tuple(range(i, span[-1] + 1)),
        )
    year = _year_at(words, k)
    if year:
        return Fact("date", f"{words[i].text} {year}", frozenset({(month, None, year)}), (i, k))
    return Fact("month", words[i].text, month, (i,))


def _date_from_day(words: list[Word], i: int, last: int, value: float, ordinal: bool) -> Fact | None:
    """ "14 August", "the thirtieth of April", "4th of June 2024"."""
    if not float(value).is_integer() or not 1 <= value <= 31:
        return None
    k = last + 1
    if k < len(words) and words[k].lower == "of":
        k += 1
    if k >= len(words):
        return None
    month = _month_at(words, k)
    if month is None:
        return None
    end = k
    year = _year_at(words, k + 1)
    if year:
        end = k + 1
    return Fact(
        "date", _joined(words, i, end), frozenset({(month, int(value), year)}), tuple(range(i, end + 1))
    )


def _joined(words: list[Word], first: int, last: int) -> str:
    """The words as written: a space only where the text had one ("25%", "two-year", "14 August")."""
    parts = [words[first].text]
    for j in range(first + 1, last + 1):
        parts.append((" " if words[j].start > words[j - 1].end else "") + words[j].text)
    return "".join(parts).replace(" - ", "-").replace(" ,", ",")


def _numeric_dates(text: str, words: list[Word], used: set[int]) -> list[Fact]:
    """2024-08-14 and 14/08/2024 (day and month read both ways when both are <= 12)."""
    facts = []
    for match in list(_ISO_DATE.finditer(text)) + list(_DMY_DATE.finditer(text)):
        if _ISO_DATE.match(match.group()):
            year, month, day = (int(g) for g in match.groups())
            readings = {(month, day, year)}
        else:
            a, b, year_text = match.groups()
            year = int(year_text) + (2000 if len(year_text) == 2 else 0)
            a, b = int(a), int(b)
            readings = {(m, d, year) for m, d in ((b, a), (a, b)) if 1 <= m <= 12 and 1 <= d <= 31}
        if not readings:
            continue
        span = tuple(k for k, w in enumerate(words) if match.start() <= w.start < match.end())
        if not span or used.intersection(span):
            continue
        used.update(span)
        facts.append(Fact("date", match.group(), frozenset(readings), span))
    return facts


def _number_at(words: list[Word], i: int) -> tuple[float, int, bool] | None:
    """(value, index of the last word of the number, is an ordinal) for a number starting at word i."""
    lower = words[i].lower
    ordinal = _ORDINAL_DIGITS.match(lower)
    if ordinal:
        return float(ordinal.group(1)), i, True
    if _DIGITS.match(lower):
        value = float(lower.replace(",", ""))
        last = i
        after = words[i + 1].lower if i + 1 < len(words) else ""
        # "1.5 million", "4.2bn"; "m" and "k" scale only money ("£5m": 5 million, "a 5m wall": metres)
        money = (
            bool(after) and i > 0 and words[i - 1].lower in _CURRENCY and words[i + 1].start == words[i].end
        )
        if after in lx.SCALES and (after not in ("m", "k") or money):
            value *= lx.SCALES[after]
            last = i + 1
        return value, last, False
    if lower in lx.ORDINALS:
        return float(lx.ORDINALS[lower]), i, True
    if not (
        lower in lx.UNITS
        or lower in lx.TENS
        or lower in lx.DOZEN
        or (lower in lx.SCALES and lower not in lx.DIGIT_ONLY_SCALES)
    ):
        return None
    if lower in lx.SCALES and (i == 0 or words[i - 1].lower not in ("a", "an", "one")):
        return None  # "several hundred", "thousands of": a size, not a count
    total, current, last, ordinal_end = 0, 0, i, False
    k = i
    while k < len(words):
        w = words[k].lower
        if w in lx.UNITS or w in lx.TENS:
            current += lx.UNITS.get(w, 0) + lx.TENS.get(w, 0)
        elif w in lx.DOZEN:
            current = max(current, 1) * 12
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in lx.SCALES and w not in lx.DIGIT_ONLY_SCALES:
            total += max(current, 1) * lx.SCALES[w]
            current = 0
        elif w in lx.ORDINALS and k > i and words[k - 1].lower in ("-",) | lx.TENS.keys():
            current += lx.ORDINALS[w]
            ordinal_end = True
            last = k
            break
        elif (
            w in ("-", "and")
            and k > i
            and k + 1 < len(words)
            and (
                words[k + 1].lower in lx.UNITS
                or words[k + 1].lower in lx.TENS
                or (words[k + 1].lower in lx.ORDINALS and w == "-")
            )
        ):
            if w == "-" and words[k - 1].lower not in lx.TENS:
                break
            k += 1
            continue
        else:
            break
        last = k
        k += 1
    return float(total + current), last, ordinal_end


def _unit_after(words: list[Word], last: int) -> tuple[str | None, frozenset[str], int]:
    """(unit, the next content words, how many words the unit adds to the fact's text)."""
    k = last + 1
    if k < len(words) and words[k].text in ("%",):
        return "percent", frozenset({"percent"}), 1
    if k + 1 < len(words) and words[k].lower == "per" and words[k + 1].lower == "cent":
        return "percent", frozenset({"percent"}), 2
    hyphen = k < len(words) and words[k].text == "-" and words[k].start == words[last].end
    if hyphen:
        k += 1
    window: list[str] = []
    first_gap = None
    j = k
    while j < len(words) and len(window) < 2 and j - k < 4:
        w = words[j]
        if not w.text[:1].isalnum() or _number_like(w.lower):
            break
        if w.lower not in lx.STOPWORDS or w.lower in _UNIT_ALIASES:  # "503 m"
            window.append(unit_of(w.lower))
            if first_gap is None:
                first_gap = j
        elif window:
            break
        j += 1
    if not window:
        return None, frozenset(), 0
    # the unit is the first content word right after the number ("six tablets", "two-year"); a content
    # word after a function word ("in calm weather") belongs to the window only
    if first_gap != k:
        return None, frozenset(window), 0
    return window[0], frozenset(window), first_gap - last


def _number_like(lower: str) -> bool:
    return bool(_DIGITS.match(lower)) or lower in lx.UNITS or lower in lx.TENS


# -- negation --------------------------------------------------------------------------------------------


def _is_cue(words: list[Word], k: int) -> bool:
    lower = words[k].lower
    if lower in lx.NEGATION_CUES:
        return True
    return k + 1 < len(words) and (lower, words[k + 1].lower) in lx.NEGATION_PHRASES


def _negations(words: list[Word]) -> list[Fact]:
    """One fact per negation cue: the cue and the words it scopes (to the end of its clause, at most 4)."""
    facts = []
    for k in range(len(words)):
        if not _is_cue(words, k):
            continue
        scope = [
            j
            for j in range(k, len(words))
            if words[j].clause == words[k].clause and words[j].text[:1].isalnum()
        ][:5] or [k]
        auxiliary = k > 0 and (words[k].lower == "n't" or words[k - 1].lower in _AUXILIARIES)
        start = k - 1 if auxiliary else k
        text = " ".join(words[j].text for j in range(start, scope[-1] + 1)).replace(" n't", "n't")
        facts.append(Fact("negation", text, False, tuple(range(start, scope[-1] + 1))))
    return facts

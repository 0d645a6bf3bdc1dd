"""Number facts: digits or words with their unit ("six tablets", "42 euros", "20%", "$4.2bn"), and years.

A number's value is a float; its unit the normalised first content word after it ("metres" -> "metre"),
its window the next content words (what the number counts when the unit is a modifier). Hedges before a
number ("just over 500") make it approximate.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import Fact, Word, joined

_DIGITS = re.compile(r"^\d+(?:,\d{3})*(?:\.\d+)?$|^\d+(?:\.\d+)?$")
_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.IGNORECASE)
_MINUS = {"-", "\u2212", "\u2013"}


class Number(NamedTuple):
    """A number found in the words: its value, the index of its last word, whether it is an ordinal, and
    whether it was written as a year ("nineteen ninety-five")."""

    value: float
    last: int
    ordinal: bool
    year: bool = False


def number_at(words: list[Word], i: int) -> Number | None:
    """The number starting at word ``i``, in digits ("1,500", "4.2bn", "14th") or words ("twenty-four")."""
    lower = words[i].lower
    ordinal = _ORDINAL_DIGITS.match(lower)
    if ordinal:
        return Number(float(ordinal.group(1)), i, True)
    if _DIGITS.match(lower):
        return _digits_at(words, i)
    if lower == "no":
        return _none_at(words, i)
    if lower in lx.ORDINALS:
        return Number(float(lx.ORDINALS[lower]), i, True)
    if not (
        lower in lx.UNITS
        or lower in lx.TENS
        or lower in lx.DOZEN
        or (lower in lx.SCALES and lower not in lx.DIGIT_ONLY_SCALES)
    ):
        return None
    if lower in lx.SCALES and (i == 0 or words[i - 1].lower not in ("a", "an", "one")):
        return None  # "several hundred", "thousands of": a size, not a count
    return _spelled_year(words, i) or _spelled_at(words, i)


def _none_at(words: list[Word], i: int) -> Number | None:
    """ "no deaths": a count of zero, when "no" stands before the thing counted (not "no longer", "no
    more than", "no one"). Checked only where the context counts the same thing (values.py)."""
    if i + 1 >= len(words):
        return None
    following = words[i + 1].lower
    if not words[i + 1].text[:1].isalpha() or following in lx.STOPWORDS or following in lx.NOT_COUNTED:
        return None
    return Number(0.0, i, False)


def _spelled_year(words: list[Word], i: int) -> Number | None:
    """A year read as two numbers of two digits: "nineteen ninety-five" (1995), "twenty twenty-four"."""
    century = lx.UNITS.get(words[i].lower, lx.TENS.get(words[i].lower, 0))
    if not 15 <= century <= 20 or i + 1 >= len(words):  # 1500-2099: "eleven thirty" is a time
        return None
    following = words[i + 1].lower
    if not (following in lx.TENS or 10 <= lx.UNITS.get(following, 0) <= 19):
        return None
    rest = _spelled_at(words, i + 1)
    if not 10 <= rest.value <= 99 or rest.ordinal:
        return None
    return Number(float(century * 100 + rest.value), rest.last, False, year=True)


def _digits_at(words: list[Word], i: int) -> Number:
    value = float(words[i].lower.replace(",", ""))
    last = i
    after = words[i + 1].lower if i + 1 < len(words) else ""
    # "1.5 million", "4.2bn"; "m" and "k" scale only money ("£5m": 5 million, "a 5m wall": metres)
    money = bool(after) and i > 0 and words[i - 1].lower in lx.CURRENCY and words[i + 1].start == words[i].end
    attached = bool(after) and words[i + 1].start == words[i].end
    # "5k people": a "k" written onto the number is a thousand ("5km" is read as kilometres before this);
    # so is an "m" before a plural count ("2m residents"; "a 2m wall" stays metres)
    counted = attached and after == "m" and i + 2 < len(words) and _plural(words[i + 2].lower)
    if after in lx.SCALES and (after not in ("m", "k") or money or counted or (after == "k" and attached)):
        value *= lx.SCALES[after]
        last = i + 1
    return Number(value, last, False)


def _plural(lower: str) -> bool:
    """A plural noun by its ending ("residents", "years", "people"): what a "2m" before it counts."""
    return lower == "people" or (
        lower.isalpha() and lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3
    )


def _joins_number(words: list[Word], i: int, k: int) -> bool:
    """Does word ``k`` ("-" or "and") join two parts of one number written in words ("fifty-three")?"""
    w = words[k].lower
    if w not in ("-", "and") or k <= i or k + 1 >= len(words):
        return False
    following = words[k + 1].lower
    return following in lx.UNITS or following in lx.TENS or (following in lx.ORDINALS and w == "-")


def _spelled_at(words: list[Word], i: int) -> Number:
    """A number written in words: "two hundred and fifty-three", "a dozen", "twenty-first"."""
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
            ordinal_end, last = True, k
            break
        elif _joins_number(words, i, k):
            if w == "-" and words[k - 1].lower not in lx.TENS:
                break
            k += 1
            continue
        else:
            break
        last = k
        k += 1
    return Number(float(total + current), last, ordinal_end)


def number_fact(words: list[Word], i: int, number: Number) -> Fact | None:
    """The number or year fact of the number found at word ``i`` (None for a pronoun "one" or a bare
    "first"/"second")."""
    value, last, ordinal = number.value, number.last, number.ordinal
    lower = words[i].lower
    if ordinal and lower in lx.AMBIGUOUS_ORDINALS:
        return None
    unit, window, unit_words = unit_after(words, last)
    before = words[i - 1].lower if i > 0 else ""
    if before in lx.CURRENCY:  # "$4.2bn": the symbol is the unit, the next word is not
        unit, window, unit_words = lx.CURRENCY[before], window | {lx.CURRENCY[before]}, 0
    if lower == "one" and unit is None:  # "rent one at the desk": a pronoun, not a count
        return None
    first = i
    if _negative_sign(words, i):  # "-5 degrees", U+2212 "5": a sign, not a hyphen or a range
        value, first = -value, i - 1
    if before in lx.CURRENCY:
        first = i - 1
    approx, hedge = _approximator(words, first)
    span = tuple(range(first, last + 1 + unit_words))
    if number.year or (
        not ordinal
        and float(value).is_integer()
        and 1800 <= value <= 2100
        and lower.isdigit()
        and (unit is None or unit not in lx.MEASURES)
    ):
        # "in 2019", "the 2013 bombings", "in nineteen ninety-five"
        return Fact("year", joined(words, i, last), float(value), tuple(range(i, last + 1)))
    text = joined(words, span[0], span[-1])
    optional = lower == "no"  # "no deaths" is checked only against a count of deaths
    return Fact("number", text, float(value), span, unit, window, approx, hedge, optional)


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


def unit_of(word: str) -> str:
    """The normalised unit a word names: "metres" -> "metre", "%" -> "percent", "Euros" -> "euro"."""
    w = word.lower()
    if w in lx.UNIT_ALIASES:
        return lx.UNIT_ALIASES[w]
    if w in lx.CURRENCY:
        return lx.CURRENCY[w]
    for suffix, keep in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("ses", "s")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + keep
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def unit_after(words: list[Word], last: int) -> tuple[str | None, frozenset[str], int]:
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
        if w.lower not in lx.STOPWORDS or w.lower in lx.UNIT_ALIASES:  # "503 m"
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

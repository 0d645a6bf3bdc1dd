"""Calendar facts: weekdays, months, dates in words or digits ("14 August 2024", "2024-08-14"), times.

A date's value is a frozenset of (month, day, year) readings, None where a part is not given
("04/08/2024" has two readings); a month alone is its number; a time is "h:mm".
"""

from __future__ import annotations

import re

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import Fact, Word, joined

_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.IGNORECASE)
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
# numeric dates, found in the raw text before tokenising: 2024-08-14, 14/08/2024, 14.08.2024
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DMY_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{2}|\d{4})\b")


def calendar_fact_at(words: list[Word], i: int) -> Fact | None:
    """The weekday, month-led date or time that starts at word ``i``."""
    word = words[i]
    lower = word.lower
    if lower in lx.WEEKDAYS or (lower.endswith("s") and lower[:-1] in lx.WEEKDAYS):
        day = lx.WEEKDAYS[lower if lower in lx.WEEKDAYS else lower[:-1]]
        return Fact("weekday", word.text, day, (i,))
    month = month_at(words, i)
    if month is not None:
        return _date_from_month(words, i, month)
    time = _TIME.match(lower)
    if time:
        return Fact("time", word.text, f"{int(time.group(1))}:{time.group(2)}", (i,))
    return None


def month_at(words: list[Word], i: int) -> int | None:
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
            joined(words, i, span[-1]),
            frozenset({(month, day, year)}),
            tuple(range(i, span[-1] + 1)),
        )
    year = _year_at(words, k)
    if year:
        return Fact("date", f"{words[i].text} {year}", frozenset({(month, None, year)}), (i, k))
    return Fact("month", words[i].text, month, (i,))


def date_from_day(words: list[Word], i: int, last: int, value: float, ordinal: bool) -> Fact | None:
    """ "14 August", "the thirtieth of April", "4th of June 2024"."""
    if not float(value).is_integer() or not 1 <= value <= 31:
        return None
    k = last + 1
    if k < len(words) and words[k].lower == "of":
        k += 1
    if k >= len(words):
        return None
    month = month_at(words, k)
    if month is None:
        return None
    end = k
    year = _year_at(words, k + 1)
    if year:
        end = k + 1
    return Fact(
        "date", joined(words, i, end), frozenset({(month, int(value), year)}), tuple(range(i, end + 1))
    )


def numeric_dates(text: str, words: list[Word], used: set[int]) -> list[Fact]:
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

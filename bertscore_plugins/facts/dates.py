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
_DOTTED_TIME = re.compile(r"^(\d{1,2})\.(\d{2})$")  # "6.15pm": a time only with am/pm
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
    return _time_at(words, i)


def _time_at(words: list[Word], i: int) -> Fact | None:
    """ "14:05", "2:05 pm", "9 am", "6.15pm": the value is "h:mm" on the 24-hour clock, and the unit
    "24h" when the text fixes the half of the day (am/pm, an hour over 12 or a leading zero); without
    it "2:05" may be 2:05 or 14:05 (values.py reads both)."""
    lower = words[i].lower
    meridiem = _meridiem(words, i + 1)
    time = _TIME.match(lower) or (_DOTTED_TIME.match(lower) if meridiem else None)
    if time:
        hour, minute = int(time.group(1)), time.group(2)
    elif meridiem and lower.isdigit() and len(lower) <= 2:
        hour, minute = int(lower), "00"
    else:
        return None
    if hour > 23 or int(minute) > 59 or (meridiem and not 1 <= hour <= 12):
        return None
    last = i
    if meridiem:
        hour = hour % 12 + (12 if meridiem[0] == "pm" else 0)
        last = i + meridiem[1]
    explicit = bool(meridiem) or hour > 12 or hour == 0 or lower.startswith("0")
    return Fact(
        "time",
        joined(words, i, last),
        f"{hour}:{minute}",
        tuple(range(i, last + 1)),
        "24h" if explicit else None,
    )


def _meridiem(words: list[Word], k: int) -> tuple[str, int] | None:
    """("am" or "pm", how many words it takes) for "pm", "p.m." or "PM" at word ``k``."""
    if k >= len(words):
        return None
    lower = words[k].lower
    if lower in ("am", "pm"):
        return lower, 1
    spelled = "".join(w.lower for w in words[k : k + 4])
    for half in ("am", "pm"):
        if spelled.startswith(f"{half[0]}.m."):
            return half, 4 if spelled == f"{half[0]}.m." else 3
    return None


def month_at(words: list[Word], i: int) -> int | None:
    """The month a word names, when it names one: "March" the month, not "march" the verb; "May" only
    next to a day or a year, or capitalised after a word of time ("in May", "since May")."""
    lower = words[i].lower.rstrip(".")
    if lower not in lx.MONTHS:
        return None
    if lower in lx.AMBIGUOUS_MONTHS:
        next_word = words[i + 1].lower if i + 1 < len(words) else ""
        previous = words[i - 1].lower if i > 0 else ""
        near_number = (
            _day_value(next_word) is not None
            or _day_value(previous) is not None
            or previous == "of"
            or _year_at(words, i + 1) is not None
        )
        capitalised = words[i].text[:1].isupper()
        named = (
            capitalised and not words[i].sentence_start and (len(lower) > 3 or previous in lx.BEFORE_MONTH)
        )
        if not (near_number or named):
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

"""Calendar words: weekdays and months, and the month names that are also everyday words."""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = {day.lower(): day for day in listed("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")}
MONTHS = {
    **{name.lower(): k + 1 for k, name in enumerate(MONTH_NAMES)},
    **{name.lower()[:3]: k + 1 for k, name in enumerate(MONTH_NAMES) if name != "May"},
    "sept": 9,
}
#: month words that are also everyday words: a month only next to a day number or when capitalised
AMBIGUOUS_MONTHS = set(listed("may march jan mar dec sep oct nov aug jun jul apr feb"))
#: words after which a capitalised "May" is the month ("in May", "since May"), not a name or the verb
BEFORE_MONTH = set(
    listed("in since until till by from during before after early late mid last next this each every")
)

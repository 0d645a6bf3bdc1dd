"""States an event or a thing is in, grouped so that the states of one group exclude each other.

A train that was delayed did not leave on time; a shop that is closed is not open; parking that costs
money is not free; a match that was called off did not go ahead. Each group is a question with one
answer at a time (``STATUS_GROUPS``: group -> state -> the phrases that say it, as words, compared by
their stems: "closes" says "closed"; the longest phrase at a word wins: "no cost" is free). The
check (facts/status.py) flags an output that says one state of a thing where the context says another
state of the same group about the same thing, and never the state the output says.
"""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    """ "on_time punctual" -> (("on", "time"), ("punctual",)): phrases written with underscores."""
    return tuple(tuple(phrase.split("_")) for phrase in listed(text))


STATUS_GROUPS: dict[str, dict[str, tuple[tuple[str, ...], ...]]] = {
    "punctuality": {
        "on time": _phrases("on_time punctual punctually on_schedule"),
        "late": _phrases("delayed late behind_schedule"),
    },
    "opening": {
        "open": _phrases("open opened reopened"),
        "closed": _phrases("closed shut"),
    },
    "price": {
        "free": _phrases("free free_of_charge complimentary no_cost no_charge no_fee"),
        "paid": _phrases("costs cost charged paid fee fees"),
    },
    "taking place": {
        "went ahead": _phrases("went_ahead took_place go_ahead goes_ahead"),
        "called off": _phrases("cancelled canceled called_off scrapped postponed"),
    },
    "decision": {
        "approved": _phrases("approved accepted granted"),
        "rejected": _phrases("rejected refused denied declined"),
    },
    "outcome": {
        "won": _phrases("won wins"),
        "lost": _phrases("lost loses"),
    },
    "survival": {
        "survived": _phrases("survived alive"),
        "died": _phrases("died dead killed"),
    },
    "availability": {
        "available": _phrases("available in_stock"),
        "unavailable": _phrases("unavailable sold_out out_of_stock"),
    },
    "verdict": {
        "convicted": _phrases("convicted guilty"),
        "acquitted": _phrases("acquitted cleared innocent"),
    },
}

#: states of different groups that exclude each other: a cancelled train neither left on time nor went ahead
#: (a delayed one may still be cancelled, so "late" excludes neither)
EXCLUDED_ACROSS_GROUPS: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    ("taking place", "called off"): (("punctuality", "on time"),),
    ("punctuality", "on time"): (("taking place", "called off"),),
}

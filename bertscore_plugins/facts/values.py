"""Does the context carry an output's number, year, date, month, weekday or time? Normalised values.

A similar embedding is never enough ("Thursday" aligns to "Tuesday" at 0.85): the context must carry
the same value (a number with a compatible unit or one that converts, a date with no part that differs).
When it does not, the alignment picks what the context says in its place.
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from bertscore_plugins.facts import binding
from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.alignment import Alignment
from bertscore_plugins.facts.findings import Finding
from bertscore_plugins.facts.text import Fact, TextFacts, stem


def _same_number(a: float, b: float, approx: str | None = None) -> bool:
    """Is context value ``b`` what output value ``a`` says (hedged by ``approx``: "just over 500" is 503)?"""
    if abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)):
        return True
    if approx == "about":
        return abs(a - b) <= 0.1 * abs(b)
    if approx == "over":
        return a <= b <= a + 0.25 * abs(a)
    if approx == "under":
        return a - 0.25 * abs(a) <= b <= a
    return False


def _units_agree(output: Fact, context: Fact) -> bool:
    if output.unit is None or context.unit is None or output.unit == context.unit:
        return True
    if output.unit in context.unit_window or context.unit in output.unit_window:
        return True
    return _same_people(output.unit, context.unit)


def _same_people(unit: str, other: str) -> bool:
    """Do two count nouns count the same people ("employees" and "people", "staff" and "workers")?"""
    pair = {unit, other}
    if pair & lx.PEOPLE and pair <= lx.PEOPLE | lx.PEOPLE_COUNTED:
        return True
    return any(pair <= group for group in lx.SAME_PEOPLE)


def _conversion(unit: str | None, other: str | None) -> float | None:
    """How many ``other`` make one ``unit`` (kilometre -> metre: 1000), when they measure the same thing."""
    if unit is None or other is None:
        return None
    if (unit, other) in lx.CONVERSIONS:
        return lx.CONVERSIONS[(unit, other)]
    if (other, unit) in lx.CONVERSIONS:
        return 1.0 / lx.CONVERSIONS[(other, unit)]
    return None


def _carries(output: Fact, context: Fact) -> bool:
    """Does this context fact carry this output fact?"""
    kind = output.kind
    if kind == "number":
        if context.kind not in ("number", "year"):
            return False
        if context.kind == "year" or _units_agree(output, context):
            return _same_number(output.value, context.value, output.approx)
        factor = _conversion(output.unit, context.unit)
        return factor is not None and _same_number(output.value * factor, context.value, output.approx)
    if kind == "year":
        if context.kind in ("year", "number"):
            return _same_number(output.value, context.value)
        return context.kind == "date" and any(r[2] == int(output.value) for r in context.value)
    if kind == "date":
        return context.kind == "date" and any(
            o[0] == c[0] and (o[1] is None or o[1] == c[1]) and (o[2] is None or c[2] is None or o[2] == c[2])
            for o in output.value
            for c in context.value
        )
    if kind == "month":
        return (context.kind == "month" and context.value == output.value) or (
            context.kind == "date" and any(c[0] == output.value for c in context.value)
        )
    if kind == "time":
        return context.kind == "time" and bool(_clock_readings(output) & _clock_readings(context))
    return context.kind == kind and context.value == output.value


def _clock_readings(fact: Fact) -> set[str]:
    """The 24-hour times a time may be: "14:05" and "2:05 pm" one; "2:05" alone both halves of the day."""
    hour, minute = fact.value.split(":")
    if fact.unit == "24h" or not 1 <= int(hour) <= 12:
        return {fact.value}
    return {fact.value, f"{int(hour) % 12 + 12}:{minute}"}


def _hedged(fact: Fact) -> tuple[int, ...]:
    """The fact's words, with the hedge before a hedged number ("just over" of "just over 500")."""
    return tuple(range(fact.words[0] - fact.hedge, fact.words[0])) + fact.words


def check_value(fact: Fact, out: TextFacts, ctx: TextFacts, alignment: Alignment) -> Finding | None:
    """Does the context carry this number, date or time? None for an optional fact ("no deaths") where
    the context counts nothing of its kind: there is nothing to hold it against.

    The context's facts are looked up by value (an index built once per context), never scanned per
    output fact: a long output against a long source stays linear in their length."""
    carrying = [other for other in _candidates(fact, ctx) if _carries(fact, other)]
    if carrying:
        # a value the context writes more than MAX_SHARED times is everywhere: no binding to read (and
        # each fact's look-up stays bounded: linear)
        votes = _votes(fact, out, ctx) if len(carrying) <= binding.MAX_SHARED else None
        wrong = binding.misbound(votes, carrying, _bound(fact, ctx), ctx) if votes else None
        if wrong is not None:  # carried, but only where it qualifies something else
            rival, word = wrong
            return Finding(fact.kind, fact.text, False, binding.stated_with(ctx, rival, word))
        # an optional fact's words ("no bids") are the source's own or not: no credit for the lexical parts
        return Finding(fact.kind, fact.text, True, words=() if fact.optional else _hedged(fact))
    rivals, heads, by_head, _ = _rivals(fact, ctx)
    if fact.optional and not rivals:
        return None
    if not rivals:
        return Finding(fact.kind, fact.text, False)
    votes = _votes(fact, out, ctx)
    named = binding.favoured(votes, _rivals_by_id(fact, ctx)) if votes else None
    if named is not None:  # the rival that qualifies the same thing ("discharged on Tuesday")
        return Finding(fact.kind, fact.text, False, named.text)
    closest = alignment.closest(fact.head, heads)
    if closest is None:  # no alignment: the rival said in the same words ("closes at 8 pm")
        closest = _same_words_before(out, fact, ctx, rivals)
    return Finding(fact.kind, fact.text, False, by_head.get(closest, rivals[0]).text)


def _rivals_by_id(fact: Fact, ctx: TextFacts) -> dict[int, Fact]:
    """``_rivals`` by ``id`` (built once per kind of fact and context)."""
    key = (_comparable_class(fact.kind), fact.unit, fact.unit_window, fact.optional)
    found: dict[tuple[object, ...], dict[int, Fact]] = ctx.derived("rivals_by_id", lambda f: {})
    if key not in found:
        found[key] = {id(other): other for other in _rivals(fact, ctx)[0]}
    return found[key]


def _binding_name(fact: Fact) -> tuple[str, str | None]:
    """The values a fact's binding is read among: its class, and for a number its unit."""
    kind = _comparable_class(fact.kind)
    return kind, fact.unit if kind == "number" else None


def _bound(fact: Fact, facts: TextFacts) -> binding.Qualifiers:
    """The values of ``facts`` of the fact's class (a number: with a unit that measures the same thing,
    or none for a bare number) and the words that qualify each."""
    kind, unit = _binding_name(fact)

    def values(f: TextFacts) -> list[Fact]:
        return [
            other
            for other in _comparables(f).get(kind, [])
            if kind != "number"
            or (unit is None and other.unit is None)
            or (unit is not None and other.unit is not None and _measures_like(unit, other.unit))
        ]

    return binding.qualifiers(facts, (kind, unit), values)


def _measures_like(unit: str, other: str) -> bool:
    return unit == other or _same_people(unit, other) or _conversion(unit, other) is not None


def _votes(fact: Fact, out: TextFacts, ctx: TextFacts) -> binding.Votes | None:
    """What the output's qualifiers of ``fact`` say about the context's values (None: it has none)."""
    out_found = _bound(fact, out)
    if id(fact) not in out_found.words_of or binding.paired(out_found, out, fact):
        return None
    return binding.votes(out, out_found, fact, ctx, _bound(fact, ctx))


_Rivals = tuple[list[Fact], "np.ndarray[Any, Any]", dict[int, Fact], set[int]]


def _rivals(fact: Fact, ctx: TextFacts) -> _Rivals:
    """The context facts worth naming in place of an unsupported ``fact`` (numbers for a number, any
    calendar fact for a date, month or year, the same kind otherwise; a unit that agrees or converts),
    their heads, the first of them at each head and their ``id``s: kept per kind of fact, unit and unit window, so
    facts alike share one list."""
    key = (_comparable_class(fact.kind), fact.unit, fact.unit_window, fact.optional)
    found: dict[tuple[object, ...], _Rivals] = ctx.derived("rivals", lambda f: {})
    if key not in found:
        rivals = _comparables(ctx).get(key[0], [])
        if fact.kind == "number" and fact.unit is not None:
            # "3-year warranty" against a context with no durations: nothing to name in its place
            rivals = _measured_like(fact, ctx, rivals, convertible=True)
        if fact.optional:
            rivals = _measured_like(fact, ctx, rivals, convertible=False)
        by_head: dict[int, Fact] = {}
        for other in rivals:
            by_head.setdefault(other.head, other)
        heads = np.array([other.head for other in rivals], dtype=np.int64)
        found[key] = (rivals, heads, by_head, {id(other) for other in rivals})
    return found[key]


# ------------------------------------------------------------------ the context's facts, indexed once


def _comparable_class(kind: str) -> str:
    """The rivals an unsupported fact may be named by share this class: dates, months and years one,
    every other kind its own."""
    return "calendar" if kind in ("date", "month", "year") else kind


def _comparables(ctx: TextFacts) -> dict[str, list[Fact]]:
    """The context's facts by ``_comparable_class``, in text order."""

    def build(f: TextFacts) -> dict[str, list[Fact]]:
        classes: dict[str, list[Fact]] = {}
        for other in f.facts:
            classes.setdefault(_comparable_class(other.kind), []).append(other)
        return classes

    return ctx.derived("comparable_facts", build)


def _measured_like(fact: Fact, ctx: TextFacts, rivals: list[Fact], convertible: bool) -> list[Fact]:
    """The rivals with a unit that agrees with the fact's (or, when ``convertible``, converts to it), in
    text order. Decided once per context unit, not once per rival, except where a rival's own window
    names the fact's unit."""
    by_unit: dict[str | None, bool] = {}
    window = _unit_windows(ctx)
    kept = []
    for other in rivals:
        if other.unit is None:
            continue
        if other.unit not in by_unit:
            by_unit[other.unit] = (
                fact.unit is None
                or other.unit == fact.unit
                or other.unit in fact.unit_window
                or _same_people(fact.unit, other.unit)
                or (convertible and _conversion(fact.unit, other.unit) is not None)
            )
        if by_unit[other.unit] or (fact.unit is not None and id(other) in window.get(fact.unit, ())):
            kept.append(other)
    return kept


def _unit_windows(ctx: TextFacts) -> dict[str, set[int]]:
    """Per word, the context facts whose unit window holds it (``_units_agree``'s other direction)."""

    def build(f: TextFacts) -> dict[str, set[int]]:
        windows: dict[str, set[int]] = {}
        for other in f.facts:
            for word in other.unit_window:
                windows.setdefault(word, set()).add(id(other))
        return windows

    return ctx.derived("unit_windows", build)


def _values(ctx: TextFacts) -> tuple[list[float], list[Fact], dict[tuple[object, ...], list[Fact]]]:
    """The context's numbers and years sorted by value, and its other facts by what they may match."""

    def build(f: TextFacts) -> tuple[list[float], list[Fact], dict[tuple[object, ...], list[Fact]]]:
        numeric = sorted(
            ((float(o.value), k) for k, o in enumerate(f.facts) if o.kind in ("number", "year")),
            key=lambda pair: pair[0],
        )
        keyed: dict[tuple[object, ...], list[Fact]] = {}
        for other in f.facts:
            for key in _keys(other):
                keyed.setdefault(key, []).append(other)
        return [value for value, _ in numeric], [f.facts[k] for _, k in numeric], keyed

    return ctx.derived("fact_values", build)


def _keys(fact: Fact) -> list[tuple[object, ...]]:
    """What a context fact is looked up by (numbers and years: by value, in ``_values``'s sorted list)."""
    if fact.kind == "date":
        return [("date month", reading[0]) for reading in fact.value] + [
            ("date year", reading[2]) for reading in fact.value
        ]
    if fact.kind == "time":
        return [("time", reading) for reading in _clock_readings(fact)]
    if fact.kind in ("number", "year"):
        return []
    try:
        hash(fact.value)
    except TypeError:
        return [("any",)]
    return [(fact.kind, fact.value)]


def _candidates(fact: Fact, ctx: TextFacts) -> list[Fact]:
    """The context facts that may carry ``fact`` (a few, found by value): ``_carries`` decides."""
    values, numeric, keyed = _values(ctx)
    unhashable = keyed.get(("any",), [])
    if fact.kind == "number":
        if (
            not isinstance(fact.value, (int, float))
            or fact.value != fact.value
            or abs(fact.value) == float("inf")
        ):
            return list(ctx.facts)
        targets = {float(fact.value)} | {float(fact.value) * factor for factor in _factors(fact.unit)}
        return [other for target in targets for other in _near(values, numeric, target, fact.approx)]
    if fact.kind == "year":
        return _near(values, numeric, float(fact.value), None) + keyed.get(("date year", int(fact.value)), [])
    if fact.kind == "date":
        return [other for reading in fact.value for other in keyed.get(("date month", reading[0]), [])]
    if fact.kind == "month":
        return keyed.get(("month", fact.value), []) + keyed.get(("date month", fact.value), [])
    if fact.kind == "time":
        return [other for reading in _clock_readings(fact) for other in keyed.get(("time", reading), [])]
    try:
        return keyed.get((fact.kind, fact.value), []) + unhashable
    except TypeError:
        return list(ctx.facts)


def _factors(unit: str | None) -> set[float]:
    """Every factor ``_conversion`` may give from ``unit`` to another unit."""
    if unit is None:
        return set()
    return {factor for (a, _), factor in lx.CONVERSIONS.items() if a == unit} | {
        1.0 / factor for (_, b), factor in lx.CONVERSIONS.items() if b == unit
    }


def _near(values: list[float], numeric: list[Fact], target: float, approx: str | None) -> list[Fact]:
    """The numbers and years within any tolerance ``_same_number`` allows of ``target`` (a superset)."""
    reach = 1e-6 * max(1.0, abs(target)) + (0.5 * abs(target) if approx else 0.0)
    return numeric[bisect.bisect_left(values, target - reach) : bisect.bisect_right(values, target + reach)]


def _same_words_before(out: TextFacts, fact: Fact, ctx: TextFacts, rivals: list[Fact]) -> int:
    """The head of the first rival whose words just before it are most like the fact's: content words at
    the same distance, nearer ones weighing more (1, 1/2, 1/3, 1/4, so no two sets weigh the same), found through an index of the context's leads instead of comparing every rival."""
    lead = _lead(out, fact)
    content = [(d, x) for d, x in enumerate(lead) if x not in lx.STOPWORDS]
    rival = _rivals(fact, ctx)[3]
    index = _leads(ctx)
    for matched in sorted(_subsets(content), key=lambda pairs: -sum(1.0 / (d + 1) for d, _ in pairs)):
        # by weight, highest first: the first set of words some rival shares is the best score, and the
        # index lists facts in text order, so its first rival is the one max() over them would pick
        first = next((i for i in index.get(frozenset(matched), ()) if i in rival), None)
        if first is not None:
            return _by_id(ctx)[first].head
    return rivals[0].head


def _by_id(ctx: TextFacts) -> dict[int, Fact]:
    return ctx.derived("facts_by_id", lambda f: {id(other): other for other in f.facts})


def _subsets(pairs: list[tuple[int, str]]) -> list[tuple[tuple[int, str], ...]]:
    subsets: list[tuple[tuple[int, str], ...]] = [()]
    for pair in pairs:
        subsets += [(*subset, pair) for subset in subsets]
    return subsets


def _leads(ctx: TextFacts) -> dict[frozenset[tuple[int, str]], list[int]]:
    """Per set of (distance, content stem) a context fact's lead has, those facts (``id``), in text order."""

    def build(f: TextFacts) -> dict[frozenset[tuple[int, str]], list[int]]:
        index: dict[frozenset[tuple[int, str]], list[int]] = {}
        for other in f.facts:
            content = [(d, x) for d, x in enumerate(_lead(f, other)) if x not in lx.STOPWORDS]
            for subset in _subsets(content):
                index.setdefault(frozenset(subset), []).append(id(other))
        return index

    return ctx.derived("fact_leads", build)


def _lead(facts: TextFacts, fact: Fact, reach: int = 4) -> list[str]:
    """The stems of the words just before a fact, nearest first ("at", "closes" of "closes at 8 pm")."""
    first = fact.words[0] - fact.hedge
    return [stem(w.lower) for w in reversed(facts.words[max(0, first - reach) : first])]

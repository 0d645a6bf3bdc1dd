"""Does the context carry an output's number, year, date, month, weekday or time? Normalised values.

A similar embedding is never enough ("Thursday" aligns to "Tuesday" at 0.85): the context must carry
the same value (a number with a compatible unit or one that converts, a date with no part that differs).
When it does not, the alignment picks what the context says in its place.
"""

from __future__ import annotations

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


def _comparable(output: Fact, context: Fact) -> bool:
    """Context facts worth naming in place of an unsupported output fact."""
    if output.kind in ("date", "month", "year"):
        return context.kind in ("date", "month", "year")
    if output.kind == "number":
        return context.kind == "number"
    return context.kind == output.kind


def check_value(fact: Fact, out: TextFacts, ctx: TextFacts, alignment: Alignment) -> Finding | None:
    """Does the context carry this number, date or time? None for an optional fact ("no deaths") where
    the context counts nothing of its kind: there is nothing to hold it against."""
    if any(_carries(fact, other) for other in ctx.facts):
        # an optional fact's words ("no bids") are the source's own or not: no credit for the lexical parts
        return Finding(fact.kind, fact.text, True, words=() if fact.optional else _hedged(fact))
    rivals = [other for other in ctx.facts if _comparable(fact, other)]
    if fact.kind == "number" and fact.unit is not None:
        # "3-year warranty" against a context with no durations: nothing to name in its place
        rivals = [
            other
            for other in rivals
            if other.unit is not None
            and (_units_agree(fact, other) or _conversion(fact.unit, other.unit) is not None)
        ]
    if fact.optional:
        rivals = [other for other in rivals if other.unit is not None and _units_agree(fact, other)]
        if not rivals:
            return None
    if not rivals:
        return Finding(fact.kind, fact.text, False)
    closest = alignment.closest(fact.head, [other.head for other in rivals])
    if closest is None:  # no alignment: the rival said in the same words ("closes at 8 pm")
        lead = _lead(out, fact)
        closest = max(rivals, key=lambda other: _same_lead(lead, _lead(ctx, other))).head
    says = next((other for other in rivals if other.head == closest), rivals[0])
    return Finding(fact.kind, fact.text, False, says.text)


def _lead(facts: TextFacts, fact: Fact, reach: int = 4) -> list[str]:
    """The stems of the words just before a fact, nearest first ("at", "closes" of "closes at 8 pm")."""
    first = fact.words[0] - fact.hedge
    return [stem(w.lower) for w in reversed(facts.words[max(0, first - reach) : first])]


def _same_lead(a: list[str], b: list[str]) -> float:
    """How alike two leads are: content words at the same distance, nearer ones weighing more."""
    return sum(
        1.0 / (d + 1) for d, (x, y) in enumerate(zip(a, b, strict=False)) if x == y and x not in lx.STOPWORDS
    )

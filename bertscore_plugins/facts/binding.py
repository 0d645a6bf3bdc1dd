"""Is a value the context carries bound there to the same thing? "9 am" on Saturdays, not on weekdays.

A value found anywhere in the source is not yet supported: "The clinic opens at 9 am on weekdays and at
10 am on Saturdays" carries "9 am", but not "It opens at 9 am on Saturdays". What a value is about is read
off the words around it: each content word qualifies the nearest value of the same kind (a clause
boundary, a comma or "and", counts as ``BOUNDARY_COST`` words), in the output and in the context alike.

An output qualifier then votes for the context values it qualifies there, but only where it tells them
apart: a day, a month or a name always does; another word only where the context writes a different
content word at the same place around a rival value ("coffee costs $3 and tea costs $2": "coffee" and
"tea" stand one word before their prices; "costs" stands before both, so it tells nothing, and a verb
that a coordinated clause leaves out, "opens ... and at 10 am", tells nothing either). A value is
*misbound* when its qualifiers vote for a rival value and never for one that carries it, and the context
states the two in parallel (the value that carries it has another word where the rival has the
qualifier: "weekdays" / "Saturdays", "coffee" / "tea"); the finding then names the rival with the
qualifier ("9 am: context says 10 am on Saturdays"). Paired values ("10-11 year olds", "won 85-80",
"from 1991 until 1998") are ranges and scores, not values bound to different things: never rivals.

The same votes pick what the context says in place of an unsupported value: "discharged on Thursday, 11
March" against "admitted on Monday, 3 March, and discharged on Tuesday, 11 March" names Tuesday (its
qualifiers, "discharged" and "11 March", stand by Tuesday), not the first weekday of the source.

Cost: each text's qualifiers are found once per kind of value (``TextFacts.derived``), by looking
``REACH`` words either side of each value, and an output value's qualifiers look up at most
``MAX_SHARED`` context places each: linear in the texts' length.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import Fact, TextFacts, joined, stem

#: how far (in words, boundaries counted as below) a word may stand from the value it qualifies:
#: "discharged on Tuesday, 11 March" puts "discharged" 6 from "11 March"
REACH = 8
#: a comma, semicolon or coordinating word between a word and a value counts as this many words: in "9 am
#: Monday to Friday, 10 am Saturday", "Friday" (3 words after "9 am", 2 before "10 am" across the comma)
#: qualifies 9 am
BOUNDARY_COST = 3
_BOUNDARIES = {",", ";", ":", "and", "or", "but", "while", "whereas", "(", ")", "—", "–"}
#: source sentences apart within which a rival may contradict a value's binding: the parallel statements
#: a binding is read from ("Coffee costs $3. Tea costs $2.") stand together
NEAR_SENTENCES = 1
#: two values this many words apart or closer are written together: a range or a score
PAIR_GAP = 2
#: a word that qualifies more values than this in the context singles none out ("said", "people" in a
#: long article); skipping it also keeps each output value's look-up bounded, so a long output against a
#: long source stays linear (benchmarks/speed/facts_cost.py --doubling)
MAX_SHARED = 8
#: a qualifier that is a fact of its own (a day, a month, a name) weighs this much; other words 1
FACT_WORD_WEIGHT = 2.0

_CALENDAR = set(lx.WEEKDAYS) | {w + "s" for w in lx.WEEKDAYS} | set(lx.MONTHS)


@dataclass
class Qualifiers:
    """One text's values of one kind and the content words that qualify each."""

    values: list[Fact]
    #: id(value) -> [(word index, offset from the value: negative before it)]
    words_of: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    #: stem -> [(id(value), word index, offset)] over the text
    by_stem: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    #: offset -> the distinct stems written at that offset around some value
    at_offset: dict[int, set[str]] = field(default_factory=dict)


def _content(facts: TextFacts, k: int) -> bool:
    word = facts.words[k]
    return word.text[:1].isalpha() and word.lower not in lx.STOPWORDS


def _key(facts: TextFacts, k: int) -> str:
    """What a qualifier is compared by: its stem ("Saturdays" and "Saturday" alike)."""
    lower = facts.words[k].lower.strip("'’")
    if lower.endswith("s") and lower[:-1] in lx.WEEKDAYS:
        return lower[:-1]
    return stem(lower)


def is_fact_word(facts: TextFacts, k: int) -> bool:
    """A day or a month: a qualifier that always tells values apart. (Names do not: in news text a name
    stands near every number of its paragraph; counted as one, SummEval's faithful rows were flagged.)"""
    return facts.words[k].lower.strip("'’") in _CALENDAR


def qualifiers(
    facts: TextFacts, name: tuple[object, ...], values: Callable[[TextFacts], list[Fact]]
) -> Qualifiers:
    """The qualifiers of ``values(facts)`` (found once per text and ``name``)."""

    def build(f: TextFacts) -> Qualifiers:
        found = Qualifiers(values(f))
        taken = {k for value in found.values for k in value.words}
        best: dict[int, tuple[int, int, int]] = {}  # word -> (cost, id(value), offset)
        for value in found.values:
            first, last = min(value.words) - value.hedge, max(value.words)
            sentence = f.words[value.head].sentence
            for step in (-1, 1):
                k, cost, boundaries = (first if step < 0 else last) + step, 0, 0
                while 0 <= k < len(f.words) and f.words[k].sentence == sentence:
                    cost += 1
                    if f.words[k].lower in _BOUNDARIES:
                        boundaries += 1
                    total = cost + BOUNDARY_COST * boundaries
                    if total > REACH:
                        break
                    if k not in taken and _content(f, k) and (k not in best or total < best[k][0]):
                        best[k] = (total, id(value), step * cost)
                    k += step
        for k, (_, qualified, offset) in sorted(best.items()):
            found.words_of.setdefault(qualified, []).append((k, offset))
            key = _key(f, k)
            found.by_stem.setdefault(key, []).append((qualified, k, offset))
            found.at_offset.setdefault(offset, set()).add(key)
        return found

    return facts.derived(("qualifiers", *name), build)


def telling(found: Qualifiers, facts: TextFacts, k: int, offset: int) -> float:
    """How much the context's qualifier at word ``k`` tells its value from the others (0: nothing)."""
    if is_fact_word(facts, k):
        return FACT_WORD_WEIGHT
    return 1.0 if len(found.at_offset.get(offset, ())) >= 2 else 0.0


@dataclass(frozen=True)
class Votes:
    """What the output's qualifiers of one value say about the context's values."""

    #: id(context value) -> weight of the qualifiers that stand by it there and tell it apart
    weight: dict[int, float]
    #: id(context value) -> the context word of its heaviest qualifier
    word: dict[int, int]
    #: id(context value) -> that word's offset from the value
    offset: dict[int, int]
    #: id(context value) -> how many of the output's qualifiers stand by it there (each counted once)
    count: dict[int, int]


def votes(out: TextFacts, out_found: Qualifiers, fact: Fact, ctx: TextFacts, ctx_found: Qualifiers) -> Votes:
    """For each context value: how strongly the output's qualifiers of ``fact`` say it is the same thing."""
    weight: dict[int, float] = {}
    word: dict[int, int] = {}
    offsets: dict[int, int] = {}
    count: dict[int, int] = {}
    heaviest: dict[int, float] = {}
    for k, _ in out_found.words_of.get(id(fact), ()):
        occurrences = ctx_found.by_stem.get(_key(out, k), ())
        if len(occurrences) > MAX_SHARED:
            continue
        for value, j, offset in occurrences:
            w = telling(ctx_found, ctx, j, offset)
            if not w:
                continue
            weight[value] = weight.get(value, 0.0) + w
            count[value] = count.get(value, 0) + 1
            if w > heaviest.get(value, 0.0):
                heaviest[value], word[value], offsets[value] = w, j, offset
    return Votes(weight, word, offsets, count)


def misbound(
    votes_: Votes, carrying: Sequence[Fact], ctx_found: Qualifiers, ctx: TextFacts
) -> tuple[Fact, int] | None:
    """The rival value (and its qualifier's word) the output's qualifiers stand by instead of any value
    that carries the fact, or None when the binding agrees (or says nothing)."""
    held = {id(value) for value in carrying}
    if all(value in held for value in votes_.weight):
        return None  # the qualifiers stand by no rival (most values): nothing more to read
    carried = max((votes_.weight.get(id(value), 0.0) for value in carrying), default=0.0)
    paired = _paired(ctx_found, ctx)
    near = {ctx.words[value.head].sentence for value in carrying}
    by_id = ctx.derived(
        ("values by id", id(ctx_found)), lambda f: {id(value): value for value in ctx_found.values}
    )
    best: tuple[float, int] | None = None
    for value, weight in votes_.weight.items():
        if value in held or weight <= carried or value in paired:
            continue
        if not _parallel(ctx_found, ctx, carrying, votes_.word[value], votes_.offset[value]):
            continue
        sentence = ctx.words[by_id[value].head].sentence
        if not any(abs(sentence - s) <= NEAR_SENTENCES for s in near):
            continue
        if (
            best is None
            or weight > best[0]
            or (weight == best[0] and by_id[value].head < by_id[best[1]].head)
        ):
            best = (weight, value)
    if best is None:
        return None
    return by_id[best[1]], votes_.word[best[1]]


def paired(found: Qualifiers, facts: TextFacts, fact: Fact) -> bool:
    """Is ``fact`` one of two values written together ("85-80", "10-11", "1991 until 1998")?"""
    return id(fact) in _paired(found, facts)


def _paired(found: Qualifiers, facts: TextFacts) -> set[int]:
    def build(f: TextFacts) -> set[int]:
        heads = sorted((min(value.words), max(value.words), id(value)) for value in found.values)
        kept: set[int] = set()
        for (_, last, a), (first, _, b) in itertools.pairwise(heads):
            if first - last <= PAIR_GAP and f.words[first].sentence == f.words[last].sentence:
                kept.update((a, b))
        return kept

    return facts.derived(("paired", id(found)), build)


def _parallel(found: Qualifiers, ctx: TextFacts, carrying: Sequence[Fact], word: int, offset: int) -> bool:
    """Does a value that carries the fact have another content word where the rival has its qualifier
    (the same offset, a different stem)?"""
    key = _key(ctx, word)
    return any(
        at == offset and _key(ctx, k) != key
        for value in carrying
        for k, at in found.words_of.get(id(value), ())
    )


def favoured(votes_: Votes, rivals: dict[int, Fact]) -> Fact | None:
    """Of ``rivals`` (by ``id``), the one more of the output's qualifiers stand by than by any other (None:
    no single one; a day does not outweigh a verb here: "closes at 9 pm on Thursdays" against "On
    Thursdays the library opens at 9 am and closes at 8 pm" is left to the alignment). Reads only the
    values the qualifiers reached (at most ``MAX_SHARED`` each), never every rival: linear."""
    counted = sorted(
        ((n, rivals[value].head, rivals[value]) for value, n in votes_.count.items() if value in rivals),
        key=lambda c: -c[0],
    )
    if not counted or (len(counted) > 1 and counted[1][0] == counted[0][0]):
        return None
    return counted[0][2]


def stated_with(ctx: TextFacts, value: Fact, k: int) -> str:
    """The context's words from a value to its qualifier, as written ("10 am on Saturdays")."""
    first, last = min(min(value.words) - value.hedge, k), max(max(value.words), k)
    return joined(ctx.words, first, last)

"""Text -> words (with sentence and clause) -> fact units, each with a normalised value.

Fact kinds: ``number`` (digits or words, with its unit: "six tablets", "42 euros", "20%"), ``year``,
``date`` (month, day, year; any of them may be missing), ``month``, ``weekday``, ``time`` ("14:05"),
``negation`` (a cue and the clause it scopes) and ``entity`` (decided in entities.py, which also needs
the context's capitalisation). Everything is plain regular expressions and closed word lists; each kind
has its module (numbers.py, dates.py, negation.py) and this one reads a text through all of them.
"""

from __future__ import annotations

from functools import lru_cache

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.dates import calendar_fact_at, date_from_day, numeric_dates
from bertscore_plugins.facts.negation import litotes, negations, polarity
from bertscore_plugins.facts.numbers import number_at, number_fact, unit_of
from bertscore_plugins.facts.text import Fact, TextFacts, Word, stem, tokenize

#: texts kept read: enough for a source shared by the rows around it (one article, many summaries), few
#: enough that memory stays flat over many rows (4,096 long sources held hundreds of MB)
CACHED_TEXTS = 256


@lru_cache(maxsize=CACHED_TEXTS)
def extract(text: str) -> TextFacts:
    """Every fact unit of ``text`` except entities (which depend on the other side); cached per text."""
    words = tokenize(text)
    facts: list[Fact] = []
    used: set[int] = set()
    facts += numeric_dates(text, words, used)
    i = 0
    while i < len(words):
        found = None if i in used else _fact_at(words, i)
        if found is None:
            i += 1
            continue
        facts.append(found)
        used.update(found.words)
        i = max(found.words) + 1
    facts += negations(words)
    clause_polarity, negated = polarity(words)
    proper = {w.lower.strip("'’") for k, w in enumerate(words) if _capitalised_name(words, k)}
    forms = {w.lower for w in words} | {stem(w.lower) for w in words if w.text[:1].isalpha()}
    positions: dict[str, list[int]] = {}
    for k, w in enumerate(words):
        positions.setdefault(w.lower, []).append(k)
    starts = [w.start for w in words]
    return TextFacts(
        text, words, facts, clause_polarity, negated, proper, forms, starts, positions, litotes(words)
    )


def _fact_at(words: list[Word], i: int) -> Fact | None:
    """The calendar or number fact that starts at word ``i``: a number before a month is a date's day."""
    found = calendar_fact_at(words, i)
    if found is not None:
        return found
    number = number_at(words, i)
    if number is None:
        return None
    return date_from_day(words, i, number.last, number.value, number.ordinal) or number_fact(words, i, number)


def _capitalised_name(words: list[Word], k: int) -> bool:
    """A capitalised word away from a sentence start (or after a title): written as a name."""
    word = words[k]
    if not word.text[:1].isupper() or not word.text[:1].isalpha() or word.lower in lx.STOPWORDS:
        return False
    if word.sentence_start:
        return k > 0 and words[k - 1].lower.rstrip(".") in lx.TITLES
    return True


__all__ = ["TextFacts", "Word", "stem", "tokenize", "unit_of"]

"""The closed word lists the fact check reads, one module per kind of word.

Every list here is small and closed on purpose: a fact is only checked where the words themselves say
what kind of fact it is, so an open-ended paraphrase is never mistaken for one. Read them as
``from bertscore_plugins.facts import lexicon as lx; lx.MONTHS``.
"""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.calendar import AMBIGUOUS_MONTHS, MONTH_NAMES, MONTHS, WEEKDAYS
from bertscore_plugins.facts.lexicon.language import ENGLISH_WORDS, OTHER_LANGUAGE_WORDS
from bertscore_plugins.facts.lexicon.numbers import (
    AMBIGUOUS_ORDINALS,
    APPROXIMATORS,
    CONVERSIONS,
    CURRENCY,
    DIGIT_ONLY_SCALES,
    DOZEN,
    MEASURES,
    ORDINALS,
    SCALES,
    TENS,
    UNIT_ALIASES,
    UNITS,
)
from bertscore_plugins.facts.lexicon.polarity import (
    ANTONYM_PAIRS,
    CLAUSE_WORDS,
    NEGATING_PREFIXES,
    NEGATION_CUES,
    NEGATION_PHRASES,
    PERMISSIVE,
)
from bertscore_plugins.facts.lexicon.words import ABBREVIATIONS, AUXILIARIES, PLACEHOLDERS, STOPWORDS, TITLES

__all__ = [
    "ABBREVIATIONS",
    "AMBIGUOUS_MONTHS",
    "AMBIGUOUS_ORDINALS",
    "ANTONYM_PAIRS",
    "APPROXIMATORS",
    "AUXILIARIES",
    "CLAUSE_WORDS",
    "CONVERSIONS",
    "CURRENCY",
    "DIGIT_ONLY_SCALES",
    "DOZEN",
    "ENGLISH_WORDS",
    "MEASURES",
    "MONTHS",
    "MONTH_NAMES",
    "NEGATING_PREFIXES",
    "NEGATION_CUES",
    "NEGATION_PHRASES",
    "ORDINALS",
    "OTHER_LANGUAGE_WORDS",
    "PERMISSIVE",
    "PLACEHOLDERS",
    "SCALES",
    "STOPWORDS",
    "TENS",
    "TITLES",
    "UNITS",
    "UNIT_ALIASES",
    "WEEKDAYS",
]

"""The closed word lists the fact check reads, one module per kind of word.

Every list here is small and closed on purpose: a fact is only checked where the words themselves say
what kind of fact it is, so an open-ended paraphrase is never mistaken for one. Read them as
``from bertscore_plugins.facts import lexicon as lx; lx.MONTHS``.
"""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.calendar import (
    AMBIGUOUS_MONTHS,
    BEFORE_MONTH,
    MONTH_NAMES,
    MONTHS,
    WEEKDAYS,
)
from bertscore_plugins.facts.lexicon.language import ENGLISH_WORDS, OTHER_LANGUAGE_WORDS
from bertscore_plugins.facts.lexicon.numbers import (
    AMBIGUOUS_ORDINALS,
    APPROXIMATORS,
    CONVERSIONS,
    CURRENCY,
    DIGIT_ONLY_SCALES,
    DOZEN,
    MEASURES,
    NOT_COUNTED,
    ORDINALS,
    PEOPLE,
    PEOPLE_COUNTED,
    SAME_PEOPLE,
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
    NEGATIVE_WORDS,
    NOT_UN_WORDS,
    PERMISSIVE,
    UN_ENDINGS,
)
from bertscore_plugins.facts.lexicon.status import EXCLUDED_ACROSS_GROUPS, STATUS_GROUPS
from bertscore_plugins.facts.lexicon.words import (
    ABBREVIATIONS,
    AUXILIARIES,
    BE_FORMS,
    PLACEHOLDERS,
    STOPWORDS,
    TITLES,
)

__all__ = [
    "ABBREVIATIONS",
    "AMBIGUOUS_MONTHS",
    "AMBIGUOUS_ORDINALS",
    "ANTONYM_PAIRS",
    "APPROXIMATORS",
    "AUXILIARIES",
    "BEFORE_MONTH",
    "BE_FORMS",
    "CLAUSE_WORDS",
    "CONVERSIONS",
    "CURRENCY",
    "DIGIT_ONLY_SCALES",
    "DOZEN",
    "ENGLISH_WORDS",
    "EXCLUDED_ACROSS_GROUPS",
    "MEASURES",
    "MONTHS",
    "MONTH_NAMES",
    "NEGATING_PREFIXES",
    "NEGATION_CUES",
    "NEGATION_PHRASES",
    "NEGATIVE_WORDS",
    "NOT_COUNTED",
    "NOT_UN_WORDS",
    "ORDINALS",
    "OTHER_LANGUAGE_WORDS",
    "PEOPLE",
    "PEOPLE_COUNTED",
    "PERMISSIVE",
    "PLACEHOLDERS",
    "SAME_PEOPLE",
    "SCALES",
    "STATUS_GROUPS",
    "STOPWORDS",
    "TENS",
    "TITLES",
    "UNITS",
    "UNIT_ALIASES",
    "UN_ENDINGS",
    "WEEKDAYS",
]

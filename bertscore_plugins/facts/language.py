"""Is a text English? The fact check reads English word lists, so it checks English text only."""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import TextFacts


def is_english(facts: TextFacts) -> bool:
    """Does this text read as English? (Mostly Latin letters, and no more function words of other
    languages than of English.)"""
    return facts.derived("english", _reads_english)


def _reads_english(facts: TextFacts) -> bool:
    letters = [c for w in facts.words for c in w.text if c.isalpha()]
    if letters and sum(c.isascii() or "\u00c0" <= c <= "\u024f" for c in letters) < 0.7 * len(letters):
        return False
    words = [w.lower for w in facts.words if w.text[:1].isalpha()]
    return sum(w in lx.OTHER_LANGUAGE_WORDS for w in words) <= sum(w in lx.ENGLISH_WORDS for w in words)

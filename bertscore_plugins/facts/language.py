"""Is a text English? The fact check reads English word lists, so it checks English text only.

A text is read as English when its letters are mostly Latin and, once it has enough words to tell
(``MIN_WORDS``), at least ``MIN_ENGLISH_SHARE`` of them are common English function words and more of
them are English function words than those of the other languages listed in lexicon/language.py. A
short text ("Paris.", "Discharged on Thursday.") is English unless other languages' words outnumber
English ones: its context decides (both texts must be English for the facts to be checked).
"""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import TextFacts

#: words a text needs before the share of English function words decides
MIN_WORDS = 8
#: English prose has about 0.4 (SummEval summaries and articles: 0.3 to 0.5); Finnish, Turkish,
#: Indonesian, Polish or Swahili text copied whole has under 0.1 (tests/facts/test_language.py)
MIN_ENGLISH_SHARE = 0.1


def is_english(facts: TextFacts) -> bool:
    """Does this text read as English? (Mostly Latin letters and, past a few words, a share of English
    function words that only English text has.)"""
    return facts.derived("english", _reads_english)


def english_share(facts: TextFacts) -> float:
    """The share of the text's words that are common English function words (1.0 for a text without
    words)."""
    words = [w.lower for w in facts.words if w.text[:1].isalpha()]
    return sum(w in lx.ENGLISH_WORDS for w in words) / len(words) if words else 1.0


def _reads_english(facts: TextFacts) -> bool:
    letters = [c for w in facts.words for c in w.text if c.isalpha()]
    if letters and sum(c.isascii() or "\u00c0" <= c <= "\u024f" for c in letters) < 0.7 * len(letters):
        return False
    words = [w.lower for w in facts.words if w.text[:1].isalpha()]
    english = sum(w in lx.ENGLISH_WORDS for w in words)
    if sum(w in lx.OTHER_LANGUAGE_WORDS for w in words) > english:
        return False
    return len(words) < MIN_WORDS or english >= MIN_ENGLISH_SHARE * len(words)

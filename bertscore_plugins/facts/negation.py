"""Negation facts: each negation cue and the clause it scopes, and the polarity of every clause."""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import Fact, Word


def is_cue(words: list[Word], k: int) -> bool:
    """Is word ``k`` a negation cue ("not", "n't", "never", "no longer")?"""
    lower = words[k].lower
    if lower in lx.NEGATION_CUES:
        return True
    return k + 1 < len(words) and (lower, words[k + 1].lower) in lx.NEGATION_PHRASES


def negations(words: list[Word]) -> list[Fact]:
    """One fact per negation cue: the cue and the words it scopes (to the end of its clause, at most 4)."""
    facts = []
    for k in range(len(words)):
        if not is_cue(words, k):
            continue
        scope = [
            j
            for j in range(k, len(words))
            if words[j].clause == words[k].clause and words[j].text[:1].isalnum()
        ][:5] or [k]
        auxiliary = k > 0 and (words[k].lower == "n't" or words[k - 1].lower in lx.AUXILIARIES)
        start = k - 1 if auxiliary else k
        text = " ".join(words[j].text for j in range(start, scope[-1] + 1)).replace(" n't", "n't")
        facts.append(Fact("negation", text, False, tuple(range(start, scope[-1] + 1))))
    return facts


def polarity(words: list[Word]) -> tuple[dict[int, bool], list[bool]]:
    """(per clause: True when positive, per word: after a negation cue in its clause)."""
    clause_polarity: dict[int, bool] = {}
    negated: list[bool] = []
    for k, word in enumerate(words):
        clause_polarity.setdefault(word.clause, True)
        negated.append(not clause_polarity[word.clause])
        if is_cue(words, k):
            # a second cue in one clause coordinates ("hasn't been seen and isn't answering", "neither
            # ... nor"), it does not cancel the first: real double negation is rare in the texts we read
            clause_polarity[word.clause] = False
    return clause_polarity, negated

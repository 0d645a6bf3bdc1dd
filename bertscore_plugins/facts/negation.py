"""Negation facts: each negation cue and the clause it scopes, and the polarity of every clause.

Two uses of a cue are not negations of the clause: "not only ... but also" adds, it does not deny; and a
cue on a negative word ("not unlikely", "never failed to") is a double negation, a positive statement
(litotes): its negative word is recorded so that the checks read it as the positive it states.
"""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import Fact, Word

#: how many words of its clause a negation's fact shows (the cue's scope, for the explanation)
_SCOPE_WORDS = 5


def is_cue(words: list[Word], k: int) -> bool:
    """Is word ``k`` a negation cue ("not", "n't", "never", "no longer")?"""
    lower = words[k].lower
    if lower in lx.NEGATION_CUES:
        return not _not_only(words, k) and negative_word(words, k) is None
    return k + 1 < len(words) and (lower, words[k + 1].lower) in lx.NEGATION_PHRASES


def _not_only(words: list[Word], k: int) -> bool:
    """ "not only X but (also) Y": an addition, not a negation."""
    if words[k].lower != "not" or k + 1 >= len(words) or words[k + 1].lower not in ("only", "just", "merely"):
        return False
    sentence = words[k].sentence
    for j in range(k + 2, min(len(words), k + 40)):
        if words[j].sentence != sentence:
            return False
        if words[j].lower == "but":
            return True
    return False


def negative_word(words: list[Word], k: int) -> int | None:
    """The negative word a cue at ``k`` negates, when it is one ("not *unlikely*", "never *failed* to"):
    the cue and that word together state a positive (None otherwise)."""
    if words[k].lower not in ("not", "n't", "never"):
        return None
    for j in range(k + 1, min(len(words), k + 3)):
        lower = words[j].lower
        if is_negative(lower):
            return j
        if lower not in ("be", "been", "so", "too", "very", "entirely", "completely", "always"):
            return None
    return None


def is_negative(lower: str) -> bool:
    """A word that itself negates: listed ("fail", "impossible") or "un" on an adjective or adverb
    ("unlikely", "uncommon", "unusual")."""
    if lower in lx.NEGATIVE_WORDS:
        return True
    return (
        lower.startswith("un")
        and len(lower) >= 6
        and lower.endswith(lx.UN_ENDINGS)
        and lower not in lx.NOT_UN_WORDS
    )


def _scope(words: list[Word], k: int) -> list[int]:
    """The cue's clause from the cue on, at most ``_SCOPE_WORDS`` words (read forward only as far as that:
    scanning to the end of the text per cue made long texts quadratic)."""
    clause, scope = words[k].clause, list[int]()
    for j in range(k, len(words)):
        if words[j].clause != clause or len(scope) == _SCOPE_WORDS:
            break
        if words[j].text[:1].isalnum():
            scope.append(j)
    return scope or [k]


def negations(words: list[Word]) -> list[Fact]:
    """One fact per negation cue: the cue and the words it scopes (to the end of its clause, at most 4)."""
    facts = []
    for k in range(len(words)):
        if not is_cue(words, k):
            continue
        scope = _scope(words, k)
        auxiliary = k > 0 and (words[k].lower == "n't" or words[k - 1].lower in lx.AUXILIARIES)
        start = k - 1 if auxiliary else k
        text = " ".join(words[j].text for j in range(start, scope[-1] + 1)).replace(" n't", "n't")
        facts.append(Fact("negation", text, False, tuple(range(start, scope[-1] + 1))))
    return facts


def litotes(words: list[Word]) -> frozenset[int]:
    """The negative words whose negation a cue cancels ("unlikely" in "not unlikely")."""
    found = (negative_word(words, k) for k in range(len(words)) if words[k].lower in ("not", "n't", "never"))
    return frozenset(j for j in found if j is not None)


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

"""What kind of answer a row holds, before any signal reads it: a real answer, no answer, or a refusal.

In RAG evaluation two outcomes are not a matter of faithfulness at all, and a score would only mislabel
them:

- ``empty``: the answer has no word a reader reads: nothing, blanks, emoji, punctuation or markup alone.
  Nothing in it is supported, and nothing contradicts the source either: a BERTScore precision of an
  empty text is no evidence (an empty answer scored 0.832 "faithful", unrelated emoji 0.899).
- ``abstained``: every sentence of the answer declines to answer ("I don't know.", "The context does not
  say.", "I'm sorry, I cannot answer that from the documents."). A refusal is its own outcome, not a
  hallucination: it made no claim the source could fail to support. An answer that declines and then
  claims something anyway ("The context does not say, but it was Tuesday.") is read as an answer.

:func:`answer_outcome` is the one check; every door (the offline signal, the judge's triage, the
disagreement, the command line, the recipe, trace evaluation) takes its label from it, so a row gets the
same outcome whichever way it came.

    >>> answer_outcome("  🙂 !!! "), answer_outcome("I don't know."), answer_outcome("It was Tuesday.")
    ('empty', 'abstained', None)
"""

from __future__ import annotations

import re

EMPTY, ABSTAINED = "empty", "abstained"
"""The two outcomes that are neither faithful nor unfaithful."""
OUTCOMES = (EMPTY, ABSTAINED)

# What the answerer was given to read: "the provided context", "these documents", "the text".
_SOURCE = (
    r"(?:the |this |these |those |your |my )?(?:provided |given |available |supplied |retrieved |above )?"
    r"(?:context|contexts|documents?|sources?|passages?|texts?|articles?|excerpts?|information)"
)
_NOT = r"(?:does not|doesn't|do not|don't|did not|didn't|is not|isn't|are not|aren't)"
_SAY = (
    r"(?:say|mention|specify|state|contain|provide|include|give|indicate|address|cover|tell|answer|"
    r"discuss|describe|clarify|explain|detail|offer)s?"
)
_REFUSALS = [
    # the answerer: "I don't know", "I do not have enough information", "I cannot answer", "I'm not sure"
    r"i\s+(?:really\s+|simply\s+)?(?:do not|don't|cannot|can't|could not|couldn't)\s+(?:know|have|see|find|"
    r"tell|say|answer|determine|confirm|verify|provide|be sure|access|locate|give)\b",
    r"i\s*(?:'m|am)\s+(?:not\s+(?:sure|certain|able)|unsure|uncertain|unable)\b",
    r"i\s+have\s+no\s+(?:idea|information|knowledge|way)\b",
    # what it read: "The context does not say", "These documents don't mention the date"
    _SOURCE + r"\s+" + _NOT + r"\s+(?:\w+ly\s+)?" + _SAY + r"\b",
    # "There is no information about ...", "Not enough information", "No answer is given"
    r"(?:there\s+(?:is|are|'s)\s+)?(?:no|not\s+enough|insufficient)\s+(?:relevant\s+)?"
    r"(?:information|mention|answer)\b",
    # "This cannot be determined from the context", "The question is not answerable"
    r"(?:this|that|the\s+answer|the\s+question|it)\s+(?:cannot|can't|could\s+not)\s+be\s+"
    r"(?:answered|determined|known|found|confirmed)\b",
    r"(?:this|that|the\s+answer|the\s+question)\s+(?:is\s+not|isn't)\s+(?:answerable|known|"
    r"specified|stated|mentioned|available|found|given|provided)\b",
    r"(?:cannot|can't|unable\s+to)\s+(?:be\s+)?(?:answer|answered|determine|determined|tell|say|confirm)\b",
]
# A refusal in a word or two stands alone: "Unknown.", "N/A", "Not mentioned in the context."
_BARE = (
    r"(?:unknown|n/?a|none|no\s+answer|not\s+(?:mentioned|specified|stated|known|available|provided|given|found))"
    r"(?:\s+(?:in|from|by)\s+" + _SOURCE + r")?$"
)
_REFUSAL = re.compile(r"^(?:" + "|".join([*_REFUSALS, _BARE]) + r")", re.IGNORECASE)
# Politeness around a refusal is not an answer: "I'm sorry,", "Unfortunately,", "Based on the context,".
_LEAD_IN = re.compile(
    r"^(?:(?:i\s*(?:'m|am)\s+)?(?:sorry|afraid)|unfortunately|apologies|regrettably|"
    r"(?:based\s+on|according\s+to|from|given|in)\s+" + _SOURCE + r"(?:\s+\w+){0,2}|"
    r"(?:as\s+far\s+as\s+i\s+(?:can\s+tell|know)))\s*,?\s*(?:(?:but|that)\s+)?",
    re.IGNORECASE,
)
# A sentence of politeness alone ("I'm sorry.", "Please consult your doctor.") may stand beside a refusal.
_COURTESY = re.compile(
    r"^(?:(?:i\s*(?:'m|am)\s+)?(?:very\s+|so\s+)?(?:sorry|afraid)|apologies|my\s+apologies|unfortunately|"
    r"please\s+\w+.*|you\s+(?:may|might|could|should)\s+(?:want\s+to\s+)?(?:consult|check|ask|contact|refer).*|"
    r"thank\s+you|thanks|i\s+hope\s+this\s+helps)$",
    re.IGNORECASE,
)
# A clause after a refusal that turns it into a claim: "..., but it was Tuesday."
_TURN = re.compile(r"[,;:]?\s+(?:but|however|although|though|yet|except|instead)\b|[;:]\s*\S", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


def answer_outcome(output: str) -> str | None:
    """:data:`EMPTY`, :data:`ABSTAINED`, or None for an answer to be read for faithfulness.

    ``output`` is the answer as read (markup already taken away, ``reading.plain_text``); a non-string is
    None (the doors refuse it before this).
    """
    if not isinstance(output, str):
        return None
    if not any(char.isalnum() for char in output):
        return EMPTY
    sentences = [
        s.strip(" \t\"'\u201c\u201d\u2018\u2019()[]*-\u2014\u2013")
        for s in _SENTENCE_END.split(_typography(output))
    ]
    sentences = [s.rstrip(".!?… ") for s in sentences if any(char.isalnum() for char in s)]
    refusals = [_refuses(sentence) for sentence in sentences]
    if any(refusals) and all(r or _COURTESY.match(s) for r, s in zip(refusals, sentences, strict=True)):
        return ABSTAINED
    return None


def _typography(text: str) -> str:
    return text.replace("’", "'").replace("\u2018", "'").replace("\u00a0", " ")


# What a refusal's last words may not hold: quoted or reported speech ('"I don't know," he said'), or a
# that-clause, which is a claim ("I can't say with certainty that he is innocent").
# ("that" as the refused thing itself stays a refusal: "I cannot answer that from the documents").
_CLAIM = re.compile(
    r"[\"\u201c\u201d]|\b(?:said|says|told|added|asked)\b|"
    r"\bthat\b(?!\s*(?:$|[.,!?]|from\b|in\b|on\b|with\b|based\b|for\b|question\b|one\b|part\b))",
    re.IGNORECASE,
)
#: the most words a refusal's object may have ("I don't know when the clinic opens on Sundays"): a longer
#: one is a sentence about something else ("I am not sure if you can open a bank account in France if ...")
MOST_OBJECT_WORDS = 10


def _refuses(sentence: str) -> bool:
    """The sentence declines to answer and claims nothing else."""
    rest = _LEAD_IN.sub("", sentence, count=1)
    found = _REFUSAL.match(rest)
    if found is None or _TURN.search(rest) or _CLAIM.search(sentence):
        return False
    return len(rest[found.end() :].split()) <= MOST_OBJECT_WORDS

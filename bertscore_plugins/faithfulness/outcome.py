"""What kind of answer a row holds, before any signal reads it: a real answer, no answer, or a refusal.

In RAG evaluation two outcomes are not a matter of faithfulness at all, and a score would only mislabel
them:

- ``empty``: the answer has no word a reader reads: nothing, blanks, emoji, punctuation, markup or
  invisible characters alone. Nothing in it is supported, and nothing contradicts the source either: a
  BERTScore precision of an empty text is no evidence (an empty answer scored 0.832 "faithful", unrelated
  emoji 0.899).
- ``abstained``: the answer declines and claims nothing checkable: every clause of it is a refusal ("I
  don't know", "The context does not say", "Je ne sais pas", "我不知道") or courtesy around one ("I'm
  sorry", "Please consult your doctor"). One clause that claims something ("..., but it was Tuesday",
  "..., so the service is free", "Take 500 mg every 6 hours", a bare "No.") makes it an answer, fact-checked
  like any other: a claim that escapes the check is the worst mistake this reader can make, so every
  doubt reads as an answer (a clause with a number, a that-clause, reported speech, a long object).

The text is read folded (:func:`fold`): markup, invisible and formatting characters (bidi marks, BOM,
zero-width characters, soft hyphens) taken away, spaces and quotes made plain, lower case. English is read
by a small grammar (a refusal's core at the start of its clause, then at most a short object); the other
languages by the phrases of ``refusals.py`` (a core anywhere in the clause, little else beside it).
Chosen and measured on a labelled set of 1,019 answers in 25 languages, against an encoder with exemplars:
``benchmarks/quality/answer_outcomes.py``, table in benchmarks/QUALITY.md.

:func:`answer_outcome` is the one check; every door (the offline signal, the judge's triage, the
disagreement, the command line, the recipe, trace evaluation) takes its label from it, so a row gets the
same outcome whichever way it came.

    >>> answer_outcome("  🙂 !!! "), answer_outcome("I don't know."), answer_outcome("It was Tuesday.")
    ('empty', 'abstained', None)
    >>> answer_outcome("Je ne sais pas."), answer_outcome("I can't find the date, it was 12 March.")
    ('abstained', None)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from bertscore_plugins.faithfulness.reading import plain_text
from bertscore_plugins.faithfulness.refusals import LEXICON

EMPTY, ABSTAINED = "empty", "abstained"
"""The two outcomes that are neither faithful nor unfaithful."""
OUTCOMES = (EMPTY, ABSTAINED)
#: why each outcome is no answer to judge, in the words explanations use
WHY = {EMPTY: "no word to read", ABSTAINED: "it declines to answer"}

# -- folding: the text as the rules read it -----------------------------------------------------------

_ARABIC = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ة": "ه", "ى": "ي", "\u0640": None})
_ARABIC_MARKS = re.compile(r"[\u064b-\u065f\u0670]")
_UNSPACED_SCRIPT = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"
_SPACE_BETWEEN_UNSPACED = re.compile(f"(?<=[{_UNSPACED_SCRIPT}])[ \t]+(?=[{_UNSPACED_SCRIPT}])")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})


def fold(text: str) -> str:
    """``text`` as the rules read it: compatibility forms (NFKC), no format characters (Unicode category
    Cf: bidi marks, BOM, zero-width characters, soft hyphens), every space a plain one, plain apostrophes,
    Arabic without its optional marks, lower case."""
    if not text.isascii():  # ASCII holds no format character and nothing NFKC changes
        text = unicodedata.normalize("NFKC", text)
        text = "".join(
            " " if char.isspace() and char != "\n" else char
            for char in text
            if unicodedata.category(char) != "Cf"
        )
        text = _ARABIC_MARKS.sub("", text.translate(_ARABIC).translate(_QUOTES))
        text = _SPACE_BETWEEN_UNSPACED.sub("", text)  # "我\u3000不知道": a space Chinese does not write
    return re.sub(r"[ \t\r\f\v]+", " ", text.replace("`", "'")).casefold().strip()


# -- English, by grammar ------------------------------------------------------------------------------

# What the answerer was given to read: "the provided context", "these documents", "the text".
_SOURCE = (
    r"(?:the |this |these |those |your |my |any of the |none of the )?(?:provided |given |available |supplied |"
    r"retrieved |above |following |attached |shared |relevant )?(?:source |reference |background )?"
    r"(?:context|contexts|documents?|sources?|passages?|texts?|articles?|excerpts?|information|materials?|"
    r"knowledge base|search results)(?:\s+(?:provided|given|above|available|"
    r"i (?:have|was given)|you (?:provided|gave|shared)))?"
)
_NOT = r"(?:does not|doesn't|do not|don't|did not|didn't|is not|isn't|are not|aren't|can not|cannot|can't)"
_SAY = (
    r"(?:say|mention|specify|state|contain|provide|include|give|indicate|address|cover|tell|answer|"
    r"discuss|describe|clarify|explain|detail|offer|list|reference|cite|seem to (?:say|mention|include))s?"
)
_CANT = r"(?:do not|don't|cannot|can not|can't|could not|couldn't|won't be able to|will not be able to)"
_I_REFUSE = (
    r"(?:know|have (?:any |enough |sufficient |that |this |the |such |the necessary |relevant |specific |"
    r"reliable |access to |an? )*(?:information|data|details?|context|knowledge|answer|access|idea|clue|way "
    r"(?:to|of) knowing)|see|find|locate|tell|say|answer|determine|confirm|verify|provide|be (?:sure|certain)|"
    r"access|give|help|assist|comment|recall|remember|identify|speak to|respond)\b"
)
_PARTICIPLE = (
    r"(?:mentioned|stated|specified|given|provided|included|found|present|available|covered|discussed|"
    r"addressed|contained|listed|disclosed|known|clear|indicated|described|documented|shown|answered)"
)
_BE_NOT = r"(?:is|are|was|were|'s|'re)(?:n't|\s+not)"
_REFUSALS = [
    # the answerer: "I don't know", "I do not have enough information", "I cannot answer", "I can't help"
    r"i\s+(?:really\s+|simply\s+|honestly\s+|just\s+|unfortunately\s+)?"
    + _CANT
    + r"\s+(?:really\s+)?"
    + _I_REFUSE,
    r"i\s*(?:'m|am|was)\s+(?:not\s+(?:sure|certain|able\s+to|in\s+a\s+position\s+to)|unsure|uncertain|unable\s+to)"
    r"(?:\s+(?:know|find|locate|tell|say|answer|determine|confirm|verify|provide|help|assist|comment|give|"
    r"identify|respond|see))?\b",
    r"i\s+(?:have|had|'ve)\s+(?:no|not\s+(?:got\s+)?(?:any|enough))\s+(?:idea|information|knowledge|way\s+of\s+knowing|"
    r"clue|details|data|answer|access)\b",
    r"i\s+(?:did\s+not|didn't|could\s+not|couldn't)\s+find\b",
    # what it read: "The context does not say", "These documents don't mention the date"
    _SOURCE + r"\s+" + _NOT + r"\s+(?:\w+ly\s+)?" + _SAY + r"\b",
    _SOURCE
    + r"\s+(?:makes?|contains?|provides?|gives?|has|have|says?|offers?|includes?|holds?)\s+(?:no|nothing)\s*"
    r"(?:mention|information|details?|answer|indication|reference|data|about|on|regarding)?\b",
    _SOURCE + r"\s+(?:is|are)\s+silent\b",
    r"(?:nothing|none)\s+(?:of\s+the\s+\w+\s+|in\s+"
    + _SOURCE
    + r"\s+)?(?:says?|mentions?|specif(?:y|ies)|states?|"
    r"indicates?|answers?|addresses|covers?)\b",
    # "There is no information about ...", "Not enough information", "No answer is given", "No mention of it"
    r"(?:there(?:'s|\s+(?:is|are|was|were))\s+|i\s+(?:see|found|find|have)\s+)?(?:no|not\s+enough|insufficient)\s+"
    r"(?:relevant\s+|specific\s+|such\s+|additional\s+|further\s+|clear\s+|explicit\s+)?"
    r"(?:information|mention|answer|details?|indication|reference|context|info)\b"
    r"(?=\s*$|\s+(?:about|on|regarding|concerning|as\s+to|of|for|in|from|to|available|provided|given|here|there|"
    r"yet|at\s+all|whatsoever|that|this|it|which|whether|when|where|who|why|how|what))",  # not "an information desk"
    r"(?:not\s+enough|insufficient)\s+(?:data|evidence)\b",
    r"no\s+(?:information|details?|data|mention|answer)\s+(?:is|was|are|were|has\s+been|have\s+been)\s+(?:provided|given|"
    r"available|found|included|mentioned|listed|made)\b",
    # "This cannot be determined from the context", "The question is not answerable"
    r"(?:this|that|it|the\s+answer|the\s+question|this\s+question|that\s+question|the\s+information)\s+"
    r"(?:cannot|can't|can\s+not|could\s+not|couldn't)\s+be\s+(?:answered|determined|known|found|confirmed|"
    r"verified|established|said|told)\b",
    r"(?:this|that|the\s+answer|the\s+question|this\s+question)\s+"
    + _BE_NOT
    + r"\s+(?:answerable|known|clear|"
    r"something\s+i\s+(?:can|could)\s+(?:answer|help\s+with|say))\b",
    r"(?:cannot|can't|unable\s+to)\s+(?:be\s+)?(?:answer|answered|determine|determined|tell|say|confirm|find|help)\b",
    r"that(?:'s|\s+is)\s+(?:beyond|outside)\s+(?:my\s+knowledge|the\s+scope|what\s+" + _SOURCE + r")\b",
    r"(?:no|not\s+an?)\s+(?:idea|clue|answer\s+available)\b",
]
# "It is not mentioned.", "The answer is not in the context.", "That information isn't in the documents.":
# the clause ends there (or names the source), so "The dose is not given to children" stays a claim.
_NOT_THERE = [
    r"(?:it|this|that|the\s+answer|the\s+information|that\s+information|this\s+information|such\s+information|"
    r"this\s+detail|that\s+detail|the\s+(?:\w+\s+){0,3}?\w+|its\s+\w+|their\s+\w+)\s*" + _BE_NOT + r"\s+"
    r"(?:(?:explicitly\s+|specifically\s+|clearly\s+)?"
    + _PARTICIPLE
    + r"(?:\s+(?:in|by|within|from|anywhere\s+in)\s+"
    + _SOURCE
    + r")?|(?:in|within|part\s+of|anywhere\s+in|included\s+in|found\s+in|contained\s+in|present\s+in|"
    r"available\s+in)\s+" + _SOURCE + r")$",
    # "It's not possible to say from the context", "Hard to say": with nothing after it but the source (a
    # general "It is hard to determine if public procedure is contrary to public interest" is a claim)
    r"(?:(?:it|that|this)\s*(?:'s|\s+is|\s+was)\s+)?(?:not\s+possible|impossible|unclear|not\s+clear|hard|difficult)"
    r"\s+to\s+(?:say|tell|determine|know|answer|confirm|find|establish)(?:\s+(?:that|this|it|for\s+sure|exactly|"
    r"with\s+certainty))?(?:\s+(?:from|in|with|based\s+on|given)\s+" + _SOURCE + r")?$",
    # a refusal in a word or two: "Unknown.", "N/A", "Not mentioned in the context.", "Unanswerable."
    r"(?:it|that|this)\s*(?:'s|\s+is|\s+was)\s+(?:unclear|not\s+clear|unknown|not\s+known)(?:\s+(?:from|in|based\s+on)\s+"
    + _SOURCE
    + r")?$",
    r"(?:unknown|n/?a|no\s+answer|unanswerable|not\s+answerable|unclear|cannot\s+say|can't\s+say|not\s+sure|"
    r"no\s+information(?:\s+(?:available|provided|given|found))?|not\s+" + _PARTICIPLE + r")"
    r"(?:\s+(?:in|from|by|within)\s+" + _SOURCE + r")?$",
]
_ENGLISH = [re.compile(refusal) for refusal in _REFUSALS]
_ENGLISH_WHOLE = re.compile(r"(?:" + "|".join(_NOT_THERE) + r")")
# Words around a refusal that are not an answer: "I'm sorry", "Unfortunately", "Based on the context".
_LEAD_IN = re.compile(
    r"^(?:(?:i\s*(?:'m|am)\s+)?(?:really\s+|very\s+|so\s+)?(?:sorry|afraid)|unfortunately|apologies|"
    r"my\s+apologies|regrettably|honestly|frankly|to\s+be\s+honest|sadly|hmm+|well|ok(?:ay)?|"
    r"(?:based\s+(?:on|solely\s+on)|according\s+to|from|given|in|looking\s+at|after\s+(?:reviewing|checking))\s+"
    + _SOURCE
    + r"(?:\s+\w+){0,2}|as\s+far\s+as\s+i\s+(?:can\s+tell|know))\s*,?\s*(?:(?:but|that)\s+)?"
)
# A clause of politeness alone may stand beside a refusal ("I'm sorry.", "Please consult your doctor."),
# never one that instructs ("Please take 500 mg").
_COURTESY = re.compile(
    r"^(?:(?:i\s*(?:'m|am)\s+)?(?:really\s+|very\s+|so\s+|truly\s+)?(?:sorry|afraid)(?:\s+about\s+that)?|apologies|"
    r"my\s+apologies|unfortunately|regrettably|sadly|honestly|hmm+|h?m+|well|ok(?:ay)?|thank\s+you|thanks|i\s+hope\s+this\s+helps|"
    r"(?:please\s+)?(?:consult|check\s+with|ask|contact|refer\s+to|see)\s+(?:a|an|your|the)\s+\w+(?:\s+\w+)?|"
    r"please\s+(?:rephrase|clarify|provide\s+more\s+(?:context|details|information)|try\s+again|let\s+me\s+know)\b.*|"
    r"(?:you\s+)?(?:may|might|could|should|can)\s+(?:want\s+to\s+)?(?:consult|check\s+with|ask|contact|refer\s+to|"
    r"look\s+elsewhere|check\s+(?:another|other|the\s+official)\s+\w+)(?:\s+(?:a|an|your|the|another|other)\s+\w+)?|"
    r"(?:based\s+(?:on|solely\s+on)|according\s+to|from|given|in|looking\s+at)\s+" + _SOURCE + r"|"
    r"as\s+far\s+as\s+i\s+(?:can\s+tell|know))$"
)
# What a refusal's object may not hold: a number, quoted or reported speech ('"I don't know," he said'),
# or a that-clause, which is a claim ("I can't say with certainty that he is innocent"; "that" as the refused
# thing itself stays a refusal: "I cannot answer that from the documents").
_CLAIM = re.compile(
    r"\d|[\"\u201c\u201d\u00ab\u00bb]|\b(?:said|says|told|added|asked)\b|"
    r"(?<=\s)that(?!\s+(?:from|in|on|with|based|for|question|one|part|information|detail|topic|yet|according|here|"
    r"now|either|as|at\s+all)\b)\s+(?:\S+\s+){0,3}?(?:i|i'm|you|he|she|it|it's|we|they|there|is|was|are|were|has|had|have|will|would|"
    r"can|could|should|must|did|does|\w+ed)\b"
)
#: the most words a refusal's object may have ("I don't know when the clinic opens on Sundays"): a longer
#: one is a sentence about something else ("I am not sure if you can open a bank account in France if ...")
MOST_OBJECT_WORDS = 10

# -- the other languages, by phrase -------------------------------------------------------------------


def _alternation(patterns: list[str]) -> str:
    return "|".join(fold(pattern) for pattern in patterns)


_CORES = re.compile(_alternation([p for cores, _, _ in LEXICON.values() for p in cores]))
_COURTESIES = re.compile(_alternation([p for _, courtesies, _ in LEXICON.values() for p in courtesies]))


def _latin(pattern: str) -> bool:
    """The pattern has a Latin letter of its own (not an escape's): it may match a clause in plain ASCII."""
    return bool(re.search("[a-z]", re.sub(r"\\.", "", fold(pattern))))


_ASCII_CORES = re.compile(_alternation([p for cores, _, _ in LEXICON.values() for p in cores if _latin(p)]))
_ASCII_COURTESIES = re.compile(
    _alternation([p for _, courtesies, _ in LEXICON.values() for p in courtesies if _latin(p)])
)
_DIGIT = re.compile(r"\d")
#: the longest clause a refusal makes (its core, a courtesy and a refused object of MOST_OBJECT_WORDS)
MOST_REFUSAL_WORDS, MOST_REFUSAL_CHARACTERS = 24, 160
_TURN_WORDS = [p for _, _, turns in LEXICON.values() for p in turns] + [
    r"but",
    r"however",
    r"although",
    r"though",
    r"yet",
    r"except",
    r"instead",
    r"because",
    r"since",
    r"therefore",
    r"thus",
    r"whereas",
    r"while",
    r"which",
    r"meaning",
    r"hence",
]
_UNSPACED = re.compile(f"[{_UNSPACED_SCRIPT}]")
# Clauses: split at clause punctuation and at a word that turns to something else ("..., but it was
# Tuesday", "mais", "但是"); a script written without spaces has its turn words anywhere. Splitting only
# ever makes a refusal harder to read (each piece must be one), never easier.
_CLAUSE_PUNCTUATION = re.compile(r"[,;:\uff0c\u3001\uff1b\uff1a\u060c()\[\]]|\s[-\u2013\u2014]+\s|\u2014")
_TURN = re.compile(
    r"(?<![\w'])(?:"
    + _alternation([t for t in _TURN_WORDS if not _UNSPACED.search(t)])
    + r")(?![\w'])|"
    + _alternation([t for t in _TURN_WORDS if _UNSPACED.search(t)])
)
_SENTENCE_END = re.compile(r"(?<=[.!?\u2026])\s+|(?<=[\u3002\uff01\uff1f\u061f\u0964\u0965])|\n+")
_EDGES = " \t\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d()[]*_#>~-\u2014\u2013.!?\u2026\u3002\uff01\uff1f\u061f\u0964\u0965\u00bf\u00a1"
_WH = re.compile(
    r"^(?:what|when|where|who|whom|whose|which|why|how|whether|if|about|regarding|on|for|anything)\b"
)
_VERB_LIKE = re.compile(
    r"\b(?:is|was|were|are|am|be|been|being|has|had|will|would|shall|should|must|did|does|can|could|may|might)\b"
)
_STATEMENT = re.compile(r"\b(?:i|he|she|we|they)\b|'(?:re|ve|ll|d)\b|n't\b")
_ELSEWHERE = re.compile(r"\b(?:in|within)\s+(?!" + _SOURCE + r"\b)")
_AND = re.compile(r"\b(?:and|or|nor)\b")
_SUBJECT = re.compile(r"\b(?:i|you|he|she|it|we|they|there|this|that|these|those)\b|\w+ed\b")


def answer_outcome(output: str) -> str | None:
    """:data:`EMPTY`, :data:`ABSTAINED`, or None for an answer to be read for faithfulness.

    ``output`` is the answer (markup is taken away here too, ``reading.plain_text``); a non-string is None
    (the doors refuse it before this).
    """
    if not isinstance(output, str):
        return None
    text = fold(plain_text(fold(output)))
    if not any(char.isalnum() for char in text):
        return EMPTY
    refused = False
    for clause in _clauses(text):  # the first clause that claims something settles it: most answers' first
        if _refuses(clause):
            refused = True
        elif not _courteous(clause):
            return None
    return ABSTAINED if refused else None


def _clauses(text: str) -> Iterator[str]:
    """The folded text's clauses, one at a time: split at sentence ends, clause punctuation and turn words."""
    for sentence in _SENTENCE_END.split(text):
        for piece in _CLAUSE_PUNCTUATION.split(sentence.strip(_EDGES)):
            for clause in _TURN.split(piece):
                clause = clause.strip(_EDGES)
                if any(char.isalnum() for char in clause):
                    yield clause


def _courteous(clause: str) -> bool:
    """A clause of politeness or framing alone: "I'm sorry", "Please consult your doctor", "Désolé"."""
    return bool(_COURTESY.match(clause)) or not _COURTESIES.sub("", clause).strip(_EDGES)


def _refuses(clause: str) -> bool:
    """The clause declines to answer and claims nothing else."""
    return _refuses_in_english(clause) or _refuses_in_other_languages(clause)


def _refuses_in_english(clause: str) -> bool:
    if _CLAIM.search(clause):
        return False
    for _ in range(3):  # "I'm sorry, unfortunately I ..." (a comma already split most lead-ins off)
        clause = _LEAD_IN.sub("", clause, count=1).strip(_EDGES)
    if _ENGLISH_WHOLE.fullmatch(clause):
        return True
    return any(
        (found := refusal.match(clause)) and not _object_claims(clause[found.end() :].strip())
        for refusal in _ENGLISH
    )


def _object_claims(words: str) -> bool:
    """What a refusal refused may be a question ("when the clinic opens on Sundays") or a thing ("the
    discharge date"), never a second statement ("the date and the patient died", "the date was Tuesday")."""
    if len(words.split()) > MOST_OBJECT_WORDS or re.search(r"\bso\b", words):  # "..., so it is free"
        return True
    first, *joined = _AND.split(words)
    if any(len(part.split()) > 3 or _SUBJECT.search(part) or _VERB_LIKE.search(part) for part in joined):
        return True
    if _WH.match(first):
        return False
    # a thing, not a statement: no verb, no subject ("I'm not sure they're old enough"), and no place other
    # than the source ("There is no reference to religion in the Left Behind series")
    return bool(_VERB_LIKE.search(first) or _STATEMENT.search(first) or _ELSEWHERE.search(first))


def _refuses_in_other_languages(clause: str) -> bool:
    # a clause longer than a core, its courtesy and a refused object together is no refusal: the phrase
    # search (hundreds of phrases) is only run on short clauses, and on plain ASCII only with the ASCII phrases
    # (a SummEval summary went from 17 ms to well under 1)
    if (
        len(clause.split()) > MOST_REFUSAL_WORDS
        or len(clause) > MOST_REFUSAL_CHARACTERS
        or _DIGIT.search(clause)
    ):
        return False
    ascii_only = clause.isascii()
    courtesies, cores = (_ASCII_COURTESIES, _ASCII_CORES) if ascii_only else (_COURTESIES, _CORES)
    clause = re.sub(r"\s+", " ", courtesies.sub(" ", clause)).strip(
        _EDGES
    )  # "抱歉不知道", "Désolé je ne sais pas"
    found = cores.search(clause)
    if found is None:
        return False
    rest = (clause[: found.start()] + " " + clause[found.end() :]).strip(_EDGES)
    if _UNSPACED.search(rest) and " " not in rest:
        return len(rest) <= MOST_UNSPACED_CHARACTERS
    return len(rest.split()) <= MOST_OBJECT_WORDS


#: the most characters beside a refusal in a script written without spaces ("我不知道他什么时候出院": 7)
MOST_UNSPACED_CHARACTERS = 14

"""What the judge is asked: one question about one row, answered with one word, within the model's window.

The prompt is versioned (:data:`PROMPT_VERSION`) and its text hashed into the judge's signature, so a
verdict is reused only under the prompt that produced it. A source longer than the judge's budget is
never cut silently: the passages the offline signal aligned the answer to (``supporting_passages`` of the
offline faithfulness) are shown instead, in source order, and the cut is named in the verdict's
explanation ("source cut to 3 passages (1,204 of 9,876 characters), chosen by the alignment").

The budget is in tokens for every script: :func:`estimated_tokens` counts each character by what it
costs in a multilingual tokenizer (a digit or a Chinese character about one token, an English letter a
third of one), erring on the side of fitting, so a source in Chinese or Hindi is cut where a source in
English of the same token count would be, not four times later.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

PROMPT_VERSION = "yes-no/1"
#: the judge's window in tokens unless configured (the local server's context; providers' are larger)
CONTEXT_TOKENS = 2048
#: tokens kept free for the instructions, the template and the one-word verdict
RESERVED_TOKENS = 160
#: (first code point, last code point, tokens per character): measured on Gemma 3's tokenizer (262k words)
#: and rounded up; a character in no range counts one token, one beyond the Basic Multilingual Plane two
_COSTS = (
    (0x30, 0x39, 1.0),  # digits: one token each
    (0x41, 0x5A, 0.25),  # Latin letters: about four to a token
    (0x61, 0x7A, 0.25),
    (0x00, 0x7F, 0.45),  # ASCII spaces and punctuation
    (0x80, 0x24F, 0.5),  # Latin with accents
    (0x370, 0x6FF, 0.45),  # Greek, Cyrillic, Armenian, Hebrew, Arabic
    (0x900, 0xE7F, 0.5),  # Indic scripts, Sinhala, Thai
    (0x2000, 0x206F, 1.0),  # general punctuation
    (0x3040, 0x30FF, 1.0),  # kana
    (0x3400, 0x9FFF, 1.1),  # CJK ideographs
    (0xAC00, 0xD7AF, 0.9),  # Hangul
)

INSTRUCTION = (
    "You check whether an answer is faithful to its source: every claim in the answer must be stated "
    "in the source or follow from it. Reply with one word: yes or no."
)
# the question last, ending where the word is due: a base model (the local Gemma) continues the pattern,
# an instruction-tuned one follows the instruction
TEMPLATE = (
    "Source:\n{source}\n\nAnswer:\n{answer}\n\n"
    "Question: Is every claim in the answer supported by the source? Answer (yes or no):"
)
GAP = "\n[...]\n"


def prompt_identity() -> str:
    """The prompt's version and the sha256 of its text (short): what a verdict was asked with."""
    text = "\n".join((PROMPT_VERSION, INSTRUCTION, TEMPLATE, GAP))
    return f"{PROMPT_VERSION}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class Question:
    """The messages for one row, and the cut made to fit it ("" when the source was shown whole)."""

    messages: list[dict[str, str]]
    cut: str


def _cost(character: str) -> float:
    point = ord(character)
    if point > 0xFFFF:
        return 2.0
    for first, last, cost in _COSTS:
        if first <= point <= last:
            return cost
    return 1.0


def estimated_tokens(text: str) -> float:
    """How many tokens ``text`` takes at most, about (see the module's docstring)."""
    return sum(_cost(c) for c in text)


def _head(text: str, budget_tokens: float) -> str:
    """The longest start of ``text`` within ``budget_tokens``."""
    used = 0.0
    for index, character in enumerate(text):
        used += _cost(character)
        if used > budget_tokens:
            return text[:index]
    return text


def fit_source(source: str, passages: Sequence[Sequence[int]], budget_tokens: float) -> tuple[str, str]:
    """(the source as shown, the cut named) within ``budget_tokens`` (:func:`estimated_tokens`).

    Whole when it fits; else the aligned ``passages`` ((start, end) character spans of ``source``), in
    order, joined by "[...]"; when those do not fit either (or there are none), the start of them (or of
    the source) that fits, said so.
    """
    if estimated_tokens(source) <= budget_tokens:
        return source, ""
    spans = [(int(a), int(b)) for a, b in passages if 0 <= int(a) < int(b) <= len(source)]
    if spans:
        shown = GAP.join(source[a:b].strip() for a, b in spans)
        if estimated_tokens(shown) <= budget_tokens:
            return shown, (
                f"source cut to {len(spans)} passage{'s' if len(spans) != 1 else ''} "
                f"({len(shown):,} of {len(source):,} characters), chosen by the alignment"
            )
        head = _head(shown, budget_tokens)
        return head, (
            f"source cut to the first {len(head):,} characters of its {len(spans)} aligned passages "
            f"({len(shown):,} characters; the source has {len(source):,}): the judge's window is full"
        )
    head = _head(source, budget_tokens)
    return head, (
        f"source cut to its first {len(head):,} of {len(source):,} characters (no alignment to choose "
        "passages by): the judge's window is full"
    )


def sections(content: str) -> tuple[str, str] | None:
    """(source, answer) as a prompt of this version shows them, or None for another prompt (a stub or a
    log reader recovers what was asked)."""
    _, _, rest = content.partition(TEMPLATE.split("{source}")[0])
    if not rest:
        return None
    between, after = TEMPLATE.split("{source}")[1].split("{answer}")
    source, _, rest = rest.partition(between)
    answer, _, _ = rest.partition(after)
    return (source, answer) if rest else None


def question(answer: str, source: str, passages: Sequence[Sequence[int]], context_tokens: int) -> Question:
    """The chat messages asking whether ``answer`` is faithful to ``source`` within ``context_tokens``."""
    budget = context_tokens - RESERVED_TOKENS - estimated_tokens(answer)
    shown, cut = fit_source(source, passages, max(budget, 64.0))
    content = INSTRUCTION + "\n\n" + TEMPLATE.format(source=shown, answer=answer)
    return Question([{"role": "user", "content": content}], cut)

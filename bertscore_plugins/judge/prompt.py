"""What the judge is asked: one question about one row, answered with one word, within the model's window.

The prompt is versioned (:data:`PROMPT_VERSION`) and its text hashed into the judge's signature, so a
verdict is reused only under the prompt that produced it. A source longer than the judge's budget is
never cut silently: the passages the offline signal aligned the answer to (``supporting_passages`` of the
offline faithfulness) are shown instead, in source order, and the cut is named in the verdict's
explanation ("source cut to 3 passages (1,204 of 9,876 characters), chosen by the alignment").
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

PROMPT_VERSION = "yes-no/1"
#: characters a token takes in English for the judge's budget (Gemma's tokenizer and GPT-4o's average
#: about 4; 3.5 errs on the side of fitting)
CHARS_PER_TOKEN = 3.5
#: tokens kept free for the instructions, the answer and the one-word verdict
RESERVED_TOKENS = 320

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


def fit_source(source: str, passages: Sequence[Sequence[int]], budget_chars: int) -> tuple[str, str]:
    """(the source as shown, the cut named) within ``budget_chars``.

    Whole when it fits; else the aligned ``passages`` ((start, end) character spans of ``source``), in
    order, joined by "[...]"; when those do not fit either (or there are none), the first ``budget_chars``
    of them (or of the source), said so.
    """
    if len(source) <= budget_chars:
        return source, ""
    spans = [(int(a), int(b)) for a, b in passages if 0 <= int(a) < int(b) <= len(source)]
    if spans:
        shown = GAP.join(source[a:b].strip() for a, b in spans)
        if len(shown) <= budget_chars:
            return shown, (
                f"source cut to {len(spans)} passage{'s' if len(spans) != 1 else ''} "
                f"({len(shown):,} of {len(source):,} characters), chosen by the alignment"
            )
        return shown[:budget_chars], (
            f"source cut to the first {budget_chars:,} characters of its {len(spans)} aligned passages "
            f"({len(shown):,} characters; the source has {len(source):,}): the judge's window is full"
        )
    return source[:budget_chars], (
        f"source cut to its first {budget_chars:,} of {len(source):,} characters (no alignment to choose "
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
    budget = int((context_tokens - RESERVED_TOKENS) * CHARS_PER_TOKEN) - len(answer)
    shown, cut = fit_source(source, passages, max(budget, 200))
    content = INSTRUCTION + "\n\n" + TEMPLATE.format(source=shown, answer=answer)
    return Question([{"role": "user", "content": content}], cut)

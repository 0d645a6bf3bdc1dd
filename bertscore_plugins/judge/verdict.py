"""A judge's answer -> a number in [0, 1] and a label, read from the probability of its first word.

A small model asked for one word answers in many forms ("Yes", " yes", "YES", "No.", a word that is
neither). So the verdict is not a parse of free text: it is ``p(yes) / (p(yes) + p(no))`` over the first
token's most likely alternatives (every spelling of each word counted), which gives every row a score and
a label. A provider that sends no log probabilities gives its word only: the score is then 1 or 0.
An answer with neither word is :class:`UnusableAnswer`, naming what the model wrote; so are log
probabilities that are missing where the answer promised them, or are not log probabilities (above 0,
NaN, infinite, not a number): that row fails by name, the others are read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bertscore_plugins.errors import UnusableAnswer
from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL

#: at or above this p(yes) the judge's label is "faithful" (its probabilities are its own: not calibrated)
YES_THRESHOLD = 0.5
_WORD = re.compile(r"[^a-z]")


@dataclass(frozen=True)
class JudgeVerdict:
    """``p_yes`` in [0, 1]; ``label`` "faithful" at p_yes >= YES_THRESHOLD; ``word`` the model's first token;
    ``from_probabilities`` False when the provider gave no log probabilities (p_yes is then 1 or 0)."""

    p_yes: float
    word: str
    from_probabilities: bool = True

    @property
    def label(self) -> str:
        return FAITHFUL if self.p_yes >= YES_THRESHOLD else UNFAITHFUL


def _word(token: object) -> str:
    return _WORD.sub("", str(token).lower()) if isinstance(token, str) else ""


def read_verdict(response: Mapping[str, object]) -> JudgeVerdict:
    """The verdict in a chat-completions response (``logprobs: true, top_logprobs: N``).

    Raises UnusableAnswer: no choice, an empty answer, or neither word among the first token's
    alternatives (nor as the answer itself when no probabilities came).
    """
    choices = response.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if choice is None:
        raise UnusableAnswer("the answer has no choices")
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    content = content if isinstance(content, str) else ""
    first = _first_token(choice)
    if first is not None:
        word, alternatives = first
        mass = {"yes": 0.0, "no": 0.0}
        for token, logprob in alternatives:
            checked = _logprob(token, logprob)
            key = _word(token)
            if key in mass:
                mass[key] += math.exp(checked)
        total = mass["yes"] + mass["no"]
        if total > 0.0:
            return JudgeVerdict(mass["yes"] / total, word)
        raise UnusableAnswer(
            f"the model wrote {word!r} and neither yes nor no was among its {len(alternatives)} most likely first words"
        )
    # no log probabilities (a provider without them): the word itself
    word = _word(content.split()[0]) if content.split() else ""
    if word in ("yes", "no"):
        return JudgeVerdict(1.0 if word == "yes" else 0.0, word, from_probabilities=False)
    if not content.strip():
        raise UnusableAnswer("the model's answer was empty")
    raise UnusableAnswer(f"the model wrote {content[:60]!r}, not yes or no")


#: rounding slack above 0 a provider's log probability may show (a probability of 1 written as 1e-9)
_SLACK = 1e-6


def _logprob(token: object, value: object) -> float:
    """A log probability as sent, checked: a finite number at most 0; else UnusableAnswer naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = "missing" if value is None else f"{value!r}"[:40]
        raise UnusableAnswer(f"the log probability of {str(token)[:20]!r} is {shown}, not a number")
    try:
        value = float(value)
    except OverflowError:  # an integer of hundreds of digits: no float holds it
        raise UnusableAnswer(
            f"the log probability of {str(token)[:20]!r} is an integer of {len(str(abs(value)))} digits, "
            "not a log probability"
        ) from None
    if not math.isfinite(value) and value != -math.inf:
        raise UnusableAnswer(
            f"the log probability of {str(token)[:20]!r} is {value!r}, not a log probability"
        )
    if value > _SLACK:
        raise UnusableAnswer(
            f"the log probability of {str(token)[:20]!r} is {value:g}, above 0: not a log probability"
        )
    return min(float(value), 0.0)


def _first_token(choice: Mapping[str, object]) -> tuple[str, list[tuple[object, object]]] | None:
    """(the first token, its alternatives with log probabilities), or None when none were sent."""
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return None
    first = content[0]
    listed = first.get("top_logprobs")
    alternatives = [
        (entry.get("token"), entry.get("logprob"))
        for entry in (listed if isinstance(listed, list) else [])
        if isinstance(entry, dict)
    ]
    if not alternatives and "token" in first:
        alternatives = [(first.get("token"), first.get("logprob"))]
    return str(first.get("token", "")), alternatives

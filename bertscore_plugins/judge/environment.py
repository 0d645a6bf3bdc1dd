"""Choosing the judge from the environment: one function, :func:`judge_from_env`, one set of variables.

Every path (Python, the command line, the recipe, trace evaluation, the Phoenix evaluators) takes its
judge from here, so the same variables give the same judge everywhere:

=================================  ==================================================================
``BERTSCORE_JUDGE_MODEL``          the model to ask; unset: no judge
``BERTSCORE_JUDGE_BASE_URL``       an OpenAI-compatible ``/v1`` (default OpenAI's; the local server's)
``BERTSCORE_JUDGE_API_KEY``        its key (default ``OPENAI_API_KEY``; the local server needs none)
``BERTSCORE_JUDGE_TIMEOUT``        seconds one request may take, all of it (default 60)
``BERTSCORE_JUDGE_CONTEXT_TOKENS`` the prompt's budget in tokens (default 2048)
``BERTSCORE_JUDGE_MODEL_SHA256``   the weights' digest, recorded in the judge's signature
``BERTSCORE_JUDGE_STYLE``          ``yes-no`` (default: the project's yes/no judge reading p(yes)) or
                                   ``phoenix`` (Phoenix's own FaithfulnessEvaluator over the same endpoint)
``BERTSCORE_JUDGE_PROVIDER``       Phoenix's provider for ``phoenix`` style (default ``openai``)
``BERTSCORE_JUDGE_RATE``           Phoenix's first request rate per second for ``phoenix`` style
=================================  ==================================================================

A value that cannot be used is an :class:`~bertscore_plugins.errors.ArgumentError` naming the variable in
one line (the command line exits 2), never a traceback and never accepted silently (0, negative, "soon").
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.judge.endpoint import (
    DEFAULT_TIMEOUT,
    OPENAI_BASE_URL,
    Endpoint,
    base_url_problem,
    timeout_problem,
)
from bertscore_plugins.judge.prompt import CONTEXT_TOKENS

if TYPE_CHECKING:
    from bertscore_plugins.evaluation.judge import Judge

#: the smallest prompt budget that leaves room for a source beside the instructions and the answer
MIN_CONTEXT_TOKENS = 512
#: the largest prompt budget read (far above any model this judge is asked; 5,000 digits is a typo)
MAX_CONTEXT_TOKENS = 10_000_000
STYLE_ENV = "BERTSCORE_JUDGE_STYLE"
STYLES = ("yes-no", "phoenix")

NO_JUDGE_LINE = (
    "No LLM judge configured: the offline faithfulness (groundedness x the fact check of numbers, dates, "
    "names and negations) is the faithfulness signal"
)
JUDGE_SETUP_HINT = """\
No LLM judge configured, so groundedness (BERTScore precision of the output against its context) combined
with the fact check (numbers, dates, names and negations carried by the context) stands in for faithfulness.
To add a judge (it answers yes or no; its p(yes) is the score), point these at an OpenAI-compatible /v1:
  local model:    bertscore-plugins judge serve   (prints the variables to set; Gemma 3 270M, no key)
  OpenAI:         BERTSCORE_JUDGE_MODEL=gpt-4o-mini  OPENAI_API_KEY=sk-...
  other provider: BERTSCORE_JUDGE_BASE_URL=https://.../v1  BERTSCORE_JUDGE_MODEL=...  BERTSCORE_JUDGE_API_KEY=...
Optional: BERTSCORE_JUDGE_TIMEOUT (seconds per request, default 60), BERTSCORE_JUDGE_CONTEXT_TOKENS (the
prompt's budget, default 2048), BERTSCORE_JUDGE_STYLE=phoenix (Phoenix's FaithfulnessEvaluator instead:
structured output, any Phoenix LLM, BERTSCORE_JUDGE_PROVIDER=anthropic ...). See docs/judge.md."""


@dataclass(frozen=True)
class JudgeSettings:
    """The judge ``BERTSCORE_JUDGE_*`` describes, checked (:meth:`from_env`)."""

    endpoint: Endpoint
    context_tokens: int = CONTEXT_TOKENS
    style: str = "yes-no"
    provider: str = "openai"
    rate: float | None = None
    #: whether the API key came from BERTSCORE_JUDGE_API_KEY (else OPENAI_API_KEY, or none)
    own_key: bool = field(default=False, repr=False)
    #: whether BERTSCORE_JUDGE_BASE_URL was set (else the endpoint is OpenAI's)
    base_url_given: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> JudgeSettings | None:
        """The settings, or None when ``BERTSCORE_JUDGE_MODEL`` is unset; ArgumentError naming a bad variable."""
        env = os.environ if environ is None else environ
        model = _value(env, "BERTSCORE_JUDGE_MODEL")
        if not model:
            return None
        base_url = _value(env, "BERTSCORE_JUDGE_BASE_URL") or OPENAI_BASE_URL
        problem = base_url_problem(base_url)
        if problem is not None:
            raise ArgumentError(f"BERTSCORE_JUDGE_BASE_URL {problem}, got {base_url[:80]!r}")
        own_key = _value(env, "BERTSCORE_JUDGE_API_KEY")
        api_key = own_key or _value(env, "OPENAI_API_KEY")
        if api_key and not all(" " < c <= "~" for c in api_key):  # it goes into an HTTP header as is
            variable = "BERTSCORE_JUDGE_API_KEY" if own_key else "OPENAI_API_KEY"
            raise ArgumentError(f"{variable} must be printable ASCII without blanks (an API key)")
        timeout = _timeout(env)
        tokens_text = _value(env, "BERTSCORE_JUDGE_CONTEXT_TOKENS")
        context_tokens = CONTEXT_TOKENS
        if tokens_text:
            # ASCII digits only: "²" and "2048²" are digits to str.isdigit() and ValueError to int()
            if (
                not re.fullmatch(r"[0-9]{1,7}", tokens_text)
                or not MIN_CONTEXT_TOKENS <= int(tokens_text) <= MAX_CONTEXT_TOKENS
            ):
                raise ArgumentError(
                    f"BERTSCORE_JUDGE_CONTEXT_TOKENS must be a whole number of tokens from {MIN_CONTEXT_TOKENS} to {MAX_CONTEXT_TOKENS:,}, got {tokens_text[:40]!r}",
                )
            context_tokens = int(tokens_text)
        digest = _value(env, "BERTSCORE_JUDGE_MODEL_SHA256").lower()
        if digest and not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ArgumentError(
                f"BERTSCORE_JUDGE_MODEL_SHA256 must be 64 hex digits, got {digest[:80]!r}",
            )
        style = _value(env, STYLE_ENV).lower() or "yes-no"
        if style not in STYLES:
            raise ArgumentError(f"{STYLE_ENV} must be 'yes-no' or 'phoenix', got {style!r}")
        endpoint = Endpoint(base_url, model, api_key, timeout, digest)
        return cls(
            endpoint,
            context_tokens,
            style,
            provider=_value(env, "BERTSCORE_JUDGE_PROVIDER") or "openai",
            rate=_positive(env, "BERTSCORE_JUDGE_RATE", "requests per second"),
            own_key=bool(own_key),
            base_url_given=bool(_value(env, "BERTSCORE_JUDGE_BASE_URL")),
        )


def judge_from_env(environ: Mapping[str, str] | None = None) -> Judge | None:
    """The evaluation engine's judge ``BERTSCORE_JUDGE_*`` configures, or None when no model is set.

    The yes/no judge over the OpenAI-compatible endpoint (the local server or a provider: the same code),
    or with ``BERTSCORE_JUDGE_STYLE=phoenix`` Phoenix's FaithfulnessEvaluator over the same endpoint
    (the Phoenix extra). ArgumentError names a variable that cannot be used.
    """
    settings = JudgeSettings.from_env(environ)
    if settings is None:
        return None
    if settings.style == "phoenix":
        from bertscore_plugins.integrations.phoenix.phoenix_judge import faithfulness_judge, phoenix_llm

        return faithfulness_judge(phoenix_llm(settings))
    from bertscore_plugins.judge.yes_no import YesNoJudge

    return YesNoJudge(settings.endpoint, context_tokens=settings.context_tokens)


def _value(env: Mapping[str, str], name: str) -> str:
    return str(env.get(name, "") or "").strip()


def _timeout(env: Mapping[str, str]) -> float:
    text = _value(env, "BERTSCORE_JUDGE_TIMEOUT")
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    problem = timeout_problem(value)
    if problem is not None:
        raise ArgumentError(f"BERTSCORE_JUDGE_TIMEOUT {problem} (one request, all of it), got {text[:40]!r}")
    return value


def _positive(env: Mapping[str, str], name: str, meaning: str) -> float | None:
    text = _value(env, name)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ArgumentError(f"{name} must be a positive, finite number ({meaning}), got {text!r}")
    return value

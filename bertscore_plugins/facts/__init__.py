"""Offline faithfulness that sees facts: the wrong date, number, negation and name, without an LLM.

Groundedness (BERTScore precision against the context) shares BERTScore's blind spot: "Thursday"
aligned to "Tuesday" at 0.85 barely moves an average. The fact check reuses the same alignment but
asks whether the context *carries* each fact of the output (extract.py finds them, support.py judges
them), and the offline faithfulness signal combines the two.

    >>> from bertscore_plugins.facts import offline_faithfulness
    >>> row = offline_faithfulness(["Discharged on Thursday."], ["He was discharged on Tuesday."])[0]
    >>> row.label, row.facts.explanation                                  # doctest: +SKIP
    ('unfaithful', 'Thursday: context says Tuesday')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.facts.extract import Fact, extract
from bertscore_plugins.facts.support import (
    SUPPORTED,
    UNSUPPORTED,
    FactCheck,
    Finding,
    check_explanation,
    check_pair,
)

#: BERTScore precision against the context at or above which an output counts as grounded (packaged
#: MiniLM, layer 4, unrescaled); also the Phoenix GroundednessEvaluator's default.
DEFAULT_GROUNDEDNESS_THRESHOLD = 0.8
CONTEXT_SEPARATOR = "\n\n"
"""Joins a list of context passages into one text, so every passage can support the output."""
FAITHFUL, UNFAITHFUL = "faithful", "unfaithful"
"""The labels of the offline signal, the same words Phoenix's faithfulness judge uses."""


@dataclass(frozen=True)
class OfflineFaithfulness:
    """Groundedness and the fact check of one row, and the signal they make together.

    ``score`` = groundedness x fact score, in [0, 1]; ``label`` "faithful" when groundedness reaches
    ``threshold`` and every fact is carried (equivalently ``score >= threshold``, since any unsupported
    fact caps the fact score at 0.5).
    """

    groundedness: float
    facts: FactCheck
    threshold: float = DEFAULT_GROUNDEDNESS_THRESHOLD

    @property
    def score(self) -> float:
        return max(0.0, min(1.0, self.groundedness)) * self.facts.score

    @property
    def label(self) -> str:
        grounded = self.groundedness >= self.threshold
        return FAITHFUL if grounded and self.facts.label == SUPPORTED else UNFAITHFUL

    @property
    def explanation(self) -> str:
        head = f"groundedness {self.groundedness:.3f} x facts {self.facts.score:.2f}"
        return f"{head}; {self.facts.explanation}"


def _joined(context: str | Sequence[str]) -> str:
    if isinstance(context, str):
        return context
    return CONTEXT_SEPARATOR.join(context)


def _checked(outputs: Sequence[str], contexts: Sequence[Any]) -> tuple[list[str], list[str]]:
    from bertscore_plugins.inputs import InputError, text_problem

    if isinstance(outputs, (str, bytes)) or isinstance(contexts, (str, bytes)):
        raise InputError("outputs and contexts must be sequences of texts (one per row), not one string")
    outputs, contexts = list(outputs), list(contexts)
    if len(outputs) != len(contexts):
        raise InputError(f"{len(outputs)} outputs but {len(contexts)} contexts")
    for row, (output, context) in enumerate(zip(outputs, contexts, strict=True)):
        problem = text_problem(output)
        if problem:
            raise InputError(f"row {row}: output {problem}")
        passages = list(context) if isinstance(context, (list, tuple)) else [context]
        if not passages:
            raise InputError(f"row {row}: context is an empty list of passages")
        for passage in passages:
            problem = text_problem(passage)
            if problem:
                raise InputError(f"row {row}: context {problem}")
    return outputs, [_joined(context) for context in contexts]


def check_facts(
    outputs: Sequence[str],
    contexts: Sequence[str | Sequence[str]],
    scorer: Any = None,
    explanations: Sequence[Any] | None = None,
) -> list[FactCheck]:
    """The fact check of each output against its context.

    Args:
        outputs: one generated text per row.
        contexts: the source of each row (a text, or a list of passages joined with blank lines).
        scorer: the core ``BERTScorer`` whose alignment guides the check (default: ``get_scorer()``).
        explanations: the rows' ``Explanation`` objects when already computed
            (``scorer.score(outputs, contexts, explain=True)``); then no model runs here.

    Returns:
        One :class:`FactCheck` per row, in input order.

    Raises:
        InputError: not sequences of texts, or different lengths (the message names the row).
    """
    outputs, joined = _checked(outputs, contexts)
    if explanations is None:
        explanations = _scorer(scorer).score(outputs, joined, explain=True).explanations
    if len(explanations) != len(outputs):
        raise ArgumentError(f"{len(explanations)} explanations for {len(outputs)} rows")
    return [
        check_pair(output, context, explanation)
        for output, context, explanation in zip(outputs, joined, explanations, strict=True)
    ]


def offline_faithfulness(
    outputs: Sequence[str],
    contexts: Sequence[str | Sequence[str]],
    scorer: Any = None,
    threshold: float = DEFAULT_GROUNDEDNESS_THRESHOLD,
    progress: bool | None = None,
) -> list[OfflineFaithfulness]:
    """Groundedness and the fact check from ONE core call (the fact check reads its alignment).

    Returns one :class:`OfflineFaithfulness` per row, in input order. Raises ``InputError`` on bad rows.
    """
    outputs, joined = _checked(outputs, contexts)
    result = _scorer(scorer).score(outputs, joined, progress=progress, explain=True)
    checks = check_facts(outputs, joined, explanations=result.explanations)
    return [
        OfflineFaithfulness(float(precision), check, threshold)
        for precision, check in zip(result.precision, checks, strict=True)
    ]


def _scorer(scorer: Any) -> Any:
    from bertscore_plugins.scorer import resolve_scorer

    return resolve_scorer(scorer, {})


__all__ = [
    "CONTEXT_SEPARATOR",
    "DEFAULT_GROUNDEDNESS_THRESHOLD",
    "FAITHFUL",
    "SUPPORTED",
    "UNFAITHFUL",
    "UNSUPPORTED",
    "Fact",
    "FactCheck",
    "Finding",
    "OfflineFaithfulness",
    "check_explanation",
    "check_facts",
    "check_pair",
    "extract",
    "offline_faithfulness",
]

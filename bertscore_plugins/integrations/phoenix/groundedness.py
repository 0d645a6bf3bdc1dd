"""Groundedness without an LLM: BERTScore precision of the output against its context.

Precision asks "is each output token supported by some context token?", which is the faithfulness
question; F1 against a reference asks a different one. On FRANK, published BERTScore-P against the
article correlates 0.62 with human factuality, versus 0.08 for F1 against the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from bertscore_plugins.evaluation.names import GROUNDED, GROUNDEDNESS, UNGROUNDED

# the threshold and the passage separator are the fact check's, so both signals read a row alike
from bertscore_plugins.facts import CONTEXT_SEPARATOR, DEFAULT_GROUNDEDNESS_THRESHOLD
from bertscore_plugins.integrations.phoenix.evaluators import _BERTScoreEvaluatorBase


class GroundednessInput(BaseModel):
    """What :class:`GroundednessEvaluator` reads from a row."""

    output: str
    context: str | list[str]


class GroundednessEvaluator(_BERTScoreEvaluatorBase):
    """BERTScore precision of the output against the context/source, as a Phoenix ``code`` evaluator.

    Inputs: ``output`` (str) and ``context`` (str, or a list of passages, joined with blank lines so
    every passage can support the output).

    Returns one ``Score``: ``score`` = precision, ``label`` "grounded" when precision >= ``threshold``
    else "ungrounded", ``explanation`` naming the least-supported output tokens, ``metadata`` =
    precision, recall, f1, threshold, signature and the worst matches.

    Args: as :class:`~bertscore_plugins.integrations.phoenix.evaluators.BERTScoreEvaluator`. Long contexts follow the
    core's ``long_text`` setting ("truncate" warns, "window" keeps every token).
    """

    candidate_field = "output"
    reference_field = "context"
    labels = (GROUNDED, UNGROUNDED)

    def __init__(
        self,
        threshold: float = DEFAULT_GROUNDEDNESS_THRESHOLD,
        *,
        name: str = GROUNDEDNESS,
        scorer: Any = None,
        explain_k: int = 3,
        **core_settings: Any,
    ) -> None:
        super().__init__(
            name=name,
            threshold=threshold,
            scorer=scorer,
            explain_k=explain_k,
            input_schema=GroundednessInput,
            **core_settings,
        )

    def _pair(self, eval_input: Mapping[str, Any]) -> tuple[str, str]:
        context = eval_input["context"]
        if isinstance(context, list):
            context = CONTEXT_SEPARATOR.join(context)
        return eval_input["output"], context

    def _headline(self, precision: float, recall: float, f1: float) -> float:
        return precision

    def _explanation_head(self, precision: float, recall: float, f1: float) -> str:
        return f"precision against the context {precision:.3f} (R {recall:.3f}, F1 {f1:.3f})"

    def _extra_metadata(self, precision: float, recall: float, f1: float) -> dict[str, Any]:
        return {"f1": f1}

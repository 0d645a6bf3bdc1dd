"""Groundedness without an LLM, as a Phoenix evaluator: BERTScore precision of the output against its context.

Precision asks "is each output token supported by some context token?", which is the faithfulness
question; F1 against a reference asks a different one. On FRANK, published BERTScore-P against the
article correlates 0.62 with human factuality, versus 0.08 for F1 against the reference. The signal is the
engine's (:class:`bertscore_plugins.evaluation.signals.Groundedness`); this is its Phoenix shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from bertscore_plugins.evaluation.names import GROUNDEDNESS
from bertscore_plugins.evaluation.signals import Groundedness
from bertscore_plugins.integrations.phoenix.evaluators import _BERTScoreEvaluatorBase
from bertscore_plugins.thresholds import DEFAULT_GROUNDEDNESS_THRESHOLD

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings
    from bertscore_plugins.core.scorer_protocol import Scorer


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

    Args: as :class:`~bertscore_plugins.integrations.phoenix.evaluators.BERTScoreEvaluator`. Long contexts
    follow the core's ``long_text`` setting ("truncate" warns, "window" keeps every token).
    """

    candidate_field = "output"
    reference_field = "context"
    signal_class = Groundedness

    def __init__(
        self,
        threshold: float = DEFAULT_GROUNDEDNESS_THRESHOLD,
        *,
        name: str = GROUNDEDNESS,
        scorer: Scorer | None = None,
        explain_k: int = 3,
        **core_settings: Unpack[ScoreSettings],
    ) -> None:
        super().__init__(
            name=name,
            threshold=threshold,
            scorer=scorer,
            explain_k=explain_k,
            input_schema=GroundednessInput,
            **core_settings,
        )

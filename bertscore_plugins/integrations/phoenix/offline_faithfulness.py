"""Offline faithfulness as a Phoenix ``code`` evaluator: groundedness combined with the fact check.

Groundedness alone misses the wrong day, number, negation or name (they align to near-synonyms); the
fact check (``bertscore_plugins.facts``, combined in ``bertscore_plugins.faithfulness``) asks whether the context carries each of them, reading the same
alignment, so one core call gives both. Without an LLM judge this is the recipe's faithfulness signal;
with one, it decides which rows the judge needs to see (``evaluation.judge.settled_label``). The signal
is the engine's (:class:`bertscore_plugins.evaluation.signals.OfflineSignal`); this is its Phoenix
shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from bertscore_plugins.evaluation.names import OFFLINE_FAITHFULNESS
from bertscore_plugins.evaluation.signals import OfflineSignal
from bertscore_plugins.integrations.phoenix.evaluators import scored_frame
from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator
from bertscore_plugins.thresholds import FAITHFULNESS_THRESHOLD

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings
    from bertscore_plugins.core.scorer_protocol import Scorer


class OfflineFaithfulnessEvaluator(GroundednessEvaluator):
    """The offline faithfulness of the output against the context, as a Phoenix ``code`` evaluator.

    Inputs: ``output`` (str) and ``context`` (str, or a list of passages joined with blank lines).

    Returns one ``Score``: ``score`` in [0, 1] = ``bertscore_plugins.faithfulness``'s offline faithfulness (a
    small logistic combination of groundedness, the weakest sentence against its best source window,
    lexical support, invented rare words and the fact check, in the upper half of [0, 1] when the row is
    vouched for: every fact carried, no invented name or number, every sentence close to the context);
    ``label`` "faithful" when score >= ``threshold`` and every fact is carried, else "unfaithful";
    ``explanation`` names the weakest sentence and each unsupported fact with what the context says
    ("Thursday: context says Tuesday"); ``metadata`` = groundedness and every part (weakest_sentence,
    weakest_sentence_text, lcs, weakest_lexical, lexical, novel_rare_word, novel_rare_words), fact_score,
    fact_label, unsupported_facts, facts, precision, recall, f1, threshold, signature, worst_matches.

    Args: as :class:`~bertscore_plugins.integrations.phoenix.groundedness.GroundednessEvaluator`, whose
    inputs and precision it shares; the fact check is what it adds.
    """

    signal_class = OfflineSignal

    def __init__(
        self,
        threshold: float = FAITHFULNESS_THRESHOLD,
        *,
        name: str = OFFLINE_FAITHFULNESS,
        scorer: Scorer | None = None,
        explain_k: int = 3,
        **core_settings: Unpack[ScoreSettings],
    ) -> None:
        super().__init__(threshold, name=name, scorer=scorer, explain_k=explain_k, **core_settings)


def score_offline(
    dataframe: pd.DataFrame,
    offline: OfflineFaithfulnessEvaluator,
    groundedness: GroundednessEvaluator | None = None,
    *,
    input_mapping: Mapping[str, object] | None = None,
    exit_on_error: bool = True,
    progress: bool | None = None,
) -> pd.DataFrame:
    """``batch_evaluate_dataframe`` for the offline faithfulness, adding the groundedness columns from the
    SAME core call when ``groundedness`` is given (its cells equal ``batch_evaluate_dataframe(df,
    groundedness)``'s)."""
    signals = [offline.signal] + ([groundedness.signal] if groundedness is not None else [])
    options = {"input_mapping": input_mapping, "exit_on_error": exit_on_error, "progress": progress}
    return scored_frame(dataframe, offline, signals, options)

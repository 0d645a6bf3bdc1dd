"""Offline faithfulness: groundedness combined with the fact check, as a Phoenix ``code`` evaluator.

Groundedness alone misses the wrong day, number, negation or name (they align to near-synonyms); the
fact check (``bertscore_plugins.facts``) asks whether the context carries each of them, reading the same
alignment, so one core call gives both. Without an LLM judge this is the recipe's faithfulness signal;
with one, it decides which rows the judge needs to see (:func:`triage`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from phoenix.evals import Score

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.names import FAITHFULNESS, OFFLINE_FAITHFULNESS
from bertscore_plugins.facts import FAITHFUL, FAITHFULNESS_THRESHOLD, UNFAITHFUL, evaluate_pair
from bertscore_plugins.integrations.phoenix.evaluators import score_dataframe
from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator

#: groundedness at or above which a row whose facts are all carried needs no judge
SETTLED_FAITHFUL = 0.9
_GROUNDEDNESS_CELL = "_groundedness_cell"


class OfflineFaithfulnessEvaluator(GroundednessEvaluator):
    """The offline faithfulness of the output against the context, as a Phoenix ``code`` evaluator.

    Inputs: ``output`` (str) and ``context`` (str, or a list of passages joined with blank lines).

    Returns one ``Score``: ``score`` in [0, 1] = ``bertscore_plugins.facts``'s offline faithfulness (a
    small logistic combination of groundedness, the weakest sentence against its best source window,
    lexical support, invented rare words and the fact check, in the upper half of [0, 1] when the row is
    vouched for: every fact carried, no invented name or number, every sentence close to the context);
    ``label`` "faithful" when
    score >= ``threshold`` and every fact is carried, else "unfaithful"; ``explanation`` names the weakest
    sentence and each unsupported fact with what the context says ("Thursday: context says Tuesday");
    ``metadata`` = groundedness and every part (weakest_sentence, weakest_sentence_text, lcs,
    weakest_lexical, lexical, novel_rare_word, novel_rare_words), fact_score, fact_label,
    unsupported_facts, facts, precision, recall, f1, threshold, signature, worst_matches.

    Args: as :class:`~bertscore_plugins.integrations.phoenix.groundedness.GroundednessEvaluator`, whose inputs and
    precision it shares; the fact check is what it adds.
    """

    labels = (FAITHFUL, UNFAITHFUL)

    def __init__(
        self,
        threshold: float = FAITHFULNESS_THRESHOLD,
        *,
        name: str = OFFLINE_FAITHFULNESS,
        scorer: Any = None,
        explain_k: int = 3,
        companion: GroundednessEvaluator | None = None,
        **core_settings: Any,
    ) -> None:
        super().__init__(threshold, name=name, scorer=scorer, explain_k=explain_k, **core_settings)
        # when set, every Score also carries the companion's groundedness cell (one core call for both)
        self.companion = companion

    def score_from_result(self, result: Any, row: int) -> Score:
        grounded = super().score_from_result(result, row)
        precision = float(result.precision[row])
        explanation = result.explanations[row] if getattr(result, "explanations", None) else None
        if explanation is None:
            raise ArgumentError(
                "the offline faithfulness needs the core's alignment: score with explain=True"
            )
        signal = evaluate_pair(
            explanation.candidate_text, explanation.reference_text, explanation, precision, self.threshold
        )
        details = signal.to_dict()
        metadata = {
            **grounded.metadata,
            **{key: details[key] for key in details if key not in ("score", "label", "explanation")},
            "facts": signal.facts.to_dict()["facts"],
        }
        if self.companion is not None:
            metadata[_GROUNDEDNESS_CELL] = self.companion.score_from_result(result, row).to_dict()
        return Score(
            name=self.name,
            score=signal.score,
            label=signal.label,
            explanation=signal.explanation,
            metadata=metadata,
            kind="code",
            direction="maximize",
        )


def score_offline(
    dataframe: pd.DataFrame,
    offline: OfflineFaithfulnessEvaluator,
    groundedness: GroundednessEvaluator | None = None,
    *,
    input_mapping: Mapping[str, Any] | None = None,
    exit_on_error: bool = True,
    progress: bool | None = None,
) -> pd.DataFrame:
    """``score_dataframe`` for the offline faithfulness, adding the groundedness columns from the SAME
    core call when ``groundedness`` is given (its cells equal ``score_dataframe(df, groundedness)``'s)."""
    offline.companion = groundedness
    try:
        result = score_dataframe(
            dataframe, offline, input_mapping=input_mapping, exit_on_error=exit_on_error, progress=progress
        )
    finally:
        offline.companion = None
    if groundedness is None:
        return result
    offline_cells, groundedness_cells = [], []
    for cell in result[f"{offline.name}_score"]:
        if isinstance(cell, dict):
            metadata = dict(cell.get("metadata") or {})
            groundedness_cells.append(metadata.pop(_GROUNDEDNESS_CELL))
            cell = {**cell, "metadata": metadata}
        else:
            groundedness_cells.append(None)
        offline_cells.append(cell)
    result[f"{offline.name}_score"] = offline_cells
    result[f"{groundedness.name}_execution_details"] = list(result[f"{offline.name}_execution_details"])
    result[f"{groundedness.name}_score"] = groundedness_cells
    return result


def settled_label(cell: Mapping[str, Any] | None) -> str | None:
    """ "faithful" / "unfaithful" when the offline signals settle the row, None when the judge must see it.

    Settled unfaithful: a fact (number, date, name, polarity) the context contradicts or lacks: concrete
    evidence. A row whose facts were not checked (not English) is never settled. Low groundedness alone
    settles nothing: a faithful answer wrapped in polite padding
    scores as low as an off-topic one. Settled faithful: every fact carried and groundedness at least
    ``SETTLED_FAITHFUL``. Everything else is for the judge.
    """
    if not isinstance(cell, Mapping):
        return None
    meta = cell.get("metadata") or {}
    groundedness = meta.get("groundedness")
    if groundedness is None:
        return None
    if meta.get("fact_label") == "unsupported":
        return "unfaithful"
    if meta.get("fact_checked") is False:
        return None  # not English: the fact check read nothing, so the judge must see the row
    if groundedness >= SETTLED_FAITHFUL:
        return "faithful"
    return None


def settled_judge_cell(cell: Mapping[str, Any], label: str, name: str = FAITHFULNESS) -> dict[str, Any]:
    """A judge-shaped cell for a row the offline signals settled (the judge was not asked)."""
    return {
        "name": name,
        "score": 1.0 if label == "faithful" else 0.0,
        "label": label,
        "explanation": f"settled offline, judge not asked: {cell.get('explanation', '')}",
        "metadata": {"source": "offline", "offline_score": cell.get("score")},
        "kind": "code",
        "direction": "maximize",
    }

"""One call from a dataframe of RAG rows to similarity, groundedness, faithfulness and disagreement."""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from .disagreement import Thresholds, add_disagreement
from .evaluators import DEFAULT_SIMILARITY_THRESHOLD, BERTScoreEvaluator, score_dataframe
from .groundedness import CONTEXT_SEPARATOR, DEFAULT_GROUNDEDNESS_THRESHOLD, GroundednessEvaluator
from .judge import run_judge
from .names import DISAGREEMENT, FAITHFULNESS, GROUNDEDNESS, OFFLINE_FAITHFULNESS, SIMILARITY
from .offline_faithfulness import (
    OfflineFaithfulnessEvaluator,
    score_offline,
    settled_judge_cell,
    settled_label,
)

logger = logging.getLogger(__name__)

FAITHFUL_CUT = 0.5  # the judge scores 1.0 (faithful) or 0.0 (unfaithful)
JUDGE_ROWS = ("all", "unsettled")


def _joined(value: Any) -> Any:
    return CONTEXT_SEPARATOR.join(value) if isinstance(value, list) else value


def evaluate_rows(
    dataframe: pd.DataFrame,
    llm: Any = None,
    *,
    judge: Any = None,
    thresholds: Thresholds | str | None = None,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    groundedness_threshold: float = DEFAULT_GROUNDEDNESS_THRESHOLD,
    input_column: str = "input",
    output_column: str = "output",
    context_column: str = "context",
    reference_column: str = "reference",
    judge_concurrency: int = 4,
    judge_max_retries: int = 1,
    exit_on_error: bool = True,
    scorer: Any = None,
    similarity_name: str = SIMILARITY,
    groundedness_name: str = GROUNDEDNESS,
    disagreement_name: str = DISAGREEMENT,
    offline_name: str = OFFLINE_FAITHFULNESS,
    judge_rows: str = "all",
    **core_settings: Any,
) -> pd.DataFrame:
    """Score every row for similarity, groundedness and faithfulness, then name the disagreements.

    Similarity (BERTScore F1 of output vs reference) and groundedness (BERTScore precision of output vs
    context) use the batch path (one core call each); the offline faithfulness (groundedness, lexical support and the fact
    check, ``<offline_name>_score``) reads the groundedness call's alignment. Faithfulness is Phoenix's
    ``FaithfulnessEvaluator`` with ``llm`` (bounded concurrency; a failing row is marked FAILED and its
    disagreement cell is None); without ``llm``/``judge``, the offline faithfulness is the signal.

    Args:
        dataframe: one row per example, any index (keep a ``context.span_id`` index to log annotations).
        llm: a Phoenix ``LLM`` for the judge, or None.
        judge: a ready judge evaluator instead of ``llm`` (e.g. with a fake LLM in tests).
        thresholds: None: fixed cuts (``similarity_threshold`` and 0.5 for the judge or
            ``groundedness_threshold`` for groundedness); "quantile": medians of this data; or a
            :class:`Thresholds`.
        *_column: where each field lives in ``dataframe`` (``input_column`` is only needed by the judge).
        judge_concurrency, judge_max_retries: judge requests in flight; extra attempts per failing row.
        exit_on_error: True: a row with a bad output/reference/context raises ``InputError`` naming it.
        scorer, **core_settings: the core scorer to use, or settings for ``get_scorer``.
        *_name: annotation names (and column prefixes).
        judge_rows: "all" (judge every row) or "unsettled" (judge only the rows the offline signals
            cannot settle, see ``offline_faithfulness.settled_label``; the others get a judge-shaped
            cell marked ``metadata.source == "offline"``). The result's ``attrs["judge_triage"]`` says
            how many rows were judged and how many calls that saved.

    Returns:
        A copy of ``dataframe`` (same index and columns) plus ``<name>_score`` and
        ``<name>_execution_details`` for similarity, groundedness, faithfulness (when judged) and
        the disagreement.
    """
    if not isinstance(dataframe, pd.DataFrame):
        raise TypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    use_judge = llm is not None or judge is not None
    if judge_rows not in JUDGE_ROWS:
        raise ValueError(f"judge_rows must be one of {JUDGE_ROWS}, got {judge_rows!r}")
    needed = {"output": output_column, "reference": reference_column, "context": context_column}
    if use_judge:
        needed["input"] = input_column
    missing = {field: column for field, column in needed.items() if column not in dataframe.columns}
    if missing:
        raise KeyError(
            "missing columns "
            + ", ".join(f"{column!r} (for {field}; set {field}_column=)" for field, column in missing.items())
            + f"; the dataframe has {list(dataframe.columns)}"
        )

    if scorer is None and core_settings:
        import bertscore_plugins

        scorer = bertscore_plugins.get_scorer(bertscore_plugins.ScoreConfig.from_kwargs(**core_settings))
    similarity = BERTScoreEvaluator(similarity_threshold, name=similarity_name, scorer=scorer)
    groundedness = GroundednessEvaluator(groundedness_threshold, name=groundedness_name, scorer=scorer)

    result = score_dataframe(
        dataframe,
        similarity,
        input_mapping={"output": output_column, "reference": reference_column},
        exit_on_error=exit_on_error,
    )
    offline = OfflineFaithfulnessEvaluator(name=offline_name, scorer=scorer)
    result = score_offline(
        result,
        offline,
        groundedness,
        input_mapping={"output": output_column, "context": context_column},
        exit_on_error=exit_on_error,
    )

    if use_judge:
        # The judge sees a slim frame with Phoenix's field names, so no mapping and no big dict columns.
        faithfulness_name = judge.name if judge is not None else FAITHFULNESS
        offline_cells = list(result[f"{offline_name}_score"])
        settled = [settled_label(cell) if judge_rows == "unsettled" else None for cell in offline_cells]
        asked = [position for position, label in enumerate(settled) if label is None]
        slim = pd.DataFrame(
            {
                "input": [dataframe[input_column].iloc[p] for p in asked],
                "output": [dataframe[output_column].iloc[p] for p in asked],
                "context": [_joined(dataframe[context_column].iloc[p]) for p in asked],
            }
        )
        if asked:
            judged = run_judge(
                slim, llm, judge=judge, concurrency=judge_concurrency, max_retries=judge_max_retries
            )
            judge_columns = list(judged.columns[len(slim.columns) :])
        else:  # every row settled offline: no call at all
            judged = pd.DataFrame()
            judge_columns = [f"{faithfulness_name}_execution_details", f"{faithfulness_name}_score"]
        position_of = {p: i for i, p in enumerate(asked)}
        for column in judge_columns:
            values = list(judged[column]) if asked else []
            cells = []
            for position, label in enumerate(settled):
                if label is None:
                    cells.append(values[position_of[position]])
                elif column.endswith("_score"):
                    cells.append(settled_judge_cell(offline_cells[position], label, faithfulness_name))
                else:
                    cells.append({"status": "COMPLETED", "exceptions": [], "execution_seconds": 0.0})
            result[column] = cells
        triage = {
            "rows": len(settled),
            "judged": len(asked),
            "saved": len(settled) - len(asked),
            "mode": judge_rows,
        }
        default_faithful_cut = FAITHFUL_CUT
    else:
        logger.info("no LLM judge given: the offline faithfulness stands in for faithfulness")
        faithfulness_name = offline_name
        default_faithful_cut = offline.threshold
        triage = {"rows": len(result), "judged": 0, "saved": 0, "mode": "none"}

    if thresholds is None:
        thresholds = Thresholds(similarity=similarity_threshold, faithfulness=default_faithful_cut)
    result = add_disagreement(
        result,
        thresholds,
        similarity=similarity_name,
        faithfulness=faithfulness_name,
        name=disagreement_name,
    )
    result.attrs["judge_triage"] = triage
    return result

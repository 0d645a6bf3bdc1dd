"""One call from a dataframe of RAG rows to similarity, groundedness, faithfulness and disagreement."""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from .disagreement import Thresholds, add_disagreement
from .evaluators import DEFAULT_SIMILARITY_THRESHOLD, BERTScoreEvaluator, score_dataframe
from .groundedness import CONTEXT_SEPARATOR, DEFAULT_GROUNDEDNESS_THRESHOLD, GroundednessEvaluator
from .judge import run_judge
from .names import DISAGREEMENT, FAITHFULNESS, GROUNDEDNESS, SIMILARITY

logger = logging.getLogger(__name__)

FAITHFUL_CUT = 0.5  # the judge scores 1.0 (faithful) or 0.0 (unfaithful)


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
    **core_settings: Any,
) -> pd.DataFrame:
    """Score every row for similarity, groundedness and faithfulness, then name the disagreements.

    Similarity (BERTScore F1 of output vs reference) and groundedness (BERTScore precision of output vs
    context) use the batch path (one core call each). Faithfulness is Phoenix's
    ``FaithfulnessEvaluator`` with ``llm`` (bounded concurrency; a failing row is marked FAILED and its
    disagreement cell is None); without ``llm``/``judge``, groundedness is the faithfulness signal.

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

    Returns:
        A copy of ``dataframe`` (same index and columns) plus ``<name>_score`` and
        ``<name>_execution_details`` for similarity, groundedness, faithfulness (when judged) and
        the disagreement.
    """
    if not isinstance(dataframe, pd.DataFrame):
        raise TypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    use_judge = llm is not None or judge is not None
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
    result = score_dataframe(
        result,
        groundedness,
        input_mapping={"output": output_column, "context": context_column},
        exit_on_error=exit_on_error,
    )

    if use_judge:
        # The judge sees a slim frame with Phoenix's field names, so no mapping and no big dict columns.
        slim = pd.DataFrame(
            {
                "input": list(dataframe[input_column]),
                "output": list(dataframe[output_column]),
                "context": [_joined(value) for value in dataframe[context_column]],
            }
        )
        judged = run_judge(
            slim, llm, judge=judge, concurrency=judge_concurrency, max_retries=judge_max_retries
        )
        for column in judged.columns[len(slim.columns) :]:
            result[column] = list(judged[column])
        faithfulness_name = judge.name if judge is not None else FAITHFULNESS
        default_faithful_cut = FAITHFUL_CUT
    else:
        logger.info("no LLM judge given: groundedness stands in for faithfulness")
        faithfulness_name = groundedness_name
        default_faithful_cut = groundedness_threshold

    if thresholds is None:
        thresholds = Thresholds(similarity=similarity_threshold, faithfulness=default_faithful_cut)
    return add_disagreement(
        result,
        thresholds,
        similarity=similarity_name,
        faithfulness=faithfulness_name,
        name=disagreement_name,
    )

"""A DataFrame of RAG rows through every signal: the DataFrame adapter over :func:`.batch.evaluate_batch`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, ColumnNotFoundError
from bertscore_plugins.evaluation.batch import BatchRow, evaluate_batch
from bertscore_plugins.evaluation.config import FAITHFUL_CUT as FAITHFUL_CUT
from bertscore_plugins.evaluation.config import JUDGE_ROWS as JUDGE_ROWS
from bertscore_plugins.evaluation.config import EvaluationConfig, evaluation_config
from bertscore_plugins.evaluation.disagreement import Thresholds

#: the fields a row offers and the column each is read from by default
COLUMNS = {"input": "input", "output": "output", "context": "context", "reference": "reference"}


def evaluate_rows(
    dataframe: pd.DataFrame,
    llm: Any = None,
    *,
    config: EvaluationConfig | None = None,
    judge: Any = None,
    thresholds: Thresholds | str | None = None,
    input_column: str = "input",
    output_column: str = "output",
    context_column: str = "context",
    reference_column: str = "reference",
    exit_on_error: bool = True,
    scorer: Any = None,
    **settings: Any,
) -> pd.DataFrame:
    """Score every row for similarity, groundedness and faithfulness, then name the disagreements.

    Similarity (BERTScore F1 of output vs reference), groundedness (BERTScore precision of output vs
    context) and the offline faithfulness (groundedness, lexical support and the fact check, read from the
    groundedness call's alignment) take one core call each; Phoenix's ``FaithfulnessEvaluator`` judges
    with ``llm`` (or ``judge``), on every row or, with ``judge_rows="unsettled"``, on the rows the offline
    signals cannot settle. Without a judge, the offline faithfulness is the faithfulness signal. See
    :func:`.batch.evaluate_batch`.

    Args:
        dataframe: one row per example, any index (keep a ``context.span_id`` index to log annotations).
        llm, judge: a Phoenix ``LLM`` for the judge, or a ready judge evaluator; None: no judge.
        config: an :class:`EvaluationConfig`; ``**settings`` override it (its names or the core's).
        thresholds: a :class:`Thresholds` (the disagreement's cuts), "quantile" (the medians of this
            data), or None (the configuration's cuts).
        *_column: where each field lives (``input_column`` is only read with a judge).
        exit_on_error: True: a row with a bad output/reference/context raises ``InputError`` naming it.
        scorer: the core scorer to use (default ``get_scorer(config.score)``).
        **settings: any :class:`EvaluationConfig` setting (``similarity_threshold``, ``judge_rows``,
            ``judge_concurrency``, ``similarity_name``, ...) or core setting (``model``, ``layer``, ...).

    Returns:
        A copy of ``dataframe`` (same index and columns) plus ``<name>_score`` and
        ``<name>_execution_details`` per signal; ``attrs["judge_triage"]`` counts the judge calls made
        and saved.
    """
    if not isinstance(dataframe, pd.DataFrame):
        raise ArgumentTypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    config = evaluation_config(config, {**settings, **_judge_and_cuts(llm, judge, thresholds)})
    columns = {"input": input_column, "output": output_column, "context": context_column}
    columns["reference"] = reference_column
    rows = rows_of(dataframe, columns, needs_input=config.judge is not None)
    return evaluate_batch(rows, config, scorer=scorer, exit_on_error=exit_on_error).add_to(dataframe)


def _judge_and_cuts(llm: Any, judge: Any, thresholds: Thresholds | str | None) -> dict[str, Any]:
    """The settings that ``evaluate_rows``' own keywords stand for."""
    settings: dict[str, Any] = {}
    if judge is not None or llm is not None:
        settings["judge"] = judge if judge is not None else llm
    if isinstance(thresholds, Thresholds):
        settings["similarity_threshold"] = thresholds.similarity
        settings["faithfulness_threshold"] = thresholds.faithfulness
    elif thresholds == "quantile":
        settings["thresholds_from_data"] = True
    elif thresholds is not None:
        raise ArgumentError(f"thresholds must be a Thresholds, 'quantile' or None, got {thresholds!r}")
    return settings


def rows_of(
    dataframe: pd.DataFrame,
    columns: Mapping[str, str] = COLUMNS,
    *,
    needs_input: bool = False,
    known: Mapping[str, str] | None = None,
    wants: frozenset[str] | None = None,
) -> list[BatchRow]:
    """One :class:`BatchRow` per row of ``dataframe``; ``known`` maps annotation names to the columns of
    cells computed earlier (``<name>_score``); ``wants`` limits the signals. Raises KeyError naming
    missing columns and the keyword that sets each."""
    needed = {field: column for field, column in columns.items() if field != "input" or needs_input}
    missing = {field: column for field, column in needed.items() if column not in dataframe.columns}
    if missing:
        raise ColumnNotFoundError(
            "missing columns "
            + ", ".join(f"{column!r} (for {field}; set {field}_column=)" for field, column in missing.items())
            + f"; the dataframe has {list(dataframe.columns)}"
        )
    values = {
        field: list(dataframe[column]) if column in dataframe else None for field, column in columns.items()
    }
    earlier = {name: list(dataframe[column]) for name, column in (known or {}).items() if column in dataframe}
    return [
        BatchRow(
            label,
            output=values["output"][i],
            context=values["context"][i],
            reference=values["reference"][i],
            input=values["input"][i] if values["input"] is not None else None,
            wants=wants,
            known={name: cells[i] for name, cells in earlier.items() if isinstance(cells[i], dict)},
        )
        for i, label in enumerate(dataframe.index)
    ]

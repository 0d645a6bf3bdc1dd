"""A DataFrame of RAG rows through every signal: the DataFrame adapter over :func:`.batch.evaluate_batch`.

The only module of the engine that touches pandas: rows come out of a frame as :class:`~.batch.BatchRow`
values and results go back in as ``<name>_score`` / ``<name>_execution_details`` columns (the shape
``phoenix.evals.evaluate_dataframe`` writes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, ColumnNotFoundError
from bertscore_plugins.evaluation.batch import BatchResult, BatchRow, evaluate_batch
from bertscore_plugins.evaluation.cells import Cell, Details, as_cell, completed, failed
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cells
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig, evaluation_config
from bertscore_plugins.evaluation.evaluation_settings import RowSettingsBesideTheJudge
from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    SIMILARITY,
    details_column,
    score_column,
)
from bertscore_plugins.evaluation.pipeline import evaluate_stored
from bertscore_plugins.evaluation.store import ResultStore
from bertscore_plugins.evaluation.store_keys import scorer_identity, store_keys
from bertscore_plugins.thresholds import check_threshold

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.evaluation.evaluation_settings import RowSettings

#: the fields a row offers and the column each is read from by default
COLUMNS = {"input": "input", "output": "output", "context": "context", "reference": "reference"}


@dataclass(frozen=True)
class Columns:
    """Where each field of a row lives in a frame (``input`` is the question)."""

    input: str = "input"
    output: str = "output"
    context: str = "context"
    reference: str = "reference"

    @classmethod
    def take(cls, keywords: dict[str, object], columns: Columns | None = None) -> Columns:
        """The columns named by ``<field>_column=`` keywords (``question_column`` for ``input``), removed
        from ``keywords``, over ``columns`` (default: the fields' own names)."""
        named = {f.name: f"{f.name}_column" for f in fields(cls)}
        given = {field: keywords.pop(keyword) for field, keyword in named.items() if keyword in keywords}
        if "question_column" in keywords:
            given["input"] = keywords.pop("question_column")
        checked: dict[str, str] = {}
        for field, column in given.items():
            if not isinstance(column, str):
                raise ArgumentTypeError(f"{field}_column must be a column name, got {column!r}")
            checked[field] = column
        return replace(columns or cls(), **checked)

    def as_dict(self) -> dict[str, str]:
        return dict(vars(self))


class RowOptions(RowSettingsBesideTheJudge, total=False):
    """Every keyword of :func:`evaluate_rows` but its judge (for entry points that take the judge in their own
    words: ``integrations.phoenix.evaluate_rows``): its own and the settings."""

    config: EvaluationConfig | None
    thresholds: Thresholds | str | None
    columns: Columns | None
    exit_on_error: bool
    scorer: Scorer | None
    store: str | Path | ResultStore | None


def evaluate_rows(
    dataframe: pd.DataFrame,
    *,
    config: EvaluationConfig | None = None,
    thresholds: Thresholds | str | None = None,
    columns: Columns | None = None,
    exit_on_error: bool = True,
    scorer: Scorer | None = None,
    store: str | Path | ResultStore | None = None,
    **settings: Unpack[RowSettings],
) -> pd.DataFrame:
    """Score every row for similarity, groundedness and faithfulness, then name the disagreements.

    Similarity (BERTScore F1 of output vs reference), groundedness (BERTScore precision of output vs
    context) and the offline faithfulness (groundedness, lexical support and the fact check, read from the
    groundedness call's alignment) take one core call each; the configuration's judge (a
    :class:`~.judge.Judge`) answers on every row or, with ``judge_rows="unsettled"``, on the rows the
    offline signals cannot settle. Without a judge, the offline faithfulness is the faithfulness signal.
    See :func:`.batch.evaluate_batch`. (``bertscore_plugins.integrations.phoenix.evaluate_rows`` is this function with
    a Phoenix LLM or evaluator accepted as the judge.)

    Args:
        dataframe: one row per example, any index (keep a ``context.span_id`` index to log annotations).
        config: an :class:`EvaluationConfig`; ``**settings`` override it (its names or the core's).
        thresholds: a :class:`Thresholds` (the disagreement's thresholds), "quantile" (the medians of this
            data), or None (the configuration's thresholds).
        columns: where each field lives; or ``input_column=``, ``output_column=``, ``context_column=``,
            ``reference_column=`` (``input`` is only read with a judge).
        exit_on_error: True: a row with a bad output/reference/context raises ``InputError`` naming it.
        scorer: the core scorer to use (default: ``config.score``'s, ``core.scorer.resolve_scorer``).
        store: a result store (a path or a :class:`~.store.ResultStore`) to go through the one pipeline
            (:func:`~.pipeline.evaluate_stored`): the rows go through a chunk at a time and every cell is
            saved as computed, keyed by the row's index and texts and by what changes its signal
            (:mod:`.store_keys`), and a second call computes only what is missing (a judge's failed rows,
            a changed judge's verdicts; nothing else). A bad row is then a FAILED cell, never an exception.
        **settings: any :class:`EvaluationConfig` setting (``similarity_threshold``, ``judge``,
            ``judge_rows``, ``similarity_name``, ...) or core setting (``model``, ``layer``, ...).

    Returns:
        A copy of ``dataframe`` (same index and columns) plus ``<name>_score`` and
        ``<name>_execution_details`` per signal; ``attrs["judge_triage"]`` counts the judge calls made
        and saved.
    """
    if not isinstance(dataframe, pd.DataFrame):
        raise ArgumentTypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    given: dict[str, object] = dict(settings)
    columns = Columns.take(given, columns)
    config = evaluation_config(config, {**given, **_threshold_settings(thresholds)})
    rows = rows_of(dataframe, columns.as_dict(), needs_input=config.judge is not None)
    if store is not None:
        return with_results(dataframe, _through_store(rows, config, store, scorer))
    result = evaluate_batch(rows, config, scorer=scorer, exit_on_error=exit_on_error)
    return with_results(dataframe, result)


def _through_store(
    rows: list[BatchRow], config: EvaluationConfig, store: str | Path | ResultStore, scorer: Scorer | None
) -> BatchResult:
    """The rows through :func:`~.pipeline.evaluate_stored` (a chunk at a time, each signal under its own
    key: a given scorer's signature, else the configuration's scorer, loaded only if a row is scored), its
    cells as a batch result."""
    identity = str(scorer.signature) if scorer is not None else scorer_identity(config.score)
    keyed = [replace(row, key=row_key(row)) for row in rows]
    opened = store if isinstance(store, ResultStore) else ResultStore(store)
    try:
        found = evaluate_stored(keyed, config, opened, store_keys(config, identity), scorer=scorer)
    finally:
        if opened is not store:
            opened.close()
    keys = [str(row.key) for row in keyed]
    cells = {name: [found.cell(key, name) for key in keys] for name in config.names}
    details = {
        name: [
            _details(cell, found.failures[key].get(name)) for key, cell in zip(keys, cells[name], strict=True)
        ]
        for name in config.names
    }
    return BatchResult(cells, details, found.thresholds, found.triage, found.seconds)


def _details(cell: Cell | None, failure: str | None) -> Details | None:
    """A stored result's execution details: completed, failed with its reason, or none (not wanted)."""
    if cell is not None:
        return completed()
    return failed(failure) if failure is not None else None


def row_key(row: BatchRow) -> str:
    """A row's id in the store: its index and a digest of its texts (an edited row is a new row)."""
    texts = json.dumps([row.input, row.output, row.context, row.reference], ensure_ascii=False, default=str)
    return f"{row.key}#{hashlib.sha256(texts.encode()).hexdigest()[:12]}"


def _threshold_settings(thresholds: Thresholds | str | None) -> dict[str, Any]:
    """The settings that ``evaluate_rows``' ``thresholds`` stands for."""
    if isinstance(thresholds, Thresholds):
        return {
            "similarity_threshold": thresholds.similarity,
            "faithfulness_threshold": thresholds.faithfulness,
        }
    if thresholds == "quantile":
        return {"thresholds_from_data": True}
    if thresholds is not None:
        raise ArgumentError(f"thresholds must be a Thresholds, 'quantile' or None, got {thresholds!r}")
    return {}


def with_results(dataframe: pd.DataFrame, result: BatchResult) -> pd.DataFrame:
    """A copy of ``dataframe`` (one row per batch row) with ``<name>_execution_details`` and
    ``<name>_score`` columns, the shape ``phoenix.evals.evaluate_dataframe`` writes."""
    frame = dataframe.copy()
    for name in result.cells:
        frame[details_column(name)] = result.details[name]
        # a DataFrame cell is one of the three edges where a cell is a dict (``Score.to_dict()``)
        frame[score_column(name)] = [
            cell.to_dict() if cell is not None else None for cell in result.cells[name]
        ]
    frame.attrs["judge_triage"] = result.triage
    return frame


def rows_of(
    dataframe: pd.DataFrame,
    columns: Mapping[str, str] = COLUMNS,
    *,
    needs_input: bool = False,
    known: Mapping[str, str] | None = None,
    wants: frozenset[str] | None = None,
) -> list[BatchRow]:
    """One :class:`BatchRow` per row of ``dataframe``; ``known`` maps annotation names to the columns of
    cells computed earlier (``<name>_score``); ``wants`` limits the signals. Raises ColumnNotFoundError
    naming missing columns and the keyword that sets each."""
    needed = {field: column for field, column in columns.items() if field != "input" or needs_input}
    missing = {field: column for field, column in needed.items() if column not in dataframe.columns}
    if missing:
        raise ColumnNotFoundError(
            "missing columns "
            + ", ".join(f"{column!r} (for {field}; set {field}_column=)" for field, column in missing.items())
            + f"; the dataframe has {list(dataframe.columns)}"
        )
    values: dict[str, Any] = {
        field: list(dataframe[column]) if column in dataframe else None for field, column in columns.items()
    }
    earlier = {name: list(dataframe[column]) for name, column in (known or {}).items() if column in dataframe}
    return [
        BatchRow(
            index_label,
            output=values["output"][i],
            context=values["context"][i],
            reference=values["reference"][i],
            input=values["input"][i] if values["input"] is not None else None,
            wants=wants,
            known={name: cell for name, cells in earlier.items() if (cell := as_cell(cells[i])) is not None},
        )
        for i, index_label in enumerate(dataframe.index)
    ]


def add_disagreement(
    dataframe: pd.DataFrame,
    thresholds: Thresholds | str | None = None,
    *,
    similarity: str = SIMILARITY,
    faithfulness: str = FAITHFULNESS,
    name: str = DISAGREEMENT,
    similarity_quantile: float = 0.5,
    faithfulness_quantile: float = 0.5,
) -> pd.DataFrame:
    """Add ``<name>_score`` and ``<name>_execution_details`` from two existing score columns.

    Args:
        dataframe: has ``<similarity>_score`` and ``<faithfulness>_score`` cells (``Score.to_dict()``).
        thresholds: a :class:`Thresholds`; "quantile" (or None) to set them from this data's quantiles.
        similarity, faithfulness: the two score names to compare (e.g. faithfulness="groundedness").
        name: the result's name.

    Returns:
        A copy with the new columns. Score 1.0 = the signals disagree, 0.0 = agree (direction
        "minimize"); metadata records both scores, both thresholds and where they came from, and the
        judge's explanation. A row missing either score gets a None cell and status "DID NOT RUN".
    """
    # checked whatever ``thresholds`` is: a bad quantile is a mistake even where fixed thresholds leave it unused
    quantiles = {
        name: check_threshold(name, value)
        for name, value in (
            ("similarity_quantile", similarity_quantile),
            ("faithfulness_quantile", faithfulness_quantile),
        )
    }
    sim_cells = _score_cells(dataframe, similarity)
    faith_cells = _score_cells(dataframe, faithfulness)
    if thresholds is None or thresholds == "quantile":
        thresholds = Thresholds.from_cells(sim_cells, faith_cells, **quantiles)
    elif not isinstance(thresholds, Thresholds):
        raise ArgumentError(f"thresholds must be a Thresholds, 'quantile' or None, got {thresholds!r}")
    names = (similarity, faithfulness, name)
    cells, details = disagreement_cells(
        sim_cells, faith_cells, thresholds, names=names, row_names=range(len(dataframe))
    )
    result = dataframe.copy()
    result[details_column(name)] = details
    result[score_column(name)] = [cell.to_dict() if cell is not None else None for cell in cells]
    return result


def _score_cells(dataframe: pd.DataFrame, name: str) -> list[Cell | None]:
    column = score_column(name)
    if column not in dataframe.columns:
        raise ColumnNotFoundError(
            f"no {column!r} column: run the {name!r} evaluator first (columns: {list(dataframe.columns)})"
        )
    return [as_cell(value) for value in dataframe[column]]

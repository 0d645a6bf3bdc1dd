"""Rows into Phoenix datasets and experiments: live evaluators, or the stored results replayed.

Everything goes over HTTP with ``phoenix.client``. An experiment of stored results never recomputes
BERTScore or calls the judge again, so logging after an outage is cheap and changes nothing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
from phoenix.evals import Evaluator, Score, bind_evaluator

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError
from bertscore_plugins.evaluation.dataframe import Columns
from bertscore_plugins.evaluation.disagreement import Thresholds
from bertscore_plugins.evaluation.names import DISAGREEMENT, score_column
from bertscore_plugins.integrations.phoenix.evaluators import DisagreementEvaluator, _NoInput
from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator
from bertscore_plugins.integrations.phoenix.phoenix_judge import _LogLines

# -- datasets and experiments ------------------------------------------------------------------------

if TYPE_CHECKING:
    from bertscore_plugins.integrations.phoenix.gateway import PhoenixClient


class _SharedResult(Evaluator):
    """One evaluator's results, computed once per input and shared (the judge must not run twice)."""

    def __init__(self, inner: Evaluator) -> None:
        super().__init__(name=inner.name, kind=inner.kind, direction=inner.direction, input_schema=_NoInput)
        self.inner = inner
        self._cache: dict[str, list[Score]] = {}

    @staticmethod
    def _key(eval_input: Mapping[str, object]) -> str:
        keys = [k for k in ("input", "output", "expected", "reference") if k in eval_input] or sorted(
            eval_input
        )
        return json.dumps({k: eval_input[k] for k in keys}, sort_keys=True, default=str)

    def _evaluate(self, eval_input: Mapping[str, object]) -> list[Score]:
        key = self._key(eval_input)
        if key not in self._cache:
            self._cache[key] = self.inner.evaluate(dict(eval_input))
        return self._cache[key]

    async def _async_evaluate(self, eval_input: Mapping[str, object]) -> list[Score]:
        key = self._key(eval_input)
        if key not in self._cache:
            self._cache[key] = await self.inner.async_evaluate(dict(eval_input))
        return self._cache[key]


def experiment_evaluators(
    similarity: Evaluator,
    faithfulness: Evaluator,
    thresholds: Thresholds,
    *,
    question_key: str = "question",
    context_key: str = "context",
    reference_key: str = "reference",
    disagreement_name: str = DISAGREEMENT,
) -> list[Evaluator]:
    """Similarity, faithfulness and disagreement evaluators for ``run_experiment`` / ``evaluate_experiment``.

    Bound to datasets made by :func:`create_dataset` (input ``{question, context}``, expected
    ``{reference}``); the task's return value is the output. ``faithfulness`` is Phoenix's judge (from
    :func:`~bertscore_plugins.integrations.phoenix.phoenix_judge.faithfulness_evaluator`) or a :class:`GroundednessEvaluator`.
    The disagreement evaluator reuses the other two's results, so each runs once per example.
    """
    sim = _SharedResult(
        bind_evaluator(
            evaluator=similarity, input_mapping={"output": "output", "reference": f"expected.{reference_key}"}
        )
    )
    if isinstance(faithfulness, GroundednessEvaluator):
        faith_mapping = {"output": "output", "context": f"input.{context_key}"}
    else:
        faith_mapping = {
            "input": f"input.{question_key}",
            "output": "output",
            "context": f"input.{context_key}",
        }
    faith = _SharedResult(bind_evaluator(evaluator=faithfulness, input_mapping=faith_mapping))
    return [sim, faith, DisagreementEvaluator(sim, faith, thresholds, name=disagreement_name)]


def create_dataset(
    client: PhoenixClient,
    rows: pd.DataFrame,
    *,
    name: str,
    columns: Columns | None = None,
    description: str | None = None,
    span_id_column: str | None = None,
    **column_names: object,
) -> Any:
    """A Phoenix dataset, one example per row: input ``{question, context}``, expected ``{reference}``.

    ``columns`` (or ``question_column=``, ``context_column=``, ``reference_column=``,
    ``output_column=``) says where each field is; the question defaults to the ``input`` column. The
    row's output and its position go into the example's metadata (``output``, ``row``), so a task can
    replay the output and stored results can be looked up. With ``span_id_column`` the examples link back
    to the traced spans.
    """
    where = _columns(columns, column_names, "create_dataset")
    frame = pd.DataFrame(
        {
            "question": list(rows[where.input]),
            "context": [_plain(v) for v in rows[where.context]],
            "reference": [_plain(v) for v in rows[where.reference]],
            "output": list(rows[where.output]),
            "row": list(range(len(rows))),
        }
    )
    span_key = None
    if span_id_column is not None:
        frame["span_id"] = list(rows.index if span_id_column == rows.index.name else rows[span_id_column])
        span_key = "span_id"
    return client.datasets.create_dataset(
        name=name,
        dataframe=frame,
        input_keys=["question", "context"],
        output_keys=["reference"],
        metadata_keys=["output", "row"],
        span_id_key=span_key,
        dataset_description=description,
    )


def _columns(columns: Columns | None, column_names: dict[str, object], caller: str) -> Columns:
    """The columns of ``columns`` with the ``<field>_column=`` keywords applied; ArgumentTypeError (a
    TypeError) for others."""
    where = Columns.take(column_names, columns)
    if column_names:
        raise ArgumentTypeError(
            f"{caller}() got unknown argument(s) {sorted(column_names)}; the columns are question_column, "
            "context_column, reference_column and output_column"
        )
    return where


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, (list, tuple)) else value


def _replay_output(metadata: Mapping[str, object]) -> Any:
    return metadata["output"]


def _stored_evaluator(results: pd.DataFrame, name: str) -> Any:
    """An experiment evaluator that returns the stored ``<name>_score`` cell of the example's row."""
    from phoenix.client.experiments import create_evaluator

    cells = list(results[score_column(name)])
    kinds = {c.get("kind") for c in cells if isinstance(c, Mapping)}
    kind = "LLM" if "llm" in kinds else "CODE"

    @create_evaluator(kind=kind, name=name)
    def stored(metadata: Mapping[str, Any]) -> dict[str, object]:  # Phoenix's example metadata
        cell = cells[int(metadata["row"])]
        if not isinstance(cell, Mapping) or (cell.get("score") is None and cell.get("label") is None):
            raise ArgumentError(f"row {metadata['row']}: no stored {name!r} result (that evaluator failed)")
        return {k: cell[k] for k in ("score", "label", "explanation", "metadata") if cell.get(k) is not None}

    return stored


def log_experiment(
    client: PhoenixClient,
    results: pd.DataFrame,
    *,
    dataset_name: str,
    experiment_name: str,
    score_names: Sequence[str] | None = None,
    experiment_metadata: Mapping[str, object] | None = None,
    dataset: Any = None,
    columns: Columns | None = None,
    **column_names: object,
) -> tuple[Any, Any]:
    """A dataset of the rows and an experiment whose evaluations are the STORED results (no rescoring).

    The task replays each row's output; one evaluator per score name returns that row's stored cell,
    so logging after an outage never recomputes BERTScore or calls the judge again. Pass ``dataset`` to
    reuse a dataset created earlier (e.g. by a run that stopped before its experiment); ``columns`` (or
    the ``*_column=`` keywords) as in :func:`create_dataset`.

    Returns:
        ``(dataset, ran_experiment)``.
    """
    names = (
        list(score_names)
        if score_names is not None
        else [c[: -len("_score")] for c in results.columns if c.endswith("_score")]
    )
    where = _columns(columns, column_names, "log_experiment")
    if dataset is None:
        dataset = create_dataset(client, results, name=dataset_name, columns=where)
    # phoenix.client reports progress and evaluator errors on stdout; library code keeps stdout clean.
    with contextlib.redirect_stdout(_LogLines()):
        experiment = client.experiments.run_experiment(
            dataset=dataset,
            task=_replay_output,
            evaluators={name: _stored_evaluator(results, name) for name in names},
            experiment_name=experiment_name,
            experiment_metadata=dict(experiment_metadata or {}),
            print_summary=False,
        )
    return dataset, experiment


def experiment_url(base_url: str, dataset_id: str, experiment_id: str) -> str:
    """The compare page of one experiment."""
    return f"{base_url.rstrip('/')}/datasets/{dataset_id}/compare?experimentId={experiment_id}"

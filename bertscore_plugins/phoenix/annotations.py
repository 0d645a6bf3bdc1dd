"""Results into a Phoenix server: annotation configs, span annotations, datasets and experiments.

Everything goes over HTTP with ``phoenix.client`` (the server is never imported). Names are stable
(``bertscore``, ``groundedness``, ``faithfulness``, ``sim_faith_disagreement``), so filters, sorting and
experiment comparisons work across runs; re-logging the same rows overwrites (Phoenix keeps one
annotation per name, span and identifier), which makes logging safe to repeat after an outage.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import pandas as pd
from phoenix.evals import Evaluator, Score, bind_evaluator
from phoenix.evals.utils import to_annotation_dataframe

from .disagreement import (
    AGREE,
    HIGH_SIM_UNFAITHFUL,
    LOW_SIM_FAITHFUL,
    DisagreementEvaluator,
    Thresholds,
    _NoInput,
)
from .groundedness import GroundednessEvaluator
from .judge import _LogLines

logger = logging.getLogger(__name__)

SIMILARITY, GROUNDEDNESS, FAITHFULNESS, DISAGREEMENT = (
    "bertscore",
    "groundedness",
    "faithfulness",
    "sim_faith_disagreement",
)


# -- annotation configs ------------------------------------------------------------------------------


def annotation_configs(
    *,
    similarity: str = SIMILARITY,
    groundedness: str = GROUNDEDNESS,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    offline_faithfulness: str = "offline_faithfulness",
) -> list[dict[str, Any]]:
    """The annotation configs that tell the Phoenix UI each result's type, labels and direction."""
    return [
        {
            "name": similarity,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "BERTScore F1 of the output against the reference (similarity, not truth)",
        },
        {
            "name": groundedness,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "BERTScore precision of the output against the context (support by the source)",
        },
        {
            "name": offline_faithfulness,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "Groundedness x fact check: every number, date, name and negation carried by the context",
        },
        {
            "name": faithfulness,
            "type": "CATEGORICAL",
            "optimization_direction": "MAXIMIZE",
            "description": "Phoenix FaithfulnessEvaluator (LLM judge): is the output supported by the context?",
            "values": [{"label": "faithful", "score": 1}, {"label": "unfaithful", "score": 0}],
        },
        {
            "name": disagreement,
            "type": "CATEGORICAL",
            "optimization_direction": "MINIMIZE",
            "description": "Similarity vs faithfulness: the rows where they disagree are the ones to read",
            "values": [
                {"label": AGREE, "score": 0},
                {"label": HIGH_SIM_UNFAITHFUL, "score": 1},
                {"label": LOW_SIM_FAITHFUL, "score": 1},
            ],
        },
    ]


def _http(client: Any) -> Any:
    # phoenix.client has no wrapper for annotation configs (REST only); reuse its configured httpx client.
    return client._client


def ensure_annotation_configs(
    client: Any,
    configs: Sequence[Mapping[str, Any]] | None = None,
    *,
    project: str | None = None,
) -> dict[str, str]:
    """Create the annotation configs that do not exist yet; returns ``{name: config id}``.

    Idempotent: an existing config with the same name is kept as it is. With ``project`` (name or id)
    each config is also attached to that project so its spans table shows them.
    """
    http = _http(client)
    configs = list(configs) if configs is not None else annotation_configs()
    reply = http.get("v1/annotation_configs", params={"limit": 1000})
    reply.raise_for_status()
    existing = {item["name"]: item["id"] for item in reply.json().get("data", [])}
    ids: dict[str, str] = {}
    for config in configs:
        name = config["name"]
        if name in existing:
            ids[name] = existing[name]
            continue
        created = http.post("v1/annotation_configs", json=dict(config))
        if created.status_code >= 400:
            raise RuntimeError(
                f"creating annotation config {name!r} failed: {created.status_code} {created.text}"
            )
        ids[name] = created.json()["data"]["id"]
    if project is not None:
        for name, config_id in ids.items():
            attached = http.put(
                f"v1/projects/{quote(project, safe='')}/annotation_configs/{quote(config_id, safe='')}"
            )
            if attached.status_code >= 400:
                logger.warning("could not attach %r to project %r: %s", name, project, attached.text)
    return ids


# -- span annotations --------------------------------------------------------------------------------


def span_annotation_dataframe(
    results: pd.DataFrame, score_names: Sequence[str] | None = None
) -> pd.DataFrame:
    """``to_annotation_dataframe`` of the rows that have a result (failed rows are left out)."""
    names = list(score_names) if score_names is not None else None
    if names is not None:
        present = [n for n in names if f"{n}_score" in results.columns]
        if missing := sorted(set(names) - set(present)):
            logger.info("no result columns for %s; not logging them", missing)
        names = present
    annotations = to_annotation_dataframe(dataframe=results, score_names=names)
    usable = annotations["score"].notna() | annotations["label"].notna()
    return annotations[usable].reset_index(drop=True)


def log_span_annotations(
    client: Any,
    results: pd.DataFrame,
    score_names: Sequence[str] | None = None,
) -> int:
    """Log result cells as span annotations; returns how many were written.

    ``results`` must carry span ids in its index or a column whose name contains ``span_id`` (as
    ``get_input_output_context`` / ``get_spans_dataframe`` return them). ``score_names`` defaults to
    every ``*_score`` column. Rows whose evaluator failed are skipped (nothing to log).
    """
    annotations = span_annotation_dataframe(results, score_names)
    if annotations.empty:
        return 0
    client.spans.log_span_annotations_dataframe(dataframe=annotations, sync=True)
    return len(annotations)


# -- datasets and experiments ------------------------------------------------------------------------


class _SharedResult(Evaluator):
    """One evaluator's results, computed once per input and shared (the judge must not run twice)."""

    def __init__(self, inner: Evaluator) -> None:
        super().__init__(name=inner.name, kind=inner.kind, direction=inner.direction, input_schema=_NoInput)
        self.inner = inner
        self._cache: dict[str, list[Score]] = {}

    @staticmethod
    def _key(eval_input: Mapping[str, Any]) -> str:
        keys = [k for k in ("input", "output", "expected", "reference") if k in eval_input] or sorted(
            eval_input
        )
        return json.dumps({k: eval_input[k] for k in keys}, sort_keys=True, default=str)

    def _evaluate(self, eval_input: Mapping[str, Any]) -> list[Score]:
        key = self._key(eval_input)
        if key not in self._cache:
            self._cache[key] = self.inner.evaluate(dict(eval_input))
        return self._cache[key]

    async def _async_evaluate(self, eval_input: Mapping[str, Any]) -> list[Score]:
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
    :func:`~bertscore_plugins.phoenix.judge.faithfulness_evaluator`) or a :class:`GroundednessEvaluator`.
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
    client: Any,
    rows: pd.DataFrame,
    *,
    name: str,
    question_column: str = "input",
    context_column: str = "context",
    reference_column: str = "reference",
    output_column: str = "output",
    description: str | None = None,
    span_id_column: str | None = None,
) -> Any:
    """A Phoenix dataset, one example per row: input ``{question, context}``, expected ``{reference}``.

    The row's output and its position go into the example's metadata (``output``, ``row``), so a task
    can replay the output and stored results can be looked up. With ``span_id_column`` the examples
    link back to the traced spans.
    """
    frame = pd.DataFrame(
        {
            "question": list(rows[question_column]),
            "context": [_plain(v) for v in rows[context_column]],
            "reference": [_plain(v) for v in rows[reference_column]],
            "output": list(rows[output_column]),
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


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, (list, tuple)) else value


def _replay_output(metadata: Mapping[str, Any]) -> Any:
    return metadata["output"]


def _stored_evaluator(results: pd.DataFrame, name: str) -> Any:
    """An experiment evaluator that returns the stored ``<name>_score`` cell of the example's row."""
    from phoenix.client.experiments import create_evaluator

    cells = list(results[f"{name}_score"])
    kinds = {c.get("kind") for c in cells if isinstance(c, Mapping)}
    kind = "LLM" if "llm" in kinds else "CODE"

    @create_evaluator(kind=kind, name=name)
    def stored(metadata: Mapping[str, Any]) -> dict[str, Any]:
        cell = cells[int(metadata["row"])]
        if not isinstance(cell, Mapping) or (cell.get("score") is None and cell.get("label") is None):
            raise ValueError(f"row {metadata['row']}: no stored {name!r} result (that evaluator failed)")
        return {k: cell[k] for k in ("score", "label", "explanation", "metadata") if cell.get(k) is not None}

    return stored


def log_experiment(
    client: Any,
    results: pd.DataFrame,
    *,
    dataset_name: str,
    experiment_name: str,
    score_names: Sequence[str] | None = None,
    question_column: str = "input",
    context_column: str = "context",
    reference_column: str = "reference",
    output_column: str = "output",
    experiment_metadata: Mapping[str, Any] | None = None,
    dataset: Any = None,
) -> tuple[Any, Any]:
    """A dataset of the rows and an experiment whose evaluations are the STORED results (no rescoring).

    The task replays each row's output; one evaluator per score name returns that row's stored cell,
    so logging after an outage never recomputes BERTScore or calls the judge again. Pass ``dataset`` to
    reuse a dataset created earlier (e.g. by a run that stopped before its experiment).

    Returns:
        ``(dataset, ran_experiment)``.
    """
    names = (
        list(score_names)
        if score_names is not None
        else [c[: -len("_score")] for c in results.columns if c.endswith("_score")]
    )
    if dataset is None:
        dataset = create_dataset(
            client,
            results,
            name=dataset_name,
            question_column=question_column,
            context_column=context_column,
            reference_column=reference_column,
            output_column=output_column,
        )
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


# -- filters and links -------------------------------------------------------------------------------


def disagreement_filters(
    *,
    similarity: str = SIMILARITY,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    similarity_threshold: float | None = None,
) -> dict[str, dict[str, str]]:
    """Ready-made filter strings: ``{"spans": {...}, "experiments": {...}}``.

    Paste a ``spans`` filter into a project's spans filter bar (or ``SpanQuery().where(...)``) and an
    ``experiments`` filter into the experiment compare page's filter (GraphQL ``filterCondition``).
    """

    def either(prefix: str) -> str:
        return f"({prefix}.label == '{HIGH_SIM_UNFAITHFUL}' or {prefix}.label == '{LOW_SIM_FAITHFUL}')"

    span_prefix = f"annotations['{disagreement}']"
    spans = {
        "disagreements": either(span_prefix),
        HIGH_SIM_UNFAITHFUL: f"{span_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'",
        LOW_SIM_FAITHFUL: f"{span_prefix}.label == '{LOW_SIM_FAITHFUL}'",
    }
    exp_prefix = f"experiments[0].evals['{disagreement}']"
    experiments = {
        "disagreements": either(exp_prefix),
        HIGH_SIM_UNFAITHFUL: f"{exp_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'",
        LOW_SIM_FAITHFUL: f"{exp_prefix}.label == '{LOW_SIM_FAITHFUL}'",
    }
    if similarity_threshold is not None and math.isfinite(similarity_threshold):
        spans["similar_but_unfaithful"] = (
            f"annotations['{similarity}'].score >= {similarity_threshold:g} "
            f"and annotations['{faithfulness}'].label == 'unfaithful'"
        )
    return {"spans": spans, "experiments": experiments}


def project_id(client: Any, project_name: str) -> str:
    """The id Phoenix's UI uses in project URLs."""
    return client.projects.get(project_name=project_name)["id"]


def project_url(base_url: str, project: str) -> str:
    """The spans page of a project (``project`` = its id, see :func:`project_id`)."""
    return f"{base_url.rstrip('/')}/projects/{project}"


def experiment_url(base_url: str, dataset_id: str, experiment_id: str) -> str:
    """The compare page of one experiment."""
    return f"{base_url.rstrip('/')}/datasets/{dataset_id}/compare?experimentId={experiment_id}"

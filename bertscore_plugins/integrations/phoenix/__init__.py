"""BERTScore in Arize Phoenix: similarity next to faithfulness, and the rows where they disagree.

Built on ``phoenix.evals`` and ``phoenix.client``; the Phoenix server is never imported. The scores,
labels and explanations come from the evaluation engine (``bertscore_plugins.evaluation``, which imports
no Phoenix); this package gives them Phoenix's shapes and talks to the server. Map (module under
``bertscore_plugins``, its public names, what it is for; each function's docstring is the reference)::

    evaluation.names                 SIMILARITY, GROUNDEDNESS, FAITHFULNESS, DISAGREEMENT  (names we write)
    evaluation.evaluation_config     EvaluationConfig  (thresholds, judge and its rows, names, identifier)
    evaluation.batch                 evaluate_batch, BatchRow, BatchResult  (the one pipeline: every signal)
    evaluation.disagreement          Thresholds, disagreement_label  (the quadrants)
    evaluation.dataframe             add_disagreement  (a DataFrame's two score columns compared)
    integrations.phoenix.evaluators  BERTScoreEvaluator, batch_evaluate_dataframe, DisagreementEvaluator
    integrations.phoenix.evaluators  evaluate_rows  (a DataFrame through the pipeline, Phoenix's judge)
    integrations.phoenix.groundedness  GroundednessEvaluator  (precision of the output against its context)
    integrations.phoenix.offline_faithfulness  OfflineFaithfulnessEvaluator  (groundedness x fact check)
    integrations.phoenix.phoenix_judge  faithfulness_judge, faithfulness_evaluator, run_judge  (Phoenix's judge)
    integrations.phoenix.phoenix_judge  judge_llm_from_env, JUDGE_SETUP_HINT  (the judge's LLM from variables)
    integrations.phoenix.annotation_sink  annotation_configs, ensure_annotation_configs, log_span_annotations
    integrations.phoenix.annotation_sink  disagreement_filters, project_id, project_url
    integrations.phoenix.experiments  create_dataset, log_experiment, experiment_evaluators, experiment_url
    integrations.phoenix.trace_evaluation  evaluate_project  (spans: paging, the result store, polling)
    integrations.phoenix.trace_settings  TraceSettings, EvaluationReport  (which spans, how to poll; a run)

Helpers: ``span_source`` (reading spans, OpenInference fields), ``span_rows`` (spans as batch rows, cells
as annotations), ``result_store`` (results kept before logging). The development server
(``bertscore-plugins phoenix serve``) is ``bertscore_plugins.tools.phoenix_server``, outside this API.
The names above import from the package lazily (``pandas`` and ``phoenix.evals`` load on first use);
``score_dataframe`` is the old name of ``batch_evaluate_dataframe``.
"""

from __future__ import annotations

import importlib
from typing import Any

from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
)

_EVALUATORS = "bertscore_plugins.integrations.phoenix.evaluators"
_JUDGE = "bertscore_plugins.integrations.phoenix.phoenix_judge"
_SINK = "bertscore_plugins.integrations.phoenix.annotation_sink"
_EXPERIMENTS = "bertscore_plugins.integrations.phoenix.experiments"
_EXPORTS = {
    "BERTScoreEvaluator": _EVALUATORS,
    "batch_evaluate_dataframe": _EVALUATORS,
    "score_dataframe": _EVALUATORS,
    "DisagreementEvaluator": _EVALUATORS,
    "evaluate_rows": _EVALUATORS,
    "GroundednessEvaluator": "bertscore_plugins.integrations.phoenix.groundedness",
    "OfflineFaithfulnessEvaluator": "bertscore_plugins.integrations.phoenix.offline_faithfulness",
    "faithfulness_judge": _JUDGE,
    "faithfulness_evaluator": _JUDGE,
    "run_judge": _JUDGE,
    "judge_llm_from_env": _JUDGE,
    "JUDGE_SETUP_HINT": _JUDGE,
    "Thresholds": "bertscore_plugins.evaluation.disagreement",
    "disagreement_label": "bertscore_plugins.evaluation.disagreement",
    "add_disagreement": "bertscore_plugins.evaluation.dataframe",
    "EvaluationConfig": "bertscore_plugins.evaluation.evaluation_config",
    "evaluate_batch": "bertscore_plugins.evaluation.batch",
    "BatchRow": "bertscore_plugins.evaluation.batch",
    "BatchResult": "bertscore_plugins.evaluation.batch",
    "annotation_configs": _SINK,
    "ensure_annotation_configs": _SINK,
    "log_span_annotations": _SINK,
    "disagreement_filters": _SINK,
    "project_id": _SINK,
    "project_url": _SINK,
    "create_dataset": _EXPERIMENTS,
    "log_experiment": _EXPERIMENTS,
    "experiment_evaluators": _EXPERIMENTS,
    "experiment_url": _EXPERIMENTS,
    "evaluate_project": "bertscore_plugins.integrations.phoenix.trace_evaluation",
    "EvaluationReport": "bertscore_plugins.integrations.phoenix.trace_settings",
    "TraceSettings": "bertscore_plugins.integrations.phoenix.trace_settings",
}

__all__ = [
    "DISAGREEMENT",
    "FAITHFULNESS",
    "GROUNDEDNESS",
    "JUDGE_SETUP_HINT",
    "OFFLINE_FAITHFULNESS",
    "SIMILARITY",
    "BERTScoreEvaluator",
    "BatchResult",
    "BatchRow",
    "DisagreementEvaluator",
    "EvaluationConfig",
    "EvaluationReport",
    "GroundednessEvaluator",
    "OfflineFaithfulnessEvaluator",
    "Thresholds",
    "TraceSettings",
    "add_disagreement",
    "annotation_configs",
    "batch_evaluate_dataframe",
    "create_dataset",
    "disagreement_filters",
    "disagreement_label",
    "ensure_annotation_configs",
    "evaluate_batch",
    "evaluate_project",
    "evaluate_rows",
    "experiment_evaluators",
    "experiment_url",
    "faithfulness_evaluator",
    "faithfulness_judge",
    "judge_llm_from_env",
    "log_experiment",
    "log_span_annotations",
    "project_id",
    "project_url",
    "run_judge",
    "score_dataframe",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

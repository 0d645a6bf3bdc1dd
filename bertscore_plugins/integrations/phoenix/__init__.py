"""BERTScore in Arize Phoenix: similarity next to faithfulness, and the rows where they disagree.

Built on ``phoenix.evals`` and ``phoenix.client``; the Phoenix server is never imported. Map (module,
its public names, what it is for; each function's docstring is the reference)::

    names             SIMILARITY, GROUNDEDNESS, FAITHFULNESS, DISAGREEMENT  (every name we write)
    evaluators        BERTScoreEvaluator, score_dataframe  (one core call for a whole frame)
    groundedness      GroundednessEvaluator  (precision of the output against its context)
    offline_faithfulness  OfflineFaithfulnessEvaluator  (groundedness, lexical support, fact check; no LLM)
    judge             faithfulness_evaluator, run_judge, judge_llm_from_env, JUDGE_SETUP_HINT
    disagreement      Thresholds, add_disagreement, disagreement_label, DisagreementEvaluator
    evaluation_config EvaluationConfig  (thresholds, judge and its rows, names, identifier, reference)
    batch             evaluate_batch, BatchRow, BatchResult  (the one pipeline: every signal, any rows)
    pipeline          evaluate_rows  (the DataFrame adapter over evaluate_batch)
    span_annotations  annotation_configs, ensure_annotation_configs, log_span_annotations
    span_annotations  disagreement_filters, project_id, project_url
    experiments       create_dataset, log_experiment, experiment_evaluators, experiment_url
    trace_evaluation  evaluate_project  (the span adapter: paging, the result store, logging, polling)
    trace_settings    TraceSettings, EvaluationReport  (which spans and how to poll; what a run did)

Helpers: ``spans`` (reading spans, OpenInference fields), ``span_rows`` (spans as batch rows, cells as
annotations), ``result_store`` (results kept before
logging). The development server (``bertscore-plugins phoenix serve``) is ``dev_server``, outside this
API. The names above import from the package lazily (``pandas`` and ``phoenix.evals`` load on first use).
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

_EXPORTS = {
    "BERTScoreEvaluator": "bertscore_plugins.integrations.phoenix.evaluators",
    "score_dataframe": "bertscore_plugins.integrations.phoenix.evaluators",
    "GroundednessEvaluator": "bertscore_plugins.integrations.phoenix.groundedness",
    "OfflineFaithfulnessEvaluator": "bertscore_plugins.integrations.phoenix.offline_faithfulness",
    "faithfulness_evaluator": "bertscore_plugins.evaluation.judge",
    "run_judge": "bertscore_plugins.evaluation.judge",
    "judge_llm_from_env": "bertscore_plugins.evaluation.judge",
    "JUDGE_SETUP_HINT": "bertscore_plugins.evaluation.judge",
    "Thresholds": "bertscore_plugins.evaluation.disagreement",
    "DisagreementEvaluator": "bertscore_plugins.evaluation.disagreement",
    "add_disagreement": "bertscore_plugins.evaluation.disagreement",
    "disagreement_label": "bertscore_plugins.evaluation.disagreement",
    "EvaluationConfig": "bertscore_plugins.evaluation.config",
    "evaluate_batch": "bertscore_plugins.evaluation.batch",
    "BatchRow": "bertscore_plugins.evaluation.batch",
    "BatchResult": "bertscore_plugins.evaluation.batch",
    "evaluate_rows": "bertscore_plugins.evaluation.dataframe",
    "annotation_configs": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "ensure_annotation_configs": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "log_span_annotations": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "disagreement_filters": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "project_id": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "project_url": "bertscore_plugins.integrations.phoenix.annotation_sink",
    "create_dataset": "bertscore_plugins.integrations.phoenix.experiments",
    "log_experiment": "bertscore_plugins.integrations.phoenix.experiments",
    "experiment_evaluators": "bertscore_plugins.integrations.phoenix.experiments",
    "experiment_url": "bertscore_plugins.integrations.phoenix.experiments",
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

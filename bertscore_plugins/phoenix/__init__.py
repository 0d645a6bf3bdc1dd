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

from .names import DISAGREEMENT, FAITHFULNESS, GROUNDEDNESS, OFFLINE_FAITHFULNESS, SIMILARITY

_EXPORTS = {
    "BERTScoreEvaluator": "evaluators",
    "score_dataframe": "evaluators",
    "GroundednessEvaluator": "groundedness",
    "OfflineFaithfulnessEvaluator": "offline_faithfulness",
    "faithfulness_evaluator": "judge",
    "run_judge": "judge",
    "judge_llm_from_env": "judge",
    "JUDGE_SETUP_HINT": "judge",
    "Thresholds": "disagreement",
    "DisagreementEvaluator": "disagreement",
    "add_disagreement": "disagreement",
    "disagreement_label": "disagreement",
    "EvaluationConfig": "evaluation_config",
    "evaluate_batch": "batch",
    "BatchRow": "batch",
    "BatchResult": "batch",
    "evaluate_rows": "pipeline",
    "annotation_configs": "span_annotations",
    "ensure_annotation_configs": "span_annotations",
    "log_span_annotations": "span_annotations",
    "disagreement_filters": "span_annotations",
    "project_id": "span_annotations",
    "project_url": "span_annotations",
    "create_dataset": "experiments",
    "log_experiment": "experiments",
    "experiment_evaluators": "experiments",
    "experiment_url": "experiments",
    "evaluate_project": "trace_evaluation",
    "EvaluationReport": "trace_settings",
    "TraceSettings": "trace_settings",
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
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value

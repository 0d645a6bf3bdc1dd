"""BERTScore in Arize Phoenix: evaluators, faithfulness pairing, disagreement, logging, server.

Similarity to a reference is not truth, so this package puts BERTScore next to a faithfulness signal
(Phoenix's own LLM judge, or BERTScore groundedness against the context when no LLM is configured) and
names the rows where the two disagree. Everything is built on ``phoenix.evals`` (3.9) and
``phoenix.client`` (3.5); the Phoenix *server* is never imported: :mod:`.server` runs it from its own
virtual environment.

Public API (stable; the recipe ``recipes/disagreement.py`` builds on exactly these names)::

    from bertscore_plugins.phoenix import (
        BERTScoreEvaluator, GroundednessEvaluator, score_dataframe,          # evaluators.py, groundedness.py
        faithfulness_evaluator, run_judge, judge_llm_from_env, JUDGE_SETUP_HINT,   # judge.py
        Thresholds, DisagreementEvaluator, add_disagreement, disagreement_label,   # disagreement.py
        evaluate_rows,                                                       # pipeline.py
        annotation_configs, ensure_annotation_configs, log_span_annotations, create_dataset,
        log_experiment, experiment_evaluators, disagreement_filters, project_id, project_url,
        experiment_url,                                                      # annotations.py
        PhoenixServer, ensure_phoenix_venv,                                  # server.py
    )

Column and annotation names (constants in this module): ``SIMILARITY = "bertscore"``,
``GROUNDEDNESS = "groundedness"``, ``FAITHFULNESS = "faithfulness"``,
``DISAGREEMENT = "sim_faith_disagreement"``. Result cells are ``"<name>_score"`` (a
``Score.to_dict()`` dict, or None for a failed row) and ``"<name>_execution_details"``
(``{"status", "exceptions", "execution_seconds"}``), exactly as ``phoenix.evals.evaluate_dataframe``
writes them, so ``phoenix.evals.utils.to_annotation_dataframe`` accepts them unchanged.

Evaluators (``phoenix.evals.Evaluator`` subclasses; usable in ``evaluate_dataframe``,
``async_evaluate_dataframe``, ``bind_evaluator`` and as experiment evaluators)::

    sim = BERTScoreEvaluator(threshold=0.9, name="bertscore", scorer=None, explain_k=3, **core_settings)
        # inputs: output (str), reference (str or list[str]); kind "code", direction "maximize"
        # Score(score=F1, label "similar" if F1 >= threshold else "dissimilar",
        #       explanation "F1 0.93 (P 0.94, R 0.92); worst: Thursday -> Tuesday 0.71; ...",
        #       metadata {"precision", "recall", "threshold", "signature"})
        # scorer: a core BERTScorer; None -> bertscore_plugins.get_scorer(ScoreConfig(**core_settings))
    grounded = GroundednessEvaluator(threshold=0.8, name="groundedness", ...)
        # inputs: output (str), context (str or list[str], joined); score = BERTScore precision of the
        # output against the context; label "grounded" / "ungrounded"; metadata also has "f1", "recall"
    offline = OfflineFaithfulnessEvaluator(threshold=0.8, name="offline_faithfulness", ...)
        # same inputs; score = groundedness x fact check (numbers, dates, names, negations carried by
        # the context); label "faithful" / "unfaithful"; explanation "Thursday: context says Tuesday"

    results = score_dataframe(df, sim, exit_on_error=True, progress=None)
        # one core call for the whole frame (explain=True); honours the evaluator's bound input mapping
        # (column names, JSONPath or callables); returns a copy with "<name>_execution_details" and
        # "<name>_score" columns. Bad rows: exit_on_error=True -> InputError naming the row;
        # False -> that row FAILED (score cell None), the others scored.

Judge (Phoenix's own FaithfulnessEvaluator; we never write a judge prompt)::

    llm = judge_llm_from_env()   # LLM | None from BERTSCORE_JUDGE_MODEL, BERTSCORE_JUDGE_BASE_URL,
                                 # BERTSCORE_JUDGE_API_KEY, BERTSCORE_JUDGE_PROVIDER (default "openai"),
                                 # BERTSCORE_JUDGE_TIMEOUT; JUDGE_SETUP_HINT says how to set them
    judge = faithfulness_evaluator(llm, input_mapping=None)   # Phoenix's judge, temperature 0
    judged = run_judge(df, llm, judge=None, concurrency=4, max_retries=1, input_mapping=None)
        # async_evaluate_dataframe(concurrency=N, exit_on_error=False); a failing row gets
        # faithfulness_score None and execution status "FAILED"; the column always exists.

Disagreement (derived per row; score 1.0 = disagree, 0.0 = agree; direction "minimize"; kind "code")::

    th = Thresholds(similarity=0.9, faithfulness=0.5)                  # fixed
    th = Thresholds.from_quantiles(sim_scores, faith_scores, similarity_quantile=0.5,
                                   faithfulness_quantile=0.5)          # from the data
    out = add_disagreement(results, thresholds=th, similarity="bertscore", faithfulness="faithfulness",
                           name="sim_faith_disagreement")
        # labels: "agree" | "high_sim_unfaithful" | "low_sim_faithful"; metadata: similarity,
        # faithfulness, similarity_threshold, faithfulness_threshold, threshold_source,
        # faithfulness_signal, judge_explanation, similarity_explanation. A row missing either
        # input gets a None cell and status "DID NOT RUN".

One call::

    results = evaluate_rows(df, llm=None, judge=None, thresholds=None, similarity_threshold=0.9,
                            groundedness_threshold=0.8, input_column="input", output_column="output",
                            context_column="context", reference_column="reference", judge_concurrency=4,
                            judge_max_retries=1, exit_on_error=True, scorer=None, judge_rows="all",
                            **core_settings)
        # also groundedness x fact check ("offline_faithfulness", the signal when no judge is given);
        # judge_rows="unsettled": only rows the offline signals cannot settle go to the judge
        # (results.attrs["judge_triage"] = {"rows", "judged", "saved", "mode"})
        # similarity + groundedness (batch path) + judge (when llm is given; else groundedness is the
        # faithfulness signal) + disagreement. thresholds: None (fixed defaults), a Thresholds, or
        # "quantile". Returns a copy of df (same index) with the *_score / *_execution_details columns.

Phoenix logging (the server is reached over HTTP only)::

    ensure_annotation_configs(client, project=None)    # REST; idempotent; types, labels, directions;
                                                       # with project= also attached to that project
    log_span_annotations(client, results)              # rows indexed/columned by span_id -> count written
    ds = create_dataset(client, rows, name=..., question_column="input", ...)   # input {question, context},
        # expected {reference}, metadata {output, row}
    ds, exp = log_experiment(client, results, dataset_name=..., experiment_name=..., dataset=None)
        # dataset from the rows + an experiment whose evaluators return the STORED scores (no rescoring);
        # a row whose evaluator failed shows as an evaluation error in the experiment
    experiment_evaluators(sim, faith, thresholds)      # live evaluators for run_experiment /
        # evaluate_experiment (bound to input.question/input.context/expected.reference; shared cache so
        # the judge runs once per row)
    disagreement_filters(similarity_threshold=None)    # {"spans": {...}, "experiments": {...}} filter strings:
        # keys "disagreements", "high_sim_unfaithful", "low_sim_faithful" (+ "similar_but_unfaithful")
    project_url(base_url, project_id(client, name)), experiment_url(base_url, dataset_id, experiment_id)

Server (``bertscore-plugins phoenix serve``)::

    with PhoenixServer(port=None, grpc_port=None, workdir=None, database_url=None, venv=None) as srv:
        srv.base_url, srv.otlp_http_endpoint, srv.grpc_endpoint, srv.grpc_port, srv.pid, srv.log_path
    # runs arize-phoenix==20.26.1 from .phoenix-venv (or $BERTSCORE_PHOENIX_VENV; created on demand),
    # HTTP and OTLP gRPC on 127.0.0.1 only, SQLite in workdir unless database_url; stop() sends SIGTERM
    # to its pid and removes the PID files.
"""

from __future__ import annotations

import importlib
from typing import Any

SIMILARITY = "bertscore"
GROUNDEDNESS = "groundedness"
FAITHFULNESS = "faithfulness"
DISAGREEMENT = "sim_faith_disagreement"
OFFLINE_FAITHFULNESS = "offline_faithfulness"

# Lazy exports: importing the server launcher (or the CLI) must not pull in phoenix.evals / pandas.
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
    "evaluate_rows": "pipeline",
    "ensure_annotation_configs": "annotations",
    "log_span_annotations": "annotations",
    "log_experiment": "annotations",
    "experiment_evaluators": "annotations",
    "disagreement_filters": "annotations",
    "project_url": "annotations",
    "project_id": "annotations",
    "annotation_configs": "annotations",
    "create_dataset": "annotations",
    "experiment_url": "annotations",
    "PhoenixServer": "server",
    "ensure_phoenix_venv": "server",
}

__all__ = [
    "DISAGREEMENT",
    "FAITHFULNESS",
    "GROUNDEDNESS",
    "JUDGE_SETUP_HINT",
    "OFFLINE_FAITHFULNESS",
    "SIMILARITY",
    "BERTScoreEvaluator",
    "DisagreementEvaluator",
    "GroundednessEvaluator",
    "OfflineFaithfulnessEvaluator",
    "PhoenixServer",
    "Thresholds",
    "add_disagreement",
    "annotation_configs",
    "create_dataset",
    "disagreement_filters",
    "disagreement_label",
    "ensure_annotation_configs",
    "ensure_phoenix_venv",
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

"""Evaluate the spans of an instrumented application in Phoenix, incrementally and resumably.

:func:`evaluate_project` is the span adapter's entry point. It composes the two configurations (how
spans are read, :class:`.trace_settings.TraceSettings`; how they are evaluated,
:class:`~bertscore_plugins.evaluation.evaluation_config.EvaluationConfig`) and hands them to the passes:
:mod:`.trace_polling` (one pass, or one per poll when following) over :mod:`.trace_pass` (a page at a
time: spans -> batch rows (:mod:`.span_rows`) -> the one pipeline
(:func:`~bertscore_plugins.evaluation.pipeline.evaluate_stored`: the engine, the result store of
:mod:`bertscore_plugins.evaluation.store`, the judge retry; the recipe's too) -> span annotations). Every
request to Phoenix goes through :mod:`.gateway`.

A re-run evaluates only the spans without a current annotation of this configuration and logs nothing
twice; results computed before an outage are logged by the next run. Every configuration writes under
one identifier, so a span shows one current annotation per signal, the last configuration's, its id in
the metadata (see :mod:`.annotation_sink`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bertscore_plugins.cache_home import cached
from bertscore_plugins.core.score_config import refuse_idf_per_batch
from bertscore_plugins.errors import ArgumentError, SettingError
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig, evaluation_config
from bertscore_plugins.evaluation.store import ResultStore
from bertscore_plugins.integrations.phoenix import gateway
from bertscore_plugins.integrations.phoenix.span_rows import Annotating
from bertscore_plugins.integrations.phoenix.span_source import lookup
from bertscore_plugins.integrations.phoenix.trace_pass import OnePass, TraceJob
from bertscore_plugins.integrations.phoenix.trace_polling import poll
from bertscore_plugins.integrations.phoenix.trace_report import EvaluationReport
from bertscore_plugins.integrations.phoenix.trace_settings import LONG_TEXT, TraceSettings
from bertscore_plugins.settings import names_of

if TYPE_CHECKING:
    from bertscore_plugins.core.scorer_protocol import Scorer

STORE_ENV_VAR = "BERTSCORE_PHOENIX_STORE"


def default_store_path() -> Path:
    """``$BERTSCORE_PHOENIX_STORE``, else ``phoenix_results.sqlite`` in the cache home (cache_home.py)."""
    configured = os.environ.get(STORE_ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    return cached("phoenix_results.sqlite")


def _dataset_references(
    client: gateway.PhoenixClient, dataset: str, field_name: str | None
) -> dict[str, object]:
    """``{example id: reference value}`` from a Phoenix dataset (its examples' expected output)."""
    examples = gateway.dataset_examples(client, dataset)
    references: dict[str, object] = {}
    for example in examples:
        output = example.get("output") or {}
        if field_name is not None:
            value = output.get(field_name)
        elif len(output) == 1:
            value = next(iter(output.values()))
        else:
            raise ArgumentError(
                f"dataset {dataset!r}: examples' expected output has keys {sorted(output)}; "
                "name the reference with reference_field="
            )
        if value is not None:
            references[str(example["id"])] = value  # read by reference_value, as a span's would be
    return references


def evaluate_project(
    project: str,
    *,
    config: EvaluationConfig | None = None,
    client: gateway.PhoenixClient | None = None,
    base_url: str | None = None,
    store: str | Path | ResultStore | None = None,
    on_progress: Callable[[EvaluationReport], None] | None = None,
    on_poll: Callable[[EvaluationReport], None] | None = None,
    scorer: Scorer | None = None,
    **settings: Any,
) -> EvaluationReport:
    """Annotate the spans of Phoenix project ``project`` with every signal of the evaluation pipeline.

    Per selected span (see :func:`.batch.evaluate_batch`): groundedness and the offline faithfulness
    (groundedness x the fact check, explanation naming the unsupported facts) when there is a context;
    similarity when there is a reference; Phoenix's ``FaithfulnessEvaluator`` when a judge is configured
    (all rows, or with ``judge_rows="unsettled"`` those the offline signals cannot settle); the
    disagreement when similarity and the faithfulness signal (the judge, else the offline one) both
    exist. Spans lacking what a signal needs are counted by reason. Each span keeps one current
    annotation per signal, the last configuration's (its id in the metadata; :mod:`.annotation_sink`).

    Args:
        project: project name or id.
        config: an :class:`EvaluationConfig`; ``**settings`` override it. Without one, the core's
            ``long_text`` defaults to "window" here (a retrieved context is read whole).
        client: a ``phoenix.client.Client``; default ``Client(base_url=base_url)``.
        store: the local result store (path or :class:`ResultStore`); default :func:`default_store_path`.
        on_progress: called with the report after each logged batch; on_poll: after each poll.
        scorer: the core scorer to use (default: ``config.score``'s, ``core.scorer.resolve_scorer``).
        **settings: :class:`TraceSettings` (``span_kind``, ``where``, ``since``, ``page_size``,
            ``follow``, ``interval``, ...), :class:`EvaluationConfig` settings (``reference_key``,
            ``judge``, ``judge_rows``, thresholds, ...; ``llm=`` is taken as ``judge=``) or core settings.

    Returns:
        The :class:`EvaluationReport` (accumulated over polls when following).

    Raises:
        TraceEvaluationError: Phoenix failed mid-run (not when following: then the next poll retries);
            what was computed is in the store and the next run logs it without rescoring.
        SettingError: a bad setting, or a project the server does not have (not when following: then
            it waits for the project's first traces); a ValueError naming it.
        ResultStoreError: the store file cannot be used (damaged, foreign, unwritable); an OSError.
    """
    check_project(project)
    trace, evaluation = _split_settings(config, settings)
    client = gateway.connect(client, base_url)
    result_store = store if isinstance(store, ResultStore) else ResultStore(store or default_store_path())
    job = _job(project, client, trace, evaluation, _checked_scorer(scorer, evaluation), result_store)
    job.on_progress = on_progress
    try:
        return poll(OnePass(job), on_poll)
    finally:
        if not isinstance(store, ResultStore):
            result_store.close()


def _job(
    project: str,
    client: gateway.PhoenixClient,
    trace: TraceSettings,
    evaluation: EvaluationConfig,
    scorer: Scorer,
    store: ResultStore,
) -> TraceJob:
    """One run's job: what it reads, how it evaluates and annotates, where it keeps results, its report."""
    annotating = Annotating(evaluation, evaluation.configuration_id(str(scorer.signature)))
    report = EvaluationReport(project=project, configuration=annotating.configuration)
    references = _reference_reader(client, evaluation)
    return TraceJob(client, project, trace, annotating, scorer, references, store, report)


def check_project(project: Any) -> None:
    """SettingError (one line, naming the project) for a name Phoenix's REST paths cannot carry."""
    if not isinstance(project, str) or not project.strip() or "\n" in project:
        raise SettingError("project", f"project must be a project's name or id, got {project!r}")
    if any(mark in project for mark in "/?#") or project.strip() in (".", ".."):
        raise SettingError(
            "project",
            f"project {project!r} cannot be addressed in Phoenix's REST paths (a name with '/', '?' or '#', "
            "or a name '.' or '..'); pass the project's id instead (the id in its URL in the Phoenix UI)",
        )


def _split_settings(
    config: EvaluationConfig | None, settings: Mapping[str, Any]
) -> tuple[TraceSettings, EvaluationConfig]:
    """(how spans are read, how they are evaluated) from the keyword settings; SettingError for a
    setting that would label a span by its page."""
    from bertscore_plugins.integrations.phoenix.phoenix_judge import (
        as_judge,  # phoenix.evals: only with a judge
    )

    settings = dict(settings)
    if "llm" in settings:
        llm = settings.pop("llm")
        settings.setdefault("judge", llm)
    if settings.get("judge") is not None:
        settings["judge"] = as_judge(settings["judge"])  # a Phoenix LLM or evaluator: Phoenix's judge
    trace = TraceSettings(**{k: settings.pop(k) for k in names_of(TraceSettings) if k in settings})
    if config is None:
        settings.setdefault("long_text", LONG_TEXT)
    evaluation = evaluation_config(config, settings)
    if evaluation.thresholds_from_data:
        raise SettingError(
            "thresholds_from_data",
            "thresholds_from_data would set each page of spans' thresholds at its own medians",
        )
    return trace, evaluation


def _checked_scorer(scorer: Scorer | None, config: EvaluationConfig) -> Scorer:
    from bertscore_plugins.core.scorer import resolve_scorer

    scorer = resolve_scorer(config.score if scorer is None else scorer, {})
    refuse_idf_per_batch(
        getattr(scorer, "config", None),
        "page of spans",
        "fit it once (bertscore_plugins.fit_idf(texts)) and pass the IdfTable as idf=",
    )
    return scorer


def _reference_reader(
    client: gateway.PhoenixClient, config: EvaluationConfig
) -> Callable[[Mapping[str, object]], Any]:
    """``span -> reference value``: a span attribute / metadata key, or a dataset example's output."""
    if config.reference_key:
        key = config.reference_key
        return lambda span: lookup(span, key)
    if not config.reference_dataset:
        return lambda span: None
    references = _dataset_references(client, config.reference_dataset, config.reference_field)

    def from_dataset(span: Mapping[str, object]) -> Any:
        example_id = lookup(span, config.example_id_key)
        return None if example_id is None else references.get(str(example_id))

    return from_dataset

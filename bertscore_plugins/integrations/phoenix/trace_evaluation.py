"""Evaluate the spans of an instrumented application in Phoenix, incrementally and resumably.

:func:`evaluate_project` is the span adapter's driver: it reads a project's spans one page at a time
(the root span of each trace by default, or spans of one OpenInference kind, optionally narrowed by a
Phoenix filter string), turns each page into batch rows (:mod:`.span_rows`), evaluates them with the
one pipeline (:func:`.batch.evaluate_batch`: similarity, groundedness, offline faithfulness, judge
triage and judge, disagreement), stores the results locally (:mod:`.result_store`) and logs them as
span annotations under our identifier. A re-run evaluates only the spans without an annotation of this
configuration and logs nothing twice; results computed before an outage are logged by the next run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bertscore_plugins.core.config import SettingError, refuse_idf_per_batch
from bertscore_plugins.errors import ArgumentError, TraceEvaluationError
from bertscore_plugins.evaluation.config import EvaluationConfig, evaluation_config
from bertscore_plugins.integrations.phoenix.result_store import ResultStore, ResultStoreError, StoredResult
from bertscore_plugins.integrations.phoenix.span_rows import Annotating, entries, span_row
from bertscore_plugins.integrations.phoenix.span_source import (
    ROOT,
    lookup,
    matching_span_ids,
    span_pages,
    trace_documents,
)
from bertscore_plugins.integrations.phoenix.trace_settings import DEFAULT_LOOKBACK as DEFAULT_LOOKBACK
from bertscore_plugins.integrations.phoenix.trace_settings import EvaluationReport, TraceSettings
from bertscore_plugins.integrations.phoenix.trace_settings import parse_since as parse_since
from bertscore_plugins.settings import names_of

logger = logging.getLogger(__name__)

STORE_ENV_VAR = "BERTSCORE_PHOENIX_STORE"


def default_store_path() -> Path:
    """``$BERTSCORE_PHOENIX_STORE``, else ``<cache>/bertscore_plugins/phoenix_results.sqlite``."""
    configured = os.environ.get(STORE_ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "bertscore_plugins" / "phoenix_results.sqlite"


def configuration_signature(description: Mapping[str, Any]) -> str:
    """A short stable id of a description (kept for callers; `EvaluationConfig.configuration_id` is the
    trace evaluation's)."""
    text = json.dumps(description, sort_keys=True, default=str)
    return "cfg-" + hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class _Job:
    """One configuration against one project: everything a page needs besides the page."""

    client: Any
    project: str
    settings: TraceSettings
    annotating: Annotating
    scorer: Any
    reference_of: Callable[[Mapping[str, Any]], Any]
    store: ResultStore
    report: EvaluationReport
    on_progress: Callable[[EvaluationReport], None] | None = None

    @property
    def config(self) -> EvaluationConfig:
        return self.annotating.config

    @property
    def configuration(self) -> str:
        return self.annotating.configuration

    def timed(self, part: str, started: float) -> None:
        self.report.seconds[part] += time.perf_counter() - started


class _Run:
    """Paging, the result store and logging for one job; the evaluation itself is `evaluate_batch`'s."""

    def __init__(self, job: _Job) -> None:
        self.job = job

    def pages(self, since: datetime | None) -> Iterable[list[dict[str, Any]]]:
        job = self.job
        wanted_ids = None
        if job.settings.where:
            started = time.perf_counter()
            wanted_ids = matching_span_ids(job.client, job.project, job.settings.where, since=since)
            job.timed("read", started)
        kind = job.settings.span_kind
        iterator = iter(
            span_pages(
                job.client,
                job.project,
                page_size=job.settings.page_size,
                since=since,
                span_kind=None if kind == ROOT else kind,
                roots_only=kind == ROOT,
            )
        )
        while True:
            started = time.perf_counter()
            page = next(iterator, None)
            job.timed("read", started)
            if page is None:
                return
            if wanted_ids is not None:
                page = [s for s in page if str((s.get("context") or {}).get("span_id")) in wanted_ids]
            if page:
                yield page

    def _on_server(self, span_ids: Sequence[str]) -> dict[str, set[str]]:
        """``{span_id: names}`` of the annotations Phoenix holds under our identifier for this configuration."""
        job = self.job
        found: dict[str, set[str]] = {}
        for annotation in job.client.spans.get_span_annotations(
            span_ids=list(span_ids),
            project_identifier=job.project,
            include_annotation_names=list(job.config.names),
        ):
            if annotation.get("identifier") == job.annotating.identifier:
                found.setdefault(annotation["span_id"], set()).add(annotation["name"])
        return found

    def page(self, spans: list[dict[str, Any]]) -> None:
        job = self.job
        ids = [str((s.get("context") or {}).get("span_id")) for s in spans]
        job.report.spans_read += len(spans)
        started = time.perf_counter()
        on_server = self._on_server(ids)
        job.timed("read", started)
        started = time.perf_counter()
        stored = job.store.results(job.configuration, ids)
        job.timed("store", started)
        to_score = [
            (span, stored.get(span_id, {}))
            for span, span_id in zip(spans, ids, strict=True)
            if self._needs_work(span_id, stored.get(span_id), on_server)
        ]
        if to_score:
            self._score(to_score)
        self._log(ids, on_server, scored_now={s["context"]["span_id"] for s, _ in to_score})
        release_freed_memory()

    def _needs_work(
        self, span_id: str, mine: dict[str, StoredResult] | None, on_server: Mapping[str, set[str]]
    ) -> bool:
        """A span never evaluated, or one whose judge failed (only the judge fails transiently: an outage;
        a BERTScore input error would fail again); counts the spans already done."""
        judge = self.job.config.judge
        if mine is None:
            done = span_id in on_server
        else:
            judged = mine.get(judge.name) if judge is not None else None
            if judged is not None and judged.annotation is None:
                return True
            done = all(r.logged or r.name in on_server.get(span_id, ()) for r in mine.values())
        self.job.report.already_done += done
        return mine is None and not done

    def _score(self, work: list[tuple[dict[str, Any], dict[str, StoredResult]]]) -> None:
        from bertscore_plugins.evaluation.batch import evaluate_batch

        job = self.job
        started = time.perf_counter()
        trace_ids = [str(span["context"]["trace_id"]) for span, _ in work]
        documents = trace_documents(job.client, job.project, trace_ids)
        job.timed("read", started)
        rows = []
        for span, mine in work:
            trace = documents.get(str(span["context"]["trace_id"]), [])
            row = span_row(span, trace, job.reference_of(span), mine, job.config, job.report.skipped)
            if row is not None:
                rows.append(row)
        if not rows:
            return
        result = evaluate_batch(rows, job.config, scorer=job.scorer, exit_on_error=False, progress=False)
        for part, seconds in result.seconds.items():
            job.report.seconds[part] += seconds
        self._record(rows, entries(rows, result, job.annotating), result.triage)

    def _record(self, rows: list[Any], found: list[Any], triage: Mapping[str, Any]) -> None:
        report = self.job.report
        for _, name, annotation, failure in found:
            if annotation is not None:
                report.results[name] += 1
            else:
                report.failed[f"{name}: {_short(failure or '')}"] += 1
        report.evaluated += len({span_id for span_id, _, annotation, _ in found if annotation is not None})
        for key in ("judged", "saved"):
            report.judge_calls[key] += triage.get(key, 0) if triage.get("mode") != "none" else 0
        started = time.perf_counter()
        self.job.store.put(self.job.configuration, found)  # before anything is sent: an outage loses nothing
        self.job.timed("store", started)

    def _log(self, ids: Sequence[str], on_server: Mapping[str, set[str]], scored_now: set[str]) -> None:
        job = self.job
        started = time.perf_counter()
        stored = job.store.results(job.configuration, ids)
        job.timed("store", started)
        pending: list[dict[str, Any]] = []
        already: list[tuple[str, str]] = []
        for span_id in ids:
            for name, result in stored.get(span_id, {}).items():
                if result.annotation is None or result.logged:
                    continue
                if name in on_server.get(span_id, ()) and span_id not in scored_now:
                    already.append((span_id, name))  # logged before a crash could mark it
                else:
                    pending.append(result.annotation)
        if already:
            job.store.mark_logged(job.configuration, already)
        for start in range(0, len(pending), job.settings.log_batch_size):
            self._send(pending[start : start + job.settings.log_batch_size], scored_now)

    def _send(self, chunk: list[dict[str, Any]], scored_now: set[str]) -> None:
        job = self.job
        started = time.perf_counter()
        job.client.spans.log_span_annotations(span_annotations=chunk, sync=True)
        job.timed("write", started)
        started = time.perf_counter()
        job.store.mark_logged(job.configuration, [(a["span_id"], a["name"]) for a in chunk])
        job.timed("store", started)
        job.report.logged += len(chunk)
        job.report.logged_from_store += sum(1 for a in chunk if a["span_id"] not in scored_now)
        if job.on_progress is not None:
            job.on_progress(job.report)


def release_freed_memory() -> bool:
    """Hand the memory freed by this page back to the system (glibc's ``malloc_trim``).

    Why: on CPU a page's batch tensors are freed to glibc's heap, where the page's long-lived small
    objects (HTTP replies, store rows) pin it, so glibc keeps it and the next page's tensors of other
    shapes take fresh memory: RSS grew ~7 MB per 25-span page with no Python object retained (measured:
    flat object counts; RSS back to flat after a trim). Trimming once per page keeps RSS bounded by
    one page. Returns False where there is no glibc (macOS, musl, Windows): nothing to do there.
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)  # 1 if memory was returned, 0 if there was none to return
    return True


_MALLOC_TRIM: Any = False  # not looked up yet


def _malloc_trim() -> Any:
    global _MALLOC_TRIM
    if _MALLOC_TRIM is False:
        _MALLOC_TRIM = None
        if sys.platform.startswith("linux"):
            import contextlib
            import ctypes

            with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
                _MALLOC_TRIM = ctypes.CDLL("libc.so.6").malloc_trim
    return _MALLOC_TRIM


def _short(reason: str) -> str:
    first = reason.split("\n", 1)[0]
    return first if len(first) <= 120 else first[:117] + "..."


def _dataset_references(client: Any, dataset: str, field_name: str | None) -> dict[str, Any]:
    """``{example id: reference value}`` from a Phoenix dataset (its examples' expected output)."""
    examples = client.datasets.get_dataset(dataset=dataset).examples
    references: dict[str, Any] = {}
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
    client: Any = None,
    base_url: str | None = None,
    store: str | Path | ResultStore | None = None,
    on_progress: Callable[[EvaluationReport], None] | None = None,
    on_poll: Callable[[EvaluationReport], None] | None = None,
    scorer: Any = None,
    **settings: Any,
) -> EvaluationReport:
    """Annotate the spans of Phoenix project ``project`` with every signal of the evaluation pipeline.

    Per selected span (see :func:`.batch.evaluate_batch`): groundedness and the offline faithfulness
    (groundedness x the fact check, explanation naming the unsupported facts) when there is a context;
    similarity when there is a reference; Phoenix's ``FaithfulnessEvaluator`` when a judge is configured
    (all rows, or with ``judge_rows="unsettled"`` those the offline signals cannot settle); the
    disagreement when similarity and the faithfulness signal (the judge, else the offline one) both
    exist. Spans lacking what a signal needs are counted by reason. Annotations carry the identifier
    ``"<annotation_identifier> <configuration id>"``: Phoenix's own evaluators never overwrite them.

    Args:
        project: project name or id.
        config: an :class:`EvaluationConfig`; ``**settings`` override it. Without one, the core's
            ``long_text`` defaults to "window" here (a retrieved context is read whole).
        client: a ``phoenix.client.Client``; default ``Client(base_url=base_url)``.
        store: the local result store (path or :class:`ResultStore`); default :func:`default_store_path`.
        on_progress: called with the report after each logged batch; on_poll: after each poll.
        scorer: the core scorer to use (default ``get_scorer(config.score)``).
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
    _check_project(project)
    trace, evaluation = _split_settings(config, settings)
    client = _client(client, base_url)
    scorer = _checked_scorer(scorer, evaluation)
    annotating = Annotating(evaluation, evaluation.configuration_id(str(scorer.signature)))
    report = EvaluationReport(project=project, configuration=annotating.configuration)
    result_store = store if isinstance(store, ResultStore) else ResultStore(store or default_store_path())
    job = _Job(
        client, project, trace, annotating, scorer, _reference_reader(client, evaluation), result_store, report,
        on_progress,
    )  # fmt: skip
    try:
        return _poll(_Run(job), on_poll)
    finally:
        if not isinstance(store, ResultStore):
            result_store.close()


def _check_project(project: Any) -> None:
    """SettingError (one line, naming the project) for a name Phoenix's REST paths cannot carry."""
    if not isinstance(project, str) or not project.strip() or "\n" in project:
        raise SettingError("project", f"project must be a project's name or id, got {project!r}")
    if "/" in project or project.strip() in (".", ".."):
        raise SettingError(
            "project",
            f"project {project!r} cannot be addressed in Phoenix's REST paths (a name with '/' or a name "
            "'.' or '..'); pass the project's id instead (the id in its URL in the Phoenix UI)",
        )


def _split_settings(
    config: EvaluationConfig | None, settings: Mapping[str, Any]
) -> tuple[TraceSettings, EvaluationConfig]:
    """(how spans are read, how they are evaluated) from the keyword settings; SettingError for a
    setting that would label a span by its page."""
    from bertscore_plugins.integrations.phoenix.judge import as_judge  # phoenix.evals: only with a judge

    settings = dict(settings)
    if "llm" in settings:
        llm = settings.pop("llm")
        settings.setdefault("judge", llm)
    if settings.get("judge") is not None:
        settings["judge"] = as_judge(settings["judge"])  # a Phoenix LLM or evaluator: Phoenix's judge
    trace = TraceSettings(**{k: settings.pop(k) for k in names_of(TraceSettings) if k in settings})
    if config is None:
        settings.setdefault("long_text", "window")  # a retrieved context is read whole, not cut
    evaluation = evaluation_config(config, settings)
    if evaluation.thresholds_from_data:
        raise SettingError(
            "thresholds_from_data", "thresholds_from_data would cut each page of spans at its own medians"
        )
    return trace, evaluation


def _client(client: Any, base_url: str | None) -> Any:
    if client is not None:
        return client
    from phoenix.client import Client

    return Client(base_url=base_url) if base_url else Client()


def _checked_scorer(scorer: Any, config: EvaluationConfig) -> Any:
    if scorer is None:
        from bertscore_plugins.core.scorer import get_scorer

        scorer = get_scorer(config.score)
    refuse_idf_per_batch(
        getattr(scorer, "config", None),
        "page of spans",
        "fit it once (bertscore_plugins.fit_idf(texts)) and pass the IdfTable as idf=",
    )
    return scorer


def _reference_reader(client: Any, config: EvaluationConfig) -> Callable[[Mapping[str, Any]], Any]:
    """``span -> reference value``: a span attribute / metadata key, or a dataset example's output."""
    if config.reference_key:
        key = config.reference_key
        return lambda span: lookup(span, key)
    if not config.reference_dataset:
        return lambda span: None
    references = _dataset_references(client, config.reference_dataset, config.reference_field)

    def from_dataset(span: Mapping[str, Any]) -> Any:
        example_id = lookup(span, config.example_id_key)
        return None if example_id is None else references.get(str(example_id))

    return from_dataset


def _poll(run: _Run, on_poll: Callable[[EvaluationReport], None] | None) -> EvaluationReport:
    """One pass over the project, or (following) one every ``interval`` seconds."""
    job, settings = run.job, run.job.settings
    state = {"configs_ready": False, "reached": False}
    poll_since = settings.since
    while True:
        poll_started = datetime.now(timezone.utc)
        # counted when it starts: a report taken at Ctrl-C mid-poll already holds that poll's annotations
        job.report.polls += 1
        _one_poll(run, poll_since, state)
        if on_poll is not None:
            on_poll(job.report)
        if not settings.follow or (settings.max_polls is not None and job.report.polls >= settings.max_polls):
            return job.report
        window_start = poll_started - max(settings.lookback, timedelta(seconds=2 * settings.interval))
        poll_since = window_start if settings.since is None else max(settings.since, window_start)
        time.sleep(settings.interval)


def _one_poll(run: _Run, since: datetime | None, state: dict[str, bool]) -> None:
    import httpx

    job = run.job
    try:
        if not state["configs_ready"]:
            state["configs_ready"] = _prepare_project(job, state)
        if state["configs_ready"]:
            for page in run.pages(since):
                run.page(page)
    except ResultStoreError:
        raise  # the local file, not Phoenix: retrying would not help
    except (httpx.HTTPError, OSError) as error:
        if not job.settings.follow:
            raise _phoenix_failed(job, error, reached=state["reached"]) from error
        logger.warning("Phoenix unreachable (%s); retrying in %g s", error, job.settings.interval)


def _prepare_project(job: _Job, state: dict[str, bool]) -> bool:
    """True once the project exists and has our annotation configs (types, labels, directions for the UI)."""
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        annotation_configs,
        ensure_annotation_configs,
    )

    exists = _project_exists(job.client, job.project)
    state["reached"] = True
    if exists:
        config = job.config
        configs = annotation_configs(
            similarity=config.similarity_name,
            groundedness=config.groundedness_name,
            offline_faithfulness=config.offline_name,
            disagreement=config.disagreement_name,
            **({"faithfulness": config.judge.name} if config.judge is not None else {}),
        )
        ensure_annotation_configs(job.client, configs, project=job.project)
        return True
    if not job.settings.follow:
        raise SettingError(
            "project",
            f"Phoenix at {_base_url(job.client)} has no project {job.project!r} (it has {_project_names(job.client)})",
        )
    if job.report.polls == 1:  # the first poll (counted when it starts)
        logger.warning("no project %r yet; waiting for its first traces", job.project)
    return False


def _phoenix_failed(job: _Job, error: Exception, *, reached: bool) -> TraceEvaluationError:
    if not reached:
        return TraceEvaluationError(
            f"Phoenix at {_base_url(job.client)} failed the first request ({type(error).__name__}: "
            f"{error}); is it running there? (--base-url, PHOENIX_COLLECTOR_ENDPOINT)"
        )
    return TraceEvaluationError(
        f"Phoenix failed during the run ({type(error).__name__}: {error}); "
        f"{job.store.count(job.configuration)} results of this configuration are in "
        f"{job.store.path}: run again to log them without rescoring"
    )


def _base_url(client: Any) -> str:
    return str(getattr(getattr(client, "_client", None), "base_url", "") or "the configured URL")


def _project_exists(client: Any, project: str) -> bool:
    reply = client._client.get(f"v1/projects/{quote(project, safe='')}")  # a name or an id
    if reply.status_code == 404:
        return False
    reply.raise_for_status()
    return True


def _project_names(client: Any, most: int = 10) -> str:
    reply = client._client.get("v1/projects", params={"limit": most + 1})
    names = [str(p.get("name")) for p in reply.json().get("data", [])] if reply.status_code == 200 else []
    shown = ", ".join(repr(name) for name in names[:most]) + (", ..." if len(names) > most else "")
    return f"projects {shown}" if names else "no projects"

"""One pass over a project's spans: read a page, evaluate what is not current, store, then log.

Per page: which spans already hold this configuration's annotations in Phoenix (the server is the truth:
another configuration's annotation replaced ours there, so ours is re-sent from the store), which of the
others the local store already has results for (logged without rescoring), and the rest go through the
one pipeline (:func:`bertscore_plugins.evaluation.pipeline.evaluate_stored`: the engine call, the result
store and the judge retry the recipe uses too). Results are stored before anything is sent, so an outage
loses nothing. The store is read once a page: what to score and what to send are both decided from that
read and the pass's own results.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bertscore_plugins.core.heap import release_freed_memory
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.pipeline import StoredRun, missing
from bertscore_plugins.evaluation.store import ResultStore, StoredResult
from bertscore_plugins.integrations.phoenix import gateway
from bertscore_plugins.integrations.phoenix.span_rows import Annotating, span_row
from bertscore_plugins.integrations.phoenix.span_rows import annotation as span_annotation
from bertscore_plugins.integrations.phoenix.span_source import ROOT, trace_documents
from bertscore_plugins.integrations.phoenix.trace_report import EvaluationReport
from bertscore_plugins.integrations.phoenix.trace_settings import TraceSettings

if TYPE_CHECKING:
    from phoenix.client.__generated__.v1 import Span, SpanAnnotationData

    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.integrations.phoenix.gateway import PhoenixClient

Work = list[tuple["Span", dict[str, StoredResult]]]


@dataclass
class TraceJob:
    """One configuration against one project: everything a page needs besides the page."""

    client: PhoenixClient
    project: str
    settings: TraceSettings
    annotating: Annotating
    scorer: Scorer
    reference_of: Callable[[Mapping[str, object]], Any]
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


def _span_id(span: Span) -> str:
    return str((span.get("context") or {}).get("span_id"))


class OnePass:
    """Paging, the result store and logging for one job; the evaluation itself is `evaluate_batch`'s."""

    def __init__(self, job: TraceJob) -> None:
        self.job = job

    def pages(self, since: datetime | None) -> Iterable[list[Span]]:
        """The selected spans (kind, roots, the ``where`` filter) since ``since``, a page at a time."""
        job = self.job
        wanted_ids = None
        if job.settings.where:
            started = time.perf_counter()
            wanted_ids = gateway.matching_span_ids(job.client, job.project, job.settings.where, since=since)
            job.timed("read", started)
        kind = job.settings.span_kind
        iterator = iter(
            gateway.span_pages(
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
                page = [span for span in page if _span_id(span) in wanted_ids]
            if page:
                yield page

    def current(self, span_ids: Sequence[str]) -> dict[str, set[str]]:
        """``{span_id: names}`` whose current annotation in Phoenix is this configuration's."""
        job = self.job
        found: dict[str, set[str]] = {}
        for annotation in gateway.span_annotations(job.client, job.project, span_ids, job.config.names):
            if job.annotating.is_mine(annotation):
                found.setdefault(annotation["span_id"], set()).add(annotation["name"])
        return found

    def page(self, spans: list[Span]) -> None:
        """One page: Phoenix's current annotations, the store read once (what to score, then what to
        send, both decided from that read and this pass's results), the scoring, the logging."""
        job = self.job
        ids = [_span_id(span) for span in spans]
        job.report.spans_read += len(spans)
        started = time.perf_counter()
        current = self.current(ids)
        job.timed("read", started)
        started = time.perf_counter()
        stored = job.store.results(job.configuration, ids)  # the page's one read of the store
        job.timed("store", started)
        to_score = [
            (span, stored.get(span_id, {}))
            for span, span_id in zip(spans, ids, strict=True)
            if self._needs_scoring(span_id, stored.get(span_id), current)
        ]
        run = self._score(to_score, stored) if to_score else None
        scored_now = {_span_id(span) for span, _ in to_score}
        self._log(ids, current, after(stored, run), scored_now)
        # the page's batch tensors were freed into a heap its long-lived small objects (HTTP replies, store
        # rows) pin: untrimmed, RSS grew ~7 MB per 25-span page with flat object counts (core/heap.py)
        release_freed_memory()

    def _needs_scoring(
        self, span_id: str, mine: dict[str, StoredResult] | None, current: Mapping[str, set[str]]
    ) -> bool:
        """A span never evaluated, or one whose judge failed (only the judge fails transiently: an outage;
        a BERTScore input error would fail again); counts the spans already done (all current)."""
        judge = self.job.config.judge
        if mine is None:
            done = span_id in current
        else:
            if (
                judge is not None
                and judge.name in mine
                and missing(mine[judge.name], judge.name, self.job.config)
            ):
                return True
            done = all(name in current.get(span_id, ()) for name in mine)
        self.job.report.already_done += done
        return mine is None and not done

    def _score(self, work: Work, stored: Mapping[str, Mapping[str, StoredResult]]) -> StoredRun | None:
        from bertscore_plugins.evaluation.pipeline import PassOptions, evaluate_stored

        job = self.job
        started = time.perf_counter()
        documents = trace_documents(job.client, job.project, [str(s["context"]["trace_id"]) for s, _ in work])
        job.timed("read", started)
        rows = []
        for span, mine in work:
            trace = documents.get(str(span["context"]["trace_id"]), [])
            row = span_row(span, trace, job.reference_of(span), mine, job.config, job.report.skipped)
            if row is not None:
                rows.append(row)
        if not rows:
            return None
        started = time.perf_counter()
        # stored as computed, before anything is sent: an outage loses nothing; from the page's read
        run = evaluate_stored(
            rows,
            job.config,
            job.store,
            job.configuration,
            scorer=job.scorer,
            options=PassOptions(progress=False),
            stored=stored,
        )
        for part, seconds in run.seconds.items():
            job.report.seconds[part] += seconds
        job.timed("store", started + sum(run.seconds.values()))
        self._record(run)
        return run

    def _record(self, run: StoredRun) -> None:
        report = self.job.report
        for _, name, cell, failure in run.fresh:
            if cell is not None:
                report.results[name] += 1
            else:
                report.failed[f"{name}: {_short(failure or '')}"] += 1
        report.evaluated += len({row_id for row_id, _, cell, _ in run.fresh if cell is not None})
        for key in ("judged", "saved"):
            calls = run.triage.get(key, 0)
            report.judge_calls[key] += (
                calls if isinstance(calls, int) and run.triage.get("mode") != "none" else 0
            )

    def _log(
        self,
        ids: Sequence[str],
        current: Mapping[str, set[str]],
        stored: Mapping[str, Mapping[str, StoredResult]],
        scored_now: set[str],
    ) -> None:
        """Send every stored result of this configuration that is not Phoenix's current one: new
        results, those an outage kept back, and those another configuration replaced since."""
        job = self.job
        pending: list[SpanAnnotationData] = []
        already: list[tuple[str, str]] = []
        for span_id in ids:
            for name, result in stored.get(span_id, {}).items():
                if result.cell is None:
                    continue
                if name in current.get(span_id, ()) and (result.logged or span_id not in scored_now):
                    if not result.logged:
                        already.append((span_id, name))  # logged before a crash could mark it
                    continue
                pending.append(span_annotation(span_id, result.cell, job.annotating))
        if already:
            job.store.mark_logged(job.configuration, already)
        for start in range(0, len(pending), job.settings.log_batch_size):
            self._send(pending[start : start + job.settings.log_batch_size], scored_now)

    def _send(self, chunk: list[SpanAnnotationData], scored_now: set[str]) -> None:
        job = self.job
        started = time.perf_counter()
        gateway.log_span_annotations(job.client, chunk)
        job.timed("write", started)
        started = time.perf_counter()
        job.store.mark_logged(job.configuration, [(a["span_id"], a["name"]) for a in chunk])
        job.timed("store", started)
        job.report.logged += len(chunk)
        job.report.logged_from_store += sum(1 for a in chunk if a["span_id"] not in scored_now)
        if job.on_progress is not None:
            job.on_progress(job.report)


def after(
    stored: Mapping[str, Mapping[str, StoredResult]], run: StoredRun | None
) -> dict[str, dict[str, StoredResult]]:
    """What the store holds for the page after ``run``: the page's read, with every result the run wrote
    (not logged yet) in place of the one read."""
    found = {span_id: dict(results) for span_id, results in stored.items()}
    if run is None:
        return found
    for span_id, name in run.written:
        cell = run.cell(span_id, name)
        failure = None if cell is not None else run.failures.get(span_id, {}).get(name)
        found.setdefault(span_id, {})[name] = StoredResult(name, cell, failure, logged=False)
    return found


def _short(reason: str) -> str:
    first = reason.split("\n", 1)[0]
    return first if len(first) <= 120 else first[:117] + "..."

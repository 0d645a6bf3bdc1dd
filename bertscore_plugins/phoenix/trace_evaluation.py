"""Evaluate the spans of an instrumented application in Phoenix, incrementally and resumably.

:func:`evaluate_project` reads a project's spans one page at a time, picks the spans to evaluate (the
root span of each trace by default, or spans of one OpenInference kind, optionally narrowed by a Phoenix
filter string), extracts question, answer, context and reference (:mod:`.spans`), scores each page in
one core batch per evaluator, stores the results locally (:mod:`.result_store`) and logs them as span
annotations. Each annotation's metadata carries the configuration's signature, so a re-run evaluates
only the spans without an annotation of this configuration and logs nothing twice; results computed
before an outage are logged by the next run instead of being recomputed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from openinference.semconv.trace import OpenInferenceSpanKindValues

from bertscore_plugins.config import SettingError, finite_number, refuse_idf_per_batch, whole_number
from bertscore_plugins.errors import ArgumentError, TraceEvaluationError

from .names import CONFIGURATION_KEY, DISAGREEMENT, FAITHFULNESS, GROUNDEDNESS, SIMILARITY
from .result_store import ResultStore, ResultStoreError, StoredResult
from .spans import (
    ROOT,
    SpanFields,
    extract_fields,
    lookup,
    matching_span_ids,
    reference_value,
    span_pages,
    trace_documents,
)

logger = logging.getLogger(__name__)

STORE_ENV_VAR = "BERTSCORE_PHOENIX_STORE"
DEFAULT_LOOKBACK = timedelta(minutes=10)
"""How far back each ``follow`` poll re-reads: a trace's root span is exported when the trace ends,
with the trace's start time, so a slow request shows up with a start time before the last poll."""


def default_store_path() -> Path:
    """``$BERTSCORE_PHOENIX_STORE``, else ``<cache>/bertscore_plugins/phoenix_results.sqlite``."""
    configured = os.environ.get(STORE_ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "bertscore_plugins" / "phoenix_results.sqlite"


@dataclass
class EvaluationReport:
    """What a run did. Counts are spans unless named otherwise; ``seconds`` splits the wall time."""

    project: str
    configuration: str
    spans_read: int = 0
    already_done: int = 0
    evaluated: int = 0
    results: Counter = field(default_factory=Counter)  # evaluator name -> results computed this run
    logged: int = 0  # annotations Phoenix accepted this run
    logged_from_store: int = 0  # ... of which an earlier run had computed
    skipped: Counter = field(default_factory=Counter)  # "evaluator: reason" -> spans
    failed: Counter = field(default_factory=Counter)  # "evaluator: reason" -> spans (retried next run)
    seconds: dict[str, float] = field(
        default_factory=lambda: {"read": 0.0, "score": 0.0, "judge": 0.0, "store": 0.0, "write": 0.0}
    )
    polls: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "configuration": self.configuration,
            "spans_read": self.spans_read,
            "already_done": self.already_done,
            "evaluated": self.evaluated,
            "results": dict(self.results),
            "logged": self.logged,
            "logged_from_store": self.logged_from_store,
            "skipped": dict(self.skipped),
            "failed": dict(self.failed),
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "polls": self.polls,
        }

    def summary(self) -> str:
        """A few lines for people: counts, then each skip/failure reason."""
        lines = [
            (
                f"project {self.project!r}, configuration {self.configuration}: read {self.spans_read} "
                f"spans, {self.already_done} already evaluated, evaluated {self.evaluated}, "
                f"logged {self.logged} annotations ({self.logged_from_store} from the local store)"
            )
        ]
        if self.results:
            lines.append("  results: " + ", ".join(f"{n} {c}" for n, c in sorted(self.results.items())))
        for title, counts in (("skipped", self.skipped), ("failed (retried next run)", self.failed)):
            for reason, count in sorted(counts.items()):
                lines.append(f"  {title}: {count} span(s): {reason}")
        total = sum(self.seconds.values()) or 1.0
        lines.append(
            "  time: " + ", ".join(f"{k} {v:.1f} s ({100 * v / total:.0f}%)" for k, v in self.seconds.items())
        )
        return "\n".join(lines)


def configuration_signature(description: Mapping[str, Any]) -> str:
    """A short stable id of an evaluation configuration (what the annotations' metadata records)."""
    text = json.dumps(description, sort_keys=True, default=str)
    return "cfg-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """``"2h"``, ``"30m"``, ``"45s"``, ``"7d"`` (ago) or an ISO 8601 time; naive times are UTC.

    Raises:
        ValueError: anything else (the message says what is accepted).
    """
    now = now or datetime.now(timezone.utc)
    value = text.strip()
    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
    if value[-1:] in units and value[:-1].replace(".", "", 1).isdigit():
        try:
            return now - timedelta(**{units[value[-1]]: float(value[:-1])})
        except OverflowError:  # 1000000d reaches before year 1
            raise ArgumentError(
                f"--since {text!r} reaches back before the year 1; give a shorter duration"
            ) from None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise ArgumentError(
            f"--since must be a duration ago (30m, 2h, 7d) or an ISO time (2026-01-31T12:00), got {text!r}"
        ) from error
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _annotation(
    span_id: str, cell: Mapping[str, Any], configuration: str, description_key: str = CONFIGURATION_KEY
) -> dict[str, Any]:
    """A ``SpanAnnotationData`` dict from a ``Score.to_dict()`` cell."""
    metadata = dict(cell.get("metadata") or {})
    if cell.get("direction"):
        metadata["direction"] = cell["direction"]
    metadata[description_key] = configuration
    result = {k: cell[k] for k in ("label", "score", "explanation") if cell.get(k) is not None}
    # Round-trip through JSON so the store and the server see the same (plain) values.
    return json.loads(
        json.dumps(
            {
                "name": cell["name"],
                "span_id": span_id,
                "annotator_kind": "LLM" if cell.get("kind") == "llm" else "CODE",
                "result": result,
                "metadata": metadata,
            },
            default=str,
        )
    )


def _finite_score(cell: Any) -> bool:
    if not isinstance(cell, Mapping):
        return False
    value = cell.get("score")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass
class _Plan:
    """One span's work in this page: which evaluators to run."""

    fields: SpanFields
    wanted: set[str]
    stored: dict[str, StoredResult]


class _Run:
    """One configuration against one project: holds the evaluators, the store and the report."""

    def __init__(
        self,
        client: Any,
        project: str,
        store: ResultStore,
        report: EvaluationReport,
        *,
        span_kind: str,
        where: str | None,
        reference_of: Callable[[Mapping[str, Any]], Any],
        similarity: Any,
        groundedness: Any,
        judge: Any,
        judge_concurrency: int,
        thresholds: Any,
        page_size: int,
        log_batch_size: int,
        on_progress: Callable[[EvaluationReport], None] | None,
    ) -> None:
        self.client, self.project, self.store, self.report = client, project, store, report
        self.span_kind, self.where, self.reference_of = span_kind, where, reference_of
        self.similarity, self.groundedness, self.judge = similarity, groundedness, judge
        self.judge_concurrency, self.thresholds = judge_concurrency, thresholds
        self.page_size, self.log_batch_size, self.on_progress = page_size, log_batch_size, on_progress
        self.configuration = report.configuration
        self.faithfulness_name = judge.name if judge is not None else groundedness.name
        self.names = [similarity.name, groundedness.name, DISAGREEMENT]
        if judge is not None:
            self.names.insert(2, judge.name)

    # -- reading -----------------------------------------------------------------------------------

    def _timed(self, part: str, started: float) -> None:
        self.report.seconds[part] += time.perf_counter() - started

    def pages(self, since: datetime | None) -> Iterable[list[dict[str, Any]]]:
        wanted_ids = None
        if self.where:
            started = time.perf_counter()
            wanted_ids = matching_span_ids(self.client, self.project, self.where, since=since)
            self._timed("read", started)
        kind = None if self.span_kind == ROOT else self.span_kind
        iterator = iter(
            span_pages(
                self.client,
                self.project,
                page_size=self.page_size,
                since=since,
                span_kind=kind,
                roots_only=self.span_kind == ROOT,
            )
        )
        while True:
            started = time.perf_counter()
            page = next(iterator, None)
            self._timed("read", started)
            if page is None:
                return
            if wanted_ids is not None:
                page = [s for s in page if str((s.get("context") or {}).get("span_id")) in wanted_ids]
            if page:
                yield page

    def _on_server(self, span_ids: Sequence[str]) -> dict[str, set[str]]:
        """``{span_id: names}`` of the annotations Phoenix holds for this configuration."""
        found: dict[str, set[str]] = {}
        for annotation in self.client.spans.get_span_annotations(
            span_ids=list(span_ids), project_identifier=self.project, include_annotation_names=self.names
        ):
            if (annotation.get("metadata") or {}).get(CONFIGURATION_KEY) == self.configuration:
                found.setdefault(annotation["span_id"], set()).add(annotation["name"])
        return found

    # -- one page ----------------------------------------------------------------------------------

    def page(self, spans: list[dict[str, Any]]) -> None:
        report = self.report
        ids = [str((s.get("context") or {}).get("span_id")) for s in spans]
        report.spans_read += len(spans)
        started = time.perf_counter()
        on_server = self._on_server(ids)
        self._timed("read", started)
        started = time.perf_counter()
        stored = self.store.results(self.configuration, ids)
        self._timed("store", started)

        to_score: list[tuple[dict[str, Any], dict[str, StoredResult]]] = []
        for span, span_id in zip(spans, ids, strict=True):
            mine = stored.get(span_id)
            if mine is None:
                if span_id in on_server:
                    report.already_done += 1
                else:
                    to_score.append((span, {}))
                continue
            # Only the judge fails transiently (an outage); BERTScore input errors would fail again.
            judged = mine.get(self.judge.name) if self.judge is not None else None
            retry = judged is not None and judged.annotation is None
            if retry:
                to_score.append((span, mine))
            elif all(r.logged or r.name in on_server.get(span_id, ()) for r in mine.values()):
                report.already_done += 1
        if to_score:
            self._score(to_score)
        self._log(ids, on_server, scored_now={s["context"]["span_id"] for s, _ in to_score})
        release_freed_memory()

    def _plans(self, work: list[tuple[dict[str, Any], dict[str, StoredResult]]]) -> list[_Plan]:
        started = time.perf_counter()
        trace_ids = [str(span["context"]["trace_id"]) for span, _ in work]
        documents = trace_documents(self.client, self.project, trace_ids)
        self._timed("read", started)
        plans = []
        skipped = self.report.skipped
        for span, mine in work:
            reference, not_a_reference = reference_value(self.reference_of(span))
            fields = extract_fields(span, documents.get(str(span["context"]["trace_id"]), ()), reference)
            if fields.output is None:
                skipped[
                    f"span: output {fields.output_problem}" if fields.output_problem else "span: no output"
                ] += 1
                continue
            done = {name for name, r in mine.items() if r.annotation is not None}
            wanted: set[str] = set()
            retry = bool(mine)
            if fields.context is None:
                if not retry:
                    skipped[f"{self.groundedness.name}: no context"] += 1
            else:
                wanted.add(self.groundedness.name)
            if fields.reference is None:
                if not retry:
                    why = f"reference {not_a_reference}" if not_a_reference else "no reference"
                    skipped[f"{self.similarity.name}: {why}"] += 1
            else:
                wanted.add(self.similarity.name)
            if self.judge is not None:
                if fields.context is None or fields.input is None:
                    if not retry:
                        missing = "no context" if fields.context is None else "no input"
                        skipped[f"{self.judge.name}: {missing}"] += 1
                else:
                    wanted.add(self.judge.name)
            if self.similarity.name in wanted and self.faithfulness_name in wanted:
                wanted.add(DISAGREEMENT)
            wanted -= done
            if not wanted:
                if not mine:
                    skipped["span: nothing to evaluate (no context and no reference)"] += 1
                continue
            plans.append(_Plan(fields, wanted, mine))
        return plans

    def _score(self, work: list[tuple[dict[str, Any], dict[str, StoredResult]]]) -> None:
        import pandas as pd

        from .evaluators import score_dataframe
        from .judge import run_judge

        plans = self._plans(work)
        if not plans:
            return
        cells: dict[str, dict[str, Any]] = {p.fields.span_id: {} for p in plans}
        failures: dict[str, dict[str, str]] = {p.fields.span_id: {} for p in plans}

        started = time.perf_counter()
        for evaluator, source in ((self.groundedness, "context"), (self.similarity, "reference")):
            chosen = [p for p in plans if evaluator.name in p.wanted]
            if not chosen:
                continue
            frame = pd.DataFrame(
                {
                    "output": [p.fields.output for p in chosen],
                    source: [
                        list(value) if isinstance(value := getattr(p.fields, source), tuple) else value
                        for p in chosen
                    ],
                },
                index=[p.fields.span_id for p in chosen],  # a warning about a row names its span
            )
            result = score_dataframe(frame, evaluator, exit_on_error=False, progress=False)
            for plan, cell, details in zip(
                chosen,
                result[f"{evaluator.name}_score"],
                result[f"{evaluator.name}_execution_details"],
                strict=True,
            ):
                if cell is None:
                    failures[plan.fields.span_id][evaluator.name] = "; ".join(details["exceptions"])
                else:
                    cells[plan.fields.span_id][evaluator.name] = cell
        self._timed("score", started)

        if self.judge is not None:
            chosen = [p for p in plans if self.judge.name in p.wanted]
            if chosen:
                started = time.perf_counter()
                frame = pd.DataFrame(
                    {
                        "input": [p.fields.input for p in chosen],
                        "output": [p.fields.output for p in chosen],
                        "context": ["\n\n".join(p.fields.context or ()) for p in chosen],
                    }
                )
                judged = run_judge(frame, judge=self.judge, concurrency=self.judge_concurrency)
                name = self.judge.name
                for plan, cell, details in zip(
                    chosen, judged[f"{name}_score"], judged[f"{name}_execution_details"], strict=True
                ):
                    if _finite_score(cell):
                        cells[plan.fields.span_id][name] = cell
                    else:
                        reason = "; ".join((details or {}).get("exceptions") or []) or "no verdict"
                        failures[plan.fields.span_id][name] = reason[:500]
                self._timed("judge", started)

        from .disagreement import disagreement_score

        for plan in plans:
            if DISAGREEMENT not in plan.wanted:
                continue
            span_cells = cells[plan.fields.span_id]

            def side(name: str, plan: _Plan = plan, span_cells: dict[str, Any] = span_cells) -> Any:
                if name in span_cells:
                    return span_cells[name]
                stored = plan.stored.get(name)
                return _cell_of(stored.annotation) if stored and stored.annotation else None

            sim, faith = side(self.similarity.name), side(self.faithfulness_name)
            if _finite_score(sim) and _finite_score(faith):
                span_cells[DISAGREEMENT] = disagreement_score(
                    sim, faith, self.thresholds, name=DISAGREEMENT
                ).to_dict()
            # else: the judge failed; the disagreement waits for the retry

        entries = []
        for plan in plans:
            span_id = plan.fields.span_id
            for name, cell in cells[span_id].items():
                entries.append((span_id, name, _annotation(span_id, cell, self.configuration), None))
                self.report.results[name] += 1
            for name, reason in failures[span_id].items():
                entries.append((span_id, name, None, reason))
                self.report.failed[f"{name}: {_short(reason)}"] += 1
        self.report.evaluated += sum(1 for p in plans if cells[p.fields.span_id])
        started = time.perf_counter()
        self.store.put(self.configuration, entries)  # before anything is sent: an outage loses nothing
        self._timed("store", started)

    def _log(self, ids: Sequence[str], on_server: Mapping[str, set[str]], scored_now: set[str]) -> None:
        started = time.perf_counter()
        stored = self.store.results(self.configuration, ids)
        self._timed("store", started)
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
            self.store.mark_logged(self.configuration, already)
        for start in range(0, len(pending), self.log_batch_size):
            chunk = pending[start : start + self.log_batch_size]
            started = time.perf_counter()
            self.client.spans.log_span_annotations(span_annotations=chunk, sync=True)
            self._timed("write", started)
            started = time.perf_counter()
            self.store.mark_logged(self.configuration, [(a["span_id"], a["name"]) for a in chunk])
            self._timed("store", started)
            self.report.logged += len(chunk)
            self.report.logged_from_store += sum(1 for a in chunk if a["span_id"] not in scored_now)
            if self.on_progress is not None:
                self.on_progress(self.report)


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


def _cell_of(annotation: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Score.to_dict()``-shaped cell of a stored annotation (for the disagreement step)."""
    result = annotation.get("result") or {}
    return {
        "name": annotation["name"],
        "score": result.get("score"),
        "label": result.get("label"),
        "explanation": result.get("explanation"),
        "metadata": annotation.get("metadata") or {},
    }


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
    client: Any = None,
    base_url: str | None = None,
    span_kind: str = ROOT,
    where: str | None = None,
    since: datetime | None = None,
    reference_key: str | None = None,
    reference_dataset: str | None = None,
    example_id_key: str = "metadata.example_id",
    reference_field: str | None = None,
    llm: Any = None,
    judge: Any = None,
    similarity_threshold: float | None = None,
    groundedness_threshold: float | None = None,
    judge_concurrency: int = 4,
    store: str | Path | ResultStore | None = None,
    page_size: int = 500,
    log_batch_size: int = 100,
    follow: bool = False,
    interval: float = 30.0,
    lookback: timedelta = DEFAULT_LOOKBACK,
    max_polls: int | None = None,
    on_progress: Callable[[EvaluationReport], None] | None = None,
    on_poll: Callable[[EvaluationReport], None] | None = None,
    scorer: Any = None,
    **core_settings: Any,
) -> EvaluationReport:
    """Annotate the spans of Phoenix project ``project`` with similarity, groundedness and faithfulness.

    Per selected span: groundedness (BERTScore precision of the output against the context) whenever
    there is a context; similarity (BERTScore F1 against the reference) when there is a reference;
    Phoenix's ``FaithfulnessEvaluator`` when ``llm``/``judge`` is given; the disagreement label when
    similarity and a faithfulness signal (the judge, else groundedness) both exist. Spans lacking what
    an evaluator needs are counted by reason in the report.

    Args:
        project: project name or id.
        client: a ``phoenix.client.Client``; default ``Client(base_url=base_url)``.
        span_kind: "root" (the root span of each trace) or an OpenInference span kind ("LLM", ...).
        where: a Phoenix filter string (``span_kind == 'LLM' and ...``) narrowing the selection.
        since: only spans that started at or after this time.
        reference_key: where the reference is: ``metadata.<key>`` or a span attribute name.
        reference_dataset: a Phoenix dataset whose examples' expected output is the reference, joined by
            the example id read from the span at ``example_id_key``; ``reference_field`` names the
            output key (default: the only key).
        llm, judge: a Phoenix ``LLM`` for the faithfulness judge, or a ready judge evaluator.
        similarity_threshold, groundedness_threshold: label cuts (package defaults when None).
        judge_concurrency: judge requests in flight.
        store: the local result store (path or :class:`ResultStore`); default :func:`default_store_path`.
        page_size: spans read (and scored) per page; memory is bounded by it.
        log_batch_size: annotations per logging request.
        follow: keep polling every ``interval`` seconds (re-reading ``lookback`` before each poll's
            start) until KeyboardInterrupt or ``max_polls``.
        on_progress: called with the report after each logged batch; on_poll: after each poll.
        scorer, **core_settings: the core scorer, or settings for ``get_scorer`` (``long_text`` defaults
            to "window" here, so a context longer than the model's window is read whole).

    Returns:
        The :class:`EvaluationReport` (accumulated over polls when following).

    Raises:
        TraceEvaluationError: Phoenix failed mid-run (not when following: then the next poll retries);
            what was computed is in the store and the next run logs it without rescoring.
        SettingError: a bad setting, or a project the server does not have (not when following: then
            it waits for the project's first traces); a ValueError naming it.
        ResultStoreError: the store file cannot be used (damaged, foreign, unwritable); an OSError.
    """
    import httpx

    from .disagreement import Thresholds
    from .evaluators import DEFAULT_SIMILARITY_THRESHOLD, BERTScoreEvaluator
    from .groundedness import DEFAULT_GROUNDEDNESS_THRESHOLD, GroundednessEvaluator
    from .judge import faithfulness_evaluator
    from .pipeline import FAITHFUL_CUT
    from .span_annotations import ensure_annotation_configs

    span_kind = _check_settings(
        span_kind=span_kind,
        similarity_threshold=similarity_threshold,
        groundedness_threshold=groundedness_threshold,
        counts={
            "page_size": page_size,
            "log_batch_size": log_batch_size,
            "judge_concurrency": judge_concurrency,
            **({} if max_polls is None else {"max_polls": max_polls}),
        },
        interval=interval,
    )
    if reference_key and reference_dataset:
        raise ArgumentError("give reference_key= or reference_dataset=, not both")
    if client is None:
        from phoenix.client import Client

        client = Client(base_url=base_url) if base_url else Client()
    from bertscore_plugins.scorer import resolve_scorer

    # A retrieved context is usually longer than the model's window; truncating it would call an
    # answer drawn from its later passages ungrounded. Windows read every token (not bert_score's way,
    # which no trace evaluation has to match).
    window = {"long_text": "window"} if scorer is None else {}
    scorer = resolve_scorer(scorer, {**window, **core_settings})
    refuse_idf_per_batch(
        getattr(scorer, "config", None),
        "page of spans",
        "fit it once (bertscore_plugins.fit_idf(texts)) and pass the IdfTable as idf=",
    )
    sim_cut = DEFAULT_SIMILARITY_THRESHOLD if similarity_threshold is None else similarity_threshold
    ground_cut = DEFAULT_GROUNDEDNESS_THRESHOLD if groundedness_threshold is None else groundedness_threshold
    similarity = BERTScoreEvaluator(sim_cut, name=SIMILARITY, scorer=scorer)
    groundedness = GroundednessEvaluator(ground_cut, name=GROUNDEDNESS, scorer=scorer)
    if judge is None and llm is not None:
        judge = faithfulness_evaluator(llm)
    thresholds = Thresholds(
        similarity=sim_cut, faithfulness=FAITHFUL_CUT if judge is not None else ground_cut
    )

    references: dict[str, str] | None = None
    if reference_dataset:
        references = _dataset_references(client, reference_dataset, reference_field)

    def reference_of(span: Mapping[str, Any]) -> Any:
        if reference_key:
            return lookup(span, reference_key)
        if references is not None:
            example_id = lookup(span, example_id_key)
            return None if example_id is None else references.get(str(example_id))
        return None

    judge_model = None
    if judge is not None:
        inner_llm = getattr(judge, "llm", None) or getattr(getattr(judge, "evaluator", None), "llm", None)
        judge_model = f"{getattr(inner_llm, 'provider', '?')}/{getattr(inner_llm, 'model', '?')}"
    configuration = configuration_signature(
        {
            "scorer": scorer.signature,
            "similarity": [SIMILARITY, sim_cut],
            "groundedness": [GROUNDEDNESS, ground_cut],
            "judge": [getattr(judge, "name", FAITHFULNESS), judge_model] if judge is not None else None,
            "disagreement": [DISAGREEMENT, thresholds.similarity, thresholds.faithfulness],
            "reference": reference_key
            or (
                f"dataset:{reference_dataset}:{example_id_key}:{reference_field}"
                if reference_dataset
                else None
            ),
        }
    )
    report = EvaluationReport(project=project, configuration=configuration)
    owned = not isinstance(store, ResultStore)
    result_store = store if isinstance(store, ResultStore) else ResultStore(store or default_store_path())
    run = _Run(
        client,
        project,
        result_store,
        report,
        span_kind=span_kind,
        where=where,
        reference_of=reference_of,
        similarity=similarity,
        groundedness=groundedness,
        judge=judge,
        judge_concurrency=judge_concurrency,
        thresholds=thresholds,
        page_size=page_size,
        log_batch_size=log_batch_size,
        on_progress=on_progress,
    )
    configs_ready = reached = False
    try:
        poll_since = since
        while True:
            poll_started = datetime.now(timezone.utc)
            try:
                if not configs_ready:
                    exists = _project_exists(client, project)
                    reached = True
                    if exists:
                        # Types, labels and directions for the UI, attached to the project.
                        ensure_annotation_configs(client, project=project)
                        configs_ready = True
                    elif not follow:
                        raise SettingError(
                            "project",
                            f"Phoenix at {_base_url(client)} has no project {project!r} "
                            f"(it has {_project_names(client)})",
                        )
                    elif report.polls == 0:
                        logger.warning("no project %r yet; waiting for its first traces", project)
                if configs_ready:
                    for page in run.pages(poll_since):
                        run.page(page)
            except ResultStoreError:
                raise  # the local file, not Phoenix: retrying would not help
            except (httpx.HTTPError, OSError) as error:
                if not follow and not reached:
                    raise TraceEvaluationError(
                        f"Phoenix at {_base_url(client)} failed the first request ({type(error).__name__}: "
                        f"{error}); is it running there? (--base-url, PHOENIX_COLLECTOR_ENDPOINT)"
                    ) from error
                if not follow:
                    raise TraceEvaluationError(
                        f"Phoenix failed during the run ({type(error).__name__}: {error}); "
                        f"{result_store.count(configuration)} results of this configuration are in "
                        f"{result_store.path}: run again to log them without rescoring"
                    ) from error
                logger.warning("Phoenix unreachable (%s); retrying in %g s", error, interval)
            report.polls += 1
            if on_poll is not None:
                on_poll(report)
            if not follow or (max_polls is not None and report.polls >= max_polls):
                return report
            window_start = poll_started - max(lookback, timedelta(seconds=2 * interval))
            poll_since = window_start if since is None else max(since, window_start)
            time.sleep(interval)
    finally:
        if owned:
            result_store.close()


def _base_url(client: Any) -> str:
    return str(getattr(getattr(client, "_client", None), "base_url", "") or "the configured URL")


def _check_settings(
    *,
    span_kind: Any,
    similarity_threshold: Any,
    groundedness_threshold: Any,
    counts: Mapping[str, Any],
    interval: Any,
) -> str:
    """Refuse a setting that would poll, select or label wrongly; returns the span kind as Phoenix spells it."""
    from .evaluators import check_cut

    kinds = [kind.value for kind in OpenInferenceSpanKindValues]
    kind = span_kind.strip() if isinstance(span_kind, str) else span_kind
    if kind != ROOT and (not isinstance(kind, str) or kind.upper() not in kinds):
        raise SettingError(
            "span_kind",
            f"span_kind must be {ROOT!r} or an OpenInference span kind {kinds}, got {span_kind!r}",
        )
    for name, cut in (
        ("similarity_threshold", similarity_threshold),
        ("groundedness_threshold", groundedness_threshold),
    ):
        if cut is not None:
            check_cut(name, cut)
    for name, count in counts.items():
        whole_number(name, count, 1, "a whole number of at least 1")
    finite_number("interval", interval, "a positive number of seconds", above=0.0)
    return kind if kind == ROOT else kind.upper()


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

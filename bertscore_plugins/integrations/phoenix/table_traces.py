"""Rows of a table as Phoenix traces: one CHAIN root span per row with a RETRIEVER child for its context.

For a table that never ran in an instrumented application (the disagreement recipe's input), so its
scores can hang on spans like a live application's. Sending is repeatable: each row's trace and span ids
are derived from the run key and the row id, and rows whose root span the server already holds are not
sent again (a server that lost them gets them again). :mod:`.run_logging` sends the rest of a run.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import httpx
import pandas as pd

from bertscore_plugins.errors import PhoenixServerError

if TYPE_CHECKING:
    from bertscore_plugins.integrations.phoenix.gateway import PhoenixClient

TRACE_SERVICE_NAME = "bertscore-plugins-recipe"
ROOT_SPAN_NAME = "rag_answer"
RETRIEVER_SPAN_NAME = "retrieve"


def row_span_ids(run_key: str, row_id: str) -> tuple[str, str, str]:
    """Deterministic (trace id, root span id, retriever span id) in hex for one row of one run."""
    digest = hashlib.sha256(f"{run_key}\0{row_id}".encode()).hexdigest()
    trace_id, root_id, retriever_id = digest[:32], digest[32:48], digest[48:64]
    # OpenTelemetry treats all-zero ids as invalid; astronomically unlikely, but cheap to rule out.
    if int(trace_id, 16) == 0 or int(root_id, 16) == 0 or int(retriever_id, 16) == 0:
        return row_span_ids(run_key + "'", row_id)
    return trace_id, root_id, retriever_id


def with_span_ids(table: pd.DataFrame, run_key: str) -> pd.DataFrame:
    """A copy with ``trace_id``, ``span_id`` and ``retriever_span_id`` columns derived from ``run_key``
    (the run and the project: Phoenix keeps span ids unique across projects) and each row's id."""
    ids = [row_span_ids(run_key, str(row_id)) for row_id in table["row_id"]]
    table = table.copy()
    table["trace_id"], table["span_id"], table["retriever_span_id"] = (
        list(col) for col in zip(*ids, strict=True)
    )
    return table


def check_server(base_url: str, timeout: float = 5.0) -> str:
    """Return the server's version, or raise :class:`~bertscore_plugins.errors.PhoenixServerError` with what to do."""
    try:
        health = httpx.get(f"{base_url}/healthz", timeout=timeout)
        health.raise_for_status()
        version = httpx.get(f"{base_url}/arize_phoenix_version", timeout=timeout)
        return version.text.strip() if version.status_code == 200 else "unknown"
    except httpx.HTTPError as error:
        raise PhoenixServerError(
            f"no Phoenix server answers at {base_url} ({type(error).__name__}: {error}). Start one "
            "(`bertscore-plugins phoenix serve`) or pass --phoenix-url; "
            "--no-phoenix skips logging."
        ) from error


def server_is_up(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/healthz", timeout=3.0).status_code == 200
    except httpx.HTTPError:
        return False


def _text(value: Any) -> str:
    return "\n\n".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def build_spans(table: pd.DataFrame, project: str) -> list[Any]:
    """One OpenInference trace per row: a CHAIN root span (question in, answer out, row id and case in
    metadata) with a RETRIEVER child holding the context passages. Ids come from the table's columns."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    class QueuedIds(IdGenerator):
        """Hands out the ids queued for the next spans (so each row keeps the ids stored in the table)."""

        def __init__(self) -> None:
            self.trace_ids: list[int] = []
            self.span_ids: list[int] = []

        def generate_trace_id(self) -> int:
            return self.trace_ids.pop(0)

        def generate_span_id(self) -> int:
            return self.span_ids.pop(0)

    class Collect(SpanExporter):
        def __init__(self) -> None:
            self.spans: list[Any] = []

        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            self.spans.extend(spans)
            return SpanExportResult.SUCCESS

    ids, collected = QueuedIds(), Collect()
    provider = TracerProvider(
        resource=Resource.create({"openinference.project.name": project, "service.name": TRACE_SERVICE_NAME}),
        id_generator=ids,
    )
    provider.add_span_processor(SimpleSpanProcessor(collected))
    tracer = provider.get_tracer(__name__)
    for record in table.to_dict(orient="records"):
        ids.trace_ids.append(int(record["trace_id"], 16))
        ids.span_ids += [int(record["span_id"], 16), int(record["retriever_span_id"], 16)]
        metadata = {"row_id": record["row_id"], "reference": _text(record["reference"])}
        if isinstance(record.get("case"), str):
            metadata["case"] = record["case"]
        with tracer.start_as_current_span(ROOT_SPAN_NAME) as root:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", _text(record["input"]))
            root.set_attribute("metadata", json.dumps(metadata, ensure_ascii=False))
            with tracer.start_as_current_span(RETRIEVER_SPAN_NAME) as retriever:
                retriever.set_attribute("openinference.span.kind", "RETRIEVER")
                retriever.set_attribute("input.value", _text(record["input"]))
                passages = record["context"] if isinstance(record["context"], list) else [record["context"]]
                for i, passage in enumerate(passages):
                    retriever.set_attribute(f"retrieval.documents.{i}.document.id", f"{record['row_id']}-{i}")
                    retriever.set_attribute(f"retrieval.documents.{i}.document.content", str(passage))
            root.set_attribute("output.value", _text(record["output"]))
    provider.shutdown()
    return collected.spans


def spans_on_server(
    client: PhoenixClient, project: str, span_ids: Sequence[str], chunk: int = 50
) -> set[str]:
    """Which of ``span_ids`` the server holds in ``project`` (an unknown project holds none)."""
    found: set[str] = set()
    for start in range(0, len(span_ids), chunk):
        part = list(span_ids[start : start + chunk])
        try:
            spans = client.spans.get_spans(
                project_identifier=project, span_ids=part, limit=len(part), timeout=30
            )
        except httpx.HTTPStatusError as error:
            if error.response.status_code == 404:  # the project does not exist yet
                return found
            raise
        found.update(span["context"]["span_id"] for span in spans)
    return found


def send_traces(
    client: PhoenixClient,
    base_url: str,
    table: pd.DataFrame,
    project: str,
    *,
    chunk: int = 200,
    wait_s: float = 60.0,
) -> int:
    """Send the traces of the rows whose root span the server lacks; wait until it has them all.

    Returns the number of rows sent. Raises :class:`~bertscore_plugins.errors.PhoenixServerError` when an export fails or the
    server does not show every root span within ``wait_s`` seconds (it writes spans asynchronously).
    """
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    expected = list(table["span_id"])
    present = spans_on_server(client, project, expected)
    missing = table[~table["span_id"].isin(present)]
    if missing.empty:
        return 0
    spans = build_spans(missing, project)
    exporter = OTLPSpanExporter(endpoint=f"{base_url}/v1/traces", timeout=10)
    try:
        for start in range(0, len(spans), chunk):
            if exporter.export(spans[start : start + chunk]) is not SpanExportResult.SUCCESS:
                raise PhoenixServerError(
                    f"Phoenix at {base_url} refused or did not take traces "
                    f"{start}..{min(start + chunk, len(spans)) - 1} of {len(spans)}"
                )
    finally:
        exporter.shutdown()
    deadline = time.monotonic() + wait_s
    wanted = list(missing["span_id"])
    while True:
        have = spans_on_server(client, project, wanted)
        if len(have) == len(wanted):
            return len(wanted)
        if time.monotonic() > deadline:
            raise PhoenixServerError(
                f"Phoenix at {base_url} shows {len(have)} of {len(wanted)} sent traces after {wait_s:.0f} s"
            )
        time.sleep(0.5)

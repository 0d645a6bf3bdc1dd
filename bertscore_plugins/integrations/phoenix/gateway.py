"""The only code that talks to a Phoenix server: every request of the Phoenix integration passes here.

It goes through ``phoenix.client``'s public API wherever that has a method. Three things it lacks, each
one function below, named for what it does and marked with the versions it was checked against
(arize-phoenix-client 3.5.0, server arize-phoenix 20.26.1):

- reading a project's spans one page at a time (``Spans.get_spans`` collects every page into one list,
  so a large project would be held whole): :func:`span_pages`;
- annotation configs (no wrapper at all): :func:`annotation_config_ids`, :func:`create_annotation_config`,
  :func:`attach_annotation_config`;
- the server address for messages: :func:`base_url_of`.

They use the client's configured ``httpx.Client`` (base URL, headers, API key), reached through the one
private attribute, in :func:`_http`. Upgrading ``phoenix.client``: re-check those functions (and only
those) and update the versions here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol
from urllib.parse import quote

from bertscore_plugins.errors import ArgumentError, PhoenixServerError
from bertscore_plugins.json_types import JSONValue

if TYPE_CHECKING:
    import httpx
    import pandas as pd
    from phoenix.client.__generated__.v1 import DatasetExample, Span, SpanAnnotation, SpanAnnotationData
    from phoenix.client.resources.datasets import Datasets
    from phoenix.client.resources.experiments import Experiments
    from phoenix.client.resources.projects import Projects
    from phoenix.client.resources.spans import Spans

CHECKED_CLIENT = "arize-phoenix-client 3.5.0"
CHECKED_SERVER = "arize-phoenix 20.26.1"


class PhoenixClient(Protocol):
    """What this package uses of ``phoenix.client.Client``: its resources, and the configured ``httpx.Client``
    behind them (the one private attribute read, :func:`_http`). A renamed resource is a type error here."""

    @property
    def spans(self) -> Spans: ...

    @property
    def projects(self) -> Projects: ...

    @property
    def datasets(self) -> Datasets: ...

    @property
    def experiments(self) -> Experiments: ...

    @property
    def _client(self) -> httpx.Client: ...


def connect(client: PhoenixClient | None = None, base_url: str | None = None) -> PhoenixClient:
    """``client`` itself, else a ``phoenix.client.Client`` for ``base_url`` (default: Phoenix's
    environment variables, then http://localhost:6006)."""
    if client is not None:
        return client
    from phoenix.client import Client

    return Client(base_url=base_url) if base_url else Client()


def _http(client: PhoenixClient) -> httpx.Client:
    # Private: `Client._client`, the configured httpx.Client (a property in arize-phoenix-client 3.5.0;
    # no public accessor). The only private attribute of phoenix.client this package reads.
    return client._client


# -- projects ---------------------------------------------------------------------------


def base_url_of(client: PhoenixClient) -> str:
    """The server address ``client`` talks to, for messages (no public accessor in client 3.5.0)."""
    try:
        return str(_http(client).base_url)
    except AttributeError:  # a client of another kind
        return "the configured URL"


def project_exists(client: PhoenixClient, project: str) -> bool:
    """Whether the server has a project of that name or id (``Projects.get``; 404 means no)."""
    import httpx

    try:
        client.projects.get(project_name=project)  # the path takes a name or an id
    except httpx.HTTPStatusError as error:
        if error.response.status_code == 404:
            return False
        raise
    return True


def project_names(client: PhoenixClient) -> list[str]:
    """The names of the server's projects (``Projects.list``)."""
    return [str(project.get("name")) for project in client.projects.list()]


def project_id(client: PhoenixClient, project_name: str) -> str:
    """The id Phoenix's UI uses in project URLs."""
    return client.projects.get(project_name=project_name)["id"]


# -- spans -------------------------------------------------------------------------------------------


def span_pages(
    client: PhoenixClient,
    project: str,
    *,
    page_size: int = 500,
    since: datetime | None = None,
    span_kind: str | Sequence[str] | None = None,
    roots_only: bool = False,
    trace_ids: Sequence[str] | None = None,
) -> Iterator[list[Span]]:
    """The project's spans, ``page_size`` at a time, each page yielded as it arrives (bounded memory).

    Route ``GET /v1/projects/{project}/spans`` with its cursor (server 20.26.1): client 3.5.0's
    ``Spans.get_spans`` collects every page into one list and does not expose the cursor.

    Raises:
        httpx.HTTPError: the server cannot be reached or answers with an error.
    """
    params: dict[str, str | int | list[str]] = {"limit": page_size}
    if since is not None:
        params["start_time"] = since.isoformat()
    if span_kind:
        params["span_kind"] = [span_kind] if isinstance(span_kind, str) else list(span_kind)
    if roots_only:
        params["parent_id"] = "null"
    if trace_ids:
        params["trace_id"] = list(trace_ids)
    http = _http(client)
    while True:
        reply = http.get(
            f"v1/projects/{quote(project, safe='')}/spans",
            params=params,
            headers={"accept": "application/json"},
        )
        reply.raise_for_status()
        body = reply.json()
        spans = body.get("data") or []
        if spans:
            yield spans
        params["cursor"] = body.get("next_cursor")
        if not params["cursor"] or not spans:
            return


def matching_span_ids(
    client: PhoenixClient, project: str, where: str, *, since: datetime | None = None
) -> set[str]:
    """Ids of the spans matching a Phoenix filter string (``Spans.get_spans_dataframe``; one narrow
    column travels, so this stays small for large projects).

    Raises:
        ArgumentError: the server rejected the filter (its message is kept).
    """
    import httpx
    from phoenix.client.types.spans import SpanQuery

    try:
        frame = client.spans.get_spans_dataframe(
            query=SpanQuery().where(where).select("name"),
            project_identifier=project,
            start_time=since,
            limit=100_000_000,
        )
    except httpx.HTTPStatusError as error:
        if error.response.status_code in (400, 422):
            raise ArgumentError(f"Phoenix rejected the filter {where!r}: {error.response.text}") from error
        raise
    return set() if frame is None else {str(span_id) for span_id in frame.index}


# -- span annotations (public API) -------------------------------------------------------------------


def span_annotations(
    client: PhoenixClient, project: str, span_ids: Iterable[str], names: Sequence[str]
) -> list[SpanAnnotation]:
    """The annotations named ``names`` on those spans, every identifier (``Spans.get_span_annotations``)."""
    found = client.spans.get_span_annotations(
        span_ids=list(span_ids), project_identifier=project, include_annotation_names=list(names)
    )
    return list(found)


def log_span_annotations(client: PhoenixClient, annotations: Sequence[SpanAnnotationData]) -> None:
    """Write ``SpanAnnotationData`` dicts and wait for the server to store them (``sync=True``).

    The server upserts on (span, name, identifier): an annotation replaces the one it had there."""
    client.spans.log_span_annotations(span_annotations=list(annotations), sync=True)


def log_span_annotation_frame(client: PhoenixClient, frame: pd.DataFrame) -> None:
    """``log_span_annotations`` for a ``to_annotation_dataframe`` frame (same upsert)."""
    client.spans.log_span_annotations_dataframe(dataframe=frame, sync=True)


# -- annotation configs (REST routes only; server 20.26.1, no method in client 3.5.0) ----------------


def annotation_config_ids(client: PhoenixClient) -> dict[str, str]:
    """``{name: id}`` of the server's annotation configs (``GET /v1/annotation_configs``)."""
    reply = _http(client).get("v1/annotation_configs", params={"limit": 1000})
    reply.raise_for_status()
    return {item["name"]: item["id"] for item in reply.json().get("data", [])}


def create_annotation_config(client: PhoenixClient, config: Mapping[str, JSONValue]) -> str:
    """Create one annotation config; returns its id (``POST /v1/annotation_configs``). Another writer that
    created the same name meanwhile (HTTP 409) is not a failure: that config's id is returned.

    Raises:
        PhoenixServerError: the server refused it (its answer is kept).
    """
    created = _http(client).post("v1/annotation_configs", json=dict(config))
    if created.status_code == 409:
        taken = annotation_config_ids(client).get(str(config.get("name")))
        if taken is not None:
            return taken
    if created.status_code >= 400:
        raise PhoenixServerError(
            f"creating annotation config {config.get('name')!r} failed: {created.status_code} {created.text}"
        )
    return created.json()["data"]["id"]


def attach_annotation_config(client: PhoenixClient, project: str, config_id: str) -> str | None:
    """Show a config in a project's spans table (``PUT /v1/projects/{p}/annotation_configs/{id}``);
    None when done, else the server's answer."""
    reply = _http(client).put(
        f"v1/projects/{quote(project, safe='')}/annotation_configs/{quote(config_id, safe='')}"
    )
    return reply.text if reply.status_code >= 400 else None


# -- datasets (public API) ---------------------------------------------------------------------------


def dataset_examples(client: PhoenixClient, dataset: str) -> list[DatasetExample]:
    """The examples of a Phoenix dataset (``Datasets.get_dataset``)."""
    return list(client.datasets.get_dataset(dataset=dataset).examples)

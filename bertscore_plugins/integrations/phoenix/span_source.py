"""A project's spans as OpenInference says instrumentors write them: pages, selection, RAG fields.

Reading goes through :mod:`.gateway` one page at a time, so a project of any size is read in bounded
memory. Attribute names come from
``openinference.semconv.trace``; nothing here hand-types an attribute key.

What a span means for evaluation (:class:`SpanFields`):

- input: ``input.value`` (a root CHAIN span, or any span); for an LLM span whose ``input.value`` is the
  request JSON, the last ``user`` message of ``llm.input_messages``;
- output: ``output.value``; for an LLM span, the first ``llm.output_messages`` content; a value whose
  mime type is JSON (``{"output": "..."}`` from a chain) gives the text inside it;
- context: the ``document.content`` of every ``retrieval.documents`` entry of the trace's RETRIEVER
  spans, in start order; without a retriever, an LLM span's earlier input messages (system prompt and
  any message before the final question), which is where chat applications put the retrieved text;
- reference: a span attribute or ``metadata`` key the user names, or a Phoenix dataset example joined
  by an example id read the same way; a list of texts is several references (the best-matching counts),
  and a value that is no text (a dict, a list holding other things, NaN) is reported, never scored as
  its JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)

from bertscore_plugins.files import MAX_JSON_DEPTH, json_too_deep, value_too_deep
from bertscore_plugins.integrations.phoenix.gateway import span_pages

if TYPE_CHECKING:
    from bertscore_plugins.integrations.phoenix.gateway import PhoenixClient

ROOT = "root"
"""``span_kind`` value selecting the root span of each trace (the default)."""
LLM = OpenInferenceSpanKindValues.LLM.value
RETRIEVER = OpenInferenceSpanKindValues.RETRIEVER.value
METADATA_PREFIX = f"{SpanAttributes.METADATA}."
JSON = OpenInferenceMimeTypeValues.JSON.value
#: where chains put the text in a JSON input or output (LangChain: {"input": ...} -> {"output": ...})
TEXT_KEYS = ("output", "answer", "result", "response", "text", "content", "input", "question", "query")
_USER_ROLE = "user"


def _unflatten_get(attributes: Mapping[str, object], key: str) -> object:
    """``attributes[key]`` whether Phoenix returned the attributes flat (dotted keys) or nested."""
    if key in attributes:
        return attributes[key]
    node: object = attributes
    parts = key.split(".")
    position = 0
    while position < len(parts):
        if not isinstance(node, Mapping):
            return None
        # Prefer the longest dotted prefix present at this level ("document.content" inside a document).
        for end in range(len(parts), position, -1):
            candidate = ".".join(parts[position:end])
            if candidate in node:
                node = node[candidate]
                position = end
                break
        else:
            return None
    return node


def _tree(attributes: Mapping[str, object]) -> dict[str, object]:
    """Nested view of flat attributes: Phoenix's REST API returns every key flattened
    (``retrieval.documents.0.document.content``, ``metadata.reference``)."""
    tree: dict[str, object] = {}
    for key, value in attributes.items():
        node = tree
        parts = str(key).split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node.setdefault(parts[-1], value)
    return tree


def attribute(span: Mapping[str, object], key: str) -> object:
    """The value of attribute ``key`` (an OpenInference name) on a span as the REST API returns it:
    a flat key's value, or the nested structure under a prefix (``retrieval.documents``)."""
    attributes = span.get("attributes")
    if not isinstance(attributes, Mapping):  # none, or not the REST API's object: no attributes
        return None
    if key in attributes:
        return attributes[key]
    return _unflatten_get(_tree(attributes), key)


TOO_DEEP = f"nested deeper than {MAX_JSON_DEPTH} levels"


@dataclass(frozen=True)
class Unreadable:
    """A span value that cannot be read (JSON nested too deep); `reference_value` reports `why`."""

    why: str


def _metadata(span: Mapping[str, object]) -> Mapping[str, object] | Unreadable:
    value = attribute(span, SpanAttributes.METADATA)
    if isinstance(value, str):  # instrumentors write metadata as a JSON string
        if json_too_deep(value):  # json.loads would raise RecursionError and fail the whole page
            return Unreadable(f"metadata is JSON {TOO_DEEP}")
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {}
    return value if isinstance(value, Mapping) else {}


def lookup(span: Mapping[str, object], key: str) -> object:
    """A user-named value: ``metadata.<key>`` reads the span's metadata, anything else an attribute;
    an `Unreadable` (with the reason) when the metadata is JSON nested too deep to read."""
    if key.startswith(METADATA_PREFIX):
        metadata = _metadata(span)
        if isinstance(metadata, Unreadable):
            return metadata
        return _unflatten_get(metadata, key[len(METADATA_PREFIX) :])
    return attribute(span, key)


def _messages(span: Mapping[str, object], key: str) -> list[Mapping[str, object]]:
    value = attribute(span, key)
    if isinstance(value, Mapping):  # {"0": {...}, "1": {...}} when nested by position
        value = [value[k] for k in sorted(value, key=lambda k: int(k) if str(k).isdigit() else 0)]
    if not isinstance(value, list):
        return []
    messages: list[Mapping[str, object]] = []
    for item in value:
        if isinstance(item, Mapping):
            # Each entry is {"message.role": ..., "message.content": ...} or {"message": {...}}.
            messages.append(
                {
                    "role": _unflatten_get(item, MessageAttributes.MESSAGE_ROLE),
                    "content": _unflatten_get(item, MessageAttributes.MESSAGE_CONTENT),
                }
            )
    return messages


def _text(value: object, keep_blank: bool = False) -> str | None:
    """The value as text; None for no value, and for a blank text unless ``keep_blank`` (an answer the
    application gave as an empty string is an answer: it is labelled ``empty``, not skipped)."""
    if value is None or (not isinstance(value, str) and value_too_deep(value)):
        return None  # json.dumps would recurse once a level
    text = value if isinstance(value, str) else json.dumps(value)
    return text if text.strip() or (keep_blank and isinstance(value, str)) else None


def _value_text(
    span: Mapping[str, object], value_key: str, mime_key: str, keep_blank: bool = False
) -> tuple[str | None, str | None]:
    """``(text, why not)`` of ``input.value`` / ``output.value``.

    A JSON value (``*.mime_type`` application/json, as chain instrumentors write it) gives the text it
    holds: a JSON string, an object's only entry, or its ``output`` / ``answer`` / ... entry; JSON
    with no such text is reported rather than scored as its braces and keys."""
    value = attribute(span, value_key)
    if not isinstance(value, str) and value is not None and value_too_deep(value):
        return None, TOO_DEEP
    if attribute(span, mime_key) != JSON or not isinstance(value, str):
        return _text(value, keep_blank), None
    if json_too_deep(value):  # json.loads would raise RecursionError and fail the whole page
        return None, f"is JSON {TOO_DEEP}"
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return _text(value), None  # labelled JSON but is not: the text as it is
    if isinstance(parsed, str):
        return _text(parsed, keep_blank), None
    if isinstance(parsed, Mapping):
        texts = {key: item for key, item in parsed.items() if isinstance(item, str) and item.strip()}
        if len(parsed) == 1 and texts:  # {"summary": "..."}; never the model name of a request
            return next(iter(texts.values())), None
        for key in TEXT_KEYS:
            if key in texts:
                return texts[key], None
        return None, f"is JSON with no text field (keys {sorted(map(str, parsed))[:8]})"
    return None, f"is JSON {type(parsed).__name__}, not text"


Reference = str | tuple[str, ...]
"""One reference text, or several (the best-matching one counts, as in the core)."""


def reference_value(value: object) -> tuple[Reference | None, str | None]:
    """``(reference, why not)`` for a value read from a span or a dataset example.

    A text (blank means none), a number (``42`` -> "42"), or a list of texts; anything else is not
    scored and the second item says why, for the report."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    if isinstance(value, Unreadable):
        return None, value.why
    if isinstance(value, str):
        return value, None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (str(value), None) if math.isfinite(value) else (None, f"is not a finite number ({value!r})")
    if isinstance(value, (list, tuple)):
        if not all(isinstance(item, str) for item in value):
            kinds = sorted({type(item).__name__ for item in value if not isinstance(item, str)})
            return None, f"is a list holding {', '.join(kinds)}, not only texts"
        texts = tuple(item for item in value if item.strip())
        return (texts or None), None
    return None, f"is not text ({type(value).__name__})"


def span_kind(span: Mapping[str, object]) -> str:
    kind = attribute(span, SpanAttributes.OPENINFERENCE_SPAN_KIND) or span.get("span_kind") or ""
    return str(kind).upper()


def retriever_documents(span: Mapping[str, object]) -> list[str]:
    """The ``document.content`` of each ``retrieval.documents`` entry of a RETRIEVER span."""
    documents = attribute(span, SpanAttributes.RETRIEVAL_DOCUMENTS)
    if isinstance(documents, Mapping):
        documents = [documents[k] for k in sorted(documents, key=lambda k: int(k) if str(k).isdigit() else 0)]
    if not isinstance(documents, list):
        return []
    found = []
    for document in documents:
        if isinstance(document, Mapping):
            content = _text(_unflatten_get(document, DocumentAttributes.DOCUMENT_CONTENT))
            if content:
                found.append(content)
    return found


@dataclass(frozen=True)
class SpanFields:
    """What one span offers the evaluators (None: the span does not have it)."""

    span_id: str
    trace_id: str
    input: str | None
    output: str | None
    context: tuple[str, ...] | None
    reference: Reference | None
    output_problem: str | None = None  # why there is no output text, when the span has a value


def extract_fields(
    span: Mapping[str, object],
    trace_documents: Sequence[str] = (),
    reference: Reference | None = None,
) -> SpanFields:
    """Input, output and context of ``span`` (see the module docstring for where each comes from)."""
    context_ids = span.get("context")
    context_ids = context_ids if isinstance(context_ids, Mapping) else {}
    kind = span_kind(span)
    question, _ = _value_text(span, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE)
    answer, output_problem = _value_text(
        span, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, keep_blank=True
    )
    inputs = _messages(span, SpanAttributes.LLM_INPUT_MESSAGES)
    outputs = _messages(span, SpanAttributes.LLM_OUTPUT_MESSAGES)
    last_user = max((i for i, m in enumerate(inputs) if m["role"] == _USER_ROLE), default=None)
    if kind == LLM and last_user is not None:
        # input.value of an LLM span is the whole request JSON; the question is the last user turn.
        question = _text(inputs[last_user]["content"]) or question
    if kind == LLM and outputs:
        message = _text(outputs[0]["content"], keep_blank=True)
        answer = message if message is not None and (message.strip() or not answer) else answer
        output_problem = None if answer else output_problem
    context: tuple[str, ...] | None = tuple(trace_documents) or None
    if context is None and last_user is not None:
        earlier = [_text(m["content"]) for m in inputs[:last_user]]
        context = tuple(text for text in earlier if text) or None
    return SpanFields(
        span_id=str(context_ids.get("span_id", "")),
        trace_id=str(context_ids.get("trace_id", "")),
        input=question,
        output=answer,
        context=context,
        reference=reference,
        output_problem=output_problem if answer is None else None,
    )


# -- reading (pages come through the gateway) ------------------------------------------------------


def trace_documents(client: PhoenixClient, project: str, trace_ids: Sequence[str]) -> dict[str, list[str]]:
    """``{trace_id: documents}`` of the RETRIEVER spans in those traces, in start order."""
    found: dict[str, list[tuple[str, list[str]]]] = {}
    unique = sorted(set(trace_ids))
    for start in range(0, len(unique), 100):  # keep the query string short
        for page in span_pages(client, project, span_kind=RETRIEVER, trace_ids=unique[start : start + 100]):
            for span in page:
                trace_id = str((span.get("context") or {}).get("trace_id", ""))
                found.setdefault(trace_id, []).append(
                    (str(span.get("start_time", "")), retriever_documents(span))
                )
    return {
        trace_id: [doc for _, docs in sorted(entries, key=lambda e: e[0]) for doc in docs]
        for trace_id, entries in found.items()
    }

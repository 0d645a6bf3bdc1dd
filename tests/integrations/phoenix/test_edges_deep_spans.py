"""A span whose JSON output, input or metadata nests about 1,000 levels deep is reported per span with a
reason, never a RecursionError: the other spans of its page are read as usual."""

from __future__ import annotations

import json
import os
import sys

import pytest

from bertscore_plugins.files import json_too_deep, value_too_deep
from bertscore_plugins.integrations.phoenix.span_source import extract_fields, lookup, reference_value

DEPTH = 1_000
DEEP_JSON = '{"output": ' + "[" * DEPTH + "]" * DEPTH + "}"
DEEP_METADATA = '{"reference": "At nine.", "trail": ' + '{"a": ' * DEPTH + "1" + "}" * DEPTH + "}"


def _root(
    span_id: str,
    output: str,
    *,
    mime: str = "text/plain",
    metadata: str | None = None,
    question: str = "When does the museum open?",
) -> dict:
    """A root CHAIN span as Phoenix's REST API returns it (OpenInference attributes, flattened)."""
    attributes = {
        "openinference.span.kind": "CHAIN",
        "input.value": question,
        "input.mime_type": "application/json" if question.startswith("{") else "text/plain",
        "output.value": output,
        "output.mime_type": mime,
        "metadata": metadata if metadata is not None else json.dumps({"reference": "At nine."}),
    }
    return {"context": {"trace_id": f"t-{span_id}", "span_id": span_id}, "attributes": attributes}


def _page() -> list[dict]:
    return [
        _root("plain1", "It opens at nine."),
        _root("deep-output", DEEP_JSON, mime="application/json"),
        _root("deep-metadata", "It opens at nine.", metadata=DEEP_METADATA),
        _root("deep-input", "It opens at nine.", question=DEEP_JSON),
        _root("plain2", '{"output": "At nine."}', mime="application/json"),
    ]


def test_the_deep_values_would_crash_the_json_parser():
    # the failure this guards against, measured: Python's parser recurses once a level
    with pytest.raises(RecursionError):
        json.loads(DEEP_JSON)
    assert sys.getrecursionlimit() <= 10 * DEPTH


def test_a_page_with_deep_spans_reads_every_other_span():
    page = _page()
    fields = {span["context"]["span_id"]: extract_fields(span) for span in page}
    references = {
        span["context"]["span_id"]: reference_value(lookup(span, "metadata.reference")) for span in page
    }
    assert (fields["plain1"].output, fields["plain2"].output) == ("It opens at nine.", "At nine.")
    assert (fields["deep-output"].output, fields["deep-output"].output_problem) == (
        None,
        "is JSON nested deeper than 100 levels",
    )
    assert fields["deep-output"].input == "When does the museum open?"
    assert fields["deep-input"].input is None and fields["deep-input"].output == "It opens at nine."
    assert references["plain1"] == ("At nine.", None)
    assert references["deep-metadata"] == (None, "metadata is JSON nested deeper than 100 levels")
    assert fields["deep-metadata"].output == "It opens at nine."


def test_deep_structured_values_are_not_dumped_as_text():
    # a message content that is no string is turned into text with json.dumps, which recurses too
    deep: list = []
    for _ in range(5 * DEPTH):
        deep = [deep]
    span = {
        "context": {"trace_id": "t", "span_id": "llm"},
        "attributes": {
            "openinference.span.kind": "LLM",
            "llm.input_messages": [
                {"message.role": "system", "message.content": deep},
                {"message.role": "user", "message.content": "When does it open?"},
            ],
            "llm.output_messages": [{"message.role": "assistant", "message.content": "At nine."}],
        },
    }
    fields = extract_fields(span)
    assert (fields.input, fields.output, fields.context) == ("When does it open?", "At nine.", None)


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("[" * 101 + "]" * 101, True),
        ("[" * 100 + "]" * 100, False),
        ('"' + "[" * 500 + '"', False),  # brackets inside a string do not nest
        ('{"a\\"[[": ' + "[" * 150 + "]" * 150 + "}", True),  # an escaped quote does not end the string
        ('{"a": 1}', False),
    ],
)
def test_json_depth_is_measured_without_parsing(text, deep):
    assert json_too_deep(text) is deep


def test_value_depth_is_measured_without_recursion():
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    assert value_too_deep(deep) and not value_too_deep({"a": [{"b": 1}]})


# ------------------------------------------------------------------------------ through a real Phoenix


@pytest.mark.slow
def test_phoenix_evaluate_annotates_the_page_around_a_deep_span(phoenix_server, tmp_path):
    from openinference.semconv.trace import SpanAttributes
    from phoenix.client import Client
    from phoenix.otel import register

    from bertscore_plugins.evaluation.names import SIMILARITY
    from bertscore_plugins.integrations.phoenix import evaluate_project
    from tests.integrations.phoenix.test_trace_evaluation import annotations_of
    from tests.support.projects import wait_for_roots

    project = f"deep-spans-{os.getpid()}"
    provider = register(
        project_name=project,
        endpoint=phoenix_server.otlp_http_endpoint,
        batch=False,
        verbose=False,
        set_global_tracer_provider=False,
    )
    tracer = provider.get_tracer("deep-spans")
    sent = {}
    try:
        for span in _page():
            with tracer.start_as_current_span(span["context"]["span_id"]) as otel_span:
                for key, value in span["attributes"].items():
                    otel_span.set_attribute(key, value)
                sent[format(otel_span.get_span_context().span_id, "016x")] = span["context"]["span_id"]
        provider.force_flush()
    finally:
        provider.shutdown()
    client = Client(base_url=phoenix_server.base_url)
    wait_for_roots(client, project, len(sent))

    report = evaluate_project(
        project, client=client, reference_key=f"{SpanAttributes.METADATA}.reference", store=tmp_path / "s"
    )
    annotated = {sent[a["span_id"]] for a in annotations_of(client, project, sent) if a["name"] == SIMILARITY}
    assert annotated == {"plain1", "plain2", "deep-input"}
    assert report.skipped["span: output is JSON nested deeper than 100 levels"] == 1
    assert report.skipped[f"{SIMILARITY}: reference metadata is JSON nested deeper than 100 levels"] == 1
    # a re-run finds nothing new to do and does not crash on the same spans
    again = evaluate_project(
        project, client=client, reference_key=f"{SpanAttributes.METADATA}.reference", store=tmp_path / "s"
    )
    assert again.evaluated == 0

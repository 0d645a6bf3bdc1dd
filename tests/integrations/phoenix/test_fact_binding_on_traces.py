"""Trace evaluation names the source fact about the same thing: a value the retrieved document attaches to
another day, item or drug is unfaithful, and a wrong day is named by the day of the same event.

A real Phoenix server on loopback, the instrumented application of tests/support/rag_app.py sending the
traces, `bertscore-plugins phoenix evaluate` (its main, in this process) annotating them.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

import pytest
from phoenix.client import Client

from bertscore_plugins.evaluation.names import OFFLINE_FAITHFULNESS
from tests.support.bound_facts import BOUND_RIGHT, BOUND_WRONG
from tests.support.projects import unique_project, wait_for_roots
from tests.support.rag_app import RagStub, Request, send

pytestmark = pytest.mark.slow


def test_trace_evaluation_names_the_source_fact_about_the_same_thing(phoenix_server, tmp_path):
    from bertscore_plugins.cli.main import main

    rows = [(*row, None) for row in BOUND_RIGHT] + list(BOUND_WRONG)
    project = unique_project("fact-binding")
    with RagStub() as stub:
        requests = [
            Request(key, question, (context,), answer, reference, None)
            for key, question, context, answer, reference, _ in rows
        ]
        spans = send(phoenix_server.otlp_http_endpoint, project, stub, requests)
        client = Client(base_url=phoenix_server.base_url)
        wait_for_roots(client, project, len(rows))
        out, err = io.StringIO(), io.StringIO()
        command = [
            "phoenix", "evaluate", "--project", project, "--base-url", phoenix_server.base_url,
            "--store", str(tmp_path / "results.sqlite"), "--reference-key", "metadata.reference",
            "--format", "json",
        ]  # fmt: skip
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(command)
        assert code == 0, err.getvalue()[-3000:]
        report = json.loads(out.getvalue().strip().splitlines()[-1])
        assert report["evaluated"] == len(rows), report
    annotations = client.spans.get_span_annotations(
        span_ids=list(spans), project_identifier=project, include_annotation_names=[OFFLINE_FAITHFULNESS]
    )
    by_key = {spans[a["span_id"]]: a["result"] for a in annotations}
    named = {key: expected for key, *_, expected in rows}
    assert set(by_key) == set(named), sys.stderr.write(err.getvalue()[-2000:]) or by_key
    for key, expected in named.items():
        if expected is None:
            assert by_key[key]["label"] == "faithful", by_key[key]
        else:
            assert by_key[key]["label"] == "unfaithful", by_key[key]
            assert by_key[key]["explanation"].endswith(f"facts: {expected}"), by_key[key]

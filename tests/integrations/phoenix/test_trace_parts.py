"""The pieces of trace evaluation that need no server and no model: span fields, store, settings, map."""

from __future__ import annotations

import importlib
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone

import pytest

import bertscore_plugins.integrations.phoenix as phoenix_package
from bertscore_plugins.core.heap import release_freed_memory
from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.store import Entry, ResultStore, ResultStoreError
from bertscore_plugins.integrations.phoenix.span_source import extract_fields, lookup, retriever_documents
from bertscore_plugins.integrations.phoenix.trace_report import EvaluationReport
from bertscore_plugins.integrations.phoenix.trace_settings import parse_since

# Spans exactly as Phoenix's REST API returned them for the instrumented app in tests/support/rag_app.py
# (openinference-instrumentation-openai 0.1.66; attributes come back flattened).
ROOT = {
    "context": {"trace_id": "t1", "span_id": "root1"},
    "span_kind": "CHAIN",
    "parent_id": None,
    "attributes": {
        "input.mime_type": "text/plain",
        "input.value": "When does the museum open?",
        "output.mime_type": "text/plain",
        "output.value": "It opens at nine.",
        "metadata.request": "a",
        "metadata.reference": "At nine.",
    },
}
LLM_SPAN = {
    "context": {"trace_id": "t1", "span_id": "llm1"},
    "span_kind": "LLM",
    "attributes": {
        "input.mime_type": "application/json",
        "input.value": '{"model": "rag-app-model", "messages": []}',
        "llm.output_messages.0.message.content": "It opens at nine.",
        "llm.output_messages.0.message.role": "assistant",
        "llm.input_messages.0.message.content": "Answer from the context.\n\nContext:\nThe museum opens at nine.",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.1.message.content": "When does the museum open?",
        "llm.input_messages.1.message.role": "user",
        "output.value": '{"id": "chatcmpl-app"}',
    },
}
RETRIEVER_SPAN = {
    "context": {"trace_id": "t1", "span_id": "ret1"},
    "span_kind": "RETRIEVER",
    "attributes": {
        "input.value": "When does the museum open?",
        **{f"retrieval.documents.{i}.document.content": f"doc {i}" for i in range(12)},
    },
}


def test_root_span_fields_come_from_input_output_and_the_trace_documents():
    fields = extract_fields(ROOT, ["The museum opens at nine."], lookup(ROOT, "metadata.reference"))
    assert (fields.span_id, fields.trace_id) == ("root1", "t1")
    assert (fields.input, fields.output) == ("When does the museum open?", "It opens at nine.")
    assert fields.context == ("The museum opens at nine.",) and fields.reference == "At nine."


def test_llm_span_reads_messages_and_falls_back_to_the_system_prompt_as_context():
    fields = extract_fields(LLM_SPAN)
    assert (fields.input, fields.output) == ("When does the museum open?", "It opens at nine.")
    assert fields.context == ("Answer from the context.\n\nContext:\nThe museum opens at nine.",)
    assert extract_fields(LLM_SPAN, ["retrieved"]).context == ("retrieved",)  # retrievers win


def test_retriever_documents_keep_their_positions_past_ten():
    assert retriever_documents(RETRIEVER_SPAN) == [f"doc {i}" for i in range(12)]


def test_missing_pieces_are_none_not_empty_strings():
    bare = {
        "context": {"trace_id": "t", "span_id": "s"},
        "span_kind": "CHAIN",
        "attributes": {"input.value": " "},
    }
    fields = extract_fields(bare)
    assert (fields.input, fields.output, fields.context, fields.reference) == (None, None, None, None)
    assert (
        lookup(ROOT, "metadata.missing") is None
        and lookup(ROOT, "input.value") == ROOT["attributes"]["input.value"]
    )


@pytest.mark.parametrize(
    ("value", "reference", "why"),
    [
        ("At nine.", "At nine.", None),
        ("   ", None, None),
        (None, None, None),
        (36, "36", None),
        (2.5, "2.5", None),
        (["At nine.", " ", "Nine a.m."], ("At nine.", "Nine a.m."), None),
        ([], None, None),
        (float("nan"), None, "is not a finite number (nan)"),
        (True, None, "is not text (bool)"),
        ({"answer": "At nine."}, None, "is not text (dict)"),
        (["At nine.", None, 3], None, "is a list holding NoneType, int, not only texts"),
    ],
)
def test_a_reference_is_a_text_a_number_or_several_texts_and_anything_else_says_why(value, reference, why):
    from bertscore_plugins.integrations.phoenix.span_source import reference_value

    assert reference_value(value) == (reference, why)


def _chain_span(output: str, mime: str = "application/json") -> dict:
    # a LangChain-style root span: JSON input and output, flattened as Phoenix's REST API returns them
    return {
        "context": {"trace_id": "t9", "span_id": "chain9"},
        "attributes": {
            "openinference.span.kind": "CHAIN",
            "input.value": '{"input": "When does the museum open?", "chat_history": []}',
            "input.mime_type": "application/json",
            "output.value": output,
            "output.mime_type": mime,
        },
    }


@pytest.mark.parametrize(
    ("output", "mime", "text", "problem"),
    [
        ('{"output": "At nine."}', "application/json", "At nine.", None),
        ('{"summary": "At nine."}', "application/json", "At nine.", None),
        (
            '{"model": "gpt-4o", "temperature": 0}',
            "application/json",
            None,
            "is JSON with no text field (keys ['model', 'temperature'])",
        ),
        ('{"answer": "At nine.", "sources": ["doc1"], "score": 0.9}', "application/json", "At nine.", None),
        ('{"result": "At nine.", "query": "When?"}', "application/json", "At nine.", None),
        ('"At nine."', "application/json", "At nine.", None),
        ("At nine.", "application/json", "At nine.", None),  # labelled JSON, is not: kept as it is
        ('{"output": "At nine."}', "text/plain", '{"output": "At nine."}', None),  # text stays text
        ('{"a": "x", "b": "y"}', "application/json", None, "is JSON with no text field (keys ['a', 'b'])"),
        ("[1, 2]", "application/json", None, "is JSON list, not text"),
    ],
)
def test_json_inputs_and_outputs_give_the_text_inside_them_or_say_why_not(output, mime, text, problem):
    fields = extract_fields(_chain_span(output, mime))
    assert fields.input == "When does the museum open?"
    assert (fields.output, fields.output_problem) == (text, problem)


def test_result_store_keeps_results_until_logged_across_reopening(tmp_path):
    path = tmp_path / "store.sqlite"
    with ResultStore(path) as store:
        store.put("cfg-a", [Entry("s1", "bertscore", Cell("bertscore", 0.9, None, None), None)])
        store.put("cfg-a", [Entry("s1", "faithfulness", None, "judge timed out")])
        store.put("cfg-b", [Entry("s1", "bertscore", Cell("bertscore", 2.0, None, None), None)])
        store.mark_logged("cfg-a", [("s1", "bertscore")])
    with ResultStore(path) as store:
        found = store.results("cfg-a", ["s1", "s2"])
        assert set(found) == {"s1"}
        assert found["s1"]["bertscore"].logged and found["s1"]["bertscore"].cell == Cell(
            "bertscore", 0.9, None, None
        )
        assert found["s1"]["faithfulness"].cell is None
        assert found["s1"]["faithfulness"].failure == "judge timed out"
        assert store.results("cfg-b", ["s1"])["s1"]["bertscore"].cell == Cell("bertscore", 2.0, None, None)
        assert store.count() == 3 and store.count("cfg-a") == 2


def _foreign_database(path, table_sql):
    with sqlite3.connect(path) as db:
        db.execute(table_sql)
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: p.write_text("span_id,score\nroot1,0.9\n"), "file is not a database"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200), "not a database|malformed"),
        (lambda p: p.mkdir(), "unable to open database file"),
        (lambda p: _foreign_database(p, "CREATE TABLE invoices (id INTEGER)"), "not a bertscore-plugins"),
        (lambda p: _foreign_database(p, "CREATE TABLE results (id INTEGER)"), "not a bertscore-plugins"),
    ],
    ids=["csv", "damaged", "folder", "other-app", "same-table-name"],
)
def test_a_store_that_is_not_ours_is_refused_naming_the_file_and_left_as_it_was(tmp_path, make, why):
    path = tmp_path / "store.sqlite"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(ResultStoreError, match=f"result store {re.escape(str(path))}: .*({why})"):
        ResultStore(path)
    assert (path.read_bytes() if path.is_file() else None) == before


def test_a_store_below_a_file_is_refused_naming_the_folder(tmp_path):
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ResultStoreError, match="cannot create its folder"):
        ResultStore(tmp_path / "plain" / "store.sqlite")


@pytest.mark.slow
def test_concurrent_writers_to_one_store_lose_nothing(tmp_path):
    path = tmp_path / "store.sqlite"
    writer = textwrap.dedent(
        f"""
        import sys
        from bertscore_plugins.evaluation.cells import Cell
        from bertscore_plugins.evaluation.store import ResultStore
        me = sys.argv[1]
        with ResultStore({str(path)!r}) as store:
            for batch in range(40):
                store.put("cfg", [(f"{{me}}-{{batch}}-{{i}}", "bertscore", Cell("bertscore", i, None, None), None) for i in range(25)])
                store.mark_logged("cfg", [(f"{{me}}-{{batch}}-0", "bertscore")])
        """
    )
    writers = [subprocess.Popen([sys.executable, "-c", writer, name]) for name in ("a", "b", "c")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0, 0]
    with ResultStore(path) as store:
        assert store.count("cfg") == 3 * 40 * 25
        logged = store.results("cfg", [f"{n}-{b}-0" for n in "abc" for b in range(40)])
        assert len(logged) == 120 and all(r["bertscore"].logged for r in logged.values())


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("span_kind", "banana"),
        ("span_kind", 3),
        ("similarity_threshold", float("nan")),
        ("similarity_threshold", 7),
        ("groundedness_threshold", float("inf")),
        ("groundedness_threshold", "0.5"),
        ("page_size", 0),
        ("page_size", 2.5),
        ("log_batch_size", True),
        ("judge_concurrency", -2),
        ("interval", float("nan")),
        ("interval", 0),
        ("max_polls", 0),
    ],
)
def test_settings_that_would_select_label_or_poll_wrongly_are_refused_by_name(setting, value):
    from bertscore_plugins.errors import SettingError
    from bertscore_plugins.integrations.phoenix.trace_evaluation import evaluate_project

    with pytest.raises(SettingError, match=f"^{setting} must be") as refused:
        evaluate_project("any-project", base_url="http://127.0.0.1:9", **{setting: value})
    assert refused.value.setting == setting


def test_span_kinds_are_read_in_any_case_as_openinference_spells_them():
    from bertscore_plugins.integrations.phoenix import TraceSettings

    assert TraceSettings(span_kind=" llm ").span_kind == "LLM"
    assert TraceSettings(span_kind="root").span_kind == "root"


def test_since_takes_durations_and_iso_times():
    now = datetime(2026, 1, 31, 12, 0, tzinfo=timezone.utc)
    assert parse_since("2h", now=now) == now - timedelta(hours=2)
    assert parse_since("30m", now=now) == now - timedelta(minutes=30)
    assert parse_since("2026-01-30T08:00", now=now) == datetime(2026, 1, 30, 8, 0, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="--since must be"):
        parse_since("yesterday", now=now)


def test_report_summary_names_each_skip_reason():
    report = EvaluationReport(project="p", configuration="cfg-x", spans_read=3, evaluated=1)
    report.skipped["groundedness: no context"] += 2
    text = report.summary()
    assert "skipped: 2 span(s): groundedness: no context" in text
    assert report.to_dict()["skipped"] == {"groundedness: no context": 2}


def test_package_docstring_map_lists_only_names_that_exist():
    block = phoenix_package.__doc__.split("::", 1)[1].split("\n\n", 2)[1]
    rows = [line.split(None, 1) for line in block.splitlines() if line.strip()]
    assert {module for module, _ in rows} >= {"evaluators", "annotation_sink", "trace_evaluation"}
    listed = set()
    for module_name, names in rows:
        module = importlib.import_module(f"bertscore_plugins.integrations.phoenix.{module_name}")
        for name in re.sub(r"\(.*\)", "", names).replace(",", " ").split():
            assert hasattr(module, name), f"{module_name}.{name} is listed but does not exist"
            assert name in phoenix_package.__all__, f"{name} is listed but not importable from the package"
            assert getattr(phoenix_package, name) is getattr(module, name)
            listed.add(name)
    assert set(phoenix_package.__all__) == listed
    for helper in ("span_source", "span_rows"):
        importlib.import_module(f"bertscore_plugins.integrations.phoenix.{helper}")
    importlib.import_module("bertscore_plugins.evaluation.store")
    importlib.import_module("bertscore_plugins.tools.phoenix_server")


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_memory_freed_between_long_lived_objects_goes_back_to_the_system_after_each_page():
    # What a page does to glibc's heap: once a large block (a batch tensor) is freed, glibc raises its
    # mmap threshold, so later buffers come from the heap; freed between small objects that live on,
    # glibc keeps their memory (RSS grew per page) until it is trimmed.
    large = bytearray(4_000_000)
    del large
    buffers, survivors = [], []
    for _ in range(400):
        buffers.append(bytearray(100_000))
        survivors.append(bytes(2_000))
    grown = _rss_mb()
    buffers.clear()  # alone, this returned nothing when run by itself (RSS stayed at `grown`)
    if not release_freed_memory():
        pytest.skip("no glibc malloc_trim on this platform (nothing to release)")
    assert _rss_mb() < grown - 20  # of the 40 MB freed

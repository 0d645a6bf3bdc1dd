"""Rows of the trace-evaluation result store are checked when read back: a damaged row (edited, copied
from another span, not JSON, nested too deep, a NaN score) is named with the store and computed again,
never used, and never a bare JSON error."""

from __future__ import annotations

import sqlite3
import warnings

import pytest

from bertscore_plugins.errors import BertScorePluginsError
from bertscore_plugins.integrations.phoenix.result_store import (
    DamagedResultWarning,
    ResultStore,
    ResultStoreError,
)

CONFIG = "cfg"


def _annotation(span_id: str, score: float = 0.9) -> dict:
    return {
        "name": "bertscore",
        "span_id": span_id,
        "annotator_kind": "CODE",
        "result": {"label": "similar", "score": score},
        "metadata": {},
    }


@pytest.fixture()
def store_path(tmp_path):
    path = tmp_path / "results.sqlite"
    with ResultStore(path) as store:
        store.put(CONFIG, [(span, "bertscore", _annotation(span), None) for span in ("s1", "s2", "s3")])
    return path


def _damage(path, span_id: str, column: str, value) -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE results SET {column} = ? WHERE span_id = ?", (value, span_id))
    db.close()


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("annotation", '{"name": "bertscore", "res', "annotation is not valid JSON (Unterminated string"),
        ("annotation", "[" * 5000 + "]" * 5000, "annotation nested deeper than 100 levels"),
        (
            "annotation",
            '{"name": "bertscore", "span_id": "s1", "result": {"score": NaN}}',
            "annotation score is nan",
        ),
        (
            "annotation",
            '{"name": "bertscore", "span_id": "s1", "result": "0.9"}',
            "annotation is not a span annotation object",
        ),
        (
            "annotation",
            '{"name": "bertscore", "span_id": "s3", "result": {"score": 0.2}}',
            "annotation is for span 's3'",
        ),
        ("logged", "yes", "logged is 'yes', expected 0 or 1"),
        ("failure", b"\x07", "failure is bytes, expected text"),
    ],
)
def test_a_damaged_row_is_named_and_computed_again(store_path, column, value, problem):
    _damage(store_path, "s1", column, value)
    with ResultStore(store_path) as store, pytest.warns(DamagedResultWarning) as caught:
        found = store.results(CONFIG, ["s1", "s2", "s3"])
    message = str(caught[0].message)
    assert message.startswith(f"result store {store_path}: 1 stored result(s) cannot be read back and are ")
    assert f"span 's1' 'bertscore': {problem}" in message
    assert set(found) == {"s2", "s3"} and found["s2"]["bertscore"].annotation == _annotation("s2")
    # the next run computes it again and stores it: the store heals
    with ResultStore(store_path) as store:
        store.put(CONFIG, [("s1", "bertscore", _annotation("s1", 0.5), None)])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = store.results(CONFIG, ["s1"])
    assert again["s1"]["bertscore"].annotation["result"]["score"] == 0.5


def test_a_failed_result_without_annotation_is_kept_for_the_retry(store_path):
    with ResultStore(store_path) as store:
        store.put(CONFIG, [("s4", "faithfulness", None, "judge timed out")])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            found = store.results(CONFIG, ["s4"])
    assert found["s4"]["faithfulness"].failure == "judge timed out"


def test_store_errors_share_the_project_root(tmp_path):
    (tmp_path / "store.sqlite").write_text("span_id,score\n")
    with pytest.raises(ResultStoreError) as caught:
        ResultStore(tmp_path / "store.sqlite")
    assert isinstance(caught.value, BertScorePluginsError) and isinstance(caught.value, OSError)


def test_a_damaged_row_read_again_by_the_same_run_is_warned_of_once(store_path):
    # a run reads a page's rows before scoring and again before logging, and every poll with --follow
    _damage(store_path, "s1", "annotation", "not json")
    with ResultStore(store_path) as store, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            found = store.results(CONFIG, ["s1", "s2"])
    assert [type(w.message) for w in caught] == [DamagedResultWarning]
    assert "span 's1' 'bertscore': annotation is not valid JSON" in str(caught[0].message)
    assert set(found) == {"s2"}  # still never used
    with ResultStore(store_path) as store, pytest.warns(DamagedResultWarning):
        store.results(CONFIG, ["s1"])  # the next run names it again

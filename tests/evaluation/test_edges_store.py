"""Rows of the evaluation's result store (the recipe's and trace evaluation's) are checked when read back:
a damaged row (edited, copied from another row, not JSON, nested too deep, a NaN score) is named with the
store and computed again, never used, and never a bare JSON error."""

from __future__ import annotations

import sqlite3
import warnings

import pytest

from bertscore_plugins.errors import BertScorePluginsError
from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.store import DamagedResultWarning, ResultStore, ResultStoreError

CONFIG = "cfg"


def _cell(score: float = 0.9) -> Cell:
    return Cell("bertscore", score, "similar", None)


@pytest.fixture()
def store_path(tmp_path):
    path = tmp_path / "results.sqlite"
    with ResultStore(path) as store:
        store.put(CONFIG, [(row, "bertscore", _cell(), None) for row in ("s1", "s2", "s3")])
    return path


def _damage(path, row_id: str, column: str, value) -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE results SET {column} = ? WHERE row_id = ?", (value, row_id))
    db.close()


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("cell", '{"name": "bertscore", "sco', "cell is not valid JSON (Unterminated string"),
        ("cell", "[" * 5000 + "]" * 5000, "cell nested deeper than 100 levels"),
        ("cell", '{"name": "bertscore", "row_id": "s1", "score": NaN}', "cell score is nan"),
        ("cell", '["bertscore", 0.9]', "cell is not an object"),
        (
            "cell",
            '{"name": "bertscore", "row_id": "s1", "score": 0.9, "metadata": [1]}',
            "cell metadata is not an object",
        ),
        ("cell", '{"name": "bertscore", "row_id": "s1", "label": 3}', "cell label is 3, expected text"),
        ("cell", '{"name": "bertscore", "row_id": "s3", "score": 0.2}', "cell is for row 's3'"),
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
    assert f"row 's1' 'bertscore': {problem}" in message
    assert set(found) == {"s2", "s3"} and found["s2"]["bertscore"].cell == _cell()
    # the next run computes it again and stores it: the store heals
    with ResultStore(store_path) as store:
        store.put(CONFIG, [("s1", "bertscore", _cell(0.5), None)])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = store.results(CONFIG, ["s1"])
    assert again["s1"]["bertscore"].cell.score == 0.5


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
    _damage(store_path, "s1", "cell", "not json")
    with ResultStore(store_path) as store, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            found = store.results(CONFIG, ["s1", "s2"])
    assert [type(w.message) for w in caught] == [DamagedResultWarning]
    assert "row 's1' 'bertscore': cell is not valid JSON" in str(caught[0].message)
    assert set(found) == {"s2"}  # still never used
    with ResultStore(store_path) as store, pytest.warns(DamagedResultWarning):
        store.results(CONFIG, ["s1"])  # the next run names it again


@pytest.mark.parametrize("outcome", ["empty", "abstained"])
def test_a_stored_outcome_cell_with_a_score_is_read_without_one(store_path, outcome):
    """A store written when an empty or abstained row still kept its signals' scores is read as this version
    writes such a row: its label, and no score (no mean, report or annotation reads one)."""
    _damage(
        store_path,
        "s1",
        "cell",
        f'{{"name": "bertscore", "row_id": "s1", "score": 0.83, "label": "{outcome}"}}',
    )
    with ResultStore(store_path) as store, warnings.catch_warnings():
        warnings.simplefilter("error")
        found = store.results(CONFIG, ["s1", "s2"])
    assert found["s1"]["bertscore"].cell == Cell("bertscore", None, outcome, None)
    assert found["s2"]["bertscore"].cell == _cell()  # an answered row keeps its score

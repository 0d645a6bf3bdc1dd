"""A DataFrame's index names its rows through the DataFrame doors: ``score_dataframe`` and ``evaluate_rows``
(with or without a result store) return the caller's index, names and order, whatever it holds (strings,
a MultiIndex, a label used twice), and each row's numbers are its own whatever the order."""

from __future__ import annotations

import pandas as pd
import pytest

from bertscore_plugins.evaluation.dataframe import evaluate_rows

pytestmark = [pytest.mark.model]

ROWS = {
    "input": ["When does it open?", "When was it closed?", "Who came?"],
    "output": ["It opens at nine.", "It was closed on Thursday.", "Anna came."],
    "context": ["It opens at nine.", "It was closed on Tuesday.", "Anna and Ben came."],
    "reference": ["At nine.", "On Tuesday.", "Anna and Ben."],
}
INDEXES = [
    pd.Index(["q-7", "q-3", "q-9"], name="question_id"),
    pd.MultiIndex.from_tuples([("doc", 1), ("doc", 2), ("doc", 1)], names=["doc", "turn"]),  # (doc, 1) twice
]


@pytest.mark.parametrize("index", INDEXES, ids=["strings", "multi-with-a-repeat"])
def test_score_dataframe_keeps_the_index(index):
    from bertscore_plugins.integrations.hf_datasets import score_dataframe

    frame = pd.DataFrame(ROWS, index=index)
    scored = score_dataframe(frame, "output", "reference")
    assert scored.index.equals(frame.index) and scored.index.names == frame.index.names
    backwards = score_dataframe(frame.iloc[::-1], "output", "reference")
    assert backwards["bertscore_f1"].tolist() == scored["bertscore_f1"].tolist()[::-1]


def test_evaluate_rows_keeps_the_index_with_and_without_a_store(tmp_path):
    frame = pd.DataFrame(ROWS, index=INDEXES[1])
    for result in (evaluate_rows(frame), evaluate_rows(frame, store=tmp_path / "results.sqlite")):
        assert result.index.equals(frame.index) and result.index.names == frame.index.names
        # the Thursday row is still the second row, under its own label
        labels = [cell["label"] for cell in result["offline_faithfulness_score"]]
        assert labels == ["faithful", "unfaithful", "faithful"]

"""Every entry point goes through the same guarded edge: one bad setting or one bad row gives the core's
message (worded with the entry point's own column names), never a score."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins import ScoreConfig, get_scorer
from bertscore_plugins.errors import InputError, SettingError
from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
from bertscore_plugins.integrations.phoenix import BERTScoreEvaluator, batch_evaluate_dataframe, evaluate_rows
from tests.support.extras import extra

evaluate = extra("evaluate", "the evaluate extra is not installed")

CARD = Path(__file__).resolve().parents[2] / "metric_card"
FLAG_MESSAGE = "allow_pickle_weights must be True or False, got str 'false'"


def test_a_truthy_string_safety_flag_is_refused_by_every_entry_point():
    makers = {
        "ScoreConfig": lambda: ScoreConfig(allow_pickle_weights="false"),
        "get_scorer": lambda: get_scorer(allow_pickle_weights="false"),
        "evaluate.load": lambda: evaluate.load(str(CARD), keep_in_memory=True, allow_pickle_weights="false"),
        "BERTScoreTransform": lambda: BERTScoreTransform(allow_pickle_weights="false"),
        "BERTScoreEvaluator": lambda: BERTScoreEvaluator(allow_pickle_weights="false"),
        "evaluate_rows": lambda: evaluate_rows(
            pd.DataFrame({"output": ["a"], "reference": ["a"], "context": ["a"]}),
            allow_pickle_weights="false",
        ),
    }
    for entry, make in makers.items():
        with pytest.raises(SettingError) as caught:
            make()
        assert str(caught.value) == FLAG_MESSAGE, entry


BAD_ROWS = {
    "mapping": ({"x": "A dog."}, "[1] is a mapping (dict); its keys would be scored"),
    "surrogate": ("A \ud800 dog.", "[1] holds a lone surrogate '\\ud800' at character 2"),
    "bytes": (b"A dog.", "[1] is bytes, expected str"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_reference_row_gets_the_same_message_everywhere(case):
    row, message = BAD_ROWS[case]
    candidates, references = ["A cat.", "A dog."], ["A cat.", row]
    with pytest.raises(InputError) as core:
        get_scorer().score(candidates, references)
    assert str(core.value).startswith("references" + message)

    module = evaluate.load(str(CARD), keep_in_memory=True)
    with pytest.raises(InputError) as through_evaluate:
        module.compute(predictions=candidates, references=references)
    # evaluate puts a plain string row into a one-reference list first: references[1][0] for a text
    assert str(through_evaluate.value).startswith(("references" + message, "references[1][0]" + message[3:]))

    transform = BERTScoreTransform()
    with pytest.raises(InputError) as through_datasets:
        transform({"candidate": candidates, "reference": references}, [10, 11])
    assert str(through_datasets.value) == f"{core.value} (dataset row 11)"


def test_a_lone_surrogate_in_a_phoenix_row_is_named():
    frame = pd.DataFrame(
        {"output": ["A cat.", "A \udc00 dog."], "reference": ["A cat.", "A dog."]}, dtype=object
    )
    with pytest.raises(
        InputError,
        match=r"^bertscore: row 1: InputError: output holds a lone surrogate '\\udc00' "
        "at character 2",
    ):
        batch_evaluate_dataframe(frame, BERTScoreEvaluator())
    scored = batch_evaluate_dataframe(frame, BERTScoreEvaluator(), exit_on_error=False)
    assert scored["bertscore_score"][0]["score"] == pytest.approx(1.0, abs=1e-6)
    assert scored["bertscore_score"][1] is None
    assert scored["bertscore_execution_details"][1]["status"] == "FAILED"
    assert "output holds a lone surrogate" in scored["bertscore_execution_details"][1]["exceptions"][0]

"""The offline faithfulness API refuses a threshold outside the score's range and a damaged weights file
with one named error; it reads a long source whole; it scores rows in bounded chunks."""

from __future__ import annotations

import json
import math

import pytest

from bertscore_plugins.errors import FileFormatError, SettingError
from bertscore_plugins.faithfulness import CHUNK_ROWS, evaluate_pair, offline_faithfulness
from bertscore_plugins.faithfulness import combination as signal
from bertscore_plugins.thresholds import check_threshold


@pytest.mark.parametrize("bad", [math.nan, math.inf, 5, -1, 1.5, -0.01, "0.5", None, True])
def test_a_threshold_outside_zero_to_one_is_refused_naming_it(bad):
    with pytest.raises(SettingError, match="threshold must be a finite number from 0 to 1") as error:
        check_threshold("threshold", bad)
    assert error.value.setting == "threshold"
    with pytest.raises(SettingError, match="threshold"):
        offline_faithfulness(["a"], ["b"], threshold=bad)  # refused before any model loads
    with pytest.raises(SettingError, match="threshold"):
        evaluate_pair("a", "b", groundedness=0.9, threshold=bad)


@pytest.mark.parametrize("good", [0, 0.0, 0.5, 1, 1.0])
def test_a_threshold_from_zero_to_one_is_taken(good):
    assert check_threshold("threshold", good) == float(good)


def shipped() -> dict:
    return json.loads(signal.WEIGHTS.read_text(encoding="utf-8"))


def damaged(table: dict, part: str, value: object) -> dict:
    return {**table, "weights": {**table["weights"], part: value}}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (lambda t: json.dumps(damaged(t, "lcs", float("nan"))), "lcs must be a finite number, got nan"),
        (lambda t: json.dumps(damaged(t, "lcs", float("inf"))), "lcs must be a finite number, got inf"),
        (lambda t: json.dumps(damaged(t, "lexical", "0.9")), "lexical must be a finite number, got '0.9'"),
        (lambda t: json.dumps(damaged(t, "lexical", None)), "lexical must be a finite number, got None"),
        (lambda t: json.dumps(damaged(t, "lexical", True)), "lexical must be a finite number, got True"),
        (lambda t: json.dumps({**t, "intercept": None}), "intercept must be a finite number, got None"),
        (
            lambda t: json.dumps({k: v for k, v in t.items() if k != "intercept"}),
            "intercept must be a finite",
        ),
        (lambda t: json.dumps({"intercept": 0.0}), '"weights"'),
        (lambda t: json.dumps([1, 2]), '"weights"'),
        (lambda t: json.dumps({**t, "weights": {"lcs": 1.0}}), "lacks weights for"),
        (lambda t: json.dumps(damaged(t, "lcss", 1.0)), "unknown parts ['lcss']"),
        (lambda t: json.dumps(t)[:80], "is not valid JSON"),
        (lambda t: "", "is not valid JSON"),
    ],
)
def test_a_damaged_weights_file_ends_in_one_error_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "weights.json"
    path.write_text(content(shipped()), encoding="utf-8")
    with pytest.raises(FileFormatError) as error:
        signal.read_weights(path)
    assert str(path) in str(error.value) and problem in str(error.value)


def test_a_missing_weights_file_is_named(tmp_path):
    with pytest.raises(FileFormatError, match=r"weights\.json: cannot be read"):
        signal.read_weights(tmp_path / "weights.json")


def test_the_shipped_weights_file_reads(tmp_path):
    assert set(signal.read_weights(signal.WEIGHTS)["weights"]) == set(signal.FEATURES)


def test_the_scorer_reads_damaged_weights_as_the_named_error(tmp_path, monkeypatch):
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(damaged(shipped(), "lcs", float("nan"))), encoding="utf-8")
    monkeypatch.setattr(signal, "WEIGHTS", path)
    signal.weights.cache_clear()
    try:
        with pytest.raises(FileFormatError, match="lcs must be a finite number"):
            evaluate_pair("The clinic opens at 8.", "The clinic opens at 8.", groundedness=0.9).score  # noqa: B018
    finally:
        signal.weights.cache_clear()


class CountingScorer:
    """A stand-in core scorer: records each call's size and answers like the real one (no model)."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def score(self, outputs, contexts, progress=None, explain=False):
        self.calls.append(len(outputs))
        return self.real.score(outputs, contexts, progress=progress, explain=explain)


@pytest.mark.model
def test_rows_are_scored_in_bounded_chunks_in_input_order():
    from bertscore_plugins.core.scorer import get_scorer

    counting = CountingScorer(get_scorer(long_text="window"))
    n = 2 * CHUNK_ROWS + 3
    outputs = [f"The clinic opens at {k % 12 + 1} am." for k in range(n)]
    rows = offline_faithfulness(outputs, ["The clinic opens at 3 am."] * n, scorer=counting)
    assert counting.calls == [CHUNK_ROWS, CHUNK_ROWS, 3]
    assert [row.facts.label for row in rows[:4]] == ["unsupported", "unsupported", "supported", "unsupported"]


@pytest.mark.model
@pytest.mark.slow  # a 1,600-token source scored in windows by two scorers: the whole suite's
@pytest.mark.parametrize(
    "sentence",
    [
        "The council reviewed item {k} of the plan for the new library and asked for more detail.",
        # a repetitive source: the copy's embeddings drift from the source's (similarity ~0.63), yet every
        # word is the source's, in order
        "Sentence number {k} talks about the weather in town {k}.",
    ],
)
def test_a_sentence_copied_from_the_end_of_a_long_source_is_faithful_with_any_scorer(sentence):
    from bertscore_plugins.core.scorer import get_scorer

    filler = " ".join(sentence.format(k=k) for k in range(120))
    last = "The final report was signed by the director, Maria Olsen, on the evening of 3 June 2021."
    source = f"{filler} {last}"
    truncating = get_scorer()  # the default reads the first 512 tokens only
    assert truncating.config.long_text == "truncate"
    for scorer in (None, truncating):
        row = offline_faithfulness([last], [source], scorer=scorer)[0]
        assert row.label == "faithful" and row.score > 0.5, row.explanation
        assert row.facts.unsupported == []
    # a copy with one fact changed is still caught
    changed = offline_faithfulness([last.replace("3 June", "5 June")], [source])[0]
    assert changed.label == "unfaithful" and "5 June 2021: context says 3 June 2021" in changed.explanation

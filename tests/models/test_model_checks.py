"""A model folder whose files do not fit together is refused by name (ModelLoadError naming the folder or
file and the tensors), never scored with a made-up tokenizer or randomly initialised layers; the tensors
a score cannot depend on (a pooler, a masked-LM head, layers above the used one) are not refused."""

from __future__ import annotations

import functools
import json
import math
import shutil
import warnings
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from safetensors.torch import load_file, save_file

from bertscore_plugins import BERTScorer, ScoreConfig
from bertscore_plugins.core.score_config import SettingError
from bertscore_plugins.errors import BertScorePluginsError, ModelLoadError

# builds, damages and loads dozens of model folders (65 loads): the whole suite's, not the quick tier's
pytestmark = [pytest.mark.model, pytest.mark.slow]

CANDIDATES = ["A cat sat on the mat.", "The patient left on Tuesday."]
REFERENCES = ["The cat was on the mat.", "Stocks fell sharply after the news."]


def _f1(model: Path, layer: int = 2) -> list[float]:
    scorer = BERTScorer(ScoreConfig(model=str(model), layer=layer))
    return scorer.score(CANDIDATES, REFERENCES).f1.tolist()


def _rewrite_weights(folder: Path, change) -> None:
    tensors = load_file(str(folder / "model.safetensors"))
    change(tensors)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def _edit_config(folder: Path, **changes) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


# ------------------------------------------------------------------ tokenizer files


@pytest.mark.parametrize(
    "removed",
    [("tokenizer.json",), ("tokenizer.json", "tokenizer_config.json")],
    ids=["vocabulary-only", "all-tokenizer-files"],
)
def test_a_folder_without_tokenizer_files_is_refused_naming_the_files_expected(folder, removed):
    # transformers would build a 5-token tokenizer: every word [UNK], unrelated sentences scoring 0.997
    for name in removed:
        (folder / name).unlink()
    with pytest.raises(ModelLoadError) as caught:
        _f1(folder)
    assert str(caught.value).startswith(
        f"model folder {folder.resolve()} has no tokenizer files: expected tokenizer.json or vocab.txt"
    )
    assert isinstance(caught.value, BertScorePluginsError) and isinstance(caught.value, ValueError)


def test_a_wordpiece_vocab_txt_alone_is_enough(built, folder):
    from transformers import AutoTokenizer

    vocabulary = AutoTokenizer.from_pretrained(str(built)).get_vocab()
    (folder / "tokenizer.json").unlink()
    ordered = sorted(vocabulary, key=vocabulary.__getitem__)
    (folder / "vocab.txt").write_text("".join(token + "\n" for token in ordered), encoding="utf-8")
    assert _f1(folder) == pytest.approx(_f1(built), abs=1e-6)


def test_a_tokenizer_larger_than_the_embedding_table_is_refused(folder):
    _rewrite_weights(
        folder,
        lambda t: t.update(
            {"embeddings.word_embeddings.weight": t["embeddings.word_embeddings.weight"][:1000]}
        ),
    )
    _edit_config(folder, vocab_size=1000)
    with pytest.raises(
        ModelLoadError, match=r"has 30522 tokens but the model's config.json has vocab_size 1000"
    ):
        _f1(folder)


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"{}", b'{"model": {"type": "Nope"}}', b"[1, 2]", b"\x00\xff"],
    ids=["empty", "cut", "empty-object", "unknown-model", "list", "binary"],
)
def test_an_unreadable_tokenizer_json_is_a_named_error(folder, content):
    if (
        content == b'{"model": {"type": "Nope"}}'
    ):  # a whole file with an unknown model (tokenizers' bare Exception)
        whole = json.loads((folder / "tokenizer.json").read_text())
        content = json.dumps({**whole, "model": {"type": "Nope"}}).encode()
    (folder / "tokenizer.json").write_bytes(content)
    with pytest.raises(ModelLoadError, match=f"^could not load the tokenizer of '{folder.resolve()}'"):
        _f1(folder)


# ------------------------------------------------------------------ tensors


def test_missing_tensors_of_a_used_layer_are_refused_naming_file_and_tensors(folder):
    _rewrite_weights(folder, lambda t: [t.pop(k) for k in list(t) if k.startswith("encoder.layer.1.")])
    with pytest.raises(ModelLoadError) as caught:
        _f1(folder, layer=2)
    message = str(caught.value)
    assert message.startswith(
        f"the weights of model '{folder.resolve()}' ({folder.resolve() / 'model.safetensors'}) do not fit its "
        "config.json: tensors the encoder uses up to layer 2 are missing (they would be randomly initialised): "
        "encoder.layer.1.attention.output.LayerNorm.bias, "
    )
    assert "... (16 in all)" in message


def test_missing_tensors_above_the_used_layer_do_not_matter(built, folder):
    _rewrite_weights(folder, lambda t: [t.pop(k) for k in list(t) if k.startswith("encoder.layer.1.")])
    assert _f1(folder, layer=1) == _f1(built, layer=1)


def test_a_missing_embedding_is_refused_at_every_layer(folder):
    _rewrite_weights(folder, lambda t: t.pop("embeddings.LayerNorm.weight"))
    with pytest.raises(ModelLoadError) as caught:
        _f1(folder, layer=0)
    assert (
        "up to layer 0 are missing (they would be randomly initialised): embeddings.LayerNorm.weight."
        in str(caught.value)
    )


def test_a_masked_lm_checkpoint_without_pooler_loads_and_scores_as_the_encoder_does(built, folder):
    # what bert-base-uncased and most hub checkpoints look like: a head the encoder has no use for, no pooler
    def as_masked_lm(tensors: dict[str, torch.Tensor]) -> None:
        for key in [k for k in tensors if k.startswith("pooler.")]:
            del tensors[key]
        tensors["cls.predictions.bias"] = torch.zeros(30522)
        tensors["cls.predictions.transform.dense.weight"] = torch.ones(32, 32)

    _rewrite_weights(folder, as_masked_lm)
    assert _f1(folder) == _f1(built)


def test_a_tensor_with_another_shape_is_refused_naming_both_shapes(folder):
    _rewrite_weights(
        folder, lambda t: t.update({"encoder.layer.0.attention.self.query.weight": torch.zeros(16, 32)})
    )
    with pytest.raises(ModelLoadError) as caught:
        _f1(folder)
    assert (
        "tensors with other shapes than config.json gives: encoder.layer.0.attention.self.query.weight is "
        "[16, 32] in the file, [32, 32] in the model"
    ) in str(caught.value)


def test_config_with_fewer_layers_than_the_weights_is_refused(folder):
    _edit_config(folder, num_hidden_layers=1)
    with pytest.raises(
        ModelLoadError,
        match=r"tensors with no place in the model config\.json describes: encoder\.layer\.1\.",
    ):
        _f1(folder, layer=1)


def test_config_with_more_layers_than_the_weights_is_refused_when_the_extra_layer_is_used(built, folder):
    _edit_config(folder, num_hidden_layers=3)
    assert _f1(folder, layer=2) == _f1(built, layer=2)  # layers 0-1 are the checkpoint's own
    with pytest.raises(ModelLoadError, match="tensors the encoder uses up to layer 3 are missing"):
        _f1(folder, layer=3)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"hidden_act": "nope"}, "cannot be built from its config.json and weights: KeyError"),
        ({"num_attention_heads": 3}, "cannot be built from its config.json and weights: ValueError"),
        ({"model_type": "nope"}, "cannot be used"),
        ({"hidden_size": 64}, "tensors with other shapes than config.json gives: "),
        ({"max_position_embeddings": 64}, "embeddings.position_embeddings.weight is [128, 32] in the file"),
    ],
)
def test_a_config_that_does_not_fit_the_weights_is_a_named_error(folder, changes, expected):
    _edit_config(folder, **changes)
    with pytest.raises(ModelLoadError) as caught:
        _f1(folder)
    assert expected in str(caught.value) and str(folder.resolve()) in str(caught.value)


# ------------------------------------------------------------------ hostile sweep

FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"]


@functools.cache
def _identity_of(model: str) -> str:
    """The identity of an undamaged folder (the module's built model), loaded once for the whole sweep."""
    return BERTScorer(ScoreConfig(model=model, layer=2)).model_identity


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(FILES),
    damage=st.sampled_from(["truncate", "flip", "delete", "empty"]),
    position=st.floats(0, 1),
    byte=st.integers(1, 255),
)
# a special token renamed in tokenizer_config.json ("[PAD]" read as a new token, past the embedding table)
@example(name="tokenizer_config.json", damage="flip", position=0.5078125, byte=1)
def test_any_damage_to_a_model_file_is_a_named_error_or_a_new_identity_with_finite_scores(
    built, tmp_path_factory, name, damage, position, byte
):
    """No silent wrong result (an old identity with other numbers), no traceback, no change to the files."""
    folder = Path(shutil.copytree(built, tmp_path_factory.mktemp("sweep") / "tiny"))
    path = folder / name
    data = path.read_bytes()
    offset = min(int(position * len(data)), len(data) - 1)
    if damage == "truncate":
        path.write_bytes(data[:offset])
    elif damage == "flip":
        path.write_bytes(data[:offset] + bytes([data[offset] ^ byte]) + data[offset + 1 :])
    elif damage == "delete":
        path.unlink()
    else:
        path.write_bytes(b"")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scorer = BERTScorer(ScoreConfig(model=str(folder), layer=2))
            scores = scorer.score(CANDIDATES, REFERENCES)
    except ModelLoadError as error:
        assert str(folder.resolve()) in str(error)
    except SettingError as error:  # config.json now has fewer layers than the layer asked for
        assert str(error).startswith("layer must be between 0 and")
    else:
        # loaded: then its identity must say it is not the built model (it differs in a file it reads)
        pristine = _identity_of(str(built))
        assert scorer.model_identity.split(";", 1)[1] != pristine.split(";", 1)[1]
        assert all(math.isfinite(v) for v in scores.f1.tolist())
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing of the user's touched


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("tokenizer", "has no tokenizer files"),
        ("tensors", "tensors the encoder uses up to layer 2 are missing"),
    ],
)
def test_the_command_line_reports_a_folder_that_does_not_fit_in_one_line(
    folder, tmp_path, capsys, damage, problem
):
    from bertscore_plugins.cli.main import main

    if damage == "tokenizer":
        (folder / "tokenizer.json").unlink()
    else:
        _rewrite_weights(folder, lambda t: [t.pop(k) for k in list(t) if k.startswith("encoder.layer.1.")])
    texts = tmp_path / "texts.txt"
    texts.write_text("A cat sat on the mat.\n")
    assert main(["score", "-c", str(texts), "-r", str(texts), "--model", str(folder), "--layer", "2"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    # one line: transformers' own table of missing tensors is not printed before it
    assert (
        captured.err.startswith("error: ")
        and problem in captured.err
        and str(folder.resolve()) in captured.err
    )
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_a_masked_lm_checkpoint_loads_without_transformers_table_of_tensors(folder):
    import logging

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    report_logger = logging.getLogger("transformers.modeling_utils")
    report_logger.addHandler(handler)
    try:
        _rewrite_weights(folder, lambda t: t.update({"cls.predictions.bias": torch.zeros(30522)}))
        _f1(folder)
    finally:
        report_logger.removeHandler(handler)
    assert [record.getMessage() for record in records] == []


def _saved_with_head(architecture: str, folder: Path, tokenizer_folder: Path) -> Path:
    """A tiny checkpoint of a model with a head (or a decoder) the scored encoder leaves out."""
    import transformers

    small = {"vocab_size": 30522}
    configs = {
        "t5": (
            "T5ForConditionalGeneration",
            transformers.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, **small),
        ),
        "bart": (
            "BartForConditionalGeneration",
            transformers.BartConfig(
                d_model=32,
                encoder_layers=2,
                decoder_layers=2,
                encoder_attention_heads=2,
                decoder_attention_heads=2,
                encoder_ffn_dim=64,
                decoder_ffn_dim=64,
                max_position_embeddings=64,
                **small,
            ),
        ),
        "distilbert": (
            "DistilBertForMaskedLM",
            transformers.DistilBertConfig(
                dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64, **small
            ),
        ),
        "roberta": (
            "RobertaForMaskedLM",
            transformers.RobertaConfig(
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=64,
                max_position_embeddings=66,
                **small,
            ),
        ),
    }
    name, config = configs[architecture]
    torch.manual_seed(0)
    getattr(transformers, name)(config).save_pretrained(str(folder))
    for file in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tokenizer_folder / file, folder / file)
    return folder


@pytest.mark.parametrize("architecture", ["t5", "bart", "distilbert", "roberta"])
def test_checkpoints_with_a_head_or_decoder_load_and_truncate_to_the_layer(built, tmp_path, architecture):
    folder = _saved_with_head(architecture, tmp_path / architecture, built)
    scorer = BERTScorer(ScoreConfig(model=str(folder), layer=1))
    assert not scorer._model.uses_hidden_states and scorer._model.num_layers == 2
    f1 = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
    assert all(math.isfinite(value) for value in f1)
    assert BERTScorer(ScoreConfig(model=str(folder), layer=2)).score(CANDIDATES, REFERENCES).f1.tolist() != f1

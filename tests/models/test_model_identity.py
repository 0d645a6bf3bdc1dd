"""A model's identity covers every file of its folder that can change a score (weights, tokenizer files,
config.json, sentence-transformers module files): editing any of them changes the signature and misses
every cache built on the old identity (scorer and model caches, the on-disk reference cache, the datasets
fingerprint), so the edited folder's scores are those of a fresh load, never the old ones."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from bertscore_plugins import BERTScorer, ScoreConfig, get_scorer
from bertscore_plugins.models.identity import files_digest, identity_files
from bertscore_plugins.models.resolve import resolve_model
from tests.support.tiny_models import CASED_TEXTS, FILE_EDITS, edit_model_file, tiny_bert

# edits model files and loads each edited folder again: the whole suite's, not the quick tier's
pytestmark = [pytest.mark.model, pytest.mark.slow]

CANDIDATES, REFERENCES = CASED_TEXTS


def _f1(model: str | Path, **settings) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tokenizer_config edit truncates (TruncationWarning)
        return (
            BERTScorer(ScoreConfig(model=str(model), layer=2, **settings))
            .score(CANDIDATES, REFERENCES)
            .f1.tolist()
        )


def _cached_f1(model: Path, disk: Path) -> tuple[list[float], object, str]:
    scorer = BERTScorer(ScoreConfig(model=str(model), layer=2))
    cache = scorer.enable_reference_cache(disk_dir=str(disk))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f1 = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
    return f1, cache, scorer.signature


def test_the_packaged_default_identity_is_pinned_and_names_weights_and_files():
    identity = resolve_model("default").identity
    assert identity == "sentence-transformers/all-MiniLM-L6-v2@1110a24;sha256:53aa5117;files:185dff54"
    covered = list(identity_files(Path(resolve_model("default").location)))
    assert {"config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "modules.json"} <= set(
        covered
    )
    assert not any(name.endswith(".safetensors") or name.startswith(".") for name in covered)


@pytest.mark.parametrize("kind", FILE_EDITS)
def test_editing_any_model_file_changes_the_signature_and_misses_the_reference_cache(folder, tmp_path, kind):
    disk = tmp_path / "cache"
    before, cache, signature = _cached_f1(folder, disk)
    assert cache.misses == 2 and cache.hits == 0

    edit_model_file(folder, kind)
    after, cache, edited_signature = _cached_f1(folder, disk)
    assert edited_signature != signature
    assert "model" in signature.diff(edited_signature)
    # the old entries (another cache key) are not served: the edited folder's own, fresh numbers
    assert cache.hits == 0 and cache.misses == 2
    assert after != before
    assert after == _f1(shutil.copytree(folder, tmp_path / "fresh-copy"))
    # the process-wide scorer cache misses too
    assert get_scorer(model=str(folder), layer=2).signature == edited_signature


@pytest.mark.parametrize("kind", FILE_EDITS)
def test_editing_any_model_file_changes_the_datasets_fingerprint(folder, kind):
    datasets = pytest.importorskip("datasets")
    from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform

    before = datasets.fingerprint.Hasher.hash(BERTScoreTransform(model=str(folder), layer=2))
    edit_model_file(folder, kind)
    assert datasets.fingerprint.Hasher.hash(BERTScoreTransform(model=str(folder), layer=2)) != before


def test_a_file_added_or_removed_changes_the_identity_and_hidden_files_do_not(folder):
    identity = resolve_model(str(folder)).identity
    (folder / ".cache-marker").write_text("tool state")
    assert resolve_model(str(folder)).identity == identity
    (folder / "special_tokens_map.json").write_text(json.dumps({"unk_token": "[UNK]"}))
    assert resolve_model(str(folder)).identity != identity
    (folder / "special_tokens_map.json").unlink()
    assert resolve_model(str(folder)).identity == identity


def test_a_same_size_rewrite_of_a_file_is_seen(folder):
    config = folder / "config.json"
    identity = resolve_model(str(folder)).identity
    text = config.read_text()
    replaced = folder / "config.new"
    replaced.write_text(text.replace('"gelu"', '"relu"'))  # same length, a new file moved into place
    replaced.replace(config)
    assert len(config.read_text()) == len(text)
    assert resolve_model(str(folder)).identity != identity


# ------------------------------------------------------------------ sentence-transformers module folders


def _sentence_transformers_layout(root: Path, built: Path) -> Path:
    """The old sentence-transformers layout: modules.json at the top, the encoder in 0_Transformer/."""
    root.mkdir()
    shutil.copytree(built, root / "0_Transformer")
    tiny_bert(root / "0_Other", seed=1)
    (root / "1_Pooling").mkdir()
    (root / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    modules = [
        {"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (root / "modules.json").write_text(json.dumps(modules))
    (root / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    return root


def test_sentence_transformers_module_files_are_part_of_the_identity(built, tmp_path):
    root = _sentence_transformers_layout(tmp_path / "st", built)
    source = resolve_model(str(root))
    assert Path(source.location) == root / "0_Transformer"
    assert "0_Transformer/tokenizer.json" in identity_files(root, root / "0_Transformer")
    first, before = source.identity, _f1(root)
    assert before == _f1(built)  # the same encoder as the plain folder

    # a module file (the encoder's tokenizer) edited
    edit_model_file(root / "0_Transformer", "tokenizer.json")
    edited = resolve_model(str(root)).identity
    assert edited != first and _f1(root) != before

    # modules.json pointing at another encoder folder
    modules = json.loads((root / "modules.json").read_text())
    modules[0]["path"] = "0_Other"
    (root / "modules.json").write_text(json.dumps(modules))
    assert Path(resolve_model(str(root)).location) == root / "0_Other"
    assert resolve_model(str(root)).identity not in (first, edited)
    assert _f1(root) == _f1(root / "0_Other")

    # a top-level file of the layout (sentence_bert_config.json)
    identity = resolve_model(str(root)).identity
    (root / "sentence_bert_config.json").write_text('{"max_seq_length": 64}')
    assert resolve_model(str(root)).identity != identity


def test_files_digest_names_files_relative_to_the_folder(built, tmp_path):
    root = _sentence_transformers_layout(tmp_path / "st", built)
    moved = tmp_path / "elsewhere"
    shutil.copytree(root, moved)
    assert files_digest(root, root / "0_Transformer") == files_digest(moved, moved / "0_Transformer")

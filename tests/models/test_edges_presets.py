"""Preset assembly under concurrent processes, after killed runs and after tampering (tiny synthetic preset)."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from bertscore_plugins.models import identity, presets
from tests.support.tiny_presets import leftovers

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

WEIGHTS = bytes(range(256)) * 400


def _resolve(spec, cache: str, parts: str, results, start) -> None:
    try:
        start.wait(timeout=60)  # all processes look at the folder at the same moment
        info = presets.resolve_spec(spec, cache_dir=Path(cache), parts_dir=Path(parts))
        results.put(("ok", str(info.path), (info.path / "model.safetensors").read_bytes() == WEIGHTS))
    except BaseException as error:
        results.put(("error", f"{type(error).__name__}: {error}", False))


@pytest.mark.parametrize("start", ["empty", "damaged"])
def test_processes_resolving_at_once_all_get_the_verified_folder(tiny, tmp_path, start):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    if start == "damaged":
        presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
        (cache / spec.folder_name / "model.safetensors").write_bytes(b"truncated")
    context = multiprocessing.get_context("fork")
    results, barrier = context.Queue(), context.Barrier(6)
    workers = [
        context.Process(target=_resolve, args=(spec, str(cache), str(parts_dir), results, barrier))
        for _ in range(6)
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert outcomes == [("ok", str(cache / spec.folder_name), True)] * 6
    assert leftovers(cache) == [spec.folder_name]


def test_leftovers_of_killed_assemblies_are_removed(tiny, tmp_path):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    # what kill -9 during an assembly and during a rebuild's cleanup leave behind
    for name in (f".{spec.folder_name}.building-4242-abc", f".{spec.folder_name}.stale-4243-def"):
        (cache / name / "sub").mkdir(parents=True)
        (cache / name / "model.safetensors").write_bytes(b"x" * 1000)
    info = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert info.path == cache / spec.folder_name
    assert leftovers(cache) == [spec.folder_name]


def test_a_same_size_change_after_assembly_is_caught_without_full_check(tiny, tmp_path):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    info = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    weights = info.path / "model.safetensors"
    stat = weights.stat()
    weights.write_bytes(bytes([WEIGHTS[0] ^ 1]) + WEIGHTS[1:])  # same size, same mtime: only a hash sees it
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    identity._DIGESTS.clear()  # a new process: nothing memoised
    rebuilt = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    assert (rebuilt.path / "model.safetensors").read_bytes() == WEIGHTS
    assert rebuilt.identity == f"example/tiny@0123456;sha256:{spec.weights_sha256[:8]}"


def test_a_read_only_complete_cache_is_used_as_it_is(tiny, tmp_path):
    spec, parts_dir = tiny
    cache = tmp_path / "cache"
    info = presets.resolve_spec(spec, cache_dir=cache, parts_dir=parts_dir)
    (cache / f".{spec.folder_name}.building-1-x").mkdir()
    cache.chmod(0o500)
    try:
        again = presets.resolve_spec(spec, cache_dir=cache, parts_dir=None)  # parts not even needed
    finally:
        cache.chmod(0o755)
    assert again.path == info.path

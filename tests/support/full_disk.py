"""A folder on a real, full file system: a 64 KiB tmpfs mounted there and filled to the last byte, so
every write fails with ENOSPC exactly as on a full cache disk. Mounting needs root (CAP_SYS_ADMIN);
where it is refused the tests using it are skipped with the reason."""

from __future__ import annotations

import contextlib
import errno
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def full_file_system(folder: Path) -> Iterator[Path]:
    """Mount a tiny tmpfs on `folder` (created), fill it, yield it; unmounted afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = shutil.which("mount")
    result = (
        subprocess.run(
            [mount, "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True
        )
        if mount
        else None
    )
    if result is None or result.returncode != 0:
        reason = result.stderr.strip() if result is not None else "no mount command"
        pytest.skip(f"cannot mount a small tmpfs to fill up ({reason}); needs root")
    try:
        with open(folder / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)

"""Every file the project reads goes through here, so every failure names the file (and the line).

Lines are split on "\\n" only ("\\r\\n" counts as one break), with the last newline optional: a text file
of N lines is N rows whatever characters the lines hold. `str.splitlines()` would also break on form
feed, \\x85, U+2028/2029 and other separators, silently shifting every later row.

Writes are atomic: a temporary file in the same folder, then `os.replace`; the temporary file is removed
when anything fails, so a failed write leaves neither a half-written target nor a `.tmp` file.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from bertscore_plugins.errors import (
    FileFormatError,
    FolderGivenError,
    MissingFileError,
    NotPermittedError,
    ProjectOSError,
)


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of `path`; a missing file, a folder or an unreadable file raises naming it.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: with the path and `what` it was meant to be.
    """
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MissingFileError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise FolderGivenError(f"{what} {path} is a folder, not a file") from None
    except PermissionError:
        raise NotPermittedError(f"{what} {path} cannot be read (permission denied)") from None
    except OSError as error:
        raise ProjectOSError(f"{what} {path} cannot be read: {error.strerror or error}") from None


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); invalid bytes raise naming file and line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FileFormatError(
            path, f"is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})", line
        ) from None
    return text.removeprefix("\ufeff")


def split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only ("\\r\\n" too); the last newline is optional; "" has no lines."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":  # the newline that ends the last line
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_lines(path: str | Path, what: str = "file") -> list[str]:
    """The lines of a UTF-8 text file: one row per line, whatever the line holds (see split_lines)."""
    return split_lines(decode(read_bytes(path, what), path))


def read_text(path: str | Path, what: str = "file") -> str:
    """A UTF-8 text file's content (errors name the file and line)."""
    return decode(read_bytes(path, what), path)


def numbered_lines(path: str | Path, what: str = "file") -> Iterator[tuple[int, str]]:
    """(line number from 1, line) for each line of a text file."""
    yield from enumerate(read_lines(path, what), start=1)


def parse_number(
    path: str | Path,
    line: int,
    name: str,
    cell: str,
    check: Callable[[float], bool] | None = None,
    expected: str = "a finite number",
) -> float:
    """A finite float from one cell of a file, or FileFormatError naming file, line and column."""
    try:
        value = float(cell)
    except ValueError:
        raise FileFormatError(path, f"{name} {cell.strip()!r} is not a number", line) from None
    if not math.isfinite(value) or (check is not None and not check(value)):
        raise FileFormatError(path, f"{name} {cell.strip()!r} is not {expected}", line)
    return value


def write_atomically(path: str | Path, data: bytes | str | Callable[[str], None]) -> None:
    """Write `data` (bytes, text, or a function writing to the path it is given) to `path` atomically.

    Raises OSError (e.g. a read-only folder); nothing is left behind on failure.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            if isinstance(data, str):
                out.write(data.encode("utf-8"))
            elif isinstance(data, bytes):
                out.write(data)
        if callable(data):
            data(temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise

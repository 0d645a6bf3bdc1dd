"""Every file the project reads goes through here, so every failure names the file (and the line).

Lines are split on "\\n" only ("\\r\\n" counts as one break), with the last newline optional: a text file
of N lines is N rows whatever characters the lines hold. `str.splitlines()` would also break on form
feed, \\x85, U+2028/2029 and other separators, silently shifting every later row.

Writes are atomic: a temporary file in the same folder, then `os.replace`; the temporary file is removed
when anything fails, so a failed write leaves neither a half-written target nor a `.tmp` file. The new
file gets the mode the replaced one had, or the umask's (``0o666 & ~umask``) when it is new.

A user-named output (``write_output``) never destroys what its path points at: a symlink is written
through to its target, a device or FIFO (``/dev/null``, ``/dev/stdout``) is written in place, ``-`` is
standard output; ``check_outputs`` refuses, before any work, an output that is an input of the same run,
two outputs that are one file, and a folder that cannot take the new file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from bertscore_plugins.errors import (
    FileFormatError,
    FolderGivenError,
    MissingFileError,
    NotPermittedError,
    OutputPathError,
    ProjectOSError,
    UnreadableInputError,
    UnwritableOutputError,
)

#: the output name that means standard output
STDOUT = "-"


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of `path`; a missing file, a folder or an unreadable file raises naming it.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: with the path and `what` it was meant to be.
        UnreadableInputError: a device that is no terminal (/dev/zero would never end).
    """
    path = Path(path)
    try:
        with open(path, "rb") as source:
            mode = os.fstat(source.fileno()).st_mode
            # /dev/zero or a disk would be read until memory runs out; a terminal or a pipe is fine
            if not (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) or source.isatty():
                return source.read()
    except FileNotFoundError:
        raise MissingFileError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise FolderGivenError(f"{what} {path} is a folder, not a file") from None
    except PermissionError:
        raise NotPermittedError(f"{what} {path} cannot be read (permission denied)") from None
    except OSError as error:
        raise ProjectOSError(f"{what} {path} cannot be read: {error.strerror or error}") from None
    raise UnreadableInputError(f"{what} {path} is a device, not a file")


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


def read_json_object(path: str | Path, what: str = "file") -> dict:
    """A JSON file holding one object, or one FileFormatError naming the file and line: not JSON, too
    deep, or another JSON value than an object."""
    text = read_text(path, what)
    if json_too_deep(text):
        raise FileFormatError(path, f"the {what} nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(text)
    except ValueError as error:
        problem = getattr(error, "msg", str(error))
        raise FileFormatError(
            path, f"the {what} is not JSON ({problem})", getattr(error, "lineno", None)
        ) from None
    if not isinstance(value, dict):
        raise FileFormatError(path, f"the {what} must hold a JSON object, got {type(value).__name__}")
    return value


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


#: JSON read back from a file or a span nests at most this deep. Python's parser recurses once a level
#: and raises RecursionError near 1,000 (less when called deep in a stack); nothing this project
#: writes, and no real table cell or span attribute, comes near 100.
MAX_JSON_DEPTH = 100
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON `text` nests arrays/objects deeper than `limit` (brackets inside strings skipped).

    Checked before `json.loads`, so a deep value is a reason to refuse, never a RecursionError."""
    if text.count("[") + text.count("{") <= limit:  # the common case: cannot be that deep
        return False
    depth = 0
    for token in _JSON_TOKENS.finditer(text):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif mark in ("]", "}"):
            depth -= 1
    return False


def value_too_deep(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether a parsed value (dicts, lists, tuples) nests deeper than `limit`; walked without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def write_atomically(path: str | Path, data: bytes | str | Callable[[str], None]) -> None:
    """Write `data` (bytes, text, or a function writing to the path it is given) to `path` atomically.

    The file keeps the mode it had; a new one gets ``0o666 & ~umask``, as ``open()`` would give it.
    Raises OSError (e.g. a read-only folder); nothing is left behind on failure.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = os.stat(path)
    except OSError:
        old = None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=_temporary_prefix(path.name), suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            if isinstance(data, str):
                out.write(data.encode("utf-8"))
            elif isinstance(data, bytes):
                out.write(data)
        if callable(data):
            data(temporary)
        _take_over(temporary, old)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _temporary_prefix(name: str) -> str:
    """A hidden temporary name beside `name`, short enough for any name the folder accepts (255 bytes)."""
    return f".{name.encode()[:100].decode(errors='ignore')}."


def _take_over(temporary: str, old: os.stat_result | None) -> None:
    """Give the temporary file the replaced file's mode and owner (mkstemp makes it 0600, ours)."""
    if old is None or not stat.S_ISREG(old.st_mode):
        os.chmod(temporary, 0o666 & ~current_umask())
        return
    os.chmod(temporary, stat.S_IMODE(old.st_mode))
    if hasattr(os, "chown") and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):  # only root may give a file away; others keep their own
            os.chown(temporary, old.st_uid, old.st_gid)


def current_umask() -> int:
    """The process's umask, read without changing it where Linux shows it (/proc), else set and reset."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------------------ user-named outputs


def is_special_file(path: str | Path) -> bool:
    """A device, FIFO or socket (after symlinks): written in place, never replaced by a file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _identity(path: str | Path) -> tuple:
    """What a path names after symlinks: the file (device, inode) when it exists, else its full path;
    ``-`` is whatever standard output is (so ``-o -`` and ``--summary /dev/stdout`` are one stream)."""
    try:
        found = os.fstat(sys.stdout.fileno()) if str(path) == STDOUT else os.stat(path)
    except (OSError, ValueError, AttributeError):  # no file behind stdout (a captured stream)
        return ("stdout",) if str(path) == STDOUT else ("path", os.path.realpath(os.path.expanduser(path)))
    return ("file", found.st_dev, found.st_ino)


def _shareable(path: str) -> bool:
    """A sink several outputs may share: the null device (anything else would mix or overwrite)."""
    return path != STDOUT and _identity(path) == _identity(os.devnull)


def _named_paths(paths: Mapping[str, str | Path | Sequence[str | Path] | None]) -> list[tuple[str, str]]:
    """(flag, path) pairs from ``{flag: path, list of paths, or None}``, standard streams left out."""
    pairs = []
    for flag, value in paths.items():
        values = [value] if isinstance(value, (str, Path)) or value is None else list(value)
        pairs += [(flag, str(v)) for v in values if v is not None and str(v) != STDOUT]
    return pairs


def check_outputs(
    outputs: Mapping[str, str | Path | None],
    inputs: Mapping[str, str | Path | Sequence[str | Path] | None] | None = None,
) -> None:
    """Check every output of a run before any work, so a run never fails after scoring.

    Args:
        outputs: ``{flag: path}``; None (not asked for) is skipped, ``-`` is standard output.
        inputs: ``{flag: path or paths}`` the run reads.

    Raises:
        OutputPathError: an output is one of the inputs (a symlink or hard link to it counts), or two
            outputs are one file or one stream (stdout, a pipe, a terminal); a sink such as /dev/null
            may be shared.
        UnwritableOutputError (an OSError): the output is a folder, its folder does not exist, or its
            folder cannot take a new file (tried by creating and removing one); the message names the
            flag and the path, never a temporary file.
    """
    named_outputs = [(flag, str(path)) for flag, path in outputs.items() if path is not None]
    read = {_identity(path): (flag, path) for flag, path in _named_paths(inputs or {})}
    seen: dict[tuple, tuple[str, str]] = {}
    for flag, path in named_outputs:
        identity = _identity(path)
        if identity in read and path != STDOUT and not is_special_file(path):
            other_flag, other = read[identity]
            raise OutputPathError(
                f"{flag} {path} is the {other_flag} file {other}: writing it would destroy the input; "
                "choose another output file"
            )
        if identity in seen and not _shareable(path):
            other_flag, other = seen[identity]
            if path == STDOUT or is_special_file(path):  # a pipe, terminal or stdout: they would mix
                raise OutputPathError(
                    f"{flag} {path} and {other_flag} {other} both write to one stream (standard output, "
                    "a pipe or a terminal), where they would mix; give one of them a file"
                )
            raise OutputPathError(
                f"{flag} {path} and {other_flag} {other} are the same file: one would overwrite the other; "
                "give each its own file"
            )
        seen[identity] = (flag, path)
        if path != STDOUT:
            _check_writable(flag, path)


def _check_writable(flag: str, path: str) -> None:
    if os.path.isdir(os.path.expanduser(path)):
        raise UnwritableOutputError(f"{flag} {path} is a folder; give a file name")
    if is_special_file(os.path.expanduser(path)):
        if not os.access(os.path.expanduser(path), os.W_OK):
            raise UnwritableOutputError(f"{flag} {path} cannot be written (permission denied)")
        return
    target = Path(os.path.realpath(os.path.expanduser(path)))  # a symlink is written through
    if target.is_file() and not os.access(target, os.W_OK):  # never replaced behind its back
        raise UnwritableOutputError(f"{flag} {path} is read-only (permission denied)")
    folder = target.parent
    if not folder.is_dir():
        shown = Path(path).expanduser().parent if not Path(path).is_symlink() else folder
        raise UnwritableOutputError(f"{flag} {path}: folder {shown} does not exist")
    try:  # the only sure test (root, ACLs, read-only mounts): make a file there, as the write will
        handle, probe = tempfile.mkstemp(dir=folder, prefix=_temporary_prefix(target.name), suffix=".tmp")
    except OSError as error:
        reason = error.strerror or str(error)
        raise UnwritableOutputError(
            f"{flag} {path}: folder {folder} cannot take a new file ({reason})"
        ) from None
    os.close(handle)
    os.unlink(probe)


def make_output_folder(folder: Path, flag: str, when_a_file: str) -> None:
    """``folder`` (with its parents) made if missing, before any work: ``UnwritableOutputError`` naming
    ``flag`` when a file stands there (``when_a_file``: the message, saying what to do) or the folder cannot
    be made (the system's reason)."""
    if folder.exists() and not folder.is_dir():
        raise UnwritableOutputError(when_a_file)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UnwritableOutputError(
            f"{flag}: cannot make folder {folder} ({error.strerror or error})"
        ) from None


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write a user-named output without destroying what the path points at.

    ``-`` is standard output; a symlink is followed and its target written (atomically); a device or
    FIFO is opened and written in place, and so is a file with other hard links (a replacement would
    leave them the old content); a regular file (or a new one) is written atomically, keeping an
    existing file's mode (see `write_atomically`). Call `check_outputs` first, before any work.

    Raises:
        UnwritableOutputError: the write failed (a full disk, /dev/full); names `path`, never the
            temporary file; a replaced file is left as it was (one written in place may be cut short).
    """
    if str(path) == STDOUT:
        sys.stdout.write(data if isinstance(data, str) else data.decode("utf-8"))
        sys.stdout.flush()
        return
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path = os.path.expanduser(path)
    try:
        if is_special_file(path):  # the path itself: /dev/stdout's link chain ends in a pipe with no path
            with open(path, "wb") as out:
                out.write(payload)
            return
        target = os.path.realpath(path)  # a symlink: its target
        if os.path.isfile(target) and os.stat(target).st_nlink > 1:  # replacing would cut other names off
            with open(target, "r+b") as out:
                out.write(payload)
                out.truncate()
            return
        write_atomically(target, payload)
    except OSError as error:
        raise UnwritableOutputError(f"output {path} cannot be written ({error.strerror or error})") from None

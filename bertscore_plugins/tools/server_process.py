"""What the local servers' launchers share (Phoenix, the judge): is a pid ours, a pid file, a stop by pid.

A pid file left behind is honoured only while its pid is still a server of ours (its command line runs
our script), never when the pid was reused by another program; a server that ignores SIGTERM is killed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def command_line(pid: int) -> list[str] | None:
    """The arguments process ``pid`` was started with (None: cannot be read here). Empty for a kernel
    thread, a zombie, or a process a moment before its exec: read again for a second before believing it."""
    for _ in range(10):
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        except FileNotFoundError:
            return []  # gone meanwhile
        except OSError:
            return _command_line_from_ps(pid)  # no /proc (macOS)
        if raw:
            return [part.decode(errors="replace") for part in raw.split(b"\0") if part]
        time.sleep(0.1)
    return []


def _command_line_from_ps(pid: int) -> list[str] | None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)], capture_output=True, text=True, timeout=10, check=False
        )
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.split()
    return None


def runs_script(pid: int, script: str) -> bool | None:
    """Whether live process ``pid`` runs the script named ``script``; None when that cannot be read."""
    arguments = command_line(pid)
    if arguments is None:
        return None
    return any(Path(argument).name == script for argument in arguments)


def claim_pid_file(
    pid_file: Path, is_ours: Callable[[int], bool | None], busy: Callable[[int], Exception], what: str
) -> None:
    """Refuse a pid file whose server of ours still runs (``busy(pid)`` is raised); remove one whose pid is
    gone or now another program's; refuse one whose process cannot be told apart (naming the file)."""
    if not pid_file.exists():
        return
    try:
        old = int(pid_file.read_text().strip())
    except (ValueError, OSError):
        old = -1
    ours = is_ours(old) if old > 0 and pid_alive(old) else False
    if ours:
        raise busy(old)
    if ours is None:
        error = busy(old)
        raise type(error)(
            f"{pid_file} names pid {old}, which is running, and its command line cannot be read here to tell "
            f"whether it is {what}; if it is not, remove that file"
        )
    why = "is gone" if old <= 0 or not pid_alive(old) else "is another program now"
    logger.info("removing a stale pid file %s (pid %s %s)", pid_file, old, why)
    pid_file.unlink(missing_ok=True)


def stop_child(process: subprocess.Popen, timeout: float, what: str) -> None:
    """SIGTERM ``process``, wait ``timeout`` seconds, then SIGKILL it."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        logger.warning("%s (pid %d) ignored SIGTERM for %.0f s; killing it", what, process.pid, timeout)
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def remove_pid_file(pid_file: Path, pid: int) -> None:
    """Remove ``pid_file`` if it still names ``pid`` (another start may have written its own since)."""
    with contextlib.suppress(OSError):
        if pid_file.read_text().strip() == str(pid):
            pid_file.unlink()

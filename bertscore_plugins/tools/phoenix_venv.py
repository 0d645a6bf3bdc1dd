"""The Phoenix server's own virtual environment: where it is, what it holds, creating it on first use.

The server (``arize-phoenix``, ELv2) is not a library dependency: importing it takes 13-21 s and writes
to ``$HOME``. So it lives in its own virtual environment, created on first use with a pinned version;
:mod:`.phoenix_server` runs it from there as a child process. Where: ``$BERTSCORE_PHOENIX_VENV``, else
``phoenix-venv`` in this package's cache home (cache_home.py: ``$XDG_CACHE_HOME/bertscore-plugins``,
by default ``~/.cache/bertscore-plugins``): never inside the installed package or the checkout it was
installed from, whatever folder the command runs in. A relative path is the caller's folder's.
(``make`` points ``$BERTSCORE_PHOENIX_VENV`` at the checkout's ``.phoenix-venv``, as the test suite does.)
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from bertscore_plugins.cache_home import cache_home
from bertscore_plugins.errors import PhoenixServerError

logger = logging.getLogger(__name__)

PHOENIX_VERSION = "20.26.1"
VENV_ENV_VAR = "BERTSCORE_PHOENIX_VENV"


def project_root() -> Path:
    # In a source checkout the repository root holds pyproject.toml; an installed package uses the cwd.
    candidate = Path(__file__).resolve().parents[2]
    return candidate if (candidate / "pyproject.toml").exists() else Path.cwd()


def absolute(path: str | Path) -> Path:
    """``path`` with ``~`` expanded, relative to the caller's current folder: a child process started in
    another folder (the server's working folder) must find the same place."""
    return Path(os.path.abspath(Path(path).expanduser()))


def default_venv() -> Path:
    """``$BERTSCORE_PHOENIX_VENV``, else ``phoenix-venv`` in the cache home (cache_home.py)."""
    configured = os.environ.get(VENV_ENV_VAR, "").strip()
    return absolute(configured) if configured else cache_home() / "phoenix-venv"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed_version(venv: Path, package: str = "arize-phoenix") -> str | None:
    """The version of ``package`` in ``venv`` (read from metadata, without importing it)."""
    python = venv_python(venv)
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
    venv_path = absolute(venv) if venv is not None else default_venv()
    requirement = f"arize-phoenix[pg]=={version}" if postgres else f"arize-phoenix=={version}"

    def ready() -> bool:
        return installed_version(venv_path) == version and (
            not postgres or installed_version(venv_path, "asyncpg") is not None
        )

    found = installed_version(venv_path)
    if ready():
        return venv_python(venv_path)
    if not create:
        state = f"has arize-phoenix {found}" if found else "does not hold arize-phoenix"
        raise PhoenixServerError(
            f"{venv_path} {state}; expected {requirement}. Create it with "
            f"`python -m venv {venv_path} && {venv_python(venv_path)} -m pip install '{requirement}'`"
        )
    # The lock lives inside the (possibly still empty) environment folder: no stray file beside it.
    venv_path.mkdir(parents=True, exist_ok=True)
    lock_path = venv_path / ".bertscore-install.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be creating it right now
        try:
            if ready():
                return venv_python(venv_path)
            _install_phoenix(venv_path, requirement, version, python)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv_python(venv_path)


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
    steps = [] if venv_python(venv_path).exists() else [[base_python, "-m", "venv", str(venv_path)]]
    steps.append([str(venv_python(venv_path)), "-m", "pip", "install", "-q", requirement])
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            tail = [line for line in lines if "ERROR" in line] or lines[-15:]
            raise PhoenixServerError(
                f"`{' '.join(step)}` failed (exit {done.returncode}):\n" + "\n".join(tail)
            )
    logger.info("Phoenix environment ready in %.0f s", time.perf_counter() - started)

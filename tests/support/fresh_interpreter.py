"""Commands run the way a user's first command runs: each in a fresh Python interpreter, with nothing
imported before it, several at a time (each spends seconds importing torch, mostly waiting on a core)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: variables that would change what a command does (a configured judge, a user's Phoenix, a debug flag)
_USER_SETTINGS = ("BERTSCORE_", "OPENAI_", "ANTHROPIC_", "PHOENIX_", "RAY_")


@dataclass(frozen=True)
class Run:
    """One finished command: its exit status, its output and how long it took."""

    argv: Sequence[str]
    cwd: Path
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def result(self) -> Any:
        """The JSON value on stdout (a command's ``--format json``), or on its last line (what a snippet
        reported), after exit status 0."""
        assert self.returncode == 0, self.describe()
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError:
            lines = self.stdout.strip().splitlines()
            assert lines, self.describe()
            return json.loads(lines[-1])

    def describe(self) -> str:
        """What to show when an assertion fails: the exit status and the end of both streams."""
        return f"exit {self.returncode}\nstdout:\n{self.stdout[-2000:]}\nstderr:\n{self.stderr[-4000:]}"


def fresh_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent's environment with this checkout first on the path, one torch thread per process (the
    commands run side by side) and none of the user's settings for this project or its services."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(_USER_SETTINGS)}
    env["PYTHONPATH"] = str(REPO)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return {**env, **(extra or {})}


def console_script(name: str) -> list[str]:
    """The command line of a `[project.scripts]` entry of pyproject.toml, run as the script pip
    generates runs it (`from module import function; sys.exit(function())`), whatever is installed."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: the one line, as setuptools writes it
        target = re.search(rf'^"?{re.escape(name)}"? = "([^"]+)"', text, re.MULTILINE)[1]
    else:
        target = tomllib.loads(text)["project"]["scripts"][name]
    module, _, function = target.partition(":")
    return [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


def run_fresh(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float) -> Run:
    started = time.perf_counter()
    done = subprocess.run(
        list(argv),
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return Run(argv, cwd, done.returncode, done.stdout, done.stderr, time.perf_counter() - started)


class FreshRuns:
    """Starts named commands at once, at most ``workers`` running at a time; ``get(name)`` waits for one.

    Use as a context manager: leaving it waits for every command (none outlives the tests)."""

    def __init__(self, cwd: Path, workers: int = 3, timeout: float = 600) -> None:
        self.cwd = cwd
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fresh-interpreter")
        self._runs: dict[str, Future[Run]] = {}

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self._runs[name] = self._pool.submit(run_fresh, argv, self.cwd, env, self.timeout)

    def get(self, name: str) -> Run:
        """The finished run of ``name`` (a timeout, 600 s by default, raises subprocess.TimeoutExpired)."""
        return self._runs[name].result()

    def __enter__(self) -> FreshRuns:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

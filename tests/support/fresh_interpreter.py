"""Commands run the way a user's first command runs: with nothing of this package imported before them.

Two ways, one result (``Run``: argv, cwd, exit status, stdout, stderr):

* ``run_fresh``: a new ``python`` process, exactly what a user types.
* ``Zygote``: one warm parent that has imported third-party libraries only (torch, transformers, pandas,
  ...) and forks one child per command. The child becomes the command: it takes the command's pipes as
  stdout and stderr (stdin stays /dev/null), its cwd, argv and ``sys.path[0]``, a new empty ``__main__``,
  then runs the ``-c`` code or the ``-m`` module as ``python`` would and leaves through the interpreter's
  own exit (SystemExit, an uncaught exception's traceback and status 1, atexit handlers, non-daemon
  threads joined). Nothing of this repository's packages is in ``sys.modules`` when it forks (the zygote
  refuses to serve otherwise), so for this package the child is a fresh interpreter: every module of
  ``bertscore_plugins`` and ``recipes`` is imported for the first time by the command itself, in the
  command's order. The zygote has one thread when it forks (checked: no torch op ran in it, so no thread
  pool was started) and the same environment as the command (only commands with exactly that environment
  are sent to it: the variables the preloaded libraries read at import are the ones they would have read).

Several commands run at a time (each spends seconds in imports and model loading, partly waiting).
Run as a script (``python fresh_interpreter.py --zygote FD [--listen FD] MODULE...``) this file is the zygote.

A zygote made with ``listen=True`` also serves commands that other processes start: a ``python`` stand-in
(tests/support/zygote_client.py, what a shell runs for ``python`` or ``bertscore-plugins`` in the
documentation's blocks, and what tests run as ``fresh_python``) hands it the command (``-c``, ``-m`` or a
script's path), its cwd, environment and its own stdin, stdout and stderr, and exits with the command's
status. Such a command may differ from the zygote's environment only in variables no preloaded library
reads (``PER_COMMAND_VARIABLES``: the ones a shell sets for each command, this project's own, read after
the fork, and pytest's); the child takes the command's values as its own. Any other command (another
environment, another interpreter's options) is refused, and the stand-in runs it in a new interpreter
itself.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: variables that would change what a command does (a configured judge, a user's Phoenix, a debug flag)
_USER_SETTINGS = ("BERTSCORE_", "OPENAI_", "ANTHROPIC_", "PHOENIX_", "RAY_")
#: what a zygote imports before it forks: third-party libraries whose import costs seconds, never a module
#: of this repository. transformers' model modules are imported lazily by transformers itself (its
#: package attributes import on first use), so having them loaded cannot change what a command sees.
ZYGOTE_PRELOAD = (
    "numpy",
    "pandas",
    "torch",
    "transformers",
    "transformers.modeling_utils",
    "transformers.tokenization_utils_tokenizers",
    "transformers.models.bert.modeling_bert",
    "datasets",
    "evaluate",
    "phoenix.evals",
)
_MESSAGE_BYTES = 1 << 20
#: environment variables a served command may have other values of (or lack) than its zygote: a shell
#: sets them for each command, only this project reads them (its modules are imported after the fork),
#: or only pytest does (the test running now)
PER_COMMAND_VARIABLES = ("PWD", "OLDPWD", "SHLVL", "_")
PER_COMMAND_PREFIXES = ("BERTSCORE_", "PYTEST_")
#: the stand-in for `python` that sends a command to a listening zygote
CLIENT = Path(__file__).with_name("zygote_client.py")
#: the zygote forks and waits on pidfds, and reads its threads in /proc: Linux (elsewhere: new interpreters)
ZYGOTE_WORKS = sys.platform == "linux" and hasattr(os, "pidfd_open")
#: threads a preloaded library may have started without making fork unsafe: pyarrow's jemalloc purges
#: freed pages in a background thread (pyarrow starts it at import, under pandas); jemalloc's own fork
#: handlers take its locks across the fork and leave the child without it (it purges inline there)
_FORK_SAFE_THREADS = {"jemalloc_bg_thd"}


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


@dataclass(frozen=True)
class FreshPython:
    """``python`` for a test that runs a command as a process of its own (the ``fresh_python`` fixture):
    ``argv`` then the command's ``-c``, ``-m`` or script arguments, in ``env()``. ``argv`` is a stand-in
    served by a listening zygote (a fresh interpreter for this package, third-party libraries imported
    once per worker) or, where there is none, this python."""

    argv: tuple[str, ...]

    @staticmethod
    def env(**changes: str) -> dict[str, str]:
        """This process's environment with this checkout first on the path (the zygote's), and ``changes``."""
        return {**os.environ, "PYTHONPATH": str(REPO), **changes}


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
    """``argv`` in a new process (stdin closed, both streams captured), as ``subprocess.run`` runs it."""
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


def _text(data: bytes) -> str:
    """Bytes a command wrote, decoded as ``subprocess.run(text=True)`` decodes them."""
    return io.TextIOWrapper(io.BytesIO(data)).read()


def _drain(out: int, err: int, deadline: float) -> tuple[bytes, bytes] | None:
    """Both pipes read to their end (None: the deadline came first); closes them."""
    chunks: dict[int, list[bytes]] = {out: [], err: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 65536)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        selector.unregister(key.fd)
        finally:
            os.close(out)
            os.close(err)
    return b"".join(chunks[out]), b"".join(chunks[err])


class Zygote:
    """A warm parent (a subprocess of this one, started with ``env``) that runs ``python -c``/``-m``
    commands in forked children; see the module's docstring. ``ready()`` is what it found before its
    first fork: {"preloaded": [...], "ours": [modules of this repository], "threads": n, "problems": [...]}.

    Use as a context manager: leaving it stops the zygote (a command still running is killed)."""

    def __init__(
        self, env: Mapping[str, str], preload: Sequence[str] = ZYGOTE_PRELOAD, *, listen: bool = False
    ) -> None:
        self.env = dict(env)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        passed, listening = [theirs.fileno()], []
        #: with ``listen``: the address ``python`` stand-ins (``stand_in``) send their commands to
        self.address: str | None = None
        listener = None
        if listen:
            self._folder = tempfile.mkdtemp(prefix="zygote-")  # short: a socket's path has ~100 bytes
            self.address = os.path.join(self._folder, "commands")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            listener.bind(self.address)
            listener.listen(16)
            passed.append(listener.fileno())
            listening = ["--listen", str(listener.fileno())]
        self._process = subprocess.Popen(
            [sys.executable, __file__, "--zygote", str(theirs.fileno()), *listening, *preload],
            cwd=REPO,
            env=self.env,
            stdin=subprocess.DEVNULL,  # inherited by every child: its stdin is closed, as in run_fresh
            stdout=subprocess.PIPE,  # pipes, as a captured command's: the streams the children inherit
            stderr=subprocess.PIPE,  # are made as a captured interpreter's are (buffering, encoding)
            pass_fds=passed,
        )
        theirs.close()
        if listener is not None:
            listener.close()  # the zygote's now
        self._socket = ours
        self._send_lock = threading.Lock()
        self._ready: Future[dict[str, Any]] = Future()
        self._pids: dict[int, int] = {}
        self._exits: dict[int, Future[int]] = {}
        self._next_id = 0
        self._output: list[bytes] = []
        self._threads = [
            threading.Thread(target=self._read_messages, name="zygote-messages", daemon=True),
            threading.Thread(target=self._read_output, name="zygote-output", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def ready(self, timeout: float = 600) -> dict[str, Any]:
        return self._ready.result(timeout)

    def run(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float) -> Run:
        """``argv`` (``python -c CODE ...`` or ``python -m MODULE ...``) in a forked child, as
        ``run_fresh`` runs it; a timeout kills the child and raises ``subprocess.TimeoutExpired``."""
        assert dict(env) == self.env, "a zygote runs commands in its own environment only"
        assert argv[0] == sys.executable and argv[1] in ("-c", "-m") and len(argv) >= 3, argv
        ready = self.ready()
        assert not ready["problems"], ready["problems"]
        started = time.perf_counter()
        deadline = time.monotonic() + timeout
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        with self._send_lock:
            request = self._next_id
            self._next_id += 1
            self._exits[request] = Future()
            message = json.dumps({"id": request, "argv": list(argv), "cwd": str(cwd)}).encode()
            socket.send_fds(self._socket, [message], [out_write, err_write])
        os.close(out_write)  # the child holds them now: the pipes end when it (and what it started) ends
        os.close(err_write)
        streams = _drain(out_read, err_read, deadline)
        try:
            if streams is None:
                raise subprocess.TimeoutExpired(list(argv), timeout)
            returncode = self._exits[request].result(max(deadline - time.monotonic(), 1))
        except BaseException:
            pid = self._pids.get(request)
            if pid is not None and not self._exits[request].done():
                os.kill(pid, signal.SIGKILL)  # the child this command forked, nothing else
            raise
        seconds = time.perf_counter() - started
        return Run(argv, cwd, returncode, _text(streams[0]), _text(streams[1]), seconds)

    def command(self) -> list[str]:
        """The command line of a fresh ``python`` (arguments follow) run through this zygote when it can,
        else a new interpreter: ``[python, -S, zygote_client.py, ADDRESS, python]``."""
        assert self.address is not None, "a zygote made with listen=True"
        return [sys.executable, "-S", str(CLIENT), self.address, sys.executable]

    def stand_in(self, *args: str) -> str:
        """A shell command line (for a ``#!/bin/sh`` script) that runs ``python ARGS... "$@"`` through this
        zygote when it can, else in a new interpreter: what a documentation block's ``python`` and
        ``bertscore-plugins`` are made of."""
        assert self.address is not None, "a zygote made with listen=True"
        return f'exec {shlex.join([*self.command(), *args])} "$@"'

    def close(self) -> None:
        self._socket.shutdown(socket.SHUT_WR)  # the zygote's cue to stop (killing what still runs)
        try:
            self._process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for thread in self._threads:
            thread.join(timeout=10)
        self._socket.close()
        if self.address is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read_messages(self) -> None:
        while True:
            try:
                data = self._socket.recv(_MESSAGE_BYTES)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data)
            if "ready" in message:
                self._ready.set_result(message)
            elif "pid" in message:
                self._pids[message["id"]] = message["pid"]
            else:
                self._exits[message["id"]].set_result(message["returncode"])
        self._process.wait()
        self._threads[1].join(timeout=30)
        failure = RuntimeError(f"the zygote ended (exit {self._process.returncode}): {self.output()[-4000:]}")
        for future in [self._ready, *self._exits.values()]:
            if not future.done():
                future.set_exception(failure)

    def _read_output(self) -> None:
        """What the zygote itself wrote (only ever an error of its own): its two pipes, read to their end."""
        self._output.extend(self._process.communicate())

    def output(self) -> str:
        return _text(b"".join(self._output))


class FreshRuns:
    """Starts named commands at once, at most ``workers`` running at a time; ``get(name)`` waits for one.
    A command runs in a child of ``zygote`` when one is given and ``new_process`` is false, else in a new
    interpreter.

    Use as a context manager: leaving it waits for every command (none outlives the tests)."""

    def __init__(self, cwd: Path, workers: int = 3, timeout: float = 600, zygote: Zygote | None = None):
        self.cwd = cwd
        self.timeout = timeout
        self.zygote = zygote
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fresh-interpreter")
        self._runs: dict[str, Future[Run]] = {}

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str], new_process: bool = True) -> None:
        runner = run_fresh if new_process or self.zygote is None else self.zygote.run
        self._runs[name] = self._pool.submit(runner, argv, self.cwd, env, self.timeout)

    def get(self, name: str) -> Run:
        """The finished run of ``name`` (a timeout, 600 s by default, raises subprocess.TimeoutExpired)."""
        return self._runs[name].result()

    def __enter__(self) -> FreshRuns:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


# -- the zygote's side (this file run as a script) ------------------------------------------------------


def _repository_packages() -> set[str]:
    """Top-level names importable from this checkout: its packages and modules (this package, recipes,
    tests, benchmarks, ...)."""
    return {
        path.stem if path.suffix == ".py" else path.name
        for path in REPO.iterdir()
        if (path.suffix == ".py" and path.is_file()) or (path / "__init__.py").is_file()
    }


def _preload(modules: Sequence[str]) -> dict[str, Any]:
    import importlib

    for module in modules:
        importlib.import_module(module)
    sys.stdout.flush()
    sys.stderr.flush()
    mine = _repository_packages()
    ours = sorted(name for name in sys.modules if name.split(".")[0] in mine)
    threads = _thread_names()
    problems = []
    if ours:
        problems.append(f"modules of this repository were imported by the preload: {ours}")
    others = [name for name in threads[1:] if name not in _FORK_SAFE_THREADS]
    if threading.active_count() != 1 or others:
        problems.append(f"threads {threads} ({threading.enumerate()}) before the first fork")
    if sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__:
        problems.append("a preloaded library replaced sys.stdout or sys.stderr")
    return {"ready": True, "preloaded": list(modules), "ours": ours, "threads": threads, "problems": problems}


def _thread_names() -> list[str]:
    """The process's threads as the kernel names them, this one first."""
    main = str(threading.get_native_id())
    tasks = sorted(os.listdir("/proc/self/task"), key=lambda task: task != main)
    return [Path(f"/proc/self/task/{task}/comm").read_text().strip() for task in tasks]


def _serve(
    channel: socket.socket, listener: socket.socket | None, start_env: Mapping[str, str]
) -> dict[str, Any] | None:
    """Forks one child per request; returns the request in the child, None in the zygote when the tests
    close the channel (every child still running is killed first).

    Requests come from the tests (``channel``: the child's stdout and stderr, its pid and exit status go
    back there) and, with a ``listener``, from ``python`` stand-ins (one connection a command: its stdin,
    stdout and stderr come with it, its exit status goes back on it; a stand-in that hangs up first, e.g.
    killed by a shell, has its command killed). ``start_env``: the zygote's environment before its
    preload (which may add variables, as torch does), what a stand-in's command is compared with."""
    children: dict[int, tuple[int, int]] = {}  # pidfd -> (request id, pid)
    served: dict[int, tuple[socket.socket, int]] = {}  # pidfd -> (stand-in's connection, pid)
    selector = selectors.DefaultSelector()
    selector.register(channel, selectors.EVENT_READ, "tests")
    if listener is not None:
        selector.register(listener, selectors.EVENT_READ, "stand-ins")

    def fork(fds: list[int], targets: tuple[int, ...]) -> int:
        pid = os.fork()
        if pid == 0:
            selector.close()
            channel.close()
            if listener is not None:
                listener.close()
            for pidfd, (connection, _) in served.items():
                connection.close()
                os.close(pidfd)
            for pidfd in children:
                os.close(pidfd)
            for fd, target in zip(fds, targets, strict=True):
                os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        return pid

    while True:
        for key, _ in selector.select():
            if selector.get_map().get(key.fd) is not key:
                continue  # unregistered by an earlier event of this round
            if key.data == "tests":
                data, fds, _, _ = socket.recv_fds(channel, _MESSAGE_BYTES, 2)
                if not data:
                    for pidfd, (_, pid) in [*children.items(), *served.items()]:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        os.close(pidfd)
                    selector.close()
                    return None
                request = json.loads(data)
                pid = fork(fds, (1, 2))
                if pid == 0:
                    return request
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (request["id"], pid)
                selector.register(pidfd, selectors.EVENT_READ, "child")
                channel.send(json.dumps({"id": request["id"], "pid": pid}).encode())
            elif key.data == "stand-ins":
                connection, _ = listener.accept()
                data, fds, _, _ = socket.recv_fds(connection, _MESSAGE_BYTES, 3)
                request = json.loads(data) if data else {}
                refused = _refusal(request, start_env) if len(fds) == 3 else "no stdin, stdout and stderr"
                if refused:
                    for fd in fds:
                        os.close(fd)
                    with contextlib.suppress(OSError):
                        connection.send(json.dumps({"refused": refused}).encode())
                    connection.close()
                    continue
                pid = fork(fds, (0, 1, 2))
                if pid == 0:
                    connection.close()
                    return request
                pidfd = os.pidfd_open(pid)
                served[pidfd] = (connection, pid)
                selector.register(pidfd, selectors.EVENT_READ, "command")
                selector.register(connection, selectors.EVENT_READ, pidfd)
            elif key.data == "command":
                connection, pid = served.pop(key.fd)
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                if connection.fileno() in selector.get_map():
                    selector.unregister(connection)
                    with contextlib.suppress(OSError):
                        connection.send(
                            json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode()
                        )
                connection.close()
            elif key.data == "child":
                request_id, pid = children.pop(key.fd)
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                returncode = os.waitstatus_to_exitcode(status)
                channel.send(json.dumps({"id": request_id, "returncode": returncode}).encode())
            else:  # a stand-in hung up before its command ended (a shell killed it): stop the command
                selector.unregister(key.fileobj)
                os.kill(served[key.data][1], signal.SIGKILL)


def _refusal(request: dict[str, Any], start_env: Mapping[str, str]) -> str | None:
    """Why a stand-in's command cannot run in a child (None: it can): not ``python -c`` or ``-m``, or an
    environment the preloaded libraries might have read otherwise. A command it can run gets
    ``request["environ"]``: the variables to set (a value) or remove (None) in the child."""
    argv = request.get("argv") or []
    script = len(argv) >= 2 and not argv[1].startswith("-") and Path(request["cwd"], argv[1]).is_file()
    if argv[:1] != [sys.executable] or not (script or (len(argv) >= 3 and argv[1] in ("-c", "-m"))):
        return f"not `{sys.executable} -c CODE|-m MODULE|SCRIPT ...`: {argv[:3]}"
    env = request.get("env") or {}
    changed = {name for name in set(env) | set(start_env) if env.get(name) != start_env.get(name)}
    differs = sorted(
        name
        for name in changed
        if name not in PER_COMMAND_VARIABLES and not name.startswith(PER_COMMAND_PREFIXES)
    )
    if differs:
        return f"another environment: {differs}"
    request["environ"] = {name: env.get(name) for name in changed}
    return None


def _become(request: dict[str, Any]) -> None:
    """Runs the request's command in this (forked) process as ``python`` runs ``-c`` or ``-m``; the
    interpreter's exit does the rest (status, atexit handlers, flushing the streams)."""
    import builtins
    import importlib.machinery
    import runpy
    import types

    argv = request["argv"]
    os.chdir(request["cwd"])
    for name, value in request.get("environ", {}).items():  # a stand-in's command: its own values
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    # `make test-profile` counts the command (tests/support/profile.py)
    events = sys.modules.get("bertscore_test_events")
    if events is not None:
        events.command_started(argv)
    importlib.invalidate_caches()
    if "numpy" in sys.modules:  # a new interpreter seeds numpy's global generator afresh
        sys.modules["numpy"].random.seed()
    sys.orig_argv = list(argv)
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    main.__annotations__ = {}
    main.__loader__ = importlib.machinery.BuiltinImporter
    sys.modules["__main__"] = main
    option, *rest = argv[1:]
    if option in ("-c", "-m"):
        target, *args = rest
        sys.argv = [option, *args]  # -m: runpy puts the module's file in sys.argv[0], as python does
        sys.path[0] = "" if option == "-c" else os.getcwd()
    else:  # a script's path (a stand-in's command): its folder, symbolic links resolved, comes first
        target, args = option, rest
        sys.argv = [target, *args]
        sys.path[0] = os.path.dirname(os.path.realpath(target))
        main.__file__, main.__cached__ = os.path.abspath(target), None  # absolute, as python makes it
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", main.__file__)
    try:
        if option == "-c":
            exec(compile(target, "<string>", "exec", dont_inherit=True), main.__dict__)
        elif option == "-m":
            runpy._run_module_as_main(target)  # what `python -m` calls
        else:
            with open(target, "rb") as script:
                exec(compile(script.read(), target, "exec", dont_inherit=True), main.__dict__)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as error:  # python's report: the traceback from the command's own frames
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename == __file__:
            trace = trace.tb_next
        sys.excepthook(type(error), error.with_traceback(trace), trace)
        sys.exit(1)


def _zygote_main(arguments: Sequence[str]) -> None:
    sys.path[0] = ""  # not this file's folder: a command's own entry (-c: "", -m: its cwd) goes here
    channel = socket.socket(fileno=int(arguments[0]))
    listener, modules = None, arguments[1:]
    if modules[:1] == ["--listen"]:
        listener, modules = socket.socket(fileno=int(modules[1])), modules[2:]
    start_env = dict(os.environ)
    ready = _preload(modules)
    channel.send(json.dumps(ready).encode())
    if ready["problems"]:
        return
    # what the preload made stays out of the garbage collector's reach: a child's collections (and its
    # exit) would otherwise walk, and so copy, every page of it (~1.2 CPU s a child)
    gc.freeze()
    request = _serve(channel, listener, start_env)
    if request is not None:
        _become(request)


if __name__ == "__main__" and sys.argv[1:2] == ["--zygote"]:
    _zygote_main(sys.argv[2:])

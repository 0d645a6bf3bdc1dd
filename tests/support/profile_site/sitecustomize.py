"""The event recorder of `make test-profile` (tests/support/profile.py), in every Python process of the run.

The profile plugin puts this folder first on ``PYTHONPATH`` and names an events file in
``$BERTSCORE_TEST_EVENTS``; every interpreter the run starts (xdist workers, fresh interpreters, zygotes,
keepers, Ray workers) then imports this file at start-up and appends one JSON line per counted event:

* ``interpreter``: this process started (its command line); at exit, its own CPU seconds;
* ``model-load``: ``bertscore_plugins.models.load.load_model`` (the scorer cache's loader) ran;
* ``from-pretrained``: any transformers ``from_pretrained`` of a model (the oracle's and the judge's too);
* ``phoenix-start`` / ``judge-start``: ``PhoenixServer.start`` / ``JudgeServer.start``;
* ``ray-init``: ``ray.init``; ``mypy``: a mypy run (``-m mypy`` or ``mypy.api.run``);
* ``zygote-command``: a command run by a zygote's child (tests/support/fresh_interpreter.py).

Each line names the test running (``$PYTEST_CURRENT_TEST``, inherited by a test's subprocesses). A child
started with its own ``PYTHONPATH`` gets this folder put back in front (``subprocess.Popen`` is wrapped), so
the count reaches grandchildren too. Standard library only; nothing happens without the variable.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time

EVENTS = "BERTSCORE_TEST_EVENTS"
HERE = os.path.dirname(os.path.abspath(__file__))
_STARTED = time.monotonic()


def record(kind: str, **fields: object) -> None:
    """Append one event (one ``write`` of one line: lines from many processes do not interleave)."""
    path = os.environ.get(EVENTS)
    if not path:
        return
    line = {"kind": kind, "pid": os.getpid(), "test": os.environ.get("PYTEST_CURRENT_TEST", ""), **fields}
    data = (json.dumps(line, default=str) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError:
        pass


def _cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _at_exit(pid: int) -> None:
    if os.getpid() == pid:  # not a forked child's exit (a zygote's command, a multiprocessing worker)
        record("interpreter-exit", cpu=round(_cpu_seconds(), 3), wall=round(time.monotonic() - _STARTED, 3))


def command_started(argv: list[str]) -> None:
    """A zygote's child became a command (tests/support/fresh_interpreter.py): counted, and its CPU at exit
    (a forked child's usage starts at zero)."""
    import atexit

    record("zygote-command", argv=list(argv)[:8])
    atexit.register(_command_exit, os.getpid())


def _command_exit(pid: int) -> None:
    if os.getpid() == pid:
        record("zygote-command-exit", cpu=round(_cpu_seconds(), 3))


def _counted(kind: str, function, describe=None):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        started, cpu = time.monotonic(), _cpu_seconds()
        try:
            return function(*args, **kwargs)
        finally:
            extra = describe(*args, **kwargs) if describe else {}
            record(
                kind,
                seconds=round(time.monotonic() - started, 3),
                cpu=round(_cpu_seconds() - cpu, 3),
                **extra,
            )

    wrapper.__bertscore_counted__ = True
    return wrapper


def _spec_name(spec=None, *args, **kwargs) -> dict:
    return {"model": str(getattr(spec, "model", spec))[:120]}


def _pretrained_name(cls, name=None, *args, **kwargs) -> dict:
    return {"model": f"{getattr(cls, '__name__', cls)} {str(name)[:120]}"}


def _patch(module) -> None:
    """Wrap the counted functions of a module just imported."""
    name = module.__name__
    if name == "bertscore_plugins.models.load":
        module.load_model = _counted("model-load", module.load_model, _spec_name)
    elif name == "bertscore_plugins.tools.phoenix_server":
        module.PhoenixServer.start = _counted("phoenix-start", module.PhoenixServer.start)
    elif name == "bertscore_plugins.judge.server":
        module.JudgeServer.start = _counted("judge-start", module.JudgeServer.start)
    elif name == "ray":
        if hasattr(module, "init"):
            module.init = _counted("ray-init", module.init)
    elif name == "mypy.api":
        module.run = _counted("mypy", module.run, lambda *a, **k: {"argv": list(a[0])[:8] if a else []})
    elif name == "transformers.modeling_utils":
        base = module.PreTrainedModel
        original = base.__dict__["from_pretrained"].__func__
        wrapped = _counted("from-pretrained", original, _pretrained_name)
        base.from_pretrained = classmethod(wrapped)


_TARGETS = {
    "bertscore_plugins.models.load",
    "bertscore_plugins.tools.phoenix_server",
    "bertscore_plugins.judge.server",
    "ray",
    "mypy.api",
    "transformers.modeling_utils",
}


class _PatchAfterImport:
    """A meta path finder that lets the real finders find a target module, then patches it once executed."""

    def find_spec(self, name, path=None, target=None):
        if name not in _TARGETS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                loader = spec.loader
                execute = loader.exec_module

                def exec_module(module, execute=execute):
                    execute(module)
                    try:
                        _patch(module)
                    except Exception as error:  # a profile must never break a test
                        record("profile-error", module=module.__name__, error=repr(error))

                loader.exec_module = exec_module
                return spec
            if spec is not None:
                return spec
        return None


def _with_this_folder(env):
    """``env`` (a child's environment) with this folder first on its PYTHONPATH."""
    if env is None or (EVENTS not in env and os.environ.get(EVENTS) is None):
        return env
    env = dict(env)
    env.setdefault(EVENTS, os.environ[EVENTS])
    parts = [part for part in env.get("PYTHONPATH", "").split(os.pathsep) if part]
    if HERE not in parts:
        env["PYTHONPATH"] = os.pathsep.join([HERE, *parts])
    return env


def _wrap_popen() -> None:
    import subprocess

    original = subprocess.Popen.__init__
    if getattr(original, "__bertscore_counted__", False):
        return

    @functools.wraps(original)
    def __init__(self, args, *rest, **kwargs):
        if "env" in kwargs:
            kwargs["env"] = _with_this_folder(kwargs["env"])
        elif len(rest) >= 10:  # env given by position (bufsize, executable, ... env is the 10th)
            rest = (*rest[:9], _with_this_folder(rest[9]), *rest[10:])
        original(self, args, *rest, **kwargs)

    __init__.__bertscore_counted__ = True
    subprocess.Popen.__init__ = __init__


def install(in_process_only: bool = False) -> None:
    """Start counting in this process: the import hooks (and already imported targets patched)."""
    if any(isinstance(finder, _PatchAfterImport) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _PatchAfterImport())
    for name in _TARGETS:
        module = sys.modules.get(name)
        if module is not None:
            try:
                _patch(module)
            except Exception as error:
                record("profile-error", module=name, error=repr(error))
    _wrap_popen()
    sys.modules.setdefault("bertscore_test_events", sys.modules[__name__])
    if not in_process_only:
        import atexit

        record("interpreter", argv=list(getattr(sys, "orig_argv", sys.argv))[:12], ppid=os.getppid())
        if "-m" in sys.orig_argv[1:3] and "mypy" in sys.orig_argv[1:4]:
            record("mypy", argv=list(sys.orig_argv)[:12])
        atexit.register(_at_exit, os.getpid())


if os.environ.get(EVENTS) and __name__ == "sitecustomize":
    import contextlib

    with contextlib.suppress(Exception):  # a profile must never break the process it watches
        install()

"""`make test-profile`: where one run of the suite spends its time, and how often it pays for the expensive things.

    pytest -p tests.support.profile [other options]     (make test-profile runs the whole suite so)

At the end it prints (and writes to ``build/test-profile.txt``):

* per test file: tests, wall seconds and CPU seconds (the worker's own and its finished children's, so a
  subprocess counts where it ran), and the counted events below made while its tests ran;
* per fixture: the set-ups of module-, class- and session-scoped fixtures, and any function fixture's over 1 s;
* for the run: how many fresh interpreters started (by kind: xdist workers, zygotes, mypy, the CLI, ...),
  commands run by zygotes' children, model loads (the scorer cache's loader; and every transformers
  ``from_pretrained``), Phoenix server starts, judge server starts, Ray starts (``ray.init``) and mypy runs.

Counting reaches every process of the run, xdist workers and subprocesses alike: this plugin names an events
file in ``$BERTSCORE_TEST_EVENTS`` and puts tests/support/profile_site first on ``PYTHONPATH``, whose
``sitecustomize`` records the events of each Python process started with them (profile_site/sitecustomize.py
says how); the controller sums them. Nothing of this is active unless the plugin is.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import resource
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

SITE = Path(__file__).with_name("profile_site")
REPORT = Path(__file__).resolve().parents[2] / "build" / "test-profile.txt"
EVENTS = "BERTSCORE_TEST_EVENTS"
#: function-scoped fixtures are listed only when a set-up takes longer than this (seconds of wall time)
SLOW_FUNCTION_FIXTURE = 1.0
EXPENSIVE = (
    "model-load",
    "from-pretrained",
    "phoenix-start",
    "judge-start",
    "ray-init",
    "mypy",
    "zygote-command",
)


def _recorder() -> Any:
    """profile_site/sitecustomize.py, loaded in this process under its own name."""
    if "bertscore_test_events" in sys.modules:
        return sys.modules["bertscore_test_events"]
    spec = importlib.util.spec_from_file_location("bertscore_test_events", SITE / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bertscore_test_events"] = module
    spec.loader.exec_module(module)
    return module


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and not os.environ.get(EVENTS):
        # the controller (or a run without xdist): the events file, for this process and all it starts
        folder = Path(tempfile.mkdtemp(prefix="bertscore-profile-"))
        os.environ[EVENTS] = str(folder / "events.jsonl")
        parts = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
        os.environ["PYTHONPATH"] = os.pathsep.join([str(SITE), *parts])
        config.stash[_owner] = time.monotonic()
    _recorder().install(
        in_process_only=hasattr(config, "workerinput") or config.stash.get(_owner, None) is not None
    )
    config.pluginmanager.register(_Timing(), "bertscore-profile-timing")


_owner = pytest.StashKey[float]()


class _Timing:
    """Per test file and per fixture set-up, in the process that runs them (a worker, or the only one)."""

    def __init__(self) -> None:
        self.record = _recorder().record

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        wall, cpu = time.monotonic(), _cpu()
        yield
        self.record(
            "test",
            file=item.nodeid.split("::", 1)[0],
            nodeid=item.nodeid,
            wall=round(time.monotonic() - wall, 3),
            cpu=round(_cpu() - cpu, 3),
            slow=item.get_closest_marker("slow") is not None,
        )

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: pytest.FixtureRequest) -> Any:
        wall, cpu = time.monotonic(), _cpu()
        yield
        took = time.monotonic() - wall
        if fixturedef.scope != "function" or took > SLOW_FUNCTION_FIXTURE:
            self.record(
                "fixture",
                name=fixturedef.argname,
                scope=fixturedef.scope,
                where=str(fixturedef.baseid or "tests/conftest.py"),
                file=request.node.nodeid.split("::", 1)[0],
                wall=round(took, 3),
                cpu=round(_cpu() - cpu, 3),
            )


def read_events(path: Path) -> list[dict[str, Any]]:
    """The events file's lines (a line cut short by a killed process is left out)."""
    events = []
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return events


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    started = config.stash.get(_owner, None)
    if started is None:
        return
    events = read_events(Path(os.environ[EVENTS]))
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = summary(
        events, time.monotonic() - started, own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime
    )
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text, encoding="utf-8")
    sys.stdout.write("\n" + text + f"\n(written to {REPORT})\n")
    sys.stdout.flush()


def interpreter_kind(argv: list[str]) -> str:
    """What a started interpreter was, from its command line."""
    text = " ".join(argv)
    rules = [
        ("xdist worker", r"execnet|exec\(eval\(sys\.stdin"),
        ("pytest", r"^\S*python\S* -m pytest\b|^\S*/pytest( |$)"),
        ("zygote", r"fresh_interpreter\.py --zygote"),
        ("mypy", r"-m mypy\b|/mypy\b"),
        ("phoenix keeper", r"tests\.support\.phoenix_session"),
        ("phoenix server", r"phoenix_loopback\.py|phoenix\.server"),
        ("phoenix venv probe", r"version\('arize-phoenix'\)"),
        ("judge server", r"bertscore_plugins\.judge"),
        ("ray worker/runtime", r"\bray\b|default_worker\.py|raylet|ray/_private"),
        ("spark", r"pyspark|spark"),
        ("bertscore-plugins CLI", r"bertscore-plugins|bertscore_plugins\.cli"),
        ("recipe/demo", r"recipes[./]"),
        ("benchmark", r"benchmarks[./]"),
        ("pip/venv", r"-m (pip|venv|ensurepip)\b"),
        ("multiprocessing", r"multiprocessing|from multiprocessing"),
    ]
    for name, pattern in rules:
        if re.search(pattern, text):
            return name
    return "other: " + " ".join(" ".join(argv[1:4]).split())[:70]


def _file_of(event: dict[str, Any]) -> str:
    return event.get("file") or (event.get("test") or "(outside tests)").split("::", 1)[0]


#: the column names of the counted events in the per-file table
SHORT = {
    "interpreter": "py",
    "zygote-command": "zyg",
    "model-load": "load",
    "from-pretrained": "pretr",
    "phoenix-start": "phx",
    "judge-start": "judge",
    "ray-init": "ray",
    "mypy": "mypy",
}


def summary(events: list[dict[str, Any]], wall: float, controller_cpu: float, children_cpu: float) -> str:
    """The printed profile: the run, its counts, the files, the fixtures, the costliest tests."""
    tests = [event for event in events if event["kind"] == "test"]
    quick = [event for event in tests if not event.get("slow")]
    lines = [
        f"# test profile: {len(tests)} tests, {len({event['file'] for event in tests})} files",
        "",
        f"run: {wall:.1f} s wall; CPU {controller_cpu + children_cpu:.1f} s (controller {controller_cpu:.1f} s "
        f"+ its finished children {children_cpu:.1f} s); tests' own CPU {sum(e['cpu'] for e in tests):.1f} s "
        f"(not slow: {len(quick)} tests, {sum(e['cpu'] for e in quick):.1f} CPU s, "
        f"{sum(e['wall'] for e in quick):.1f} wall s)",
        "",
        *_counts(events),
        "",
        *_files(events, tests),
        "",
        *_fixtures(events),
        "",
        "## slowest tests by CPU",
        *(
            f"{e['cpu']:8.1f} {e['wall']:8.1f}  {'slow ' if e.get('slow') else 'QUICK'} {e['nodeid']}"
            for e in sorted(tests, key=lambda e: -e["cpu"])[:25]
        ),
        "",
        "## quick tier (not slow) tests over 1 CPU s",
        *(
            f"{e['cpu']:8.1f} {e['wall']:8.1f}  {e['nodeid']}"
            for e in sorted(quick, key=lambda e: -e["cpu"])
            if e["cpu"] >= 1.0
        ),
    ]
    return "\n".join(lines) + "\n"


def _counts(events: list[dict[str, Any]]) -> list[str]:
    interpreters = [event for event in events if event["kind"] == "interpreter"]
    kinds = Counter(interpreter_kind(event.get("argv", [])) for event in interpreters)
    argv_of = {event["pid"]: event.get("argv", []) for event in interpreters}
    cpu_by_kind: Counter[str] = Counter()
    for event in events:
        if event["kind"] == "interpreter-exit":
            cpu_by_kind[interpreter_kind(argv_of.get(event["pid"], []))] += event["cpu"]
    lines = [
        "## counts for the whole run",
        f"fresh interpreters: {len(interpreters)} ({', '.join(f'{k} {n}' for k, n in kinds.most_common())})",
        "  their own CPU s at a clean exit: "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu_by_kind.most_common()),
    ]
    for kind in EXPENSIVE:
        found = [event for event in events if event["kind"] == kind]
        seconds = sum(event.get("seconds", 0.0) for event in found)
        detail = Counter(event.get("model", "") for event in found if event.get("model"))
        extra = f"; {', '.join(f'{m} x{n}' for m, n in detail.most_common(6))}" if detail else ""
        lines.append(f"{kind}: {len(found)}" + (f" ({seconds:.1f} s inside)" if seconds else "") + extra)
    errors = [event for event in events if event["kind"] == "profile-error"]
    if errors:
        lines.append(f"profile errors: {errors[:3]}")
    return lines


def _files(events: list[dict[str, Any]], tests: list[dict[str, Any]]) -> list[str]:
    by_file: dict[str, dict[str, Any]] = defaultdict(lambda: {"tests": 0, "wall": 0.0, "cpu": 0.0, "slow": 0})
    for event in tests:
        row = by_file[event["file"]]
        row["tests"] += 1
        row["wall"] += event["wall"]
        row["cpu"] += event["cpu"]
        row["slow"] += bool(event.get("slow"))
    counted: dict[str, Counter[str]] = defaultdict(Counter)
    command_cpu: Counter[str] = Counter()
    for event in events:
        if event["kind"] == "zygote-command-exit":
            command_cpu[_file_of(event)] += event["cpu"]
        if event["kind"] in EXPENSIVE:
            counted[_file_of(event)][event["kind"]] += 1
        elif event["kind"] == "interpreter" and interpreter_kind(event.get("argv", [])) not in (
            "xdist worker",
            "pytest",
        ):
            counted[_file_of(event)]["interpreter"] += 1
    lines = [
        "## test files by CPU (the worker's and its finished subprocesses'; zyg cpu: its zygote commands'), "
        "counted events while they ran",
        f"{'cpu s':>8} {'zyg cpu':>8} {'wall s':>8} {'tests':>5} {'slow':>4}  file  [events]",
    ]
    for name, row in sorted(by_file.items(), key=lambda item: -(item[1]["cpu"] + command_cpu[item[0]])):
        marks = " ".join(f"{SHORT[k]}={n}" for k, n in sorted(counted.get(name, {}).items()) if k in SHORT)
        lines.append(
            f"{row['cpu']:8.1f} {command_cpu[name]:8.1f} {row['wall']:8.1f} {row['tests']:5d} {row['slow']:4d}  "
            f"{name}  {marks}"
        )
    return lines


def _fixtures(events: list[dict[str, Any]]) -> list[str]:
    fixtures: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: {"n": 0, "wall": 0.0, "cpu": 0.0, "files": set()}
    )
    for event in events:
        if event["kind"] == "fixture":
            row = fixtures[(event["name"], event["scope"])]
            row["n"] += 1
            row["wall"] += event["wall"]
            row["cpu"] += event["cpu"]
            row["files"].add(event["file"])
    lines = [
        "## fixture set-ups (module/class/session scope, and function scope over 1 s), by CPU",
        f"{'cpu s':>8} {'wall s':>8} {'set-ups':>7}  fixture (scope)  files",
    ]
    for (name, scope), row in sorted(fixtures.items(), key=lambda item: -item[1]["cpu"])[:40]:
        if row["wall"] >= 0.05:
            files = sorted(row["files"])
            where = files[0] if len(files) == 1 else f"{len(files)} files"
            lines.append(f"{row['cpu']:8.1f} {row['wall']:8.1f} {row['n']:7d}  {name} ({scope})  {where}")
    return lines


if __name__ == "__main__":  # the summary of a run's events file so far: python -m tests.support.profile FILE
    sys.stdout.write(summary(read_events(Path(sys.argv[1])), 0.0, 0.0, 0.0))

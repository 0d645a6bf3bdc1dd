"""Shared fixtures: what is expensive and read-only is made once per test session (per xdist worker):
a real Phoenix server (tests take a `fresh_project` name on it, not a server of their own), a tiny
model folder; plus the stub LLM judge.

Other test modules add their own fixtures in their own files (or a conftest in a subfolder).
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fresh_interpreter import FreshPython
from tests.support.projects import unique_project
from tests.support.slow_files import longest_files_first
from tests.support.stub_judge import StubJudge

#: the checkout's Phoenix environment (`make phoenix-venv`): the suite's servers run from it, as make's do,
#: instead of the user's cache that an installed package uses (tools/phoenix_venv.py)
os.environ.setdefault("BERTSCORE_PHOENIX_VENV", str(Path(__file__).resolve().parents[1] / ".phoenix-venv"))


def _share_the_cores_between_workers() -> None:
    """Under xdist (`make test`) each worker's torch, and the subprocesses it starts, get the worker's
    share of the cores: a thread per core in every worker would oversubscribe them (OpenMP spin-waits)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers <= 1:
        return
    threads = max(1, (os.cpu_count() or 1) // workers)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, str(threads))
    if "torch" in sys.modules:  # already imported (a plugin): its pool is sized, resize it
        sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


_share_the_cores_between_workers()


def _workers_skip_the_interpreters_teardown(config: pytest.Config) -> None:
    """An xdist worker, once it has reported everything (its last atexit handler, registered first, runs
    last): it ends at once instead of freeing every object of torch, transformers and pandas one by one,
    which kept `make test` waiting ~3 s for the workers after their last test. A profiled run records the
    worker's exit first (tests/support/profile_site)."""
    if not hasattr(config, "workerinput"):
        return

    def end_now() -> None:
        recorder = sys.modules.get("bertscore_test_events")
        if recorder is not None:
            recorder._at_exit(os.getpid())
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # the run's outcome travelled to the controller already; this status is not read

    atexit.register(end_now)


def pytest_configure(config: pytest.Config) -> None:
    _workers_skip_the_interpreters_teardown(config)


#: the session fixtures that start a process: a test that takes one (directly or through its fixtures) is
#: `slow` whatever its own marks say, so the quick tier (`pytest -m "not slow"`) never starts a server or a
#: zygote (~10 CPU s of preloading for the first command of a worker)
STARTS_A_PROCESS = ("phoenix_server", "local_judge", "fresh_python")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: it reads the marks added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that take a fixture of STARTS_A_PROCESS are marked slow. Under xdist, the longest files go to
    the workers first (tests/support/slow_files.py says why); xdist keeps this order
    (`--no-loadscope-reorder` in pyproject.toml). A shuffled run (`make test-random`) keeps its shuffle."""
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in STARTS_A_PROCESS):
            item.add_marker(pytest.mark.slow)
    if hasattr(config, "workerinput") and config.pluginmanager.get_plugin("randomly") is None:
        items[:] = longest_files_first(items)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts) for a run of one file, or of tests in one file: no workers. xdist
    gives a worker a whole file (--dist loadfile), so a second worker would only import and collect it
    again (seconds of torch and pandas). Any other run: xdist's own count (one worker per core)."""
    files = {arg.split("::", 1)[0] for arg in config.args}
    if len(files) == 1 and Path(config.invocation_params.dir, *files).is_file():
        return 0
    return None


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with the files that take the local judge on one worker (one judge start per run):
    tests/support/scheduling.py."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.support.scheduling import LocalJudgeFilesTogether

    return LocalJudgeFilesTogether(config, log)


@pytest.fixture(scope="session")
def phoenix_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Phoenix server on 127.0.0.1 (free ports, SQLite in a temp folder), stopped by pid at the end.

    Runs from the Phoenix virtual environment (``$BERTSCORE_PHOENIX_VENV``, the checkout's ``.phoenix-venv``),
    creating it when missing; skips with the reason when that is impossible (e.g. no package index).
    Under xdist the run's workers share one (tests/support/phoenix_session.py), stopped by the controller.
    """
    from bertscore_plugins.tools.phoenix_server import PhoenixServer, PhoenixServerError, ensure_phoenix_venv

    try:
        ensure_phoenix_venv()
    except (PhoenixServerError, OSError) as error:
        pytest.skip(f"cannot create the Phoenix server environment (arize-phoenix in its own venv): {error}")
    shared = getattr(request.config, "workerinput", {}).get(SHARED_FOLDER)
    if shared is not None:
        from tests.support.phoenix_session import shared_server

        yield shared_server(Path(shared), request.config.workerinput[CONTROLLER_PID])
        return
    server = PhoenixServer(workdir=tmp_path_factory.mktemp("phoenix-workdir"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


#: what the controller of an xdist run tells its workers: the run's shared folder and its own pid
SHARED_FOLDER, CONTROLLER_PID = "bertscore_shared_folder", "bertscore_controller_pid"
_shared_folder = pytest.StashKey[Path]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller, for each worker: where the run's shared things (one Phoenix server) live."""
    config = node.config
    if _shared_folder not in config.stash:
        config.stash[_shared_folder] = Path(tempfile.mkdtemp(prefix="bertscore-tests-"))
    node.workerinput[SHARED_FOLDER] = str(config.stash[_shared_folder])
    node.workerinput[CONTROLLER_PID] = os.getpid()


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller, once every worker is done: the shared Phoenix server stopped, its folder removed."""
    folder = config.stash.get(_shared_folder, None)
    if folder is not None:
        from tests.support.phoenix_session import stop_shared_server

        stop_shared_server(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def fresh_project(request: pytest.FixtureRequest) -> str:
    """A project name on the session's Phoenix server that no other test uses: it starts empty."""
    return unique_project(request.node.name)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny random BERT folder (tests/support/tiny_models.py, seed 0), made once; read-only for tests
    (a test that rewrites a model folder makes its own)."""
    from tests.support.tiny_models import tiny_bert

    return tiny_bert(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="session")
def local_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real local judge (Gemma 3 270M on transformers, the judge extra) on 127.0.0.1, started once per
    session and stopped by pid; tests point the judge at it with ``local_judge.environment()``."""
    from bertscore_plugins.errors import JudgeServerError
    from bertscore_plugins.judge.server import JudgeServer

    server = JudgeServer(workdir=tmp_path_factory.mktemp("judge-server"), threads=1)
    try:
        server.start()
    except JudgeServerError as error:
        pytest.skip(f"the local judge cannot start here: {error}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def fresh_python() -> Iterator[FreshPython]:
    """How a test runs a command in a fresh interpreter (``[*fresh_python.argv, "-m", ...]`` with
    ``env=fresh_python.env()``): through one listening zygote per worker (tests/support/fresh_interpreter.py),
    so each such command does not import torch, transformers and pandas again (~6 CPU s); the command is
    still a process of its own, its package imported afresh, its exit status and streams its own."""
    from tests.support.fresh_interpreter import ZYGOTE_WORKS, Zygote

    if not ZYGOTE_WORKS:
        yield FreshPython((sys.executable,))
        return
    with Zygote(FreshPython.env(), listen=True) as zygote:
        # outside xdist no OMP_NUM_THREADS: OpenBLAS starts its threads in the zygote, which then serves
        # nothing (each command a new interpreter, as it would be without one)
        yield FreshPython(tuple(zygote.command()) if not zygote.ready()["problems"] else (sys.executable,))


@pytest.fixture
def stub_judge() -> Iterator[StubJudge]:
    """The careful-judge stub on 127.0.0.1 (a free port), answering with json_schema structured output."""
    with StubJudge() as judge:
        yield judge


@pytest.fixture
def make_stub_judge() -> Iterator[Callable[..., StubJudge]]:
    """Factory for configured stubs (``reject_response_format=``, ``fail_when=``, ``rule=``, ...)."""
    started: list[StubJudge] = []

    def make(**options: Any) -> StubJudge:
        judge = StubJudge(**options).start()
        started.append(judge)
        return judge

    try:
        yield make
    finally:
        for judge in started:
            judge.stop()


@pytest.fixture(autouse=True)
def bert_score_idf_counts_in_threads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """bert_score (the parity oracle) counts idf in a forked ``multiprocessing.Pool`` and ends it with
    SIGTERM. Forked from an xdist worker that holds threads and libraries' signal handlers, one pool child
    once ignored that SIGTERM and hung a whole run; its threads count the same words (the arithmetic is
    bert_score's own), with nothing forked."""
    utils = sys.modules.get("bert_score.utils")
    # the oracle's modules import it on first use (tests/support/extras.py), after this fixture
    if utils is None and _calls_the_oracle(request.node.path):
        import bert_score.utils as utils
    if utils is not None:
        from multiprocessing.pool import ThreadPool

        monkeypatch.setattr(utils, "Pool", ThreadPool)


#: how a test module brings bert_score into its own process (a module that only runs it in a subprocess,
#: e.g. a docs block, names it in strings)
_ORACLE_IMPORT = re.compile(
    r"""extra\(\s*["']bert_score["']|importorskip\(\s*["']bert_score["']|^\s*(import bert_score|from bert_score)""",
    re.M,
)


@functools.cache
def _calls_the_oracle(test_file: Path) -> bool:
    """Whether a test module runs bert_score in this process (it imports it and bert_score is installed)."""
    source = test_file.read_text(encoding="utf-8")
    return _ORACLE_IMPORT.search(source) is not None and importlib.util.find_spec("bert_score") is not None


SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _restore_signal_handlers(before: dict) -> dict:
    """Put back the handlers of ``before``; returns the ones found changed (signal: handler)."""
    changed = {}
    for sig, handler in before.items():
        now = signal.getsignal(sig)
        if now is not handler:
            changed[sig] = now
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    return changed


@pytest.fixture(autouse=True, scope="module")
def no_signal_handler_left_by_a_module() -> Iterator[None]:
    """A module's own fixtures (``ray.init`` installs a SIGTERM handler) must not leave their handlers to
    the next module either: autouse, this is set up before them and torn down after them."""
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    yield
    _restore_signal_handlers(before)


@pytest.fixture(autouse=True)
def no_signal_handler_left_behind() -> Iterator[None]:
    """Code run in-process (cli.main, recipes) must put SIGTERM and SIGINT handlers back: one left
    behind turned a process pool's SIGTERM of its forked workers into KeyboardInterrupt and hung the
    suite. Handlers are restored after every test (libraries such as Ray install their own); one of
    ours left behind fails the test."""
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    yield
    ours = {
        sig: handler
        for sig, handler in _restore_signal_handlers(before).items()
        if getattr(handler, "__module__", "").startswith(("bertscore_plugins", "recipes", "benchmarks"))
    }
    assert not ours, f"handlers of ours left behind: {ours}"

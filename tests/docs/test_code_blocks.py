"""Every code block of the README and the documentation pages runs as written, or says what it needs.

Python blocks run in one interpreter (each page its own namespace, its blocks in order); shell blocks each
in a bash of their own, in a scratch folder linked to the clone. Only the packaged model is used, and the
hub is off: a block that needs a network, a server or a cluster is marked `<!-- needs: ... -->`.

The blocks' ``python`` and ``bertscore-plugins`` run in children of one zygote for the module
(tests/support/fresh_interpreter.py): each command is still a fresh interpreter for this package, with
its own cwd, stdin, stdout, stderr and exit status, but torch, transformers and pandas are imported once,
not once per command (~8 CPU s each of a 2-core machine).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.docs.blocks import RUN_LANGUAGES, all_blocks, documentation_files
from tests.docs.workspace import block_environment, link_clone, write_commands
from tests.support.fresh_interpreter import ZYGOTE_WORKS, Zygote, run_fresh

#: languages a block may have: run (python, bash) or shown (text: output, synopses, diagrams)
LANGUAGES = {*RUN_LANGUAGES, "text"}


def test_every_block_has_a_known_language_and_every_marker_a_reason():
    blocks = all_blocks()
    assert len(blocks) >= 20
    odd = [f"{b.where} ```{b.language}" for b in blocks if b.language not in LANGUAGES]
    assert not odd, f"blocks must be python, bash or text: {odd}"
    unexplained = [b.where for b in blocks if b.needs is not None and not b.needs.strip()]
    assert not unexplained, f"say what the block needs: {unexplained}"
    shown = [b.where for b in blocks if b.language == "text" and b.needs is not None]
    assert not shown, f"a text block is never run: drop its needs marker: {shown}"


def test_every_marker_stands_right_above_a_block():
    # a marker that drifted away from its block would silently stop marking anything
    for path in documentation_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if line.strip().startswith("<!-- needs:"):
                following = next((text.strip() for text in lines[number + 1 :] if text.strip()), "")
                assert following.startswith("```"), f"{path.name}:{number + 1}: a needs marker with no block"


def test_the_runner_reports_a_failing_block_and_a_path_that_does_not_exist(tmp_path):
    from tests.docs.run_python_blocks import run_page

    page = tmp_path / "page.md"
    page.write_text(
        "```python\nvalue = 1\n```\n\n"  # a page's blocks share one namespace, in order
        "```python\nassert value == 1\n```\n\n"
        "```python\nfrom bertscore_plugins.errors import InputError\nraise InputError('shown')\n```\n\n"
        "<!-- needs: network -->\n```python\nraise SystemExit('never run')\n```\n\n"
        "```python\nimport bertscore_plugins.errors\nfrom bertscore_plugins.inputs import check_pairs\n```\n"
        "```python\nimport bertscore_plugins.phoenix.names\n```\n",
        encoding="utf-8",
    )
    outcomes = run_page(page)
    assert [o["where"].rsplit(":", 1)[1] for o in outcomes] == ["1", "5", "9", "19", "23"]
    errors = [o["error"] for o in outcomes]
    assert errors[:2] == [None, None] and "InputError: shown" in errors[2] and errors[3] is None
    assert "ModuleNotFoundError: No module named 'bertscore_plugins.phoenix'" in errors[4]


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Zygote | None]]:
    """The environment blocks run in (its PATH starts with their ``python`` and ``bertscore-plugins``) and
    the zygote those run in (None where there is none: each command a new interpreter)."""
    folder = tmp_path_factory.mktemp("commands")
    env = block_environment(folder)
    if not ZYGOTE_WORKS:
        write_commands(folder)
        yield env, None
        return
    # one thread per command, as each has under xdist: OpenBLAS would otherwise start its threads when
    # numpy is imported, and a zygote only forks with one thread (else it serves nothing)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    with Zygote(env, listen=True) as zygote:
        serving = not zygote.ready()["problems"]  # e.g. a thread count set outside: new interpreters
        write_commands(folder, zygote if serving else None)
        yield env, zygote if serving else None


@pytest.mark.slow
@pytest.mark.model
def test_every_python_block_runs(tmp_path, commands):
    for extra in ("evaluate", "datasets", "pandas", "phoenix.evals", "bert_score"):  # what the pages import
        pytest.importorskip(extra, reason="the pages' examples use every extra: make install")
    env, zygote = commands
    link_clone(tmp_path)
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "tests.docs.run_python_blocks", str(report)]
    if zygote is not None:
        done = zygote.run(argv, tmp_path, env, timeout=900)
    else:
        done = run_fresh(argv, tmp_path, env, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    outcomes = json.loads(report.read_text(encoding="utf-8"))
    expected = [b.where for b in all_blocks() if b.language == "python" and b.needs is None]
    assert [o["where"] for o in outcomes] == expected
    failures = [f"{o['where']}:\n{o['error']}" for o in outcomes if o["error"]]
    assert not failures, "\n\n".join(failures)


SHELL_BLOCKS = [b for b in all_blocks() if b.language == "bash" and b.needs is None]


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[b.where for b in SHELL_BLOCKS])
def test_every_shell_block_runs(block, tmp_path, commands):
    env, _ = commands
    link_clone(tmp_path)
    process = subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", block.code],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: whatever it leaves running is stopped below
    )
    try:
        stdout, stderr = process.communicate(timeout=600)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    assert process.returncode == 0, (
        f"{block.where} exited {process.returncode}\n{stdout[-2000:]}\n{stderr[-4000:]}"
    )
    if "stub_judge.py" in block.code:  # the judge really answered: the recipe did not fall back to offline
        state = json.loads(next(tmp_path.glob("runs/*/state.json")).read_text(encoding="utf-8"))
        assert state["faithfulness_signal"] == "faithfulness" and state["judge_failed_rows"] == []
        assert state["judge_calls"]["judged"] == state["rows"] > 0

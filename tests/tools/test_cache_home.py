"""One cache home (bertscore_plugins/cache_home.py): the models, the judge's weights, Phoenix's environment,
the result store and the pid files all live under ``$XDG_CACHE_HOME/bertscore-plugins`` (else
``~/.cache/bertscore-plugins``), ``$BERTSCORE_PLUGINS_CACHE`` moves them all, and what an earlier version
left in ``~/.cache/bertscore_plugins`` is moved in (a rename: nothing is assembled or fetched again)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bertscore_plugins.cache_home import CACHE_ENV, cache_home, cached
from bertscore_plugins.integrations.phoenix.trace_evaluation import default_store_path
from bertscore_plugins.judge.local_model import model_dir
from bertscore_plugins.judge.server import default_workdir as judge_workdir
from bertscore_plugins.models.presets import models_cache_dir
from bertscore_plugins.tools.phoenix_venv import default_venv

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A new HOME, with no cache settings of the caller's."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("XDG_CACHE_HOME", CACHE_ENV, "BERTSCORE_JUDGE_MODEL_DIR", "BERTSCORE_PHOENIX_VENV",
                 "BERTSCORE_PHOENIX_STORE", "BERTSCORE_JUDGE_WORKDIR"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return folder


def everything() -> dict[str, Path]:
    return {
        "models": models_cache_dir(),
        "judge weights": model_dir(),
        "phoenix environment": default_venv(),
        "result store": default_store_path(),
        "judge pid file": judge_workdir(),
    }


def test_everything_lives_in_one_home_that_xdg_and_one_setting_move(home, tmp_path, monkeypatch):
    assert cache_home() == home / ".cache" / "bertscore-plugins"
    assert {name: path.parent for name, path in everything().items()} == dict.fromkeys(
        everything(), cache_home()
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_home() == tmp_path / "xdg" / "bertscore-plugins"
    assert all(path.parent == cache_home() for path in everything().values())
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the XDG specification says
    assert cache_home() == home / ".cache" / "bertscore-plugins"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "elsewhere"))
    assert all(path.parent == tmp_path / "elsewhere" for path in everything().values())


def test_what_the_old_folder_holds_is_moved_into_the_home_not_made_again(home, tmp_path, monkeypatch):
    old = home / ".cache" / "bertscore_plugins"
    (old / "models" / "mpnet").mkdir(parents=True)
    (old / "models" / "mpnet" / "model.safetensors").write_bytes(b"weights")
    (old / "judge").mkdir()
    (old / "judge" / "model.gguf").write_bytes(b"gguf")
    inode = (old / "judge" / "model.gguf").stat().st_ino
    xdg = tmp_path / "xdg"
    (xdg / "bertscore_plugins").mkdir(parents=True)  # the result store followed XDG_CACHE_HOME already
    (xdg / "bertscore_plugins" / "phoenix_results.sqlite").write_bytes(b"rows")
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))

    assert (models_cache_dir() / "mpnet" / "model.safetensors").read_bytes() == b"weights"
    assert (model_dir() / "model.gguf").stat().st_ino == inode  # a rename: the same file, not a copy
    assert default_store_path().read_bytes() == b"rows"
    assert models_cache_dir().parent == xdg / "bertscore-plugins"
    assert not old.exists() and not (xdg / "bertscore_plugins").exists()  # emptied, then removed


def test_an_old_file_that_cannot_be_moved_is_used_where_it_is(home, tmp_path, monkeypatch):
    old = home / ".cache" / "bertscore_plugins" / "judge"
    old.mkdir(parents=True)
    blocked = tmp_path / "read-only"
    blocked.mkdir()
    blocked.chmod(0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    try:
        if os.access(blocked, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        assert cached("judge") == old
    finally:
        blocked.chmod(0o700)


def _listing(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")} if folder.exists() else set()


def _seed_from(found: Path, folder: Path) -> None:
    """`folder` holding what `found` holds, hard-linked (the judge's weights are 250 MB and their float32
    conversion takes minutes on a busy machine): a user's cache as an earlier version left it."""
    for path in found.rglob("*"):
        target = folder / path.relative_to(found)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:
            shutil.copy2(path, target)


@pytest.mark.slow
def test_the_doors_put_nothing_under_the_home_cache_and_a_second_run_makes_nothing_again(tmp_path):
    """judge serve, phoenix serve, the disagreement recipe and score, as a user of an earlier version runs
    them with XDG_CACHE_HOME set: the judge's weights left in ~/.cache/bertscore_plugins are moved (the
    same files, nothing converted again), ~/.cache holds nothing of this package's after, everything is in
    $XDG_CACHE_HOME's bertscore-plugins, and a second judge serve uses the same files."""
    real_judge = next(
        (p for p in (Path.home() / ".cache" / n / "judge" for n in ("bertscore-plugins", "bertscore_plugins"))
         if any(p.glob("*.gguf"))),
        None,
    )  # fmt: skip
    home, xdg, user = tmp_path / "home", tmp_path / "xdg", tmp_path / "project"
    for folder in (home / ".cache", user):
        folder.mkdir(parents=True)
    (home / ".cache" / "someone-else").mkdir()
    if real_judge is not None:
        _seed_from(real_judge, home / ".cache" / "bertscore_plugins" / "judge")
    old_weights = {p.name: p.stat().st_ino for p in (home / ".cache").rglob("*.gguf")}
    real_venv = Path(os.environ.get("BERTSCORE_PHOENIX_VENV", REPO / ".phoenix-venv")).resolve()
    (xdg / "bertscore-plugins").mkdir(parents=True)
    (xdg / "bertscore-plugins" / "phoenix-venv").symlink_to(real_venv)  # made once, minutes: not re-made here
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BERTSCORE_", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    before = _listing(home / ".cache")
    cli = [sys.executable, "-m", "bertscore_plugins.cli"]

    def serve(command: list[str], ready: str) -> str:
        process = subprocess.Popen(
            [*cli, *command], cwd=user, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        lines = []
        try:
            for line in process.stdout:  # type: ignore[union-attr]
                lines.append(line)
                if line.startswith(ready):
                    break
            assert lines and lines[-1].startswith(ready), "".join(lines)
        finally:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=120)
        return "".join(lines)

    serve(["judge", "serve", "--threads", "1"], "log:")
    weights = next((xdg / "bertscore-plugins" / "judge").glob("*.gguf"))
    first = weights.stat()
    if old_weights:
        assert first.st_ino == old_weights[weights.name]  # moved, not assembled again
    serve(["phoenix", "serve", "--port", "0", "--grpc-port", "0"], "Press Ctrl-C")
    table = user / "rows.jsonl"
    table.write_text(
        '{"id": "a", "question": "When?", "context": "It opens at nine.", "output": "At nine.", '
        '"reference": "Nine."}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [*cli, "disagreement", str(table), "--no-phoenix", "--out", str(user / "run")],
        cwd=user, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    serve(["judge", "serve", "--threads", "1"], "log:")  # the second run
    again = weights.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)  # nothing made again
    after = _listing(home / ".cache")
    assert after <= before and not [name for name in after if "bertscore" in name]  # nothing of ours left
    assert {p.name for p in (xdg / "bertscore-plugins").iterdir()} >= {
        "judge",
        "judge-server",
        "phoenix-venv",
    }

"""`judge stop` signals only the server it started: the pid file names the process and its start time, and
a process that merely has that pid now (or mentions the server on its command line) is left alone."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bertscore_plugins.judge.server import PID_FILE_NAME, process_start, stop_recorded
from bertscore_plugins.tools.server_process import pid_alive


@pytest.fixture
def bystander():
    """A process whose command line mentions the judge's server module (as an editor or a grep would)."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "bertscore_plugins.judge.serve"],
        stdout=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_a_pid_file_whose_pid_is_now_another_process_signals_nothing(tmp_path, bystander):
    pid_file = tmp_path / PID_FILE_NAME
    pid_file.write_text(json.dumps({"pid": bystander.pid, "start": "1"}) + "\n")  # started at another time
    assert stop_recorded(tmp_path) is None
    assert bystander.poll() is None and pid_alive(bystander.pid)
    assert not pid_file.exists()  # the stale file is forgotten


def test_a_pid_file_in_another_format_signals_nothing(tmp_path, bystander):
    (tmp_path / PID_FILE_NAME).write_text(f"{bystander.pid}\n")  # a bare pid says nothing of which process
    assert stop_recorded(tmp_path) is None
    assert bystander.poll() is None


def test_the_process_the_file_recorded_is_stopped(tmp_path, bystander):
    recorded = {"pid": bystander.pid, "start": process_start(bystander.pid)}
    (tmp_path / PID_FILE_NAME).write_text(json.dumps(recorded) + "\n")
    assert stop_recorded(tmp_path) == bystander.pid
    assert bystander.wait(timeout=20) == -15  # SIGTERM
    assert not (tmp_path / PID_FILE_NAME).exists()


def test_no_pid_file_is_no_server(tmp_path):
    assert stop_recorded(tmp_path) is None


def test_the_servers_pid_file_and_log_go_to_the_users_cache_never_the_package(monkeypatch, tmp_path):
    from pathlib import Path

    import bertscore_plugins
    from bertscore_plugins.judge.server import WORKDIR_ENV, default_workdir

    monkeypatch.delenv(WORKDIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_workdir() == tmp_path / "cache" / "bertscore-plugins" / "judge-server"
    checkout = Path(bertscore_plugins.__file__).resolve().parents[1]
    assert not default_workdir().is_relative_to(checkout)
    monkeypatch.setenv(WORKDIR_ENV, str(tmp_path / "mine"))
    assert default_workdir() == tmp_path / "mine"

"""`bertscore-plugins judge serve` as the README runs it (`judge serve &` ... `judge stop`): it says what its
model is worth on start and in /v1/models, ends with exit 0 and a line saying so when `judge stop` stops
it, and with exit 1 when its server dies any other way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from bertscore_plugins.judge.local_model import MEASURED_AUC, NEAR_CHANCE_NOTE, measured_quality, near_chance
from bertscore_plugins.judge.server import PID_FILE_NAME

pytestmark = pytest.mark.slow  # starts the real model server

START_SECONDS = 300  # the first start on a busy machine dequantises the model


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "bertscore_plugins.cli", *args]


class Serving:
    """`judge serve` in the background, its lines collected as they come."""

    def __init__(self, workdir: Path) -> None:
        self.process = subprocess.Popen(
            _cli("judge", "serve", "--workdir", str(workdir), "--threads", "1"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.up = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("Press Ctrl-C"):
                self.up.set()
        self.up.set()

    def base_url(self) -> str:
        exported = [line.split("=", 1)[1] for line in self.lines if "BERTSCORE_JUDGE_BASE_URL=" in line]
        return exported[0]

    def end(self, timeout: float = 60) -> tuple[int, str]:
        code = self.process.wait(timeout)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


def _started(workdir: Path) -> Serving:
    serving = Serving(workdir)
    if not serving.up.wait(START_SECONDS) or serving.process.poll() is not None:
        serving.process.kill()
        pytest.skip(f"judge serve did not start here: {serving.lines[-3:]} {serving.end()[1][-500:]}")
    return serving


def test_judge_stop_ends_judge_serve_with_exit_0_and_a_line_saying_it_was_stopped(tmp_path):
    serving = _started(tmp_path)
    try:
        quality = [line for line in serving.lines if line.startswith("Measured quality")]
        sets = ", ".join(
            f"{name} {auc:.3f}" for name, auc in measured_quality()["roc_auc_fully_faithful"].items()
        )
        assert quality == [
            f"Measured quality (benchmarks/QUALITY.md section 9): ROC-AUC {sets} (mean {MEASURED_AUC:.3f}); "
            f"{measured_quality()['note']}."
        ]
        assert (NEAR_CHANCE_NOTE in quality[0]) is near_chance(MEASURED_AUC)
        with urllib.request.urlopen(serving.base_url() + "/models", timeout=30) as reply:
            listed = json.loads(reply.read())["data"][0]
        assert listed["quality"] == measured_quality()
        stop = subprocess.run(
            _cli("judge", "stop", "--workdir", str(tmp_path)), capture_output=True, text=True, timeout=60
        )
        assert stop.returncode == 0 and stop.stdout.startswith("stopped the judge server (pid ")
        code, errors = serving.end()
    finally:
        if serving.process.poll() is None:
            serving.process.kill()
    assert code == 0, errors
    assert serving.lines[-1].startswith("the judge server (pid ") and serving.lines[-1].endswith(
        ") was stopped; judge serve ends"
    )


def test_a_server_that_dies_otherwise_ends_judge_serve_with_exit_1(tmp_path):
    serving = _started(tmp_path)
    try:
        pid = json.loads((tmp_path / PID_FILE_NAME).read_text())["pid"]
        os.kill(pid, signal.SIGKILL)  # a crash, not a stop
        code, errors = serving.end()
    finally:
        if serving.process.poll() is None:
            serving.process.kill()
    assert code == 1
    assert "the judge server exited on its own (code -9); log: " in errors

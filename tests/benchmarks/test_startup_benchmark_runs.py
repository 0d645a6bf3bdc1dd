"""The start-up benchmark (benchmarks/speed/startup.py) runs end to end, beside an earlier commit too, so it
cannot rot. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # fresh interpreters, here and at an earlier commit
STARTUP = REPO / "benchmarks" / "speed" / "startup.py"


def test_both_commands_are_measured_here_and_at_an_earlier_commit(tmp_path: Path) -> None:
    out = tmp_path / "startup.json"
    done = subprocess.run(
        [sys.executable, str(STARTUP), "--runs", "1", "--before", "HEAD", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("| command | tree | wall median (ms) | CPU median (ms) |")
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert [(row["command"], row["tree"].split(" (")[0]) for row in rows] == [
        ("import bertscore_plugins", "before"),
        ("import bertscore_plugins", "this checkout"),
        ("bertscore-plugins --help", "before"),
        ("bertscore-plugins --help", "this checkout"),
    ]
    assert all(row["runs"] == 1 and row["cpu_ms"] > 0 and row["wall_ms"] > 0 for row in rows)


def test_a_revision_that_does_not_exist_is_refused_by_name() -> None:
    done = subprocess.run(
        [sys.executable, str(STARTUP), "--before", "no-such-revision"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "--before no-such-revision: not a commit of" in done.stderr

"""The trace-evaluation benchmark still runs end to end on a real Phoenix server (its smallest size only,
with the loopback judge), so the figures in RESULTS.md can be re-measured. No timing or memory is
asserted. One size, read in two pages: each size is a fresh process that loads torch and the model, and
a second size exercises no other code (the ratio across sizes is the same division, here of a run by
itself)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.fresh_interpreter import FreshPython

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_trace_benchmark_reports_memory_and_time_shares_per_project_size(
    phoenix_server, fresh_python: FreshPython
) -> None:
    command = [
        *fresh_python.argv, str(REPO / "benchmarks" / "speed" / "trace_evaluation.py"), "--spans", "4",
        "--page-size", "2", "--layer", "1", "--judge", "--server", phoenix_server.base_url,
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, env=fresh_python.env(), timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert [run["spans"] for run in summary["runs"]] == [4]
    for run in summary["runs"]:
        report = run["report"]
        assert report["evaluated"] == run["spans"] and not report["failed"] and not report["skipped"]
        assert report["results"] == {
            name: run["spans"]
            for name in (
                "groundedness",
                "bertscore",
                "offline_faithfulness",
                "faithfulness",
                "sim_faith_disagreement",
            )
        }
        assert report["logged"] == 5 * run["spans"]
        assert set(run["shares"]) == {"read", "score", "judge", "store", "write"}
        assert abs(sum(run["shares"].values()) - 1) < 0.01 and run["shares"]["judge"] > 0
        assert run["peak_rss_mb"] >= run["rss_after_model_mb"] > 100
        assert run["score_ms_per_span"] > 0 and run["core_score_ms_per_span"] > 0
    assert summary["peak_rss_ratio_largest_vs_smallest"] == 1.0  # one size: its own peak over itself

"""The speed benchmark still runs end to end (20 pairs), so it cannot rot. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPEED = REPO / "benchmarks" / "speed.py"

pytest.importorskip(
    "bert_score", reason="bert-score (the parity oracle, in the [test] extra) is not installed"
)


def run_speed(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "speed.json"
    completed = subprocess.run(
        [sys.executable, str(SPEED), "--quick", "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "| scenario | contender |" in completed.stdout
    assert out.with_suffix(".md").read_text().startswith("# BERTScore speed benchmark")
    return json.loads(out.read_text())


def rows_by_contender(report: dict) -> dict[str, dict]:
    return {row["contender"]: row for row in report["rows"]}


def test_cold_scoring_in_fresh_processes(tmp_path: Path) -> None:
    """Scenario a through the real harness: one fresh process per contender, RSS read from each."""
    report = run_speed(tmp_path, "--scenarios", "a")
    assert set(report) == {"environment", "load_average", "rows", "measured", "targets"}
    assert report["environment"]["versions"]["bert-score"] == "0.3.13"
    rows = rows_by_contender(report)
    assert set(rows) == {"a/bert_score", "a/project", "a/floor@4096", "a/floor@8192"}
    assert [rows[f"a/floor@{budget}"]["floor_used"] for budget in (4096, 8192)].count(True) == 1
    for row in rows.values():
        assert "error" not in row, row.get("error")
        assert row["pairs"] == 20
        assert row["score_s_median"] > 0 and row["pairs_per_s"] > 0
        assert 100 < row["peak_rss_mib"] < 16384  # a real process's memory, not 0 and not absurd
        assert row["peak_rss_mib"] >= row["rss_after_load_mib"]
    project = rows["a/project"]
    assert project["speedup_vs_bert_score"] > 0 and project["time_vs_floor"] > 0
    assert set(project["max_abs_delta"]) == {"precision", "recall", "f1"}
    assert max(project["max_abs_delta"].values()) <= 1e-5  # same numbers as bert_score
    targets = {check["target"]: check for check in report["targets"]}
    assert targets["a_max_abs_delta"]["pass"] is True
    assert set(targets) == {"a_speedup_vs_bert_score", "a_time_vs_floor", "a_max_abs_delta"}


def test_every_cpu_scenario_in_one_process(tmp_path: Path) -> None:
    """Scenarios b-f on tiny inputs, contenders in-process (fast); figures present and in range."""
    report = run_speed(tmp_path, "--scenarios", "b,c,d,e,f", "--in-process")
    rows = rows_by_contender(report)
    errors = {name: row["error"] for name, row in rows.items() if "error" in row}
    assert not errors, errors
    # b: cached re-scoring gives bert_score's numbers
    for label in ("memory", "disk"):
        cached = rows[f"b/project-{label}-cache"]
        assert cached["speedup_vs_bert_score"] > 0
        assert cached["max_abs_delta"]["f1"] <= 1e-5
    # c: three sizes for both contenders
    assert {name for name in rows if name.startswith("c/")} == {
        f"c/{who}@{size}" for who in ("project", "bert_score") for size in (20, 40, 80)
    }
    assert report["measured"]["c_project_rss_growth"] > 0
    # d: int8 agrees with exact on the ranking of most pairs
    int8 = rows["d/project-int8"]
    assert -1 <= int8["spearman_f1_vs_exact"] <= 1 and int8["spearman_f1_vs_exact"] > 0.5
    assert 0 <= int8["max_abs_delta_f1_vs_exact"] < 0.5
    assert rows["d/project-bf16"]["max_abs_delta_f1_vs_exact"] < 0.5  # bf16 on CPU, measured beside int8
    # e: window mode processes every token, truncate only the first window
    truncate, window = rows["e/project-truncate"], rows["e/project-window"]
    assert window["tokens_processed"] > truncate["tokens_processed"]
    assert window["cost_per_token_vs_truncate"] > 0
    # f: skipped cleanly without CUDA, or measured with it
    if "skipped" in rows:
        assert rows["skipped"]["note"] == "CUDA not available"
    else:
        assert report["measured"]["f_bf16_max_abs_delta_f1"] is not None

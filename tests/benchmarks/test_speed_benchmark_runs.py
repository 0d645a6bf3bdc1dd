"""The speed benchmark still runs end to end on the smallest inputs that still exercise every scenario
(8 pairs, one round, one long document), so it cannot rot. No timing is asserted. The script runs as its
own process from the worker's zygote (``fresh_python``); the cold scenario's contenders are new
interpreters it starts itself."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

from tests.support.fresh_interpreter import FreshPython

REPO = Path(__file__).resolve().parents[2]
SPEED = REPO / "benchmarks" / "speed" / "speed.py"

# looked up, not imported: the benchmark imports bert_score in its own processes, and an import here would
# cost every worker that collects this file torch, transformers and matplotlib
if importlib.util.find_spec("bert_score") is None:
    pytest.skip(
        "bert-score (the parity oracle, in the [test] extra) is not installed", allow_module_level=True
    )


PAIRS = 8
MEMORY_SIZES = (4, 8, 16)
# --quick (one round, small sizes) cut to fewer pairs: the smoke run the script's usage names
QUICK = ["--quick", "--pairs", str(PAIRS)]
# what --quick sets, spelled out, with one long-text document pair instead of --quick's two (its 600
# tokens stay over the 512-token window, so the document still has a second window)
SMALLEST = [
    *("--pairs", str(PAIRS), "--repeats", "1", "--long-docs", "1", "--long-tokens", "600"),
    *("--memory-sizes", ",".join(map(str, MEMORY_SIZES))),
]


def run_speed(python: FreshPython, tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "speed.json"
    completed = subprocess.run(
        [*python.argv, str(SPEED), "--out", str(out), *args],
        capture_output=True,
        text=True,
        env=python.env(),
        timeout=900,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "| scenario | contender |" in completed.stdout
    assert out.with_suffix(".md").read_text().startswith("# BERTScore speed benchmark")
    return json.loads(out.read_text())


def rows_by_contender(report: dict) -> dict[str, dict]:
    return {row["contender"]: row for row in report["rows"]}


@pytest.mark.slow
def test_cold_scoring_in_fresh_processes_beside_an_earlier_commit(
    fresh_python: FreshPython, tmp_path: Path
) -> None:
    """The cold scenario through the real harness: one fresh process per contender, RSS read from each;
    `--before HEAD` runs the committed package beside the working tree's, from its own unpacked copy."""
    report = run_speed(fresh_python, tmp_path, *QUICK, "--scenarios", "cold", "--before", "HEAD")
    assert set(report) == {"environment", "load_average", "rows", "measured", "targets"}
    assert report["environment"]["versions"]["bert-score"] == "0.3.13"
    rows = rows_by_contender(report)
    before = rows.pop("cold/project@before")
    assert "error" not in before, before.get("error")
    assert "/before/bertscore_plugins/" in before["package"]  # the unpacked commit ran, not the checkout
    assert before["time_after_vs_before"] > 0
    assert max(before["max_abs_delta_vs_after"].values()) <= 1e-6  # same numbers, same code path
    assert set(rows) == {"cold/bert_score", "cold/project", "cold/floor@4096", "cold/floor@8192"}
    assert [rows[f"cold/floor@{budget}"]["floor_used"] for budget in (4096, 8192)].count(True) == 1
    for row in rows.values():
        assert "error" not in row, row.get("error")
        assert row["pairs"] == PAIRS
        assert row["score_s_median"] > 0 and row["pairs_per_s"] > 0
        assert 100 < row["peak_rss_mib"] < 16384  # a real process's memory, not 0 and not absurd
        assert row["peak_rss_mib"] >= row["rss_after_load_mib"]
    project = rows["cold/project"]
    assert project["speedup_vs_bert_score"] > 0 and project["time_vs_floor"] > 0
    assert set(project["max_abs_delta"]) == {"precision", "recall", "f1"}
    assert max(project["max_abs_delta"].values()) <= 1e-5  # same numbers as bert_score
    targets = {check["target"]: check for check in report["targets"]}
    assert targets["cold_max_abs_delta"]["pass"] is True
    assert set(targets) == {
        "cold_speedup_vs_bert_score",
        "cold_time_vs_floor",
        "cold_max_abs_delta",
        "cold_time_vs_before",
    }


def test_before_names_a_revision_that_does_not_exist(fresh_python: FreshPython, tmp_path: Path) -> None:
    completed = subprocess.run(
        [*fresh_python.argv, str(SPEED), "--quick", "--scenarios", "cold", "--before", "no-such-revision"],
        capture_output=True,
        text=True,
        env=fresh_python.env(),
        timeout=300,
        check=False,
    )
    assert completed.returncode == 2
    assert "--before no-such-revision: not a commit of" in completed.stderr


@pytest.mark.slow
def test_every_other_scenario_in_one_process(fresh_python: FreshPython, tmp_path: Path) -> None:
    """The other scenarios on tiny inputs, contenders in-process (fast); figures present and in range.

    Two are named by their old letters (b, c), which stay accepted for older command lines.
    """
    report = run_speed(
        fresh_python,
        tmp_path,
        *SMALLEST,
        "--scenarios",
        "b,c,fast-cpu-mode,long-text-window,gpu",
        "--in-process",
    )
    assert {row["scenario"] for row in report["rows"]} >= {
        "cached-references",
        "memory-scaling",
        "fast-cpu-mode",
        "long-text-window",
        "gpu",
    }
    rows = rows_by_contender(report)
    errors = {name: row["error"] for name, row in rows.items() if "error" in row}
    assert not errors, errors
    # cached-references: re-scoring from the cache gives bert_score's numbers
    for label in ("memory", "disk"):
        cached = rows[f"cached-references/project-{label}-cache"]
        assert cached["speedup_vs_bert_score"] > 0
        assert cached["max_abs_delta"]["f1"] <= 1e-5
    # memory-scaling: three sizes for both contenders
    assert {name for name in rows if name.startswith("memory-scaling/")} == {
        f"memory-scaling/{who}@{size}" for who in ("project", "bert_score") for size in MEMORY_SIZES
    }
    assert report["measured"]["memory_scaling_project_rss_growth"] > 0
    # fast-cpu-mode: int8 agrees with exact on the ranking of most pairs
    int8 = rows["fast-cpu-mode/project-int8"]
    assert -1 <= int8["spearman_f1_vs_exact"] <= 1 and int8["spearman_f1_vs_exact"] > 0.5
    assert 0 <= int8["max_abs_delta_f1_vs_exact"] < 0.5
    # bf16 on CPU, measured beside int8
    assert rows["fast-cpu-mode/project-bf16"]["max_abs_delta_f1_vs_exact"] < 0.5
    # long-text-window: window mode processes every token, truncate only the first window
    truncate, window = rows["long-text-window/project-truncate"], rows["long-text-window/project-window"]
    assert window["tokens_processed"] > truncate["tokens_processed"]
    assert window["cost_per_token_vs_truncate"] > 0
    # gpu: skipped cleanly without CUDA, or measured with it
    if "skipped" in rows:
        assert rows["skipped"]["note"] == "CUDA not available"
    else:
        assert report["measured"]["gpu_bf16_max_abs_delta_f1"] is not None


def test_unknown_scenario_is_refused_with_the_names_to_choose_from(fresh_python: FreshPython) -> None:
    completed = subprocess.run(
        [*fresh_python.argv, str(SPEED), "--scenarios", "cold,warm"],
        capture_output=True,
        text=True,
        env=fresh_python.env(),
        timeout=300,
        check=False,
    )
    assert completed.returncode == 2
    assert "unknown scenario(s) warm; choose from cold, cached-references, memory-scaling" in completed.stderr

"""Progress where nobody watches: a plain line at a steady pace (rows done, rate, time left) instead of a
bar's carriage returns, none for short work, and nothing with --quiet."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bertscore_plugins.cli.main import main
from bertscore_plugins.core import progress
from bertscore_plugins.core.progress import ProgressLine

REPO = Path(__file__).resolve().parents[2]
#: "BERTScore: 40/120 pairs (33%), 85.2 pairs/s, 1s left"
LINE = re.compile(r"^BERTScore: ([\d,]+)/([\d,]+) pairs \((\d+)%\), ([\d.]+) pairs/s, (?:\d+m )?\d+s left$")
SENTENCE = "the patient was discharged on Tuesday after a short stay in the ward"


def pairs(count: int) -> tuple[list[str], list[str]]:
    words = SENTENCE.split()
    candidates = [" ".join([*words[n % 5 :], f"note {n}."]) for n in range(count)]
    references = [" ".join([*words[: 8 + n % 5], f"item {n}."]) for n in range(count)]
    return candidates, references


def test_a_line_says_rows_done_of_all_the_rate_and_the_time_left():
    out = io.StringIO()
    line = ProgressLine(200, "rows", "recipe", interval=0, stream=out)
    line.update(50)
    line.update(50)
    line.close()
    first, second, last = out.getvalue().splitlines()
    assert re.fullmatch(r"recipe: 50/200 rows \(25%\), [\d.]+ rows/s, (\d+m )?\d+s left", first)
    assert second.startswith("recipe: 100/200 rows (50%), ")
    assert re.fullmatch(r"recipe: 100/200 rows in \d+s", last)
    assert line.line(10.0) == "recipe: 100/200 rows (50%), 10.0 rows/s, 10s left"
    assert ProgressLine(20_000, "pairs", "BERTScore").line(4_000.0).endswith("0.0 pairs/s, unknown left")


def test_short_work_prints_nothing_and_the_pace_comes_from_the_environment(monkeypatch):
    out = io.StringIO()
    with ProgressLine(10, stream=out, interval=60) as line:
        line.update(10)
    assert out.getvalue() == ""
    monkeypatch.setenv("BERTSCORE_PROGRESS_SECONDS", "5")
    assert ProgressLine(10).interval == 5.0
    for unusable in ("soon", "-1", "nan", "0"):
        monkeypatch.setenv("BERTSCORE_PROGRESS_SECONDS", unusable)
        assert ProgressLine(10).interval == progress.PROGRESS_SECONDS == 30.0


def test_work_expected_to_outlast_the_pace_says_so_at_once_and_short_work_stays_silent():
    out = io.StringIO()
    line = ProgressLine(20_000, "pairs", "BERTScore", interval=30, stream=out, expected_seconds=250.0)
    assert out.getvalue() == "BERTScore: 20,000 pairs to go, a line every 30s\n"
    line.close()
    assert re.fullmatch(r"BERTScore: 0/20,000 pairs in \d+s", out.getvalue().splitlines()[-1])
    quiet = io.StringIO()
    ProgressLine(200, "pairs", "BERTScore", interval=30, stream=quiet, expected_seconds=29.0).close()
    assert quiet.getvalue() == ""
    # the estimate comes from the characters to encode: 20k WMT-like pairs are minutes of work
    assert progress.progress_bar(20_000, None, characters=2_500_000).printed == 1


def test_off_a_terminal_automatic_progress_is_the_plain_line_and_false_is_nothing():
    assert isinstance(progress.progress_bar(50_000, None), ProgressLine)  # pytest's stderr is no terminal
    assert progress.progress_bar(50_000, False) is None


@pytest.mark.model
@pytest.mark.slow
def test_score_with_stderr_to_a_file_writes_progress_lines_that_reach_every_row(tmp_path):
    candidates, references = pairs(600)
    (tmp_path / "c.txt").write_text("\n".join(candidates) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(references) + "\n")
    env = dict(os.environ, BERTSCORE_PROGRESS_SECONDS="0.001", PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "bertscore_plugins.cli", "score", "-c", "c.txt", "-r", "r.txt"]
    with open(tmp_path / "stderr.txt", "w") as stderr:
        done = subprocess.run(
            [*command, "-o", "rows.tsv", "--chunk-pairs", "200"],
            cwd=tmp_path,
            stderr=stderr,
            env=env,
            timeout=600,
        )
    assert done.returncode == 0
    lines = (tmp_path / "stderr.txt").read_text().splitlines()
    steps = [LINE.match(line) for line in lines if line.startswith("BERTScore: ") and " left" in line]
    assert len(steps) >= 3, lines  # three chunks of 200 rows, each moving the line as it is encoded
    done_counts = [int(step.group(1).replace(",", "")) for step in steps if step]
    assert len(done_counts) == len(steps) and done_counts == sorted(done_counts)
    assert all(int(step.group(2)) == 600 for step in steps if step)
    assert any(line.startswith("BERTScore: 600/600 pairs in ") for line in lines)
    assert "\r" not in (tmp_path / "stderr.txt").read_text()
    assert len((tmp_path / "rows.tsv").read_text().splitlines()) == 601


@pytest.mark.model
def test_quiet_silences_the_progress_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BERTSCORE_PROGRESS_SECONDS", "0.000001")
    candidates, references = pairs(12)
    (tmp_path / "c.txt").write_text("\n".join(candidates) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(references) + "\n")
    argv = ["score", "-c", str(tmp_path / "c.txt"), "-r", str(tmp_path / "r.txt"), "--chunk-pairs", "4"]
    assert main([*argv, "--summary", str(tmp_path / "s.json")]) == 0
    assert "BERTScore: " in capsys.readouterr().err
    assert main([*argv, "--quiet", "--summary", str(tmp_path / "s.json")]) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--quiet", "--progress"]) == 2
    assert "--quiet and --progress" in capsys.readouterr().err

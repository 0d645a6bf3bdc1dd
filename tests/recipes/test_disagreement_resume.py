"""The recipe resumes from its store: a run killed after a chunk keeps every stored chunk and the rerun scores
only the rest; a fixed judge model name asks only the judge; ``--thresholds-only`` loads no model; and off a
terminal a plain progress line is written, ``--quiet`` silencing it.

The killed run is a real process (SIGKILL, as the OOM killer or a closed laptop would); the judge is the
loopback OpenAI-style stub. Model loads and core calls are counted with the model caches emptied, so a load
the run makes is seen even where an earlier test loaded the model in this process.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins.cli import disagreement
from bertscore_plugins.evaluation.names import SIMILARITY
from tests.support.recipe_runs import DEMO, REPO, no_judge

ROWS = 24  # of the demo's 44: three chunks, so the kill lands with one stored and two to go
CHUNK = 8
#: the recipe in a process of its own, with a chunk size and a progress pace the test chooses
RECIPE = """
import sys
from bertscore_plugins.core import progress
from bertscore_plugins.evaluation import pipeline
pipeline.CHUNK_ROWS, progress.LINE_SECONDS = int(sys.argv[1]), float(sys.argv[2])
from bertscore_plugins.cli.main import main
sys.exit(main(["disagreement", *sys.argv[3:]]))
"""
PROGRESS_LINE = re.compile(
    r"^scoring: [\d,]+/([\d,]+) rows \(\d+%\), [\d.]+ rows/s, (?:\d+h )?(?:\d+m )?\d+s left$"
)


def recipe_process(
    args: list[str], chunk: int = CHUNK, line_seconds: float = 20.0, **options
) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.Popen(
        [sys.executable, "-c", RECIPE, str(chunk), str(line_seconds), *args], env=env, text=True, **options
    )


def scored_rows(out: Path) -> set[str]:
    """The store keys of the rows whose BERTScore pass is stored (their similarity cell)."""
    if not (out / "results.sqlite").exists():
        return set()
    with sqlite3.connect(out / "results.sqlite", timeout=30) as db:
        try:
            found = db.execute(
                "SELECT row_id FROM results WHERE name = ? AND cell IS NOT NULL", (SIMILARITY,)
            )
            keys = {key for (key,) in found}
        except sqlite3.OperationalError:  # the table is not made yet
            keys = set()
    db.close()
    return keys


class Scoring:
    """Counts what a run computes: model loads, core calls, the rows the engine is asked to score with
    BERTScore, and the judge's calls. Empties the model and scorer caches first, so a load is a load."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import bertscore_plugins.models.load as load
        from bertscore_plugins.core import scorer as scorer_module
        from bertscore_plugins.evaluation import pipeline
        from bertscore_plugins.judge.yes_no import YesNoJudge

        scorer_module._SCORERS.clear()
        load.clear_model_cache()
        self.loads, self.core_calls, self.verdict_calls = 0, 0, 0
        self.scored: list[str] = []
        real_load, real_score = load.load_model, scorer_module.BERTScorer.score
        real_batch, real_verdicts = pipeline.evaluate_batch, YesNoJudge.verdicts

        def counted_load(*args, **kwargs):
            self.loads += 1
            return real_load(*args, **kwargs)

        def counted_score(*args, **kwargs):
            self.core_calls += 1
            return real_score(*args, **kwargs)

        def counted_batch(rows, config, **kwargs):
            bertscore = {config.similarity_name, config.groundedness_name, config.offline_name}
            self.scored += [str(row.key) for row in rows if row.wants is None or row.wants & bertscore]
            return real_batch(rows, config, **kwargs)

        def counted_verdicts(*args, **kwargs):
            self.verdict_calls += 1
            return real_verdicts(*args, **kwargs)

        monkeypatch.setattr(load, "load_model", counted_load)
        monkeypatch.setattr(scorer_module.BERTScorer, "score", counted_score)
        monkeypatch.setattr(pipeline, "evaluate_batch", counted_batch)
        monkeypatch.setattr(YesNoJudge, "verdicts", counted_verdicts)


def scores_table(out: Path) -> pd.DataFrame:
    return pd.read_json(out / "scores.jsonl", lines=True, dtype=False)


@pytest.mark.slow
def test_a_run_killed_after_its_first_chunk_resumes_scoring_only_the_rows_not_stored(tmp_path, monkeypatch):
    no_judge(monkeypatch)
    out = tmp_path / "killed"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", str(ROWS)]
    command = recipe_process(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 400
        while not scored_rows(out) and command.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(command.pid, signal.SIGKILL)  # the first chunk is stored: the kill lands in the next
    finally:
        command.wait(timeout=60)
    said = command.stderr.read()[-2000:]
    assert command.returncode == -signal.SIGKILL, said
    kept = scored_rows(out)
    assert kept, f"no chunk stored in 400 s: {said}"
    assert CHUNK <= len(kept) < ROWS and len(kept) % CHUNK == 0  # whole chunks, each stored as it ended

    calls = Scoring(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert sorted(calls.scored) == sorted(scored_rows(out) - kept)  # only the rows not stored
    assert len(calls.scored) == ROWS - len(kept)

    clean = tmp_path / "clean"
    assert disagreement.main([str(DEMO), "--out", str(clean), "--no-phoenix", "--limit", str(ROWS)]) == 0
    pd.testing.assert_frame_equal(scores_table(out), scores_table(clean))
    resumed, fresh = (json.loads((folder / "summary.json").read_text()) for folder in (out, clean))
    # the rows scored in other batches than the clean run's may differ in a float32 unit of their last place
    # (the encoder pads each batch to its longest text): the means agree to that, everything else exactly
    means = resumed.pop("means"), fresh.pop("means")
    assert means[0] == pytest.approx(means[1], rel=1e-6)
    assert resumed == fresh


@pytest.mark.slow
def test_a_fixed_judge_model_name_asks_only_the_judge_and_loads_no_model(
    tmp_path, monkeypatch, make_stub_judge
):
    judge = make_stub_judge()
    monkeypatch.setenv("BERTSCORE_JUDGE_BASE_URL", judge.base_url)
    monkeypatch.setenv("BERTSCORE_JUDGE_API_KEY", "sk-stub")
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", "stub-jugde")  # mistyped: the server serves "stub-judge"
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "6"]
    assert disagreement.main(args) == disagreement.EXIT_JUDGE
    assert len(scored_rows(out)) == 6  # the offline scores are kept
    assert judge.log.bodies == []  # no row was sent to a server that does not serve the model

    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", "stub-judge")
    calls = Scoring(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert (calls.loads, calls.core_calls, calls.scored) == (0, 0, [])  # no BERTScore pass, no model
    assert calls.verdict_calls > 0 and len(judge.log.bodies) == 6  # the judge, once per row
    table = scores_table(out)
    assert table["faithfulness_label"].notna().all() and table["bertscore_f1"].notna().all()


@pytest.mark.slow
def test_thresholds_only_loads_no_model(tmp_path, monkeypatch):
    no_judge(monkeypatch)
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "6"]
    assert disagreement.main(args) == disagreement.EXIT_OK
    first = scores_table(out)

    calls = Scoring(monkeypatch)
    relabel = [*args, "--thresholds-only", "--similarity-threshold", "0.7"]
    assert disagreement.main(relabel) == disagreement.EXIT_OK
    assert (calls.loads, calls.core_calls, calls.scored) == (0, 0, [])
    table = scores_table(out)
    assert list(table["bertscore_f1"]) == list(first["bertscore_f1"])
    assert list(table["bertscore_label"]) == [
        "similar" if f >= 0.7 else "dissimilar" for f in table["bertscore_f1"]
    ]


@pytest.mark.slow
def test_off_a_terminal_a_plain_progress_line_is_written_and_quiet_silences_it(tmp_path, monkeypatch, capsys):
    from bertscore_plugins.evaluation import pipeline

    no_judge(monkeypatch)
    monkeypatch.setattr(pipeline, "CHUNK_ROWS", 4)
    monkeypatch.setenv("BERTSCORE_PROGRESS_SECONDS", "1e-9")  # a line at every chunk, not every 30 s
    said = {}
    for name, extra in (("plain", []), ("quiet", ["--quiet"])):
        args = [str(DEMO), "--out", str(tmp_path / name), "--no-phoenix", "--limit", "12", *extra]
        assert disagreement.main(args) == disagreement.EXIT_OK  # stderr is captured: no terminal
        said[name] = capsys.readouterr().err.splitlines()
    lines = [line for line in said["plain"] if PROGRESS_LINE.match(line)]
    assert len(lines) == 3, said["plain"]  # after each chunk of 4, then the end line
    assert {PROGRESS_LINE.match(line).group(1) for line in lines} == {"12"}
    assert [line for line in said["plain"] if re.match(r"^scoring: 12/12 rows in .+$", line)]
    assert not [line for line in said["quiet"] if line.startswith("scoring:")]

"""Comparing two systems against the same references: API, `bertscore-plugins compare`, the regression recipe."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bertscore_plugins import ScoreConfig, get_scorer
from bertscore_plugins.analysis.comparison import SystemComparison, compare_systems, format_comparison
from bertscore_plugins.cli.main import main
from bertscore_plugins.core.reference_cache import CacheFolderWarning
from bertscore_plugins.errors import InputError
from tests.support.full_disk import full_file_system

REFERENCES = [
    "The patient was discharged from the hospital on Tuesday.",
    "The company reported a profit of 5 million dollars last year.",
    "A man is playing a guitar on stage.",
    "The meeting has been postponed until next week.",
    "Heavy snow closed the mountain roads for three days.",
    "The museum will reopen to visitors in the spring.",
    "Two children are building a sandcastle on the beach.",
    "The council approved the new budget after a long debate.",
]
# system A: weak outputs; system B: good paraphrases, except row 2 where B got worse
SYSTEM_A = [
    "Hospital patient Tuesday.",
    "Company money year.",
    "A man is playing a guitar on stage.",
    "Meeting week.",
    "Snow roads.",
    "Museum spring.",
    "Children beach.",
    "Council budget.",
]
SYSTEM_B = [
    "On Tuesday the patient was sent home from the hospital.",
    "Last year the firm announced 5 million dollars in profit.",
    "A woman is singing on the stage.",
    "The meeting was pushed back to next week.",
    "For three days heavy snow shut the mountain roads.",
    "The museum reopens to visitors in spring.",
    "Two kids build a sandcastle at the beach.",
    "After a long debate the council passed the new budget.",
]


def write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_compare_systems_finds_the_better_system_and_the_rows_that_moved() -> None:
    result = compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, seed=3, top=8)
    assert isinstance(result, SystemComparison)
    scores = get_scorer(ScoreConfig())
    f1_a = scores.score(SYSTEM_A, REFERENCES).f1.astype(np.float64)
    f1_b = scores.score(SYSTEM_B, REFERENCES).f1.astype(np.float64)
    # the same numbers as scoring each system on its own
    np.testing.assert_array_equal(result.scores_a, f1_a)
    assert result.test.difference == pytest.approx(float(np.mean(f1_b - f1_a)))
    assert result.intervals_a["f1"].estimate == pytest.approx(float(f1_a.mean()))
    assert result.test.n == len(REFERENCES)
    assert result.better() == "b"
    assert result.test.p_value < 0.05
    assert result.test.low > 0
    assert result.verdict().startswith("B is better than A: f1 +")
    # every row is listed (top=8); row 2 got worse (exact copy -> another scene), with a minus sign
    moved = {row.row: row for row in result.moved}
    assert 2 in moved and moved[2].change < -0.1
    assert moved[2].score_a == pytest.approx(1.0, abs=1e-4)
    assert moved[2].candidate_b == "A woman is singing on the stage."
    assert moved[2].references == (REFERENCES[2],)
    assert [abs(row.change) for row in result.moved] == sorted(
        (abs(row.change) for row in result.moved), reverse=True
    )
    text = format_comparison(result, "v1.txt", "v2.txt")
    assert "A: v1.txt  f1 " in text and "B: v2.txt  f1 " in text and "row 2: -" in text
    assert json.loads(json.dumps(result.to_dict()))["better"] == "b"


def test_identical_systems_are_not_different_and_methods_agree() -> None:
    same = compare_systems(SYSTEM_B, SYSTEM_B, REFERENCES, method="randomization", resamples=500)
    assert same.test.difference == 0.0
    assert same.test.p_value == 1.0
    assert same.better() == "neither"
    assert same.verdict().startswith("no significant difference at the 5% level")
    by_precision = compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, metric="precision", method="randomization")
    assert by_precision.metric == "precision"
    assert by_precision.test.method == "randomization"


def test_a_verdict_needs_an_interval_that_excludes_zero_as_printed() -> None:
    from dataclasses import replace

    result = compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, seed=1)
    assert result.better() == "b"
    # p below alpha, but the interval's low end prints as +0.0000: no verdict a reader could not check
    touching = replace(result, test=replace(result.test, low=0.00004, p_value=0.01))
    assert touching.better() == "neither"
    verdict = touching.verdict()
    assert verdict.startswith("no significant difference at the 5% level: B - A = f1 +")
    assert "CI +0.0000 .. +" in verdict
    assert verdict.endswith("p is below 5% but the interval reaches zero, so neither is called better")
    assert json.loads(json.dumps(touching.to_dict()))["better"] == "neither"
    # just above the printed zero, the verdict stands; the same below zero for A
    assert replace(result, test=replace(result.test, low=0.00006, p_value=0.01)).better() == "b"
    below = replace(result.test, difference=-0.1, low=-0.2, high=-0.00004, p_value=0.01)
    assert replace(result, test=below).better() == "neither"
    assert replace(result, test=replace(below, high=-0.00006)).better() == "a"


def test_one_row_has_no_interval_and_identical_systems_list_no_moved_rows() -> None:
    one = compare_systems(SYSTEM_A[:1], SYSTEM_B[:1], REFERENCES[:1])
    text = format_comparison(one, "v1.txt", "v2.txt")
    assert "A: v1.txt  f1 " in text and "(one row: no interval)" in text
    assert "CI" not in text  # neither the systems' nor the difference's
    assert one.to_dict()["a"]["f1"]["low"] is None and one.to_dict()["b"]["f1"]["high"] is None
    same = compare_systems(SYSTEM_B, SYSTEM_B, REFERENCES)
    assert same.moved == ()
    text = format_comparison(same)
    assert "rows that moved" not in text
    assert "no row moved: every row's f1 is the same for A and B at 4 decimals" in text
    assert "moved" not in format_comparison(compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, top=0))


def test_only_rows_that_moved_are_listed_as_moved() -> None:
    changed = list(SYSTEM_A)
    changed[3] = SYSTEM_B[3]  # one row differs; the other seven are the same text in both systems
    result = compare_systems(SYSTEM_A, changed, REFERENCES, top=5)
    assert [row.row for row in result.moved] == [3]
    assert "row 3: +" in format_comparison(result)


def test_compare_systems_rejects_misaligned_input() -> None:
    with pytest.raises(InputError, match="candidates_b has 7 rows but references has 8"):
        compare_systems(SYSTEM_A, SYSTEM_B[:7], REFERENCES)
    with pytest.raises(ValueError, match="metric must be one of"):
        compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, metric="bleu")


def test_compare_command_prints_the_verdict_and_caches_references(tmp_path, capsys) -> None:
    a = write_lines(tmp_path / "a.txt", SYSTEM_A)
    b = write_lines(tmp_path / "b.txt", SYSTEM_B)
    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    cache = tmp_path / "cache"
    args = ["compare", "-a", a, "-b", b, "-r", refs, "--top", "2", "--cache-dir", str(cache)]
    assert main([*args, "-o", str(tmp_path / "out.json"), "--format", "json"]) == 0
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["better"] == "b" and len(saved["moved"]) == 2
    assert main(args) == 0
    output = capsys.readouterr().out
    assert "B is better than A: f1 +" in output
    assert "(paired bootstrap, 1000 resamples, n = 8)" in output
    assert "rows that moved most (f1, B - A):" in output
    assert output.count("    ref: ") == 2
    assert "layer:4" in output
    # one embedding file per unique reference, written once and reused for system B and later runs
    assert len(list(cache.rglob("*.safetensors"))) == len(set(REFERENCES))
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[:3] == output.splitlines()[:3]
    # the command's cache stays with the command: the shared scorer has none
    assert get_scorer(ScoreConfig()).reference_cache is None


def test_compare_command_with_two_reference_files_and_randomization(tmp_path, capsys) -> None:
    a = write_lines(tmp_path / "a.txt", SYSTEM_A)
    b = write_lines(tmp_path / "b.txt", SYSTEM_B)
    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    refs2 = write_lines(tmp_path / "refs2.txt", SYSTEM_B)
    assert main(["compare", "-a", a, "-b", b, "-r", refs, "-r", refs2, "--method", "randomization"]) == 0
    output = capsys.readouterr().out
    assert "(approximate randomization, 10000 resamples, n = 8)" in output
    assert "B is better than A" in output


def test_compare_command_reports_misaligned_files(tmp_path, capsys) -> None:
    a = write_lines(tmp_path / "a.txt", SYSTEM_A)
    b = write_lines(tmp_path / "b.txt", SYSTEM_B[:5])
    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    assert main(["compare", "-a", a, "-b", b, "-r", refs]) == 2
    assert f"{b} has 5 lines but {a} has 8" in capsys.readouterr().err


def test_regression_recipe_fails_on_a_significant_regression_and_reuses_the_cache(tmp_path, capsys) -> None:
    from recipes import regression

    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    good = write_lines(tmp_path / "good.txt", SYSTEM_B)
    bad = write_lines(tmp_path / "bad.txt", SYSTEM_A)
    cache = tmp_path / "cache"
    out = tmp_path / "report"
    common = ["--references", refs, "--cache-dir", str(cache), "--out", str(out), "--seed", "1"]

    # the new outputs are worse than the baseline: exit 1, with the report on disk
    assert regression.main(["--baseline", good, "--candidate", bad, *common]) == 1
    printed = capsys.readouterr().out
    assert "REGRESSION" in printed
    report = json.loads((out / "regression.json").read_text())
    assert report["comparison"]["better"] == "a"
    assert report["status"] == "regression"
    assert report["reference_cache"]["misses"] == len(set(REFERENCES))
    assert (out / "regression.md").read_text().startswith("# Regression check")

    # the improvement passes; the references come from the disk cache this time
    assert regression.main(["--baseline", bad, "--candidate", good, *common]) == 0
    report = json.loads((out / "regression.json").read_text())
    assert report["status"] == "improved"
    assert report["reference_cache"]["misses"] == 0
    assert report["reference_cache"]["hits"] >= len(set(REFERENCES))


def test_regression_recipe_reads_rows_as_the_cli_does(tmp_path, capsys) -> None:
    """A line separator inside a row (U+2028, form feed) stays in that row: no shifted or extra rows;
    a file that is not UTF-8 is named with its line, exit 2, no traceback."""
    from recipes import regression

    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    base = write_lines(tmp_path / "base.txt", SYSTEM_B)
    inner = write_lines(tmp_path / "inner.txt", [SYSTEM_B[0] + "\u2028(aside)\f", *SYSTEM_B[1:]])
    common = ["--references", refs, "--out", str(tmp_path / "report"), "--cache-dir", str(tmp_path / "cache")]
    common += ["--resamples", "200"]
    assert regression.main(["--baseline", base, "--candidate", inner, *common]) in (0, 1)
    report = json.loads((tmp_path / "report" / "regression.json").read_text())
    assert report["comparison"]["test"]["n"] == len(SYSTEM_B)
    capsys.readouterr()

    damaged = tmp_path / "damaged.txt"
    damaged.write_bytes(b"fine\n" * 3 + b"\xff\xfe broken\n" + b"fine\n" * 4)
    assert regression.main(["--baseline", base, "--candidate", str(damaged), *common]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and f"{damaged}:4: is not valid UTF-8" in error
    assert "Traceback" not in error


def test_a_full_cache_disk_neither_fails_compare_nor_reads_as_a_regression(tmp_path, capsys) -> None:
    """The reference cache falls back to memory with one warning: compare succeeds with the numbers of an
    uncached run, and the regression gate gives its verdict (here: improved, exit 0), never exit 1."""
    from recipes import regression

    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    good = write_lines(tmp_path / "good.txt", SYSTEM_B)
    bad = write_lines(tmp_path / "bad.txt", SYSTEM_A)
    expected = compare_systems(SYSTEM_A, SYSTEM_B, REFERENCES, seed=1).to_dict()
    with full_file_system(tmp_path / "full") as disk:
        arguments = ["compare", "-a", bad, "-b", good, "-r", refs, "--cache-dir", str(disk), "--seed", "1"]
        assert main([*arguments, "-o", str(tmp_path / "comparison.json"), "--format", "json"]) == 0
        # the command line prints each warning as one line
        warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
        assert len(warned) == 1 and "cannot be written (No space left on device)" in warned[0]
        test = json.loads((tmp_path / "comparison.json").read_text())["test"]
        for key in ("mean_a", "mean_b", "difference", "low", "high", "p_value"):  # float32 batch noise only
            assert test[key] == pytest.approx(expected["test"][key], abs=1e-6)

        common = ["--references", refs, "--cache-dir", str(disk / "cache"), "--seed", "1"]
        with pytest.warns(CacheFolderWarning):
            assert (
                regression.main(
                    ["--baseline", bad, "--candidate", good, *common, "--out", str(tmp_path / "out")]
                )
                == 0
            )
        assert json.loads((tmp_path / "out" / "regression.json").read_text())["status"] == "improved"
        capsys.readouterr()

        # the report itself on the full disk: one line naming the folder, exit 2 (not 1, "regression")
        with pytest.warns(CacheFolderWarning):
            code = regression.main(
                ["--baseline", good, "--candidate", bad, *common, "--out", str(disk / "out")]
            )
        assert code == 2
        error = capsys.readouterr().err
        assert error.startswith(f"error: the report cannot be written into {disk / 'out'}: ")
        assert error.endswith("(No space left on device)\n") and error.count("\n") == 1
        assert sorted(p.name for p in disk.rglob("*") if p.is_file()) == ["filler"]


@pytest.mark.slow
def test_a_bug_in_the_regression_recipe_exits_3_with_its_traceback_never_1(tmp_path, fresh_python) -> None:
    """A CI gate must not read our own bug as "significant regression": exit 3 and the traceback."""
    import subprocess

    refs = write_lines(tmp_path / "refs.txt", REFERENCES)
    good = write_lines(tmp_path / "good.txt", SYSTEM_B)
    bad = write_lines(tmp_path / "bad.txt", SYSTEM_A)
    program = (
        "import runpy, sys\n"
        "import bertscore_plugins.analysis.comparison as comparison\n"
        "def broken(*args, **kwargs):\n"
        "    raise ZeroDivisionError('a bug of ours')\n"
        "comparison.compare_systems = broken\n"
        "sys.argv = ['regression', *sys.argv[1:]]\n"
        "runpy.run_module('recipes.regression', run_name='__main__')\n"
    )
    done = subprocess.run(
        [
            *fresh_python.argv,
            "-c",
            program,
            "--baseline",
            good,
            "--candidate",
            bad,
            "--references",
            refs,
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=fresh_python.env(),
        timeout=300,
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" in done.stderr and "ZeroDivisionError: a bug of ours" in done.stderr

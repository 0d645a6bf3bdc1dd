"""The command line: one row per line whatever the line holds, and every user mistake is one stderr line,
exit 2, no traceback (--debug shows it), nothing on stdout first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bertscore_plugins import get_scorer
from bertscore_plugins.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def _files(tmp_path: Path, candidates: bytes | str, references: bytes | str) -> tuple[str, str]:
    c, r = tmp_path / "c.txt", tmp_path / "r.txt"
    for path, data in ((c, candidates), (r, references)):
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(c), str(r)


def _rows(output: str) -> list[list[str]]:
    return [line.split("\t") for line in output.splitlines()[1:]]


# ------------------------------------------------------------------------------ rows = lines


def test_separators_inside_a_line_stay_in_its_row(tmp_path, capsys):
    lines = ["a cat\x0csat", "the dog\x85barked", "rain\u2028fell\u2029today", "plain"]
    c, r = _files(tmp_path, "\n".join(lines) + "\n", "\r\n".join(lines))
    assert main(["score", "-c", c, "-r", r]) == 0
    captured = capsys.readouterr()
    rows = _rows(captured.out)
    assert [row[0] for row in rows] == ["0", "1", "2", "3"]
    assert all(float(row[3]) == pytest.approx(1.0, abs=1e-5) for row in rows)  # each line against itself
    assert json.loads(captured.err)["rows"] == 4


def test_a_trailing_blank_line_is_a_row_only_when_it_is_a_line(tmp_path, capsys):
    c, r = _files(tmp_path, "a\nb\n", "a\nb")
    assert main(["score", "-c", c, "-r", r]) == 0
    assert len(_rows(capsys.readouterr().out)) == 2
    c, r = _files(tmp_path, "a\nb\n\n", "a\nb\n")
    assert main(["score", "-c", c, "-r", r]) == 2
    assert capsys.readouterr().err == f"error: {r} has 2 lines but {c} has 3\n"


LINE = st.text(
    st.characters(codec="utf-8", exclude_characters="\n\r", exclude_categories=("Cs",)), max_size=6
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(LINE, min_size=1, max_size=5))
def test_row_count_equals_line_count_for_any_content(tmp_path, capsys, lines):
    get_scorer()  # loaded once for every example
    c, r = _files(tmp_path, "".join(line + "\n" for line in lines), "".join(line + "\n" for line in lines))
    assert main(["score", "-c", c, "-r", r, "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [record["row"] for record in records] == list(range(len(lines)))


# ------------------------------------------------------------------------------ user mistakes


def _one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in captured.err
    return lines[0]


def test_missing_candidates_file(tmp_path, capsys):
    _, r = _files(tmp_path, "a\n", "a\n")
    missing = tmp_path / "none.txt"
    error = _one_line_error(capsys, ["score", "-c", str(missing), "-r", r])
    assert error == f"error: -c/--candidates file {missing} does not exist"


def test_a_folder_given_as_references(tmp_path, capsys):
    c, _ = _files(tmp_path, "a\n", "a\n")
    error = _one_line_error(capsys, ["score", "-c", c, "-r", str(tmp_path)])
    assert error == f"error: -r/--references file {tmp_path} is a folder, not a file"


def test_invalid_utf8_names_file_and_line(tmp_path, capsys):
    c, r = _files(tmp_path, "a\nb\n", b"a\nb\xc3\x28\n")
    error = _one_line_error(capsys, ["score", "-c", c, "-r", r])
    assert error == f"error: {r}:2: is not valid UTF-8 (byte 0xc3 at offset 3)"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--layer", "99"],
            "error: --layer: layer must be between 0 and 6 for model 'all-MiniLM-L6-v2', got 99",
        ),
        (["--layer", "-1"], "error: --layer: layer must be a non-negative integer or None, got -1"),
        (
            ["--batch-tokens", "0"],
            "error: --batch-tokens: batch_tokens must be a positive integer or None, got 0",
        ),
        (["--max-length", "2"], "error: --max-length: max_length must be an integer >= 3 or None, got 2"),
        (
            ["--max-length", "4096"],
            (
                "error: --max-length: max_length=4096 is beyond model 'all-MiniLM-L6-v2''s 512 "
                "position embeddings; use max_length <= 512 (or None for the model's limit)"
            ),
        ),
        (["--device", "cuda:7"], None),
        (
            ["--device", "tpu"],
            ("error: --device: device 'tpu' is not a valid torch device (e.g. 'cpu', 'cuda', 'cuda:1')"),
        ),
        (
            ["--model", "/nonexistent"],
            (
                "error: model folder '/nonexistent' does not exist (looked in /nonexistent); "
                "it is not taken for a hub id because it looks like a local path"
            ),
        ),
        (
            ["--layer", "x"],
            (
                "error: bertscore-plugins score: argument -l/--layer: invalid int value: 'x' "
                "(see bertscore-plugins score --help)"
            ),
        ),
    ],
)
def test_bad_settings_are_one_line_naming_the_flag(tmp_path, capsys, flags, message):
    c, r = _files(tmp_path, "a\n", "a\n")
    error = _one_line_error(capsys, ["score", "-c", c, "-r", r, *flags])
    if message is None:  # the CUDA wording depends on the machine; the flag and the value are named
        assert error.startswith("error: --device: device 'cuda:7' ")
    else:
        assert error == message


@pytest.mark.parametrize("flag", ["-o", "--summary"])
def test_output_into_a_missing_folder_fails_before_anything_is_printed(tmp_path, capsys, flag):
    c, r = _files(tmp_path, "a\n", "a\n")
    target = tmp_path / "missing" / "out.txt"
    name = "-o/--output" if flag == "-o" else "--summary"
    error = _one_line_error(capsys, ["score", "-c", c, "-r", r, flag, str(target)])
    assert error == f"error: {name} {target}: folder {target.parent} does not exist"
    assert not target.parent.exists()


def test_a_bad_baseline_file_is_one_line_naming_file_and_line(tmp_path, capsys):
    c, r = _files(tmp_path, "a\n", "a\n")
    baseline = tmp_path / "b.tsv"
    baseline.write_text("LAYER,P,R,F\n4,0.3,0.3,nan\n")
    error = _one_line_error(
        capsys, ["score", "-c", c, "-r", r, "--rescale", "--baseline-path", str(baseline)]
    )
    assert error == f"error: {baseline}:2: F 'nan' is not a finite number in [-1, 1)"


def test_outputs_are_written_whole(tmp_path, capsys):
    c, r = _files(tmp_path, "a cat\nthe dog\n", "a cat\na dog\n")
    out, summary = tmp_path / "rows.tsv", tmp_path / "summary.json"
    assert main(["score", "-c", c, "-r", r, "-o", str(out), "--summary", str(summary)]) == 0
    assert capsys.readouterr().out == ""
    assert len(_rows(out.read_text())) == 2 and json.loads(summary.read_text())["rows"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "r.txt", "rows.tsv", "summary.json"]


def test_compare_and_baseline_commands_share_the_reader_and_the_errors(tmp_path, capsys):
    a, r = _files(tmp_path, "a\x0cb\nc\n", "a\x0cb\nc\n")
    error = _one_line_error(capsys, ["compare", "-a", a, "-b", str(tmp_path / "none.txt"), "-r", r])
    assert error == f"error: -b/--system-b file {tmp_path / 'none.txt'} does not exist"
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"one\n\xff two\n")
    error = _one_line_error(capsys, ["baseline", "--corpus", str(corpus), "-o", str(tmp_path / "b.tsv")])
    assert error == f"error: {corpus}:2: is not valid UTF-8 (byte 0xff at offset 4)"
    error = _one_line_error(
        capsys, ["baseline", "--corpus", str(corpus), "-o", str(tmp_path / "no" / "b.tsv")]
    )
    assert error == f"error: -o/--output {tmp_path / 'no' / 'b.tsv'}: folder {tmp_path / 'no'} does not exist"


def test_an_unknown_flag_is_one_line(capsys):
    error = _one_line_error(capsys, ["score", "--frobnicate"])
    assert error.startswith("error: bertscore-plugins score: the following arguments are required: ")


def test_phoenix_evaluate_names_a_foreign_store_file_a_bad_setting_and_a_bad_judge_variable(
    tmp_path, capsys, monkeypatch
):
    store = tmp_path / "results.csv"
    store.write_text("span_id,score\n")
    evaluate = ["phoenix", "evaluate", "--project", "p", "--base-url", "http://127.0.0.1:9", "--no-judge"]
    error = _one_line_error(capsys, [*evaluate, "--store", str(store)])
    assert error == f"error: result store {store}: cannot open it (file is not a database)"
    error = _one_line_error(capsys, [*evaluate, "--store", str(tmp_path / "s.sqlite"), "--idf"])
    assert error.startswith("error: --idf: idf=True would fit idf on each page of spans")
    error = _one_line_error(capsys, [*evaluate, "--layer", "99"])
    assert error.startswith("error: --layer: layer must be between 0 and 6")
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", "m")
    monkeypatch.setenv("BERTSCORE_JUDGE_TIMEOUT", "-1")
    error = _one_line_error(capsys, evaluate[:-1])
    assert error == (
        "error: BERTSCORE_JUDGE_TIMEOUT must be a number of seconds from 0.01 to 86400 (one request, all of it), "
        "got '-1'"
    )
    monkeypatch.setenv("BERTSCORE_JUDGE_STYLE", "phoenix")  # Phoenix's judge reads the rate too
    monkeypatch.setenv("BERTSCORE_JUDGE_TIMEOUT", "30")
    monkeypatch.setenv("BERTSCORE_JUDGE_RATE", "-1")
    error = _one_line_error(capsys, evaluate[:-1])
    assert error.startswith("error: BERTSCORE_JUDGE_RATE must be a positive, finite number")


def test_phoenix_evaluate_without_a_server_says_where_it_looked(tmp_path, capsys):
    from bertscore_plugins.tools.phoenix_ports import free_port

    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    argv = ["phoenix", "evaluate", "--project", "p", "--base-url", url, "--no-judge"]
    assert main([*argv, "--store", str(tmp_path / "store.sqlite")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.splitlines() == [
        f"error: Phoenix at {url} failed the first request (ConnectError: [Errno 111] "
        "Connection refused); is it running there? (--base-url, PHOENIX_COLLECTOR_ENDPOINT)"
    ]


# ------------------------------------------------------------------------------ as a real process


def _run(*argv: str, **env_changes: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), **env_changes}
    return subprocess.run(
        [sys.executable, "-m", "bertscore_plugins.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=False,
    )


@pytest.mark.slow
def test_a_mistake_in_a_real_process_is_exit_2_and_one_line_and_debug_shows_the_traceback(tmp_path):
    missing = tmp_path / "none.txt"
    result = _run("score", "-c", str(missing), "-r", str(missing))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: -c/--candidates file {missing} does not exist\n"
    debug = _run("score", "-c", str(missing), "-r", str(missing), "--debug")
    assert debug.returncode == 1 and debug.stdout == ""
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.rstrip().endswith(f"MissingFileError: -c/--candidates file {missing} does not exist")


@pytest.mark.slow
def test_cuda_on_a_machine_without_cuda_is_one_line(tmp_path):
    # CUDA hidden from the process: the same answer on a CPU machine and on a GPU machine
    c, r = _files(tmp_path, "a\n", "a\n")
    result = _run("score", "-c", c, "-r", r, "--device", "cuda", CUDA_VISIBLE_DEVICES="")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1:] == [
        "error: --device: device 'cuda' requested but CUDA is not available on this machine"
    ]
    assert "Traceback" not in result.stderr

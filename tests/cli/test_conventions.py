"""One set of conventions for every command (commands/conventions.py), checked command by command from
one table, and the exit statuses: a user error is one line and 2, a bug of ours is "unexpected error"
and 1, Ctrl-C is one line and 130."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bertscore_plugins.cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[2]
CANDIDATES = ["The cat sat on the mat.", "The meeting moved to Tuesday.", "Snow closed the roads."]
REFERENCES = ["A cat sat on a mat.", "The meeting is now on Tuesday.", "Heavy snow shut the roads."]
CORPUS = [f"Sentence number {n} talks about topic {n % 7} in its own words." for n in range(40)]


@dataclass(frozen=True)
class Command:
    """One command, its input flags, and what its result looks like."""

    name: str
    inputs: tuple[str, ...]
    formats: tuple[str, ...]
    summary: bool  # takes --summary

    def argv(self, files: dict[str, str], *extra: str) -> list[str]:
        return [self.name, *(part.format(**files) for part in self.inputs), *extra]


COMMANDS = [
    Command("score", ("-c", "{c}", "-r", "{r}"), ("tsv", "csv", "jsonl", "json"), summary=True),
    Command(
        "faithfulness",
        ("-c", "{c}", "-s", "{r}"),
        ("tsv", "csv", "jsonl", "json"),
        summary=True,
    ),
    Command(
        "compare",
        ("-a", "{c}", "-b", "{r}", "-r", "{r}"),
        ("text", "json"),
        summary=False,
    ),
    Command(
        "baseline",
        ("--corpus", "{corpus}", "--pairs", "10", "--layers", "4"),
        ("csv", "tsv", "jsonl", "json"),
        summary=True,
    ),
    Command(
        "sanity",
        (),
        ("table", "tsv", "csv", "jsonl", "json"),
        summary=False,
    ),
]
BY_NAME = {command.name: command for command in COMMANDS}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"c": CANDIDATES, "r": REFERENCES, "corpus": CORPUS}
    written = {}
    for name, lines in paths.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written[name] = str(path)
    written["out"] = str(tmp_path / "result.out")
    return written


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _parses_as(form: str, text: str) -> bool:
    if form == "json":
        return isinstance(json.loads(text), dict)
    if form == "jsonl":
        return all(isinstance(json.loads(line), dict) for line in text.splitlines())
    if form in ("tsv", "csv"):
        rows = csv.reader(io.StringIO(text), delimiter="\t" if form == "tsv" else ",")
        widths = {len(row) for row in rows}
        return len(widths) == 1 and widths != {1}
    return bool(text.strip())


# ------------------------------------------------------------------------------ output and format


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.name)
def test_the_result_goes_to_stdout_by_default_and_to_the_output_file_with_o(command, files, capsys, tmp_path):
    code, out, _ = _run(capsys, command.argv(files))
    assert code == 0 and out.strip()
    target = tmp_path / "written.txt"
    code, out_with_file, _ = _run(capsys, command.argv(files, "-o", str(target)))
    assert code == 0 and out_with_file == ""
    assert target.read_text(encoding="utf-8") == out
    code, out_with_dash, _ = _run(capsys, command.argv(files, "--output", "-"))
    assert (code, out_with_dash) == (0, out)


@pytest.mark.parametrize(
    ("command", "form"),
    [(command, form) for command in COMMANDS for form in command.formats],
    ids=lambda value: value.name if isinstance(value, Command) else value,
)
def test_every_format_of_every_command_is_what_it_says(command, form, files, capsys):
    code, out, _ = _run(capsys, command.argv(files, "--format", form))
    assert code == 0 and _parses_as(form, out)


def test_json_is_one_object_with_the_summary_and_every_row(files, capsys):
    code, out, _ = _run(capsys, ["score", "-c", files["c"], "-r", files["r"], "--format", "json"])
    result = json.loads(out)
    assert code == 0 and [row["row"] for row in result["rows"]] == [0, 1, 2]
    assert list(result)[-1] == "rows" and "signature" in result and 0 < result["f1"] <= 1


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.summary], ids=lambda command: command.name)
def test_summary_dash_is_json_on_stdout(command, files, capsys, tmp_path):
    code, out, _ = _run(capsys, command.argv(files, "-o", str(tmp_path / "rows"), "--summary", "-"))
    assert code == 0 and "signature" in json.loads(out)


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.summary], ids=lambda command: command.name)
def test_two_results_on_stdout_are_refused(command, files, capsys):
    code, out, err = _run(capsys, command.argv(files, "--summary", "-"))
    assert (code, out) == (2, "")
    assert err == (
        "error: --summary - and -o/--output - both write to one stream (standard output, a pipe or a "
        "terminal), where they would mix; give one of them a file\n"
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.name)
@pytest.mark.parametrize("flag", ["-o", "--format"])
def test_a_repeated_single_value_flag_is_an_error_naming_it(command, flag, files, capsys, tmp_path):
    value = {"-o": str(tmp_path / "x"), "--format": command.formats[0]}[flag]
    code, out, err = _run(capsys, command.argv(files, flag, value, flag, value))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: bertscore-plugins {command.name}: {flag} given twice; give it once")


@pytest.mark.parametrize(
    ("argv", "spelling"),
    [
        (["faithfulness", "-c", "a", "-s", "b"], "--outputs"),
        (["compare", "-a", "a", "-b", "b", "-r", "r"], "--json"),
        (["sanity"], "--json"),
        (["phoenix", "evaluate", "--project", "p"], "--json"),
    ],
)
def test_no_spelling_of_a_release_that_never_happened_is_accepted(argv, spelling):
    """The package was never released: a flag's one spelling is its documented one (``--out`` is no
    longer a flag of its own: argparse reads it as the start of ``--output``)."""
    _, unknown = build_parser().parse_known_args([*argv, spelling])
    assert unknown == [spelling]


def test_faithfulness_keeps_its_input_safe_from_the_new_meaning_of_o(files, capsys):
    # the old "-o OUTPUTS" now names the output: without -c the command stops before writing anything
    before = Path(files["c"]).read_text(encoding="utf-8")
    code, out, err = _run(capsys, ["faithfulness", "-o", files["c"], "-s", files["r"]])
    assert (code, out) == (2, "") and "-c/--candidates" in err
    assert Path(files["c"]).read_text(encoding="utf-8") == before


# ------------------------------------------------------------------------------ phoenix evaluate (parsing)


def test_phoenix_evaluate_takes_the_same_output_flags(capsys):
    parser = build_parser()
    args = parser.parse_args(
        ["phoenix", "evaluate", "--project", "p", "-o", "report.json", "--format", "json"]
    )
    assert (args.output, args.format) == ("report.json", "json")
    code, _, err = _run(capsys, ["phoenix", "evaluate", "--project", "p", "-o", "a", "-o", "b"])
    assert code == 2 and "-o given twice" in err


# ------------------------------------------------------------------------------ flag values, named


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["baseline", "--corpus", "x", "--layers", "a"], "argument --layers: expected comma-separated layer"),
        (["baseline", "--corpus", "x", "--pairs", "zero"], "argument --pairs: expected a whole number"),
        (["baseline", "--corpus", "x", "--pairs", "0"], "argument --pairs: must be at least 1"),
        (["phoenix", "evaluate", "--project", "p", "--interval", "1e300"], "argument --interval: must be"),
        (["phoenix", "evaluate", "--project", "p", "--interval", "nan"], "argument --interval: must be"),
        (["phoenix", "evaluate", "--project", "p", "--since", "1000000d"], "--since '1000000d' reaches back"),
        (
            ["score", "-c", "x", "-r", "x", "--quantize", "int8", "--dtype", "float16"],
            "--quantize: quantize=",
        ),
        (["score", "-c", "x", "-r", "x", "--layer", "3", "--num_layers", "4"], "--num_layers given twice"),
        (
            ["compare", "-a", "x", "-b", "x", "-r", "x", "--resamples", "0"],
            "argument --resamples: must be at least 1",
        ),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--resamples", "-5"], "argument --resamples: must be"),
        (
            ["compare", "-a", "x", "-b", "x", "-r", "x", "--resamples", "1.5"],
            "argument --resamples: expected a",
        ),
        (
            ["compare", "-a", "x", "-b", "x", "-r", "x", "--confidence", "nan"],
            "argument --confidence: must be",
        ),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--confidence", "1"], "argument --confidence: must be"),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--alpha", "0"], "argument --alpha: must be"),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--top", "-1"], "argument --top: must be at least 0"),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--seed", "-1"], "argument --seed: must be at least 0"),
    ],
)
def test_every_flag_value_is_checked_with_the_flag_named(argv, message, capsys):
    code, out, err = _run(capsys, argv)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and message in err


def test_a_misspelt_preset_is_refused_before_any_network_call(files, capsys, monkeypatch):
    import transformers

    def no_network(*args, **kwargs):
        raise AssertionError("the hub was asked")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", no_network)
    code, out, err = _run(capsys, ["score", "-c", files["c"], "-r", files["r"], "--model", "qualty"])
    assert (code, out) == (2, "")
    assert "did you mean 'quality'?" in err and len(err.splitlines()) == 1


def test_compare_gives_no_verdict_and_no_p_value_on_one_row(tmp_path, capsys):
    """On one row every resample is that row, so a p-value would read 0.0000: neither is reported."""
    a, b, r = (tmp_path / name for name in ("a.txt", "b.txt", "r.txt"))
    a.write_text("Snow.\n")
    b.write_text("Heavy snow shut the roads.\n")
    r.write_text("Heavy snow closed the mountain roads.\n")
    code, out, _ = _run(capsys, ["compare", "-a", str(a), "-b", str(b), "-r", str(r), "--format", "json"])
    result = json.loads(out)
    assert code == 0 and result["better"] == "neither"
    assert result["too_few_rows"].startswith("too few rows to call a difference significant")
    assert (result["test"]["p_value"], result["test"]["low"], result["test"]["high"]) == (None, None, None)
    code, out, _ = _run(capsys, ["compare", "-a", str(a), "-b", str(b), "-r", str(r)])
    verdict = next(line for line in out.splitlines() if line.startswith("no verdict"))
    assert code == 0 and "p = " not in verdict and "no p-value" in verdict


@pytest.mark.parametrize(
    ("argv", "typo", "meant"),
    [
        (["score", "-c", "x", "-r", "x", "--formt", "csv"], "--formt", "--format"),
        (["score", "-c", "x", "-r", "x", "--laer", "3"], "--laer", "--layer"),
        (["compare", "-a", "x", "-b", "x", "-r", "x", "--resampels", "9"], "--resampels", "--resamples"),
        (["baseline", "--corpus", "x", "--layrs", "1"], "--layrs", "--layers"),
        (["sanity", "--formt", "json"], "--formt", "--format"),
        (["faithfulness", "-c", "x", "-s", "x", "--outptu", "o"], "--outptu", "--output"),
        (["phoenix", "evaluate", "--project", "p", "--formt", "json"], "--formt", "--format"),
    ],
)
def test_every_mistyped_flag_of_every_command_gets_did_you_mean(argv, typo, meant, capsys):
    code, out, err = _run(capsys, argv)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and f"{typo} (did you mean {meant}?)" in err


@pytest.mark.parametrize(
    ("argv", "second", "first"),
    [
        (["score", "-c", "x", "-r", "x", "--progress", "--no-progress"], "--no-progress", "--progress"),
        (["score", "-r", "x", "--candidates", "x", "--cand", "y"], "--cand", "--candidates"),
        (
            ["score", "-c", "x", "-r", "x", "--rescale", "--rescale_with_baseline"],
            "--rescale_with_baseline",
            "--rescale",
        ),
    ],
)
def test_a_single_value_flag_given_by_two_spellings_is_one_error_naming_both(argv, second, first, capsys):
    code, out, err = _run(capsys, argv)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and f"{second} given twice (also as {first})" in err


def test_an_underscore_twin_of_a_given_flag_is_refused_naming_both(capsys):
    code, out, err = _run(
        capsys, ["score", "-c", "x", "-r", "x", "--batch-tokens", "100", "--batch_tokens", "5"]
    )
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and "--batch_tokens; did you mean --batch-tokens?" in err


# ------------------------------------------------------------------------------ exit statuses


def test_a_bug_of_ours_is_exit_1_with_one_unexpected_error_line(files, capsys, monkeypatch):
    from bertscore_plugins.cli import score

    def broken(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(score, "read_inputs", broken)
    code, out, err = _run(capsys, ["score", "-c", files["c"], "-r", files["r"]])
    assert (code, out) == (1, "")
    assert err == (
        "unexpected error: ZeroDivisionError: division by zero (run with --debug; please report)\n"
    )
    with pytest.raises(ZeroDivisionError):
        main(["score", "-c", files["c"], "-r", files["r"], "--debug"])


def test_a_bare_value_error_is_a_bug_not_the_users_mistake(files, capsys, monkeypatch):
    from bertscore_plugins.cli import score

    def broken(*args, **kwargs):
        raise ValueError("an internal invariant broke")

    monkeypatch.setattr(score, "read_inputs", broken)
    code, _, err = _run(capsys, ["score", "-c", files["c"], "-r", files["r"]])
    assert code == 1 and err.startswith("unexpected error: ValueError: an internal invariant broke")


def test_a_users_mistake_is_exit_2_with_one_line(files, capsys):
    code, out, err = _run(capsys, ["score", "-c", files["c"] + ".missing", "-r", files["r"]])
    assert (code, out) == (2, "")
    assert err == f"error: -c/--candidates file {files['c']}.missing does not exist\n"


def test_ctrl_c_is_exit_130_with_one_line(files, capsys, monkeypatch):
    from bertscore_plugins.cli import score

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(score, "read_inputs", interrupted)
    assert _run(capsys, ["score", "-c", files["c"], "-r", files["r"]]) == (130, "", "interrupted\n")


@pytest.mark.slow
def test_warnings_are_one_line_each_and_the_summary_file_is_json(files, tmp_path, fresh_python):
    long = tmp_path / "long.txt"
    long.write_text(" ".join(["word"] * 80) + "\nshort\n", encoding="utf-8")
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [
            *fresh_python.argv,
            "-m",
            "bertscore_plugins.cli",
            "score",
            "-c",
            str(long),
            "-r",
            str(long),
            "--max-length",
            "16",
            "--summary",
            str(summary),
        ],
        capture_output=True,
        text=True,
        env=fresh_python.env(),
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("warning: ") for line in lines)
    assert not any(".py:" in line for line in lines)  # no file:line or source line of the warning
    assert json.loads(summary.read_text())["rows"] == 2


def test_a_reader_that_closes_stdout_early_ends_the_command_quietly(files, capsys, monkeypatch):
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["score", "-c", files["c"], "-r", files["r"]]) == 141
    assert capsys.readouterr().err == ""


def test_a_reader_that_leaves_after_the_first_row_ends_the_command_with_141(files, capsys, monkeypatch):
    """`score ... | head -1`: the rows go out a line at a time, so the reader leaving is seen (a single
    large write would have gone into the pipe's buffer whole and the command would end 0)."""

    class HeadOne:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def write(self, text: str) -> int:
            if self.lines:
                raise BrokenPipeError(32, "Broken pipe")
            self.lines.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    reader = HeadOne()
    monkeypatch.setattr(sys, "stdout", reader)
    assert main(["score", "-c", files["c"], "-r", files["r"]]) == 141
    assert reader.lines == ["row\tprecision\trecall\tf1\n"]


def test_a_model_config_that_is_not_json_is_one_error_naming_file_and_line(files, tmp_path, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"x")
    (folder / "config.json").write_text('{"model_type": "bert",\n  oops\n}')
    code, out, err = _run(capsys, ["score", "-c", files["c"], "-r", files["r"], "--model", str(folder)])
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: {folder / 'config.json'}:2: the model's config.json is not JSON "
        "(Expecting property name enclosed in double quotes)"
    ]


def test_a_misspelt_model_is_refused_before_torch_is_loaded(files):
    """The refusal comes from the flags alone: torch and transformers (about 2 s) are never imported."""
    program = (
        "import sys\n"
        "from bertscore_plugins.cli.main import main\n"
        f"code = main(['score', '-c', {files['c']!r}, '-r', {files['r']!r}, '--model', 'qualty'])\n"
        "print(code, 'torch' in sys.modules, 'transformers' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert result.stdout.split() == ["2", "False", "False"]
    assert "did you mean 'quality'?" in result.stderr

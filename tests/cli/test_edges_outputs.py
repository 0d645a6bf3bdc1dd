"""Writing an output never destroys what its path points at: a device or FIFO is written in place, a
symlink through to its target, a file keeps its mode (a new one gets the umask's); an output that is an
input, or two outputs that are one file, are refused before any work; so is a folder that cannot take
the file, named by its flag, never by a temporary file."""

from __future__ import annotations

import importlib
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path

import pytest

from bertscore_plugins.cli.main import main
from bertscore_plugins.files import OutputPathError, UnwritableOutputError, check_outputs, write_output
from tests.support.cli import one_error_line

REPO = Path(__file__).resolve().parents[2]
CANDIDATES, REFERENCES = "a cat\nthe dog\n", "a cat\na dog\n"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    c, r = tmp_path / "c.txt", tmp_path / "r.txt"
    c.write_text(CANDIDATES)
    r.write_text(REFERENCES)
    return c, r


def _rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()[1:]]


# ------------------------------------------------------------------------------ what the path points at


def test_dev_null_stays_a_device(files, capsys):
    c, r = files
    before = os.stat("/dev/null")
    assert main(["score", "-c", str(c), "-r", str(r), "-o", "/dev/null", "--summary", "/dev/null"]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_rdev, after.st_ino) == (before.st_rdev, before.st_ino)
    assert capsys.readouterr().out == ""


def test_a_fifo_gets_the_rows_in_place(files, tmp_path, capsys):
    c, r = files
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(fifo)]) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    rows = _rows(received[0].decode())
    assert [row[0] for row in rows] == ["0", "1"] and float(rows[0][3]) == pytest.approx(
        1.0, abs=1e-6
    )  # the float32 exactly


def test_a_symlink_is_written_through_to_its_target(files, tmp_path, capsys):
    c, r = files
    target = tmp_path / "target.tsv"
    target.write_text("stale scores\n")
    link = tmp_path / "latest.tsv"
    link.symlink_to(target.name)
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert "stale" not in target.read_text() and len(_rows(target.read_text())) == 2


def test_a_dangling_symlink_creates_its_target(files, tmp_path, capsys):
    c, r = files
    link = tmp_path / "latest.tsv"
    link.symlink_to("made.tsv")
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(link)]) == 0
    assert link.is_symlink() and len(_rows((tmp_path / "made.tsv").read_text())) == 2


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_umask(files, tmp_path, capsys):
    c, r = files
    kept = tmp_path / "kept.tsv"
    kept.write_text("old\n")
    kept.chmod(0o640)
    argv = ["score", "-c", str(c), "-r", str(r), "-o", str(kept), "--summary", str(tmp_path / "s.json")]
    old_mask = os.umask(0o027)
    try:
        assert main(argv) == 0
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and len(_rows(kept.read_text())) == 2
    assert stat.S_IMODE((tmp_path / "s.json").stat().st_mode) == 0o640  # 0o666 & ~0o027
    os.umask(0o002)
    try:
        write_output(tmp_path / "shared.txt", "x\n")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / "shared.txt").stat().st_mode) == 0o664


def test_stdout_as_a_path_is_written_in_place(files, capsys):
    """`-o /dev/stdout` while standard output is a pipe (`... | cat`): /dev/stdout's link chain ends in a
    pipe that has no path, so the rows are written into it in place. Run in this process with fd 1 made a
    pipe for the command's duration, as a shell pipeline makes it (the model stays loaded)."""
    c, r = files
    read_end, write_end = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(os.fdopen(read_end, "rb").read()))
    reader.start()
    saved_stdout = os.dup(1)
    try:
        os.dup2(write_end, 1)
        os.close(write_end)
        code = main(["score", "-c", str(c), "-r", str(r), "-o", "/dev/stdout"])
    finally:
        os.dup2(saved_stdout, 1)  # the pipe's last writer closes: the reader sees its end
        os.close(saved_stdout)
        reader.join(timeout=60)
    assert code == 0, capsys.readouterr().err
    assert capsys.readouterr().out == ""  # the rows went through the path, not through sys.stdout
    assert [row[0] for row in _rows(received[0].decode())] == ["0", "1"]


# ------------------------------------------------------------------------------ refused before any work


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(files, capsys):
    c, r = files
    error = one_error_line(capsys, ["score", "-c", str(c), "-r", str(r), "-o", str(c)])
    assert error == (
        f"error: -o/--output {c} is the -c/--candidates file {c}: writing it would destroy the input; "
        "choose another output file"
    )
    assert c.read_text() == CANDIDATES


def test_a_symlink_or_hard_link_to_an_input_is_the_input(files, tmp_path, capsys):
    c, r = files
    (tmp_path / "link.txt").symlink_to(r)
    os.link(r, tmp_path / "hard.txt")
    for name in ("link.txt", "hard.txt"):
        error = one_error_line(
            capsys, ["score", "-c", str(c), "-r", str(r), "--summary", str(tmp_path / name)]
        )
        assert error.startswith(f"error: --summary {tmp_path / name} is the -r/--references file {r}: ")
    assert r.read_text() == REFERENCES


def test_rows_and_summary_in_one_file_are_refused(files, tmp_path, capsys):
    c, r = files
    out = tmp_path / "out.txt"
    error = one_error_line(
        capsys, ["score", "-c", str(c), "-r", str(r), "-o", str(out), "--summary", f"{tmp_path}/./out.txt"]
    )
    assert error == (
        f"error: --summary {tmp_path}/./out.txt and -o/--output {out} are the same file: one would "
        "overwrite the other; give each its own file"
    )
    assert not out.exists()


def test_every_writing_command_checks_its_outputs_against_its_inputs(files, tmp_path, capsys):
    c, r = files
    error = one_error_line(capsys, ["faithfulness", "-c", str(c), "-s", str(r), "-o", str(r)])
    assert error.startswith(f"error: -o/--output {r} is the -s/--sources file {r}: ")
    error = one_error_line(capsys, ["compare", "-a", str(c), "-b", str(c), "-r", str(r), "-o", str(r)])
    assert error.startswith(f"error: -o/--output {r} is the -r/--references file {r}: ")
    error = one_error_line(capsys, ["baseline", "--corpus", str(c), "-o", str(c)])
    assert error.startswith(f"error: -o/--output {c} is the --corpus file {c}: ")
    corpus = tmp_path / "corpus.provenance.json"
    corpus.write_text("one two\nthree four\n")
    error = one_error_line(capsys, ["baseline", "--corpus", str(corpus), "-o", str(tmp_path / "corpus.tsv")])
    assert error.startswith(f"error: provenance file {corpus} is the --corpus file {corpus}: ")
    assert (c.read_text(), r.read_text()) == (CANDIDATES, REFERENCES)


def _main_as_nobody(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run the command line in a forked process that is user `nobody`: (exit status, stderr)."""
    # the CLI's lazy imports read files under root's home, which `nobody` cannot: import them first
    importlib.import_module("bertscore_plugins.tools.phoenix_server")
    importlib.import_module("bertscore_plugins.models.presets")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 70
        try:
            os.dup2(write_end, 2)
            os.chdir(cwd)
            os.setgid(65534)
            os.setuid(65534)
            sys.stderr = os.fdopen(2, "w", buffering=1)
            status = main(argv)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end) as stderr:
        text = stderr.read()
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), text


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a process as another user")
def test_a_folder_that_refuses_new_files_fails_before_scoring_naming_the_output():
    # root may write anywhere: the command runs as `nobody`, for whom the folder is read-only
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        work.chmod(0o755)
        for name, text in (("c.txt", CANDIDATES), ("r.txt", REFERENCES)):
            (work / name).write_text(text)
        locked = work / "locked"
        locked.mkdir(mode=0o555)
        locked.chmod(0o555)
        status, stderr = _main_as_nobody(
            ["score", "-c", "c.txt", "-r", "r.txt", "-o", "locked/rows.tsv"], work
        )
        assert status == 2, stderr
        assert stderr == (
            f"error: -o/--output locked/rows.tsv: folder {locked} cannot take a new file (Permission denied)\n"
        )
        assert list(locked.iterdir()) == []


def test_check_outputs_lets_the_null_device_be_shared(tmp_path):
    check_outputs({"-o": "/dev/null", "--summary": "/dev/null", "--results": "-"}, {"-c": "-"})
    with pytest.raises(OutputPathError):
        check_outputs({"-o": tmp_path / "a", "--summary": tmp_path / "a"})
    with pytest.raises(UnwritableOutputError, match=f"^-o {tmp_path} is a folder; give a file name$"):
        check_outputs({"-o": tmp_path})


def test_a_summary_file_holds_the_summary_and_the_rows_file_the_rows(files, tmp_path, capsys):
    c, r = files
    rows, summary = tmp_path / "rows.tsv", tmp_path / "summary.json"
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(rows), "--summary", str(summary)]) == 0
    assert json.loads(summary.read_text())["rows"] == 2 and len(_rows(rows.read_text())) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "r.txt", "rows.tsv", "summary.json"]


def test_the_regression_recipe_checks_its_report_folder_before_scoring(files, tmp_path, capsys):
    from recipes import regression

    c, r = files
    out = tmp_path / "report"
    out.mkdir()
    (out / "regression.md").write_text(CANDIDATES)
    argv = ["--baseline", str(out / "regression.md"), "--candidate", str(c), "--references", str(r)]
    assert regression.main([*argv, "--out", str(out)]) == regression.EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"error: --out regression.md {out / 'regression.md'} is the --baseline file {out / 'regression.md'}: "
        "writing it would destroy the input; choose another output file\n"
    )
    assert (out / "regression.md").read_text() == CANDIDATES
    assert regression.main([*argv, "--out", str(c)]) == regression.EXIT_BAD_INPUT
    assert (
        capsys.readouterr().err == f"error: --out {c} is a file; give a folder for regression.json and .md\n"
    )


def test_a_hard_linked_output_is_written_in_place_so_every_name_sees_it(files, tmp_path, capsys):
    c, r = files
    out = tmp_path / "rows.tsv"
    out.write_text("stale\n")
    os.link(out, tmp_path / "other-name.tsv")
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(out)]) == 0
    assert (tmp_path / "other-name.tsv").read_text() == out.read_text()
    assert len(_rows(out.read_text())) == 2 and out.stat().st_nlink == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a process as another user")
def test_a_read_only_output_file_is_not_replaced_behind_its_back():
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        work.chmod(0o777)
        for name, text in (("c.txt", CANDIDATES), ("r.txt", REFERENCES), ("kept.tsv", "keep me\n")):
            (work / name).write_text(text)
        (work / "kept.tsv").chmod(0o444)
        status, stderr = _main_as_nobody(["score", "-c", "c.txt", "-r", "r.txt", "-o", "kept.tsv"], work)
        assert (status, stderr) == (2, "error: -o/--output kept.tsv is read-only (permission denied)\n")
        assert (work / "kept.tsv").read_text() == "keep me\n"


def test_a_long_output_name_the_folder_accepts_is_written(files, tmp_path, capsys):
    c, r = files
    out = tmp_path / ("x" * 250 + ".tsv")  # 254 bytes: a temporary ".<name>.XXXX.tmp" would be too long
    assert main(["score", "-c", str(c), "-r", str(r), "-o", str(out)]) == 0
    assert len(_rows(out.read_text())) == 2 and sorted(p.name for p in tmp_path.iterdir())[-1] == out.name


@pytest.mark.parametrize("summary", ["-", "/dev/stdout"])
def test_rows_and_summary_on_one_stream_are_refused(files, summary):
    c, r = files
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bertscore_plugins.cli",
            "score",
            "-c",
            str(c),
            "-r",
            str(r),
            "--summary",
            summary,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: --summary {summary} and -o/--output - both write to one stream (standard output, a pipe or "
        "a terminal), where they would mix; give one of them a file\n"
    )


def test_a_failed_write_names_the_output_not_a_temporary_file(files, capsys):
    c, r = files
    assert main(["score", "-c", str(c), "-r", str(r), "-o", "/dev/full"]) == 2
    assert capsys.readouterr().err == "error: output /dev/full cannot be written (No space left on device)\n"

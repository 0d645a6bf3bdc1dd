"""The command line as a test sees it, run in-process."""

from __future__ import annotations

from bertscore_plugins.cli.main import main


def one_error_line(capsys, argv: list[str]) -> str:
    """Run `argv`; assert exit 2, nothing on stdout, no traceback and one "error: ..." line; return it."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]

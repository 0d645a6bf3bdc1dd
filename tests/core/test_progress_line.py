"""The recipe's progress: the plain line where no person watches (stderr to a file, a pipe: nohup, CI)."""

from __future__ import annotations

from bertscore_plugins.core.progress import ProgressLine, work_progress


def test_off_a_terminal_the_line_unless_quiet():
    # pytest's stderr is no terminal
    shown = work_progress(100, None, "scoring")
    assert isinstance(shown, ProgressLine) and (shown.label, shown.unit) == ("scoring", "rows")
    assert isinstance(work_progress(100, True, "scoring"), ProgressLine)
    assert work_progress(100, False, "scoring") is None  # --quiet
    assert work_progress(0, None, "scoring") is None  # nothing to do

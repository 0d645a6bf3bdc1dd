"""The plain progress line written where no person watches (stderr to a file, a pipe: nohup, CI)."""

from __future__ import annotations

import io

import pytest

from bertscore_plugins.core import progress
from bertscore_plugins.core.progress import ProgressLine, work_progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_at_most_every_interval_with_rows_rate_and_time_left():
    clock, stream = Clock(), io.StringIO()
    line = ProgressLine(4000, "scoring", every=20.0, stream=stream, clock=clock)
    clock.now += 10
    line.update(500)  # 10 s in: too soon for a line
    clock.now += 22
    line.update(524)  # 32 s, 1,024 rows: 32 rows/s, 2,976 left: 93 s
    clock.now += 5
    line.update(100)  # 5 s after the last line: none
    clock.now += 63
    line.update(2876)  # done: the end line says it, not a progress line
    line.close()
    assert stream.getvalue().splitlines() == [
        "scoring: 1,024 of 4,000 rows, 32.0 rows/s, about 1m33s left",
        "scoring: 4,000 of 4,000 rows in 1m40s",
    ]


def test_short_work_writes_nothing():
    stream = io.StringIO()
    line = ProgressLine(10, "scoring", stream=stream)
    line.update(10)
    line.close()
    assert stream.getvalue() == ""


def test_off_a_terminal_the_line_unless_quiet(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(progress, "person_watches", lambda: False)
    assert isinstance(work_progress(100, None, "scoring"), ProgressLine)
    assert isinstance(work_progress(100, True, "scoring"), ProgressLine)
    assert work_progress(100, False, "scoring") is None  # --quiet
    assert work_progress(0, None, "scoring") is None  # nothing to do

"""Progress for long scoring: a tqdm bar where a person watches, a plain line at a steady pace elsewhere.

`progress=None` shows the bar where a person is watching (an interactive terminal, or a Jupyter kernel, whose
stderr is not a terminal, which is why a tty check alone never showed it there) when the work is expected
to take more than a couple of seconds. The estimate is from the characters to encode, not the rows: 400
long rows ran 13 s with no bar under the old 2,000-row rule.

Where nobody watches (nohup, CI, stderr to a file) a bar's carriage returns make an unreadable log, and no
output at all left a 20k-pair `score` silent for 3.5 minutes: there `progress=None` prints a
:class:`ProgressLine` instead, one plain line every PROGRESS_SECONDS. `progress=False` (the CLI's
``--quiet``) silences both.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import IO

from bertscore_plugins.watching import AUTO_SECONDS, Progress, in_notebook

#: rows from which the automatic bar appears when the caller cannot count characters
AUTO_ROWS = 2000
#: characters (candidates and references) encoded per second, for the estimate: measured 4,200-5,100 with
#: the packaged MiniLM on a shared 2-core CPU; a GPU is far faster, so the estimate errs toward a bar
CHARACTERS_PER_SECOND = 10_000
#: seconds between two plain progress lines (a log read once a minute sees at least one); the environment
#: variable BERTSCORE_PROGRESS_SECONDS sets another pace
PROGRESS_SECONDS = 30.0


def expected_seconds(characters: int) -> float:
    """A rough duration for encoding this many characters (see CHARACTERS_PER_SECOND)."""
    return characters / CHARACTERS_PER_SECOND


def progress_bar(rows: int, progress: bool | None, characters: int | None = None) -> Progress | None:
    """Something with ``update(n)`` and ``close()`` over `rows` pairs, or None when nothing should show:
    a tqdm bar (``progress=True``, or None where a person watches a long job) or a :class:`ProgressLine`
    (``progress=None`` where nobody watches: it prints nothing for work shorter than its interval).

    ``characters``: the characters to encode (candidates and references); with ``progress=None`` the bar
    shows when they are expected to take AUTO_SECONDS or more (without a count: from AUTO_ROWS rows)."""
    if progress is None:
        if not (sys.stderr.isatty() or in_notebook()):  # watching.person_watches, with this module's seams
            expected = expected_seconds(characters) if characters is not None else 0.0
            return ProgressLine(rows, "pairs", "BERTScore", expected_seconds=expected)
        progress = rows >= AUTO_ROWS if characters is None else expected_seconds(characters) >= AUTO_SECONDS
    if not progress:
        return None
    from tqdm.auto import tqdm

    bar: Progress = tqdm(total=rows, unit="pair", desc="BERTScore", file=sys.stderr)
    return bar


class ProgressLine:
    """A plain progress line for logs, at most one every `interval` seconds, none for shorter work:

        BERTScore: 4,096/20,000 pairs (20%), 81.3 pairs/s, 3m 16s left

    Used like a tqdm bar (``update(n)`` after each piece of work, ``close()`` at the end, or as a context
    manager); `interval` None reads BERTSCORE_PROGRESS_SECONDS, else PROGRESS_SECONDS. Once a line has been
    printed, ``close()`` prints a last one with the total time, so the log says the work ended.

    ``expected_seconds``: the caller's estimate of the work; when it exceeds the interval, a first line
    says so at once (``BERTScore: 20,000 pairs to go, a line every 30s``). Measured on a 20k-pair `score`
    with stderr to a pipe: without it the log's first line came 82 s after the command started (start-up,
    model load and reading, then one interval of scoring), on a 2-core machine at load average 8.
    """

    def __init__(
        self,
        total: int,
        unit: str = "rows",
        label: str = "progress",
        interval: float | None = None,
        stream: IO[str] | None = None,
        expected_seconds: float = 0.0,
    ) -> None:
        self.total, self.unit, self.label = total, unit, label
        self.interval = progress_seconds() if interval is None else interval
        self.stream = stream
        self.done = 0
        self.printed = 0
        self._started = self._last = time.monotonic()
        if expected_seconds > self.interval:
            self._say(f"{label}: {total:,} {unit} to go, a line every {_duration(self.interval)}")

    def update(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._say(self.line(now - self._started))

    def close(self) -> None:
        if self.printed:
            elapsed = time.monotonic() - self._started
            self._say(f"{self.label}: {self.done:,}/{self.total:,} {self.unit} in {_duration(elapsed)}")

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self, elapsed: float) -> str:
        """The line for `done` rows after `elapsed` seconds: rows done, rate and time left."""
        rate = self.done / elapsed if elapsed > 0 else 0.0
        percent = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = _duration((self.total - self.done) / rate) if rate > 0 else "unknown"
        return (
            f"{self.label}: {self.done:,}/{self.total:,} {self.unit}{percent}, "
            f"{rate:.1f} {self.unit}/s, {left} left"
        )

    def _say(self, line: str) -> None:
        print(line, file=self.stream or sys.stderr, flush=True)
        self.printed += 1


def progress_seconds() -> float:
    """The plain line's pace: BERTSCORE_PROGRESS_SECONDS when it is a positive number, else PROGRESS_SECONDS."""
    text = os.environ.get("BERTSCORE_PROGRESS_SECONDS", "")
    try:
        seconds = float(text)
    except ValueError:
        return PROGRESS_SECONDS
    return seconds if math.isfinite(seconds) and seconds > 0 else PROGRESS_SECONDS


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"


def work_progress(
    total: int, progress: bool | None, what: str, characters: int | None = None
) -> Progress | None:
    """The progress of ``total`` rows of long work other than scoring pairs (the recipe's rows), or None:
    the bar where a person watches (:func:`progress_bar`'s rule), else a :class:`ProgressLine` labelled
    ``what``, which writes nothing for work shorter than its pace; ``progress=False`` (``--quiet``) neither."""
    if progress is False or total <= 0:
        return None
    if not (sys.stderr.isatty() or in_notebook()):
        expected = expected_seconds(characters) if characters is not None else 0.0
        return ProgressLine(total, "rows", what, expected_seconds=expected)
    return progress_bar(total, progress, characters)

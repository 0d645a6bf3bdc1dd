"""The scoring progress bar: tqdm.auto (a widget in notebooks, text on a terminal), on stderr; in logs a
plain line at a steady pace (:class:`ProgressLine`, :func:`work_progress`).

`progress=None` shows it where a person is watching (an interactive terminal, or a Jupyter kernel, whose
stderr is not a terminal, which is why a tty check alone never showed it there) when the work is expected
to take more than a couple of seconds. The estimate is from the characters to encode, not the rows: 400
long rows ran 13 s with no bar under the old 2,000-row rule.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from bertscore_plugins.watching import AUTO_SECONDS, in_notebook, person_watches

#: rows from which the automatic bar appears when the caller cannot count characters
AUTO_ROWS = 2000
#: characters (candidates and references) encoded per second, for the estimate: measured 4,200-5,100 with
#: the packaged MiniLM on a shared 2-core CPU; a GPU is far faster, so the estimate errs toward a bar
CHARACTERS_PER_SECOND = 10_000


def expected_seconds(characters: int) -> float:
    """A rough duration for encoding this many characters (see CHARACTERS_PER_SECOND)."""
    return characters / CHARACTERS_PER_SECOND


def progress_bar(rows: int, progress: bool | None, characters: int | None = None) -> Any:
    """A tqdm bar over `rows` pairs, or None when no bar should show.

    ``characters``: the characters to encode (candidates and references); with ``progress=None`` the bar
    shows when they are expected to take AUTO_SECONDS or more (without a count: from AUTO_ROWS rows)."""
    if progress is None:
        large = rows >= AUTO_ROWS if characters is None else expected_seconds(characters) >= AUTO_SECONDS
        progress = large and (sys.stderr.isatty() or in_notebook())
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=rows, unit="pair", desc="BERTScore", file=sys.stderr)


# -- long work where no person watches -------------------------------------------------------------------

#: seconds between two plain progress lines: under nohup or CI a run of minutes said nothing for 6 minutes;
#: one line each 20 s is steady without flooding a log (3 a minute)
LINE_SECONDS = 20.0


class ProgressLine:
    """A plain progress line on ``stream`` (stderr) at most every ``every`` seconds, for logs and pipes::

        scoring: 1,024 of 4,000 rows, 31.5 rows/s, about 1m34s left

    ``update(n)`` counts ``n`` more done; ``close()`` says how long it all took, when a line was written.
    ``every`` defaults to :data:`LINE_SECONDS`.
    Self-contained (no tqdm): a file reader wants whole lines, never carriage returns.
    """

    def __init__(
        self,
        total: int,
        what: str,
        unit: str = "rows",
        every: float | None = None,
        stream: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.what, self.unit = total, what, unit
        self.every = LINE_SECONDS if every is None else every
        self.stream, self.clock = stream, clock
        self.done, self.started = 0, clock()
        self.last = self.started
        self.lines = 0

    def update(self, count: int = 1) -> None:
        self.done += count
        now = self.clock()
        if now - self.last >= self.every and self.done < self.total:
            self.last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        left = f", about {_duration((self.total - self.done) / rate)} left" if rate > 0 else ""
        return f"{self.what}: {self.done:,} of {self.total:,} {self.unit}, {rate:,.1f} {self.unit}/s{left}"

    def close(self) -> None:
        if self.lines:
            elapsed = self.clock() - self.started
            self._write(f"{self.what}: {self.done:,} of {self.total:,} {self.unit} in {_duration(elapsed)}")

    def _write(self, text: str) -> None:
        self.lines += 1
        print(text, file=self.stream or sys.stderr, flush=True)


def work_progress(total: int, progress: bool | None, what: str, characters: int | None = None) -> Any:
    """One indicator for ``total`` rows of long work, or None: the bar where a person watches
    (:func:`progress_bar`'s rule), else, stderr being a file or a pipe, a :class:`ProgressLine`, which
    writes nothing for work shorter than its pace; ``progress=False`` (``--quiet``) shows neither."""
    if progress is False or total <= 0:
        return None
    if person_watches():
        return progress_bar(total, progress, characters)
    return ProgressLine(total, what)


def _duration(seconds: float) -> str:
    seconds = max(round(seconds), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"

"""The scoring progress bar: tqdm.auto (a widget in notebooks, text on a terminal), on stderr, off in logs.

`progress=None` shows it where a person is watching (an interactive terminal, or a Jupyter kernel, whose
stderr is not a terminal, which is why a tty check alone never showed it there) when the work is expected
to take more than a couple of seconds. The estimate is from the characters to encode, not the rows: 400
long rows ran 13 s with no bar under the old 2,000-row rule.
"""

from __future__ import annotations

import sys
from typing import Any

from bertscore_plugins.watching import AUTO_SECONDS, in_notebook

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

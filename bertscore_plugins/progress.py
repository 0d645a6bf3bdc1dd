"""The scoring progress bar: tqdm.auto (a widget in notebooks, text on a terminal), on stderr, off in logs.

`progress=None` shows it for large inputs where a person is watching: an interactive terminal, or a
Jupyter kernel (whose stderr is not a terminal, which is why a tty check alone never showed it there).
"""

from __future__ import annotations

import sys
from typing import Any

#: rows from which the automatic bar appears
AUTO_ROWS = 2000


def in_notebook() -> bool:
    """True inside a Jupyter (IPython kernel) session."""
    shell = sys.modules.get("IPython")
    get_ipython = getattr(shell, "get_ipython", None)
    if get_ipython is None:
        return False
    try:
        ipython = get_ipython()
    except Exception:
        return False
    return ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})


def progress_bar(rows: int, progress: bool | None) -> Any:
    """A tqdm bar over `rows` pairs, or None when no bar should show."""
    if progress is None:
        progress = rows >= AUTO_ROWS and (sys.stderr.isatty() or in_notebook())
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=rows, unit="pair", desc="BERTScore", file=sys.stderr)

"""Whether a person watches this process: an interactive terminal, or a Jupyter kernel (whose stderr is no
terminal, which is why a tty check alone never showed a bar there). Every automatic progress bar asks here
(the scoring bar in core/progress.py, the fact check's in facts/support.py)."""

from __future__ import annotations

import sys
from typing import Protocol

#: expected seconds of work from which an automatic bar appears
AUTO_SECONDS = 2.0


class Progress(Protocol):
    """What a long loop moves: a tqdm bar or the core's ``ProgressLine``."""

    def update(self, count: int = 1, /) -> object: ...

    def close(self) -> None: ...


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


def person_watches() -> bool:
    """stderr is a terminal, or this is a notebook: where a progress bar is read."""
    return sys.stderr.isatty() or in_notebook()

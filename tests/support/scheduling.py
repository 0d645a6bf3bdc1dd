"""How `make test` hands files to its xdist workers: `--dist loadfile` (a whole file to a worker, so its module
fixtures are made once), except that the files whose tests take the local judge go together, to one worker.

The local judge is a session fixture (tests/conftest.py): each worker that runs one of those files starts
its own server and loads Gemma 3 270M again. Sharing one server between workers would not do: their tests
would ask it at the same time, and some need it to themselves (test_local_judge.py's one-second timeout
expects its short rows to be answered at once). One unit of work for all of them: one judge start per run,
and the judge busy with one test at a time, as before.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadFileScheduling

#: the unit of work of the files that take the local judge
LOCAL_JUDGE_FILES = "the files that take the local judge"
#: the fixture's name as a parameter or a getfixturevalue argument (not inside a longer name, such as a test's)
_TAKES_LOCAL_JUDGE = re.compile(r"\blocal_judge\b")


@functools.cache
def takes_local_judge(path: Path) -> bool:
    try:
        return _TAKES_LOCAL_JUDGE.search(path.read_text(encoding="utf-8")) is not None
    except OSError:
        return False


class LocalJudgeFilesTogether(LoadFileScheduling):
    """``--dist loadfile`` with the local judge's files as one unit (the module docstring says why)."""

    def _split_scope(self, nodeid: str) -> str:
        file = super()._split_scope(nodeid)
        return LOCAL_JUDGE_FILES if takes_local_judge(self.config.rootpath / file) else file

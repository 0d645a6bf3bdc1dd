"""A Ray UDF that kills its own actor once, for the killed-actor test; its own module so that only the
worker running that test imports Ray (an import at collection costs every xdist worker)."""

from __future__ import annotations

import os
from pathlib import Path

from bertscore_plugins.integrations.ray import BERTScoreRayUDF

#: environment variables naming the marker file and the row that kills the actor (read in the actor)
CRASH_MARKER_ENV = "BERTSCORE_TEST_CRASH_MARKER"
CRASH_ROW_ENV = "BERTSCORE_TEST_CRASH_ROW"


class CrashOnceUDF(BERTScoreRayUDF):
    """Kills its own actor process the first time it sees the crash row (a marker file records it)."""

    def __call__(self, batch):
        marker = Path(os.environ[CRASH_MARKER_ENV])
        if int(os.environ[CRASH_ROW_ENV]) in set(batch["row_id"]) and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # no cleanup, like a SIGKILL or an OOM kill
        return super().__call__(batch)

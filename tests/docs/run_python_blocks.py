"""Run the Python blocks of the documentation in ONE interpreter: `python -m tests.docs.run_python_blocks
REPORT.json`. Each page gets its own namespace, shared by its blocks in order (a page reads top to bottom);
the report lists each block's outcome."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
import traceback

from tests.docs.blocks import RUN_LANGUAGES, code_blocks, documentation_files


def run_page(path) -> list[dict]:
    namespace: dict = {"__name__": "__main__"}
    outcomes = []
    for block in code_blocks(path):
        if block.language != "python" or block.needs is not None:
            continue
        started = time.perf_counter()
        error = None
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            try:
                exec(compile(block.code, block.where, "exec"), namespace)
            except BaseException:
                error = traceback.format_exc(limit=-4)
        outcomes.append({"where": block.where, "error": error, "seconds": time.perf_counter() - started})
    return outcomes


def main(report_path: str) -> int:
    assert "python" in RUN_LANGUAGES
    outcomes = [outcome for path in documentation_files() for outcome in run_page(path)]
    with open(report_path, "w", encoding="utf-8") as report:
        json.dump(outcomes, report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""A scratch folder where the documentation's commands run as a reader of a clone would run them: the
clone's folders are linked in (so `recipes/`, `tests/support/` and the examples are where the pages say),
and whatever a block writes lands in the scratch folder, never in the repository."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.docs.blocks import REPO

LINKED = ("bertscore_plugins", "recipes", "tests", "metric_card", "benchmarks")


def make_workspace(folder: Path) -> dict[str, str]:
    """Link the clone's folders into ``folder``; return the environment to run its blocks with."""
    for name in LINKED:
        (folder / name).symlink_to(REPO / name, target_is_directory=True)
    bin_folder = folder / ".bin"
    bin_folder.mkdir()
    # shims, not links: a link to a virtual environment's python would lose the environment
    shims = {
        "python": f'exec "{sys.executable}" "$@"',
        "bertscore-plugins": f'exec "{sys.executable}" -m bertscore_plugins.cli "$@"',
    }
    for name, line in shims.items():
        shim = bin_folder / name
        shim.write_text(f"#!/bin/sh\n{line}\n")
        shim.chmod(0o755)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("BERTSCORE_JUDGE_", "PHOENIX_", "OPENAI_"))
    }
    env.update(
        PATH=f"{bin_folder}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        NO_MKDOCS_2_WARNING="1",
        COLUMNS="110",
    )
    return env

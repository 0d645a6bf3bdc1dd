"""A scratch folder where the documentation's commands run as a reader of a clone would run them: the
clone's folders are linked in (so `recipes/`, `tests/support/` and the examples are where the pages say),
and whatever a block writes lands in the scratch folder, never in the repository."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.docs.blocks import REPO
from tests.support.fresh_interpreter import Zygote

LINKED = ("bertscore_plugins", "recipes", "tests", "metric_card", "benchmarks")


def make_workspace(folder: Path) -> dict[str, str]:
    """Link the clone's folders into ``folder``; return the environment to run its blocks with."""
    link_clone(folder)
    commands = folder / ".bin"
    commands.mkdir()
    write_commands(commands)
    return block_environment(commands)


def link_clone(folder: Path) -> None:
    """The clone's folders, linked into ``folder``: where a block's relative paths lead."""
    for name in LINKED:
        (folder / name).symlink_to(REPO / name, target_is_directory=True)


def write_commands(commands: Path, zygote: Zygote | None = None) -> None:
    """``python`` and ``bertscore-plugins`` in ``commands``: this environment's, run through ``zygote``
    (a listening one) when given, each command still a fresh interpreter for this package."""
    # shims, not links: a link to a virtual environment's python would lose the environment
    arguments = {"python": (), "bertscore-plugins": ("-m", "bertscore_plugins.cli")}
    for name, args in arguments.items():
        if zygote is not None:
            line = zygote.stand_in(*args)
        else:
            line = f'exec "{sys.executable}"{"".join(f" {arg}" for arg in args)} "$@"'
        shim = commands / name
        shim.write_text(f"#!/bin/sh\n{line}\n")
        shim.chmod(0o755)


def block_environment(commands: Path) -> dict[str, str]:
    """The environment blocks run with: ``commands`` first on the PATH, no judge, Phoenix or OpenAI
    settings of the user's, the hub offline."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("BERTSCORE_JUDGE_", "PHOENIX_", "OPENAI_"))
    }
    env.update(
        PATH=f"{commands}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        NO_MKDOCS_2_WARNING="1",
        COLUMNS="110",
    )
    return env

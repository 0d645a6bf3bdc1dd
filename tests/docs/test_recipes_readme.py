"""recipes/README.md states the thresholds a disagreement run prints and uses: each one's value and flag are
read from the table there and compared with the declarations (thresholds.py through EvaluationConfig) and the
recipe's own flags, so the page cannot drift from the code again."""

from __future__ import annotations

import argparse
import re

from bertscore_plugins.cli.disagreement import add_arguments
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.thresholds import JUDGE_THRESHOLD
from tests.docs.blocks import REPO

TEXT = (REPO / "recipes" / "README.md").read_text(encoding="utf-8")
#: a table row: | signal | ... at >= VALUE | `--flag` (or nothing) |
ROW = re.compile(
    r"^\| ([a-z ]+?)(?: \([^|]*\))? \| [a-z ]+ at >= ([0-9.]+) \| (?:`(--[a-z-]+)`)? *\|$", re.MULTILINE
)


def documented() -> dict[str, tuple[float, str | None]]:
    return {signal: (float(value), flag or None) for signal, value, flag in ROW.findall(TEXT)}


def recipe_flags() -> set[str]:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return {flag for action in parser._actions for flag in action.option_strings}


def test_the_recipes_readme_states_each_threshold_the_runs_use_with_its_flag():
    defaults = EvaluationConfig()
    assert documented() == {
        "similarity": (defaults.similarity_threshold, "--similarity-threshold"),
        "groundedness": (defaults.groundedness_threshold, "--groundedness-threshold"),
        "offline faithfulness": (defaults.offline_threshold, "--offline-threshold"),
        "judge": (JUDGE_THRESHOLD, None),
    }
    flags = {flag for _, flag in documented().values() if flag}
    assert flags | {"--faithfulness-threshold", "--thresholds-from-data"} <= recipe_flags()


def test_the_disagreements_offline_cut_is_the_offline_threshold_the_page_names():
    # a run without a judge prints "offline_faithfulness >= <this>": the page's example line must say the same
    cut = EvaluationConfig().effective_faithfulness_threshold
    assert cut == documented()["offline faithfulness"][0]
    printed = re.search(r"offline_faithfulness >= ([0-9.]+)", TEXT)
    assert printed and float(printed.group(1)) == cut
    assert f"similarity >= {EvaluationConfig().similarity_threshold:.3f}" in TEXT

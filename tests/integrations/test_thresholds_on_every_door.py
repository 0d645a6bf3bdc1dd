"""One check per threshold, cut and quantile, shared by every door that takes one.

Faithfulness, similarity and groundedness thresholds, the disagreement's cuts (``Thresholds``) and the
quantiles that set them from data live in [0, 1]. NaN, infinities, numbers outside [0, 1], a number
written as text and a bool are refused by ``thresholds.check_threshold`` wherever they are given: the Python
API, ``EvaluationConfig`` and ``evaluate_rows``, the Phoenix evaluators, trace evaluation, the command
line (``faithfulness --threshold``, ``phoenix evaluate``'s flags) and the recipe's flags. Every door
names the setting and says the same words; a command says them on one line, with exit status 2. Nothing
here loads a model: each value is refused before one would be.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from bertscore_plugins.errors import SettingError
from bertscore_plugins.evaluation.names import FAITHFULNESS, SIMILARITY, score_column

#: values no threshold, cut or quantile may take, as a Python caller gives them
BAD_VALUES = {
    "nan": math.nan,
    "+inf": math.inf,
    "-inf": -math.inf,
    "-0.5": -0.5,
    "1.5": 1.5,
    "text 0.5": "0.5",
    "True": True,
    "False": False,
}
#: the same mistakes as a command line spells them ("0.5" is a good value there)
BAD_FLAG_TEXTS = ("nan", "+inf", "-inf", "-0.5", "1.5", "True", "False")
#: the cuts of the evaluation's configuration: a setting, a flag of `phoenix evaluate` and of the recipe
CONFIG_CUTS = (
    "similarity_threshold",
    "groundedness_threshold",
    "offline_threshold",
    "faithfulness_threshold",
)
JUDGE_VARIABLES = ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY")
ROWS = pd.DataFrame(
    {
        "input": ["When does the clinic open?"],
        "output": ["It opens at 8 am."],
        "context": ["The clinic opens at 8 am on weekdays."],
        "reference": ["The clinic opens at 8 am."],
    }
)


def refusal(name: str, value: Any) -> str:
    """The one check's words: "similarity_threshold must be a finite number from 0 to 1, got nan"."""
    shown = f"{type(value).__name__} {value!r}" if isinstance(value, (bool, str)) else repr(value)
    return f"{name} must be a finite number from 0 to 1, got {shown}"


def scored_rows() -> pd.DataFrame:
    """Two rows with similarity and faithfulness cells, as the evaluators write them."""
    return pd.DataFrame(
        {
            score_column(SIMILARITY): [{"name": SIMILARITY, "score": s} for s in (0.95, 0.5)],
            score_column(FAITHFULNESS): [{"name": FAITHFULNESS, "score": f} for f in (0.2, 0.8)],
        }
    )


# -- the Python doors: (the setting's name, a call giving it the value) -------------------------------


def _api_doors() -> dict[str, tuple[str, Callable[[Any], Any]]]:
    from bertscore_plugins.faithfulness import evaluate_pair, offline_faithfulness, read_batch

    return {
        "offline_faithfulness": ("threshold", lambda v: offline_faithfulness(["a"], ["b"], threshold=v)),
        "evaluate_pair": ("threshold", lambda v: evaluate_pair("a", "b", groundedness=0.9, threshold=v)),
        "read_batch": ("threshold", lambda v: read_batch(None, [("a", "b")], v)),
    }


def _engine_doors() -> dict[str, tuple[str, Callable[[Any], Any]]]:
    from bertscore_plugins.evaluation.dataframe import add_disagreement, evaluate_rows
    from bertscore_plugins.evaluation.disagreement import Thresholds
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig

    doors: dict[str, tuple[str, Callable[[Any], Any]]] = {}
    for name in CONFIG_CUTS:
        doors[f"EvaluationConfig-{name}"] = (name, lambda v, name=name: EvaluationConfig(**{name: v}))
        doors[f"evaluate_rows-{name}"] = (name, lambda v, name=name: evaluate_rows(ROWS, **{name: v}))
    doors |= {
        "Thresholds-similarity": ("similarity_threshold", lambda v: Thresholds(similarity=v)),
        "Thresholds-faithfulness": ("faithfulness_threshold", lambda v: Thresholds(0.9, faithfulness=v)),
        # a cut the user set is checked whatever its source says
        "Thresholds-named-source": ("similarity_threshold", lambda v: Thresholds(v, 0.5, "agreed by the team")),
        "evaluate_rows-thresholds": ("similarity_threshold", lambda v: evaluate_rows(ROWS, thresholds=Thresholds(v))),
    }  # fmt: skip
    for name in ("similarity_quantile", "faithfulness_quantile"):
        doors[f"Thresholds.from_quantiles-{name}"] = (
            name,
            lambda v, name=name: Thresholds.from_quantiles([0.5, 0.9], [0.2, 0.8], **{name: v}),
        )
        doors[f"Thresholds.from_cells-{name}"] = (
            name,
            lambda v, name=name: Thresholds.from_cells(
                list(scored_rows()[score_column(SIMILARITY)]),
                list(scored_rows()[score_column(FAITHFULNESS)]),
                **{name: v},
            ),
        )
        doors[f"add_disagreement-{name}"] = (
            name,
            lambda v, name=name: add_disagreement(scored_rows(), **{name: v}),
        )
        # given beside fixed cuts a quantile is unused, and still a mistake
        doors[f"add_disagreement-fixed-cuts-{name}"] = (
            name,
            lambda v, name=name: add_disagreement(scored_rows(), Thresholds(0.9), **{name: v}),
        )
    return doors


def _phoenix_doors() -> dict[str, tuple[str, Callable[[Any], Any]]]:
    from bertscore_plugins.integrations.phoenix import (
        BERTScoreEvaluator,
        GroundednessEvaluator,
        OfflineFaithfulnessEvaluator,
        evaluate_project,
    )
    from bertscore_plugins.integrations.phoenix import evaluate_rows as phoenix_evaluate_rows

    doors: dict[str, tuple[str, Callable[[Any], Any]]] = {
        "BERTScoreEvaluator": ("threshold", lambda v: BERTScoreEvaluator(v)),
        "GroundednessEvaluator": ("threshold", lambda v: GroundednessEvaluator(v)),
        "OfflineFaithfulnessEvaluator": ("threshold", lambda v: OfflineFaithfulnessEvaluator(threshold=v)),
    }
    for name in CONFIG_CUTS:
        # refused before the server is asked anything: nothing listens on port 9
        doors[f"evaluate_project-{name}"] = (
            name,
            lambda v, name=name: evaluate_project("p", base_url="http://127.0.0.1:9", **{name: v}),
        )
        doors[f"phoenix.evaluate_rows-{name}"] = (
            name,
            lambda v, name=name: phoenix_evaluate_rows(ROWS, **{name: v}),
        )
    return doors


PYTHON_DOORS = [*_api_doors(), *_engine_doors(), *_phoenix_doors()]


def python_door(door: str) -> tuple[str, Callable[[Any], Any]]:
    return {**_api_doors(), **_engine_doors(), **_phoenix_doors()}[door]


@pytest.mark.parametrize("value", BAD_VALUES.values(), ids=BAD_VALUES)
@pytest.mark.parametrize("door", PYTHON_DOORS)
def test_every_python_door_refuses_a_bad_cut_naming_the_setting(door, value):
    name, call = python_door(door)
    with pytest.raises(SettingError) as refused:
        call(value)
    assert refused.value.setting == name
    assert str(refused.value) == refusal(name, value)


# -- the commands -------------------------------------------------------------------------------------


def one_error_line(argv: list[str]) -> str:
    """``bertscore-plugins ARGV`` in this process, no judge configured: exit 2, nothing on stdout, one
    stderr line; returns it."""
    from bertscore_plugins.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as env,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        for variable in JUDGE_VARIABLES:
            env.delenv(variable, raising=False)
        assert main(argv) == 2
    assert out.getvalue() == "" and "Traceback" not in err.getvalue()
    [line] = err.getvalue().splitlines()
    return line


def flag_refusal(flag: str, name: str, text: str) -> str:
    """The command's line for a flag's text: the flag, then the one check's words for what it spells."""
    from bertscore_plugins.thresholds import threshold_from_text

    return f"error: {flag}: {refusal(name, threshold_from_text(text))}"


@pytest.mark.parametrize("text", BAD_FLAG_TEXTS)
def test_the_faithfulness_command_refuses_a_bad_threshold_in_one_line(tmp_path, text):
    texts = tmp_path / "texts.txt"
    texts.write_text("The clinic opens at 8 am.\n", encoding="utf-8")
    line = one_error_line(["faithfulness", "-c", str(texts), "-s", str(texts), f"--threshold={text}"])
    assert line == flag_refusal("--threshold", "threshold", text)


@pytest.mark.parametrize("text", BAD_FLAG_TEXTS)
@pytest.mark.parametrize("name", CONFIG_CUTS)
def test_phoenix_evaluate_refuses_a_bad_cut_in_one_line(name, text):
    flag = "--" + name.replace("_", "-")
    argv = ["phoenix", "evaluate", "--project", "p", "--base-url", "http://127.0.0.1:9", f"{flag}={text}"]
    assert one_error_line(argv) == flag_refusal(flag, name, text)


@pytest.fixture(scope="module")
def recipe_table(tmp_path_factory):
    table = tmp_path_factory.mktemp("recipe") / "rows.jsonl"
    row = {"question": "When?", "context": "It opens at 8 am.", "output": "At 8 am.", "reference": "8 am."}
    table.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return table


@pytest.mark.parametrize("text", BAD_FLAG_TEXTS)
@pytest.mark.parametrize("name", CONFIG_CUTS)
def test_the_recipe_refuses_a_bad_cut_in_one_line(recipe_table, tmp_path, name, text):
    from bertscore_plugins.cli import disagreement

    flag = "--" + name.replace("_", "-")
    err = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as env,
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(err),
    ):
        for variable in JUDGE_VARIABLES:
            env.delenv(variable, raising=False)
        code = disagreement.main(
            [str(recipe_table), "--out", str(tmp_path / "out"), "--no-phoenix", f"{flag}={text}"]
        )
    assert code == disagreement.EXIT_BAD_INPUT
    from bertscore_plugins.thresholds import threshold_from_text

    # the recipe is a bertscore-plugins command: its refusal names the flag as every command's does
    assert err.getvalue().splitlines() == [f"error: {flag}: {refusal(name, threshold_from_text(text))}"]

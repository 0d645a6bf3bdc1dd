"""The keywords a type checker knows for the evaluation entry points (EvaluationSettings, RowSettings) are
exactly the settings EvaluationConfig declares, the core's, and the DataFrame adapter's columns, with the same
choices: one declaration per setting, its keyword type derived beside it and kept equal here."""

from __future__ import annotations

import typing
from dataclasses import fields

from bertscore_plugins.core.score_settings import ScoreSettings
from bertscore_plugins.evaluation.dataframe import Columns, RowOptions
from bertscore_plugins.evaluation.evaluation_config import DISAGREEMENT_READS, JUDGE_ROWS, EvaluationConfig
from bertscore_plugins.evaluation.evaluation_settings import (
    ColumnSettings,
    EvaluationSettings,
    RowSettings,
    RowSettingsBesideTheJudge,
    SettingsBesideTheJudge,
)
from bertscore_plugins.settings import names_of


def test_the_keywords_are_the_configurations_settings_and_the_cores():
    core = ScoreSettings.__optional_keys__
    assert EvaluationSettings.__required_keys__ == frozenset()
    assert EvaluationSettings.__optional_keys__ == {*names_of(EvaluationConfig), *core}
    assert SettingsBesideTheJudge.__optional_keys__ == EvaluationSettings.__optional_keys__ - {"judge"}


def test_the_column_keywords_are_the_adapters_fields():
    assert ColumnSettings.__optional_keys__ == {f"{f.name}_column" for f in fields(Columns)} | {
        "question_column"
    }
    assert (
        RowSettings.__optional_keys__
        == EvaluationSettings.__optional_keys__ | ColumnSettings.__optional_keys__
    )
    assert RowSettingsBesideTheJudge.__optional_keys__ == RowSettings.__optional_keys__ - {"judge"}
    own = {"config", "thresholds", "columns", "exit_on_error", "scorer", "store"}
    assert RowOptions.__optional_keys__ == RowSettingsBesideTheJudge.__optional_keys__ | own


def test_the_keywords_with_choices_name_exactly_those_choices():
    hints = typing.get_type_hints(EvaluationSettings)
    assert typing.get_args(hints["judge_rows"]) == JUDGE_ROWS
    assert typing.get_args(hints["disagreement_reads"]) == DISAGREEMENT_READS

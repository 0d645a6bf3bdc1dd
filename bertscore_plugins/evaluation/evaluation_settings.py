"""The evaluation's settings as keyword arguments, for type checkers: ``evaluate_rows(df, judge_rows="some")``
or ``similarity_treshold=0.9`` is an error before anything runs (at run time ``EvaluationConfig`` refuses it,
naming the setting).

The keys are :class:`~.evaluation_config.EvaluationConfig`'s settings plus the core's (``ScoreSettings``),
and, for the DataFrame entry points, the column keywords of :class:`~.dataframe.Columns`;
tests/evaluation/test_evaluation_settings.py keeps them equal to the declarations, with each choice.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from bertscore_plugins.core.score_settings import ScoreSettings
from bertscore_plugins.evaluation.judge import Judge


class SettingsBesideTheJudge(ScoreSettings, total=False):
    """Every setting of an evaluation but the judge (for entry points that take the judge in their own
    words: a Phoenix LLM or evaluator), and the core's."""

    similarity_threshold: float
    groundedness_threshold: float
    offline_threshold: float
    faithfulness_threshold: float | None
    thresholds_from_data: bool
    judge_rows: Literal["all", "unsettled"]
    disagreement_reads: Literal["auto", "judge", "offline"]
    judge_concurrency: int
    judge_max_retries: int
    annotation_identifier: str
    reference_key: str | None
    reference_dataset: str | None
    example_id_key: str
    reference_field: str | None
    similarity_name: str
    groundedness_name: str
    offline_name: str
    disagreement_name: str


class EvaluationSettings(SettingsBesideTheJudge, total=False):
    """Every setting an evaluation entry point takes by keyword (see EvaluationConfig for each one's
    meaning) and the core's."""

    judge: Judge | None


class ColumnSettings(TypedDict, total=False):
    """Where each field of a row lives in a DataFrame (``question_column`` is ``input_column``'s other name)."""

    input_column: str
    question_column: str
    output_column: str
    context_column: str
    reference_column: str


class RowSettings(EvaluationSettings, ColumnSettings, total=False):
    """The DataFrame entry point's keywords: the evaluation's settings and the columns."""


class RowSettingsBesideTheJudge(SettingsBesideTheJudge, ColumnSettings, total=False):
    """The settings and columns of the Phoenix DataFrame entry point (its judge is a Phoenix LLM or evaluator,
    given apart)."""

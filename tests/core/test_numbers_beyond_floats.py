"""A numeric setting beyond float's range (10**400, as an int or a Fraction) is refused by the setting's
name at every door, never as float()'s OverflowError."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bertscore_plugins.analysis.comparison import ComparisonOptions
from bertscore_plugins.analysis.stats import paired_test
from bertscore_plugins.cli.main import main
from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.errors import ArgumentError, SettingError
from bertscore_plugins.evaluation.disagreement import Thresholds
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.settings import shown
from bertscore_plugins.thresholds import check_threshold

HUGE = [10**400, -(10**400), Fraction(10**400), Fraction(10**400, 3), 10**5000]


@pytest.mark.parametrize("value", HUGE, ids=["int", "negative int", "Fraction", "Fraction/3", "10**5000"])
@pytest.mark.parametrize(
    ("door", "error", "name"),
    [
        (lambda v: check_threshold("threshold", v), SettingError, "threshold"),
        (lambda v: check_threshold("similarity_quantile", v), SettingError, "similarity_quantile"),
        (lambda v: ScoreConfig(layer=v), SettingError, "layer"),
        (lambda v: ScoreConfig(max_length=v), SettingError, "max_length"),
        (lambda v: ScoreConfig(window_stride=v), SettingError, "window_stride"),
        (lambda v: ScoreConfig(batch_tokens=v), SettingError, "batch_tokens"),
        (lambda v: ScoreConfig(chunk_pairs=v), SettingError, "chunk_pairs"),
        (lambda v: ComparisonOptions(resamples=v), ArgumentError, "resamples"),
        (lambda v: ComparisonOptions(confidence=v), ArgumentError, "confidence"),
        (lambda v: ComparisonOptions(seed=v), ArgumentError, "seed"),
        (lambda v: ComparisonOptions(top=v), ArgumentError, "top"),
        (lambda v: paired_test([0.1, 0.2], [0.2, 0.3], resamples=v), ArgumentError, "resamples"),
        (lambda v: paired_test([0.1, 0.2], [0.2, 0.3], confidence=v), ArgumentError, "confidence"),
        (lambda v: Thresholds(similarity=v), SettingError, "similarity_threshold"),
        # a cut set from the data may be any finite number (rescaled similarity sits below 0), not this
        (
            lambda v: Thresholds(similarity=v, source="quantile(similarity=0.5)"),
            ArgumentError,
            "similarity_threshold",
        ),
        (lambda v: EvaluationConfig(similarity_threshold=v), SettingError, "similarity_threshold"),
    ],
)
def test_a_value_beyond_floats_is_the_settings_error(door, error, name, value):
    with pytest.raises(error) as raised:
        door(value)
    assert not isinstance(raised.value, OverflowError)
    message = str(raised.value)
    assert message.startswith(f"{name} must be ")
    assert len(message) < 200  # described, not written out in its hundreds of digits


def test_the_message_describes_the_number():
    assert shown(10**400) == "1e400 (beyond float range)"
    assert shown(-Fraction(10**400, 3)) == "-3.3e399 (beyond float range)"
    assert shown(0.5) == "0.5"
    with pytest.raises(SettingError) as raised:
        check_threshold("threshold", 10**400)
    assert (
        str(raised.value) == "threshold must be a finite number from 0 to 1, got 1e400 (beyond float range)"
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["score", "--max-length", "1" + "0" * 400], "max_length must be "),
        (["faithfulness", "--threshold", "1" + "0" * 400], "threshold must be a finite number from 0 to 1"),
    ],
)
def test_the_command_line_refuses_it_in_one_line(tmp_path, capsys, flags, message):
    text = tmp_path / "a.txt"
    text.write_text("a\n", encoding="utf-8")
    inputs = ["-c", str(text), "-s" if flags[0] == "faithfulness" else "-r", str(text)]
    assert main([*flags, *inputs]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err

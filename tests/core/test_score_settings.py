"""The keywords a type checker knows (ScoreSettings) are exactly the settings ScoreConfig takes, with their
choices: a setting added to ScoreConfig without its keyword fails here, not in a user's type check."""

from __future__ import annotations

import typing

from bertscore_plugins.core.score_config import (
    DTYPES,
    LONG_TEXT_POLICIES,
    MULTI_REF_RULES,
    QUANTIZE_MODES,
    UPSTREAM_NO_EFFECT,
    UPSTREAM_RENAMES,
    setting_names,
)
from bertscore_plugins.core.score_settings import ScoreSettings


def test_the_keywords_are_the_settings_and_bert_scores_names_for_them():
    assert ScoreSettings.__required_keys__ == frozenset()
    assert ScoreSettings.__optional_keys__ == {*setting_names(), *UPSTREAM_RENAMES, *UPSTREAM_NO_EFFECT}


def test_the_keywords_with_choices_name_exactly_those_choices():
    hints = typing.get_type_hints(ScoreSettings)
    assert typing.get_args(hints["long_text"]) == LONG_TEXT_POLICIES
    assert typing.get_args(hints["multi_ref"]) == MULTI_REF_RULES
    assert typing.get_args(hints["dtype"]) == DTYPES
    quantize, none = typing.get_args(hints["quantize"])
    assert typing.get_args(quantize) == QUANTIZE_MODES and none is type(None)

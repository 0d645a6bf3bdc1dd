"""Settings are checked once, strictly, in ScoreConfig: a bool is a bool, an int is not a bool, numbers in range.

Every entry point builds a ScoreConfig, so these errors are the same from score(), evaluate, datasets,
Ray, Phoenix evaluators and the CLI.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bertscore_plugins import ScoreConfig, get_scorer
from bertscore_plugins.errors import SettingError

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

FLAGS = ("rescale", "allow_pickle_weights")
WHOLE_NUMBERS = {"layer": 0, "max_length": 3, "window_stride": 1, "batch_tokens": 1, "chunk_pairs": 1}


@pytest.mark.parametrize("name", FLAGS)
@pytest.mark.parametrize("value", ["false", "no", "True", "", 0, 1, None, np.bool_(True), 1.0])
def test_safety_flags_take_only_true_or_false(name, value):
    with pytest.raises(SettingError) as caught:
        ScoreConfig(**{name: value})
    assert caught.value.setting == name
    assert str(caught.value) == f"{name} must be True or False, got {type(value).__name__} {value!r}"


def test_a_pickle_flag_given_as_the_string_false_never_reaches_the_loader():
    # the failure is in the configuration: no model is resolved, let alone a pickle loaded
    with pytest.raises(SettingError, match="allow_pickle_weights must be True or False, got str 'false'"):
        get_scorer(allow_pickle_weights="false")


@pytest.mark.parametrize("name", sorted(WHOLE_NUMBERS))
@pytest.mark.parametrize("value", [True, False, 4.0, "4", float("nan"), float("inf"), np.float32(4)])
def test_whole_number_settings_refuse_bools_floats_and_strings(name, value):
    with pytest.raises(SettingError) as caught:
        ScoreConfig(**{name: value})
    assert caught.value.setting == name
    assert f"{name} must be" in str(caught.value) and repr(value) in str(caught.value)


@pytest.mark.parametrize("name", sorted(WHOLE_NUMBERS))
def test_whole_number_settings_refuse_values_below_their_range(name):
    smallest = WHOLE_NUMBERS[name]
    with pytest.raises(SettingError, match=f"{name} must be .*got {smallest - 1}$"):
        ScoreConfig(**{name: smallest - 1})
    assert getattr(ScoreConfig(**{name: smallest}), name) == smallest


def test_batch_tokens_true_is_refused_not_taken_as_one():
    with pytest.raises(SettingError, match="batch_tokens must be a positive integer or None, got bool True"):
        ScoreConfig(batch_tokens=True)


def test_numpy_integers_are_taken_as_plain_ints():
    config = ScoreConfig(layer=np.int64(3), batch_tokens=np.int32(2048))
    assert type(config.layer) is int and config.layer == 3
    assert type(config.batch_tokens) is int and config.batch_tokens == 2048
    assert config == ScoreConfig(layer=3, batch_tokens=2048) and hash(config) == hash(
        ScoreConfig(layer=3, batch_tokens=2048)
    )


@pytest.mark.parametrize(
    ("settings", "setting", "message"),
    [
        ({"idf": "true"}, "idf", "idf must be False, True (fit on the references) or an IdfTable, got str"),
        ({"idf": 1}, "idf", "idf must be False, True (fit on the references) or an IdfTable, got int"),
        ({"model": ""}, "model", "model must be a non-empty string, got ''"),
        ({"model": None}, "model", "model must be a non-empty string, got None"),
        ({"lang": 5}, "lang", "lang must be a non-empty string, got 5"),
        ({"dtype": "fp32"}, "dtype", "dtype must be one of ('float32', 'bfloat16', 'float16'), got 'fp32'"),
        (
            {"long_text": ["window"]},
            "long_text",
            "long_text must be one of ('truncate', 'window'), got ['window']",
        ),
        ({"multi_ref": "min"}, "multi_ref", "multi_ref must be one of ('max', 'best_f1'), got 'min'"),
        ({"quantize": "int4"}, "quantize", "quantize must be one of (None, 'int8'), got 'int4'"),
        ({"baseline_path": 3}, "baseline_path", "baseline_path must be a path (str) or None, got 3"),
        ({"device": 0}, "device", "device must be a string such as 'cpu' or 'cuda:0', got 0"),
    ],
)
def test_other_settings_name_themselves_and_the_value(settings, setting, message):
    with pytest.raises(SettingError) as caught:
        ScoreConfig(**settings)
    assert caught.value.setting == setting and str(caught.value).startswith(message)


def test_setting_error_is_both_a_type_and_a_value_error():
    for kind in (TypeError, ValueError):
        with pytest.raises(kind):
            ScoreConfig(rescale="yes")


def test_replace_checks_again():
    with pytest.raises(SettingError, match="rescale must be True or False"):
        ScoreConfig().replace(rescale="no")


def test_a_path_object_is_kept_as_its_string(tmp_path):
    config = ScoreConfig(baseline_path=tmp_path / "b.tsv")
    assert config.baseline_path == str(tmp_path / "b.tsv")


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=4))
)
def test_any_value_for_a_flag_is_either_a_bool_or_refused(value):
    try:
        config = ScoreConfig(rescale=value, allow_pickle_weights=value)
    except SettingError as error:
        assert type(value) is not bool and error.setting == "rescale"
    else:
        assert type(value) is bool and config.rescale is value and config.allow_pickle_weights is value


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=True), st.text(max_size=3)
    )
)
def test_any_value_for_batch_tokens_is_a_positive_int_none_or_refused(value):
    try:
        config = ScoreConfig(batch_tokens=value)
    except SettingError as error:
        assert error.setting == "batch_tokens"
        assert value is not None and (type(value) is not int or value < 1)
    else:
        assert value is None or (type(value) is int and value >= 1 and config.batch_tokens == value)


# ------------------------------------------------ settings checked against the loaded model, up front


def test_max_length_beyond_the_position_embeddings_is_refused_before_scoring():
    with pytest.raises(SettingError) as caught:
        get_scorer(max_length=513)
    assert caught.value.setting == "max_length"
    assert str(caught.value) == (
        "max_length=513 is beyond model 'all-MiniLM-L6-v2''s 512 position embeddings; "
        "use max_length <= 512 (or None for the model's limit)"
    )
    assert get_scorer(max_length=512).tokenizer.max_length == 512


def test_layer_beyond_the_model_names_the_range():
    with pytest.raises(
        SettingError, match="layer must be between 0 and 6 for model 'all-MiniLM-L6-v2', got 99"
    ) as caught:
        get_scorer(layer=99)
    assert caught.value.setting == "layer"


@pytest.mark.parametrize(
    ("layers", "message"),
    [
        ([], "layers is empty: pass at least one of 0..6, or None for all"),
        ([7], "layers must hold layer numbers 0..6 of model 'all-MiniLM-L6-v2', got 7"),
        ([-1], "layers must hold layer numbers 0..6 of model 'all-MiniLM-L6-v2', got -1"),
        ([True], "layers must hold layer numbers 0..6 of model 'all-MiniLM-L6-v2', got True"),
        ([2.0], "layers must hold layer numbers 0..6 of model 'all-MiniLM-L6-v2', got 2.0"),
        ("12", "layers must be a list of layer numbers, got '12'"),
    ],
)
def test_score_layers_refuses_bad_layer_lists(layers, message):
    with pytest.raises(SettingError) as caught:
        get_scorer().score_layers(["a cat"], ["a cat"], layers=layers)
    assert caught.value.setting == "layers" and str(caught.value) == message


def test_score_layers_takes_numpy_layer_numbers():
    by_layer = get_scorer().score_layers(["a cat sat"], ["a cat sat"], layers=np.array([2, 1]))
    assert sorted(by_layer) == [1, 2]
    assert by_layer[2].f1[0] == pytest.approx(1.0, abs=1e-6)

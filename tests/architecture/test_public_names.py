"""The package's public names are a decision, not an accident: pinned here, each resolving, each warning
filterable by one base class."""

from __future__ import annotations

import importlib
import pkgutil
import warnings

import pytest

import bertscore_plugins
from bertscore_plugins.errors import BertScorePluginsError, BertScorePluginsWarning

PUBLIC = [
    "BERTScorer",
    "BaselineNotFoundError",
    "BertScorePluginsError",
    "BertScorePluginsWarning",
    "DEFAULT_MODEL",
    "EmptyTextWarning",
    "Explanation",
    "FileFormatError",
    "IdfFallbackWarning",
    "IdfTable",
    "InputError",
    "ModelLoadError",
    "OfflineFaithfulness",
    "ScoreConfig",
    "Scores",
    "SettingError",
    "Signature",
    "SignatureMismatch",
    "TokenMatch",
    "TruncationWarning",
    "UnknownTokenWarning",
    "bootstrap_interval",
    "compare_systems",
    "corpus_intervals",
    "fit_idf",
    "get_scorer",
    "offline_faithfulness",
    "paired_test",
    "run_sanity",
    "score",
    "setting_names",
]


def test_the_public_names_are_exactly_these():
    assert bertscore_plugins.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_resolves_from_the_module_that_defines_it(name):
    value = getattr(bertscore_plugins, name)
    assert value is not None
    if isinstance(value, type):
        assert getattr(importlib.import_module(value.__module__), name) is value


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'scroe'"):
        bertscore_plugins.scroe  # noqa: B018


def _warning_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(bertscore_plugins.__path__, "bertscore_plugins."):
        if ".metric_card" in info.name or info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Warning) and value.__module__ == info.name
        ]
    return found


def test_every_warning_class_of_the_package_derives_from_one_base():
    classes = _warning_classes()
    assert len(classes) >= 9  # empty text, truncation, idf, unknown tokens, cache x2, store, layer, digest
    assert [cls.__name__ for cls in classes if not issubclass(cls, BertScorePluginsWarning)] == []
    assert issubclass(BertScorePluginsWarning, UserWarning)
    assert not issubclass(BertScorePluginsWarning, BertScorePluginsError)


def test_one_filter_silences_the_package_warnings_and_no_other():
    from bertscore_plugins.core.report import EmptyTextWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=BertScorePluginsWarning)
        warnings.warn("empty", EmptyTextWarning, stacklevel=1)
        warnings.warn("someone else's", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["someone else's"]

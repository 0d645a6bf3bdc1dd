"""bertscore_plugins: exact, fast BERTScore with one shared core.

    >>> from bertscore_plugins import score
    >>> scores = score(["The patient left on Tuesday."], ["The patient was discharged on Tuesday."])
    >>> scores.f1, scores.signature

The core (this package's top-level modules) imports only torch, transformers and numpy. Integrations
live in their own modules and extras: hf_evaluate / hf_datasets ([evaluate]), phoenix ([phoenix]),
ray ([ray]).
"""

from typing import TYPE_CHECKING, Any

#: public name -> the module that defines it. Imported on first use (PEP 562), so the command line can
#: refuse a bad flag or a misspelt model name before torch and transformers are loaded (about 2 s).
_EXPORTS = {
    "BaselineNotFoundError": "bertscore_plugins.errors",
    "BertScorePluginsError": "bertscore_plugins.errors",
    "FileFormatError": "bertscore_plugins.errors",
    "InputError": "bertscore_plugins.errors",
    "ModelLoadError": "bertscore_plugins.errors",
    "SettingError": "bertscore_plugins.errors",
    "SignatureMismatch": "bertscore_plugins.errors",
    "compare_systems": "bertscore_plugins.comparison",
    "DEFAULT_MODEL": "bertscore_plugins.config",
    "ScoreConfig": "bertscore_plugins.config",
    "setting_names": "bertscore_plugins.config",
    "Explanation": "bertscore_plugins.explain",
    "TokenMatch": "bertscore_plugins.explain",
    "IdfTable": "bertscore_plugins.idf",
    "run_sanity": "bertscore_plugins.sanity",
    "BERTScorer": "bertscore_plugins.scorer",
    "EmptyTextWarning": "bertscore_plugins.scorer",
    "IdfFallbackWarning": "bertscore_plugins.scorer",
    "Scores": "bertscore_plugins.scorer",
    "TruncationWarning": "bertscore_plugins.scorer",
    "UnknownTokenWarning": "bertscore_plugins.scorer",
    "fit_idf": "bertscore_plugins.scorer",
    "get_scorer": "bertscore_plugins.scorer",
    "score": "bertscore_plugins.scorer",
    "Signature": "bertscore_plugins.signature",
    "bootstrap_interval": "bertscore_plugins.stats",
    "corpus_intervals": "bertscore_plugins.stats",
    "paired_test": "bertscore_plugins.stats",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'bertscore_plugins' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from bertscore_plugins.comparison import compare_systems
    from bertscore_plugins.config import DEFAULT_MODEL, ScoreConfig, setting_names
    from bertscore_plugins.errors import (
        BaselineNotFoundError,
        BertScorePluginsError,
        FileFormatError,
        InputError,
        ModelLoadError,
        SettingError,
        SignatureMismatch,
    )
    from bertscore_plugins.explain import Explanation, TokenMatch
    from bertscore_plugins.idf import IdfTable
    from bertscore_plugins.sanity import run_sanity
    from bertscore_plugins.scorer import (
        BERTScorer,
        EmptyTextWarning,
        IdfFallbackWarning,
        Scores,
        TruncationWarning,
        UnknownTokenWarning,
        fit_idf,
        get_scorer,
        score,
    )
    from bertscore_plugins.signature import Signature
    from bertscore_plugins.stats import bootstrap_interval, corpus_intervals, paired_test

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "BERTScorer",
    "BaselineNotFoundError",
    "BertScorePluginsError",
    "EmptyTextWarning",
    "Explanation",
    "FileFormatError",
    "IdfFallbackWarning",
    "IdfTable",
    "InputError",
    "ModelLoadError",
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
    "paired_test",
    "run_sanity",
    "score",
    "setting_names",
]

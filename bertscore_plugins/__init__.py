"""bertscore_plugins: exact, fast BERTScore with one shared core.

    >>> from bertscore_plugins import score
    >>> scores = score(["The patient left on Tuesday."], ["The patient was discharged on Tuesday."])
    >>> scores.f1, scores.signature

The core (this package's top-level modules) imports only torch, transformers and numpy. Integrations
live in their own modules and extras: hf_evaluate / hf_datasets ([evaluate]), phoenix ([phoenix]),
ray ([ray]).
"""

from bertscore_plugins.baseline import BaselineNotFoundError
from bertscore_plugins.comparison import compare_systems
from bertscore_plugins.config import DEFAULT_MODEL, ScoreConfig, SettingError, setting_names
from bertscore_plugins.errors import BertScorePluginsError
from bertscore_plugins.explain import Explanation, TokenMatch
from bertscore_plugins.files import FileFormatError
from bertscore_plugins.idf import IdfTable
from bertscore_plugins.inputs import InputError
from bertscore_plugins.models import ModelLoadError
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
from bertscore_plugins.signature import Signature, SignatureMismatch
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

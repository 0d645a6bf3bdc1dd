"""bertscore_plugins: exact, fast BERTScore with one shared core.

    >>> from bertscore_plugins import score
    >>> scores = score(["The patient left on Tuesday."], ["The patient was discharged on Tuesday."])
    >>> scores.f1, scores.signature

The folders are the tiers, each built only on the ones before it: errors/settings/files/inputs (shared
by all), models/ (where the encoder comes from), core/ (text -> tokens -> embeddings -> matches -> scores),
facts/ (the fact check: English text analysis), faithfulness/ (the offline faithfulness
signal), analysis/ (statistics, comparison, sanity), evaluation/ (one batch of rows
through every signal), integrations/ (evaluate, datasets, Ray, bert_score's API, Phoenix), cli/.
The core imports only torch, transformers and numpy; each integration lives behind its own extra.
"""

from typing import Any

from bertscore_plugins import _moved

_moved.install()  # 0.1 module paths (bertscore_plugins.scorer, .phoenix, ...) keep working, with a warning

#: public name -> the module that defines it. Imported on first use (PEP 562), so the command line can
#: refuse a bad flag or a misspelt model name before torch and transformers are loaded (about 2 s).
_EXPORTS = {
    "BaselineNotFoundError": "bertscore_plugins.errors",
    "BertScorePluginsError": "bertscore_plugins.errors",
    "BertScorePluginsWarning": "bertscore_plugins.errors",
    "FileFormatError": "bertscore_plugins.errors",
    "InputError": "bertscore_plugins.errors",
    "ModelLoadError": "bertscore_plugins.errors",
    "SettingError": "bertscore_plugins.errors",
    "SignatureMismatch": "bertscore_plugins.errors",
    "compare_systems": "bertscore_plugins.analysis.comparison",
    "DEFAULT_MODEL": "bertscore_plugins.core.score_config",
    "OfflineFaithfulness": "bertscore_plugins.faithfulness.result",
    "offline_faithfulness": "bertscore_plugins.faithfulness.scoring",
    "ScoreConfig": "bertscore_plugins.core.score_config",
    "setting_names": "bertscore_plugins.core.score_config",
    "Explanation": "bertscore_plugins.core.explain",
    "TokenMatch": "bertscore_plugins.core.explain",
    "IdfTable": "bertscore_plugins.core.idf",
    "run_sanity": "bertscore_plugins.analysis.sanity",
    "BERTScorer": "bertscore_plugins.core.scorer",
    "EmptyTextWarning": "bertscore_plugins.core.scorer",
    "IdfFallbackWarning": "bertscore_plugins.core.scorer",
    "Scores": "bertscore_plugins.core.scorer",
    "TruncationWarning": "bertscore_plugins.core.scorer",
    "UnknownTokenWarning": "bertscore_plugins.core.scorer",
    "fit_idf": "bertscore_plugins.core.scorer",
    "get_scorer": "bertscore_plugins.core.scorer",
    "score": "bertscore_plugins.core.scorer",
    "Signature": "bertscore_plugins.core.signature",
    "bootstrap_interval": "bertscore_plugins.analysis.stats",
    "corpus_intervals": "bertscore_plugins.analysis.stats",
    "paired_test": "bertscore_plugins.analysis.stats",
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


__version__ = "0.1.0"

#: the public names: exactly the keys of _EXPORTS, their one source (tests/test_public_names.py pins them)
__all__ = sorted(_EXPORTS)

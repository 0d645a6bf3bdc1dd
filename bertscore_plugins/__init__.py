"""bertscore_plugins: exact, fast BERTScore with one shared core.

    >>> from bertscore_plugins import score
    >>> scores = score(["The patient left on Tuesday."], ["The patient was discharged on Tuesday."])
    >>> scores.f1, scores.signature

The folders are the tiers, each built only on the ones before it: errors/settings/files/inputs (shared
by all), models/ (where the encoder comes from), core/ (text -> tokens -> embeddings -> matches -> scores),
facts/ (the fact check: English text analysis), faithfulness/ (the offline faithfulness
signal), analysis/ (statistics, comparison, sanity), evaluation/ (one batch of rows
through every signal), integrations/ (evaluate, datasets, Ray, bert_score's API, Phoenix), tools/ (the
Phoenix server launcher), judge/ (the LLM judge, its server and launcher), cli/. The core imports only
torch, transformers and numpy; each integration lives behind its own extra.

Each public name has one import path: the scoring API below is imported from here; the exception tree
from ``bertscore_plugins.errors``; offline faithfulness from ``bertscore_plugins.faithfulness``; each
integration from its module under ``bertscore_plugins.integrations``.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# What a type checker reads (`X as X`: an explicit re-export, PEP 484). At run time each name is imported
# from its module on first use (PEP 562, below), so `import bertscore_plugins` and the command line's
# refusal of a bad flag stay free of torch and transformers (about 2 s).
if TYPE_CHECKING:
    from bertscore_plugins.analysis.comparison import compare_systems as compare_systems
    from bertscore_plugins.analysis.sanity import run_sanity as run_sanity
    from bertscore_plugins.analysis.stats import bootstrap_interval as bootstrap_interval
    from bertscore_plugins.analysis.stats import corpus_intervals as corpus_intervals
    from bertscore_plugins.analysis.stats import paired_test as paired_test
    from bertscore_plugins.core.explain import Explanation as Explanation
    from bertscore_plugins.core.idf import IdfTable as IdfTable
    from bertscore_plugins.core.row_warnings import EmptyTextWarning as EmptyTextWarning
    from bertscore_plugins.core.row_warnings import IdfFallbackWarning as IdfFallbackWarning
    from bertscore_plugins.core.row_warnings import TruncationWarning as TruncationWarning
    from bertscore_plugins.core.row_warnings import UnknownTokenWarning as UnknownTokenWarning
    from bertscore_plugins.core.score_config import DEFAULT_MODEL as DEFAULT_MODEL
    from bertscore_plugins.core.score_config import ScoreConfig as ScoreConfig
    from bertscore_plugins.core.score_config import setting_names as setting_names
    from bertscore_plugins.core.scorer import BERTScorer as BERTScorer
    from bertscore_plugins.core.scorer import fit_idf as fit_idf
    from bertscore_plugins.core.scorer import get_scorer as get_scorer
    from bertscore_plugins.core.scorer import score as score
    from bertscore_plugins.core.scores import Scores as Scores
    from bertscore_plugins.core.signature import Signature as Signature
    from bertscore_plugins.core.token_match import TokenMatch as TokenMatch

#: module -> the public names it defines: the same imports as above, for run time (a test checks the two agree)
_HOMES = {
    "bertscore_plugins.analysis.comparison": ("compare_systems",),
    "bertscore_plugins.analysis.sanity": ("run_sanity",),
    "bertscore_plugins.analysis.stats": ("bootstrap_interval", "corpus_intervals", "paired_test"),
    "bertscore_plugins.core.explain": ("Explanation",),
    "bertscore_plugins.core.idf": ("IdfTable",),
    "bertscore_plugins.core.row_warnings": (
        "EmptyTextWarning",
        "IdfFallbackWarning",
        "TruncationWarning",
        "UnknownTokenWarning",
    ),
    "bertscore_plugins.core.score_config": ("DEFAULT_MODEL", "ScoreConfig", "setting_names"),
    "bertscore_plugins.core.scorer": ("BERTScorer", "fit_idf", "get_scorer", "score"),
    "bertscore_plugins.core.scores": ("Scores",),
    "bertscore_plugins.core.signature": ("Signature",),
    "bertscore_plugins.core.token_match": ("TokenMatch",),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_MODULE_OF)

if not TYPE_CHECKING:  # hidden from checkers: to them a misspelt name is an error, not Any

    def __getattr__(name: str) -> Any:
        if name not in _MODULE_OF:
            raise AttributeError(f"module 'bertscore_plugins' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_MODULE_OF})

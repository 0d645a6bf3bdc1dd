"""Module paths of version 0.1 that moved when the package was split into tiers (core, models, facts,
analysis, evaluation, integrations, cli): importing an old path gives the module at its new home, with a
DeprecationWarning naming it. One table, one import hook; no stub files at the old paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old path (under bertscore_plugins) -> new path; a package's submodules move with it unless listed
MOVED = {
    "baseline": "core.baseline",
    "comparison": "analysis.comparison",
    "commands": "cli",
    "compat": "integrations.compat",
    "config": "core.score_config",
    "core.config": "core.score_config",
    "evaluation.config": "evaluation.evaluation_config",
    "facts.names": "facts.entities",
    "integrations.phoenix.judge": "integrations.phoenix.phoenix_judge",
    "models.names": "models.model_names",
    "embed": "core.embed",
    "facts.entailment": "faithfulness.entailment_model",
    "facts.markup": "faithfulness.reading",
    "facts.parts": "faithfulness.parts",
    "facts.passages": "faithfulness.passages",
    "facts.sentence_entailment": "faithfulness.sentence_entailment",
    "facts.signal": "faithfulness.combination",
    "explain": "core.explain",
    "hf_datasets": "integrations.hf_datasets",
    "hf_evaluate": "integrations.hf_evaluate",
    "idf": "core.idf",
    "match": "core.match",
    "model_checks": "models.checks",
    "model_identity": "models.identity",
    "model_names": "models.names",
    "model_objects": "models.objects",
    "multi_reference": "core.multi_reference",
    "phoenix": "integrations.phoenix",
    "phoenix.batch": "evaluation.batch",
    "phoenix.dev_server": "tools.phoenix_server",
    "phoenix.disagreement": "integrations.phoenix.evaluators",
    "phoenix.evaluation_config": "evaluation.evaluation_config",
    "phoenix.names": "evaluation.names",
    "phoenix.judge": "integrations.phoenix.phoenix_judge",
    "phoenix.pipeline": "integrations.phoenix.evaluators",
    "phoenix.span_annotations": "integrations.phoenix.annotation_sink",
    "phoenix.spans": "integrations.phoenix.span_source",
    "presets": "models.presets",
    "progress": "core.progress",
    "ray": "integrations.ray",
    "reference_cache": "core.reference_cache",
    "sanity": "analysis.sanity",
    "scorer": "core.scorer",
    "signature": "core.signature",
    "stats": "analysis.stats",
    "tokenize": "core.tokenize",
}
_PACKAGE = __name__.rpartition(".")[0]
#: (old module, name) -> the module that now defines the name: the offline signal left facts/ in 0.2
MOVED_NAMES = {
    **{
        ("facts", name): "faithfulness"
        for name in (
            "CHUNK_ROWS",
            "CONTEXT_SEPARATOR",
            "FAITHFUL",
            "UNFAITHFUL",
            "OfflineFaithfulness",
            "as_read",
            "check_facts",
            "entailment_of_rows",
            "evaluate_pair",
            "offline_faithfulness",
            "offline_scorer",
            "signature",
        )
    },
    ("facts", "Parts"): "faithfulness.parts",
    ("facts", "DEFAULT_GROUNDEDNESS_THRESHOLD"): "thresholds",
    ("facts", "FAITHFULNESS_THRESHOLD"): "thresholds",
}


def new_path(old: str) -> str | None:
    """The new dotted path of an old one (both absolute), or None when ``old`` did not move."""
    relative = old[len(_PACKAGE) + 1 :] if old.startswith(_PACKAGE + ".") else None
    if relative is None:
        return None
    if relative in MOVED:
        return f"{_PACKAGE}.{MOVED[relative]}"
    parent, _, leaf = relative.rpartition(".")
    if parent in MOVED:  # a submodule of a moved package, under the same name
        return f"{_PACKAGE}.{MOVED[parent]}.{leaf}"
    return None


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object = None, target: object = None):
        new = new_path(fullname)
        if new is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        spec.loader_state = new
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {spec.loader_state}; the old path works in 0.x and will be removed",
            DeprecationWarning,
            stacklevel=3,
        )
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = (module, module.__spec__)
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set module.__spec__ to the old path's spec; the module keeps its own
        module.__spec__ = module.__spec__.loader_state[1]


def install() -> None:
    """Put the old-path hook first on sys.meta_path, once."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())


def moved_name(module: str, name: str) -> object:
    """A module's ``__getattr__`` for names that moved out of it: the value from its new home, with a
    DeprecationWarning naming both; AttributeError for any other name."""
    relative = module[len(_PACKAGE) + 1 :]
    home = MOVED_NAMES.get((relative, name))
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} moved to {_PACKAGE}.{home}; the old name works in 0.x and will be removed",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(f"{_PACKAGE}.{home}"), name)

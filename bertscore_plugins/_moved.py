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
    "config": "core.config",
    "embed": "core.embed",
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
    "phoenix.evaluation_config": "evaluation.config",
    "phoenix.names": "evaluation.names",
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

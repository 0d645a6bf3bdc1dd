"""Optional extras a test module needs, looked up when the module is collected and imported when first used.

Every xdist worker collects every test module, but runs only the files it is handed: a module-level
``import evaluate`` cost each worker 4.4 CPU s at collection (bert_score with matplotlib 2.2 s, ray and
phoenix 1.4 s), though only the worker running that file uses it. ``extra("evaluate", reason)`` skips the
module where the extra is absent, as ``pytest.importorskip`` did, and imports it on first attribute access.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

import pytest


class Extra:
    """A module imported on first attribute access (``evaluate.load(...)``)."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str) -> Any:
        # pytest probes every module global for fixture markers (`_pytestfixturefunction`, `__test__`, ...):
        # those would import the extra at collection, so private names are not forwarded
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        return getattr(self.module, attribute)

    def __repr__(self) -> str:
        return f"<extra {self._name!r}, imported on first use>"


def extra(name: str, reason: str | None = None) -> Any:
    """`name` imported on first use; the calling test module is skipped where it is not installed."""
    if importlib.util.find_spec(name) is None:
        pytest.skip(reason or f"{name} is not installed", allow_module_level=True)
    return Extra(name)

"""The process-wide scorers: one per (configuration, model identity), built once, shared by every call.

Keyed by the model's identity as well as the configuration, so a checkpoint rewritten in place is a new
scorer (the model cache, models.load.get_model, does the same for loaded models).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.models.resolve import ModelSource, resolve_model

Scorer = TypeVar("Scorer")


class ScorerCache(Generic[Scorer]):
    """Scorers by (configuration, model identity); `build` makes one for a configuration and its model."""

    def __init__(self, build: Callable[[ScoreConfig, ModelSource], Scorer]) -> None:
        self._build = build
        self._scorers: dict[tuple[ScoreConfig, str], Scorer] = {}
        self._lock = threading.Lock()

    def get(self, config: ScoreConfig) -> Scorer:
        source = resolve_model(config.model, config.lang)  # once per call: its identity is part of the key
        key = (config, source.identity)
        with self._lock:
            if key not in self._scorers:
                self._scorers[key] = self._build(config, source)
            return self._scorers[key]

    def clear(self) -> None:
        with self._lock:
            self._scorers.clear()

"""What each signal's stored cells are kept under: the settings that change that signal, and nothing else.

A stored cell is reused while its key is the same, so each signal's key names exactly what its cells depend on:

- similarity: the core's settings and the scorer's signature (model weights, library versions), and where a
  span's reference is read from (a span's id does not change when its reference does);
- groundedness: the core's settings and the scorer's signature;
- offline faithfulness: those, and the offline signal's own signature (its weights);
- the judge: its name, model (with its prompt), base URL, and which rows it reads (``judge_rows``; with
  "unsettled" the offline cells settle rows, so the offline key too);
- the disagreement: everything (it reads the others), thresholds left out as for all of them.

Thresholds are in no key: a label is a score read against a threshold, so new thresholds relabel stored
cells (:mod:`.labels`) without a model. So a mistyped judge model fixed on the rerun asks only the judge, a new
threshold computes nothing, and a new model scores every BERTScore signal again.

    >>> keys = store_keys(EvaluationConfig(), "all-MiniLM-L6-v2|...")
    >>> keys.of("bertscore") == store_keys(EvaluationConfig(similarity_threshold=0.5), "all-MiniLM-L6-v2|...").of("bertscore")
    True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.settings import signed_names

if TYPE_CHECKING:
    from bertscore_plugins.evaluation.judge import Judge

#: the settings a span's reference comes from (the similarity's input where a row's id is a span id)
_REFERENCE_SOURCE = ("reference_key", "reference_dataset", "example_id_key", "reference_field")


@dataclass(frozen=True)
class StoreKeys:
    """``{signal name: key}``: the store's ``configuration`` column of each signal's cells."""

    by_name: Mapping[str, str]

    def of(self, name: str) -> str:
        """The key of signal ``name`` (ArgumentError for a signal the configuration does not have)."""
        try:
            return self.by_name[name]
        except KeyError:
            raise ArgumentError(
                f"no store key for signal {name!r} (keys for {sorted(self.by_name)})"
            ) from None

    @classmethod
    def one(cls, key: str, names: tuple[str, ...]) -> StoreKeys:
        """One key for every signal (a store written under one configuration id)."""
        return cls({name: key for name in names})


def store_keys(config: EvaluationConfig, scorer_signature: str) -> StoreKeys:
    """Each signal's key under ``config``, run by the scorer whose signature is ``scorer_signature``."""
    from bertscore_plugins.faithfulness import signature as offline_signature

    core = "|".join(f"{name}={getattr(config.score, name)!r}" for name in signed_names(ScoreConfig))
    scores = f"score:{core} scorer:{scorer_signature}"
    reference = "|".join(f"{name}={getattr(config, name)!r}" for name in _REFERENCE_SOURCE)
    keys = {
        config.similarity_name: _key("similarity", config.similarity_name, scores, reference),
        config.groundedness_name: _key("groundedness", config.groundedness_name, scores),
        config.offline_name: _key("offline", config.offline_name, scores, offline_signature()),
    }
    if config.judge is not None:
        settled_by = keys[config.offline_name] if config.judge_rows == "unsettled" else ""
        keys[config.judge.name] = _key(
            "judge", judge_identity(config.judge), f"rows={config.judge_rows}", settled_by
        )
    # the disagreement reads the others' cells: their keys, and its own settings (what it reads, its names)
    keys[config.disagreement_name] = _key(
        "disagreement", _without_thresholds(config).signature, *(keys[name] for name in sorted(keys))
    )
    return StoreKeys(keys)


def scorer_identity(score: ScoreConfig) -> str:
    """What the scorer of ``score`` would sign its numbers with, known without loading it: the signed
    settings, the model's identity (its files' digests, :func:`~bertscore_plugins.models.resolve.resolve_model`)
    and the library versions. A run whose rows are all stored never loads the model (0.3 s against a
    load of several seconds); the layer, length and baseline the signature adds follow from these."""
    from bertscore_plugins.core.signature import library_versions
    from bertscore_plugins.models.resolve import resolve_model

    versions = ";".join(f"{name}={version}" for name, version in library_versions().items())
    return f"model={resolve_model(score.model, score.lang).identity};{versions}"


def judge_identity(judge: Judge) -> str:
    """What makes a judge's verdicts its own: its signal's name, its model (the judge's ``model`` names
    the prompt too) and where it is asked (its endpoint's base URL, when it has one)."""
    endpoint = getattr(judge, "endpoint", None)
    where = getattr(endpoint, "base_url", None) or getattr(judge, "base_url", None) or ""
    return f"{judge.name}|{judge.model}|{where}"


def _without_thresholds(config: EvaluationConfig) -> EvaluationConfig:
    defaults = EvaluationConfig()
    return config.replace(
        similarity_threshold=defaults.similarity_threshold,
        groundedness_threshold=defaults.groundedness_threshold,
        offline_threshold=defaults.offline_threshold,
        faithfulness_threshold=None,
        thresholds_from_data=False,
    )


def _key(signal: str, *parts: str) -> str:
    return f"{signal}-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]

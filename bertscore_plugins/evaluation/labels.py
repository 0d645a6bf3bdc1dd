"""Thresholds re-applied to stored cells: a label is a score read against a threshold, so a new threshold needs no model.

A stored cell keeps its score and what its label rests on besides the threshold (the offline faithfulness: the
fact check's verdict and its own outcome, ``empty`` or ``abstained``, which no threshold changes); the label and
the ``threshold`` in the metadata are read again at the configuration's threshold. The judge's verdict is not a
score against a threshold and is kept as it is; the disagreement is computed again by the engine from the
relabelled cells (:mod:`.pipeline`).

    >>> cell = {"name": "bertscore", "score": 0.88, "label": "similar", "metadata": {"threshold": 0.85}}
    >>> relabel(cell, EvaluationConfig(similarity_threshold=0.9))["label"]
    'dissimilar'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bertscore_plugins.evaluation.cells import usable
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import DISSIMILAR, GROUNDED, SIMILAR, UNGROUNDED
from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL


def relabel(cell: Mapping[str, Any], config: EvaluationConfig) -> dict[str, Any]:
    """``cell`` with its label read at ``config``'s threshold for its signal (a copy; unchanged when the threshold is
    the one it was labelled at, or the signal has no threshold: the judge, the disagreement)."""
    name = cell.get("name")
    thresholds = {
        config.similarity_name: (config.similarity_threshold, SIMILAR, DISSIMILAR),
        config.groundedness_name: (config.groundedness_threshold, GROUNDED, UNGROUNDED),
        config.offline_name: (config.offline_threshold, FAITHFUL, UNFAITHFUL),
    }
    if name not in thresholds or not usable(cell):
        return dict(cell)
    threshold, above, below = thresholds[name]
    metadata = dict(cell.get("metadata") or {})
    if metadata.get("threshold") == threshold:
        return dict(cell)
    passes = float(cell["score"]) >= threshold
    label: str | None = above if passes else below
    if name == config.offline_name:
        if cell.get("label") not in (
            FAITHFUL,
            UNFAITHFUL,
        ):  # its own outcome (empty, abstained): no threshold moves it
            label = cell.get("label")
        elif not _vouched(metadata):
            label = UNFAITHFUL
    return {**cell, "label": label, "metadata": {**metadata, "threshold": threshold}}


def _vouched(metadata: Mapping[str, Any]) -> bool:
    """The fact check read every fact and found none unsupported (the offline label's other condition)."""
    return metadata.get("fact_checked") is True and metadata.get("fact_label") != "unsupported"


def changed(cell: Mapping[str, Any], config: EvaluationConfig) -> bool:
    """Whether ``config``'s threshold gives ``cell`` another label or threshold than it was stored with."""
    return relabel(cell, config) != dict(cell)

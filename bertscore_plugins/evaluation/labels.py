"""Thresholds re-applied to stored cells: a label is a score read against a threshold, so a new threshold needs no model.

A stored cell keeps its score and what its label rests on besides the threshold (the offline faithfulness: the
fact check's verdict; every signal: the row's outcome, ``empty`` or ``abstained``, which has no score and
which no threshold changes);
the label and the ``threshold`` in the metadata are read again at the configuration's threshold. The judge's
verdict is not a score against a threshold and is kept as it is; the disagreement is computed again by the
engine from the relabelled cells (:mod:`.pipeline`).

    >>> metadata = BertScoreMetadata(0.9, 0.86, threshold=0.85, signature="s")
    >>> relabel(Cell("bertscore", 0.88, "similar", None, metadata), EvaluationConfig(similarity_threshold=0.9)).label
    'dissimilar'
"""

from __future__ import annotations

from dataclasses import replace

from bertscore_plugins.evaluation.cells import BertScoreMetadata, Cell, FactCheckMetadata, usable
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import DISSIMILAR, GROUNDED, SIMILAR, UNGROUNDED
from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL
from bertscore_plugins.faithfulness.outcome import OUTCOMES


def relabel(cell: Cell, config: EvaluationConfig) -> Cell:
    """``cell`` with its label read at ``config``'s threshold for its signal (the same cell when the threshold
    is the one it was labelled at, or the signal has no threshold: the judge, the disagreement)."""
    thresholds = {
        config.similarity_name: (config.similarity_threshold, SIMILAR, DISSIMILAR),
        config.groundedness_name: (config.groundedness_threshold, GROUNDED, UNGROUNDED),
        config.offline_name: (config.offline_threshold, FAITHFUL, UNFAITHFUL),
    }
    metadata = cell.metadata
    if cell.name not in thresholds or not isinstance(metadata, (BertScoreMetadata, FactCheckMetadata)):
        return cell
    # the row's own outcome (empty, abstained) has no score: no threshold moves its label
    if cell.label not in OUTCOMES and (cell.score is None or not usable(cell)):
        return cell
    threshold, above, below = thresholds[cell.name]
    grounded = metadata if isinstance(metadata, BertScoreMetadata) else metadata.grounded
    if grounded.threshold == threshold:
        return cell
    label = cell.label
    if cell.label not in OUTCOMES and cell.score is not None:
        label = above if cell.score >= threshold else below
        if isinstance(metadata, FactCheckMetadata) and not metadata.vouched:
            label = UNFAITHFUL
    again = replace(grounded, threshold=threshold)
    new = again if isinstance(metadata, BertScoreMetadata) else replace(metadata, grounded=again)
    return replace(cell, label=label, metadata=new)


def changed(cell: Cell, config: EvaluationConfig) -> bool:
    """Whether ``config``'s threshold gives ``cell`` another label or threshold than it was stored with."""
    return relabel(cell, config) != cell

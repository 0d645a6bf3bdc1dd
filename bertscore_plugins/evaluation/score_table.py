"""The scores table in the user's words: one flat column per signal and part, labels as text, means.

A row's cells (``Score.to_dict()`` dicts, as the engine and the store hold them) become plain columns
beside the user's own: ``bertscore_f1``, ``bertscore_precision``, ``bertscore_recall``,
``groundedness_precision``, ``offline_faithfulness_score`` and its parts (``offline_faithfulness_lexical``,
...), ``faithfulness_score`` (the judge), each signal's ``<name>_label`` and ``<name>_explanation``, and
``sim_faith_disagreement_label``: numbers and texts only, nothing nested, ready for a spreadsheet.

    >>> flat_row({"bertscore": {"name": "bertscore", "score": 0.9, "label": "similar",
    ...                          "metadata": {"precision": 0.92, "recall": 0.88, "threshold": 0.85}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'bertscore_f1': 0.9, 'bertscore_label': 'similar', 'bertscore_precision': 0.92, 'bertscore_recall': 0.88}
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from bertscore_plugins.evaluation.names import GROUNDEDNESS, OFFLINE_FAITHFULNESS, SIMILARITY

#: the part a signal's headline score is (F1 for the similarity, precision for the groundedness)
HEADLINE_PART = {SIMILARITY: "f1", GROUNDEDNESS: "precision"}
#: the signals whose metadata holds parts of their score (the judge's and the disagreement's repeat others')
WITH_PARTS = (SIMILARITY, GROUNDEDNESS, OFFLINE_FAITHFULNESS)
#: the numeric metadata that is a setting, not a part of the row's score
_SETTINGS = {"threshold"}
#: parts a signal's metadata repeats from another signal's cell (the offline cell carries groundedness')
_REPEATED = {OFFLINE_FAITHFULNESS: {"precision", "recall", "f1"}}
#: metadata lists of texts worth a column (the facts the context does not carry)
_TEXT_LISTS = ("unsupported_facts",)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def flat_cell(cell: Mapping[str, Any], *, parts: bool = True) -> dict[str, Any]:
    """One cell as flat columns named ``<name>_<part>``: the headline score, the label, the explanation
    and (``parts``) every numeric part in its metadata and the unsupported facts joined by "; "."""
    name = str(cell.get("name"))
    columns: dict[str, Any] = {}
    if _number(cell.get("score")):
        columns[f"{name}_{HEADLINE_PART.get(name, 'score')}"] = float(cell["score"])
    if isinstance(cell.get("label"), str):
        columns[f"{name}_label"] = cell["label"]
    if isinstance(cell.get("explanation"), str):
        columns[f"{name}_explanation"] = cell["explanation"]
    metadata = cell.get("metadata") or {}
    if parts and isinstance(metadata, Mapping):
        for key, value in metadata.items():
            column = f"{name}_{key}"
            if _number(value) and key not in _SETTINGS | _REPEATED.get(name, set()) and column not in columns:
                columns[column] = float(value)
        for key in _TEXT_LISTS:
            if isinstance(metadata.get(key), list):
                columns[f"{name}_{key}"] = "; ".join(str(item) for item in metadata[key])
    return columns


def flat_row(cells: Mapping[str, Mapping[str, Any]], *, explanations: bool = False) -> dict[str, Any]:
    """A row's cells (``{name: cell}``) as flat columns; the judge's and the disagreement's cells give
    their score and label only (their metadata repeats the other signals'). Explanations are left out
    unless asked for (they are long texts; the report shows them)."""
    columns: dict[str, Any] = {}
    for name, cell in cells.items():
        if not isinstance(cell, Mapping):
            continue
        found = flat_cell(cell, parts=name in WITH_PARTS)
        if not explanations:
            found.pop(f"{cell.get('name')}_explanation", None)
        columns.update(found)
    return dict(sorted(columns.items()))


def summary(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"rows", "means": {column: mean}, "labels": {column: {label: rows}}}`` over flat rows: the mean
    of each numeric column over the rows that have it, the count of each label."""
    rows = list(rows)
    values: dict[str, list[float]] = {}
    labels: dict[str, Counter] = {}
    for row in rows:
        for column, value in row.items():
            if column.endswith("_label") and isinstance(value, str):
                labels.setdefault(column, Counter())[value] += 1
            elif _number(value):
                values.setdefault(column, []).append(float(value))
    return {
        "rows": len(rows),
        "means": {column: sum(found) / len(found) for column, found in sorted(values.items())},
        "labels": {column: dict(sorted(counts.items())) for column, counts in sorted(labels.items())},
    }

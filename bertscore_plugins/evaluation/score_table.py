"""The scores table in the user's words: one flat column per signal and part, labels as text, means.

A row's cells (:class:`~.cells.Cell` values, as the engine and the store hold them) become plain columns
beside the user's own: ``bertscore_f1``, ``bertscore_precision``, ``bertscore_recall``,
``groundedness_precision``, ``offline_faithfulness_score`` and its parts (``offline_faithfulness_lexical``,
...), ``faithfulness_score`` (the judge), each signal's ``<name>_label`` and ``<name>_explanation``, and
``sim_faith_disagreement_label``: numbers and texts only, nothing nested, ready for a spreadsheet. A row that
is no answer to judge (``empty``, ``abstained``) has its outcome as every label and no number at all.

    >>> from bertscore_plugins.evaluation.cells import BertScoreMetadata
    >>> metadata = BertScoreMetadata(precision=0.92, recall=0.88, threshold=0.85, signature="s")
    >>> flat_row({"bertscore": Cell("bertscore", 0.9, "similar", None, metadata)})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'bertscore_f1': 0.9, 'bertscore_label': 'similar', 'bertscore_precision': 0.92, 'bertscore_recall': 0.88}
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.names import GROUNDEDNESS, OFFLINE_FAITHFULNESS, SIMILARITY, column
from bertscore_plugins.faithfulness.outcome import OUTCOMES

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


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: a value of the flat table: a number or a text
Flat = float | str


def flat_cell(cell: Cell, *, parts: bool = True) -> dict[str, Flat]:
    """One cell as flat columns named ``<name>_<part>``: the headline score, the label, the explanation
    and (``parts``) every numeric part in its metadata and the unsupported facts joined by "; " (the flat
    table is one of the three edges where a cell's metadata is read as a dict)."""
    name = cell.name
    columns: dict[str, Flat] = {}
    if cell.score is not None and _number(cell.score):
        columns[column(name, HEADLINE_PART.get(name, "score"))] = float(cell.score)
    if cell.label is not None:
        columns[column(name, "label")] = cell.label
    if cell.explanation is not None:
        columns[column(name, "explanation")] = cell.explanation
    # no answer to judge (empty, abstained) has no score, and no part of one either: no mean reads it
    if parts and cell.label not in OUTCOMES:
        metadata = cell.metadata.to_dict()
        for key, value in metadata.items():
            found = column(name, key)
            if _number(value) and key not in _SETTINGS | _REPEATED.get(name, set()) and found not in columns:
                assert isinstance(value, (int, float))
                columns[found] = float(value)
        for key in _TEXT_LISTS:
            listed = metadata.get(key)
            if isinstance(listed, list):
                columns[column(name, key)] = "; ".join(str(item) for item in listed)
    return columns


def flat_row(cells: Mapping[str, Cell | None], *, explanations: bool = False) -> dict[str, Flat]:
    """A row's cells (``{name: cell}``) as flat columns; the judge's and the disagreement's cells give
    their score and label only (their metadata repeats the other signals'). Explanations are left out
    unless asked for (they are long texts; the report shows them)."""
    columns: dict[str, Flat] = {}
    for name, cell in cells.items():
        if cell is None:
            continue
        found = flat_cell(cell, parts=name in WITH_PARTS)
        if not explanations:
            found.pop(column(cell.name, "explanation"), None)
        columns.update(found)
    return dict(sorted(columns.items()))


def summary(rows: Iterable[Mapping[str, object]]) -> dict[str, object]:
    """``{"rows", "means": {column: mean}, "labels": {column: {label: rows}}, "no_score": {outcome: rows}}``
    over flat rows: the mean of each numeric column over the rows that have it, the count of each label, and
    the rows each mean leaves out because they are no answer to judge (:func:`no_score_rows`)."""
    rows = list(rows)
    values: dict[str, list[float]] = {}
    labels: dict[str, Counter[str]] = {}
    for row in rows:
        for name, value in row.items():
            if name.endswith("_label") and isinstance(value, str):
                labels.setdefault(name, Counter())[value] += 1
            elif isinstance(value, (int, float)) and _number(value):
                values.setdefault(name, []).append(float(value))
    return {
        "rows": len(rows),
        "means": {name: sum(found) / len(found) for name, found in sorted(values.items())},
        "labels": {name: dict(sorted(counts.items())) for name, counts in sorted(labels.items())},
        "no_score": no_score_rows(rows),
    }


def no_score_rows(rows: Iterable[Mapping[str, object]]) -> dict[str, int]:
    """``{outcome: rows}``: the flat rows that are no answer to judge (``empty``, ``abstained`` on a signal's
    label), which have no score on any signal and so are in no mean."""
    found = Counter(
        next((value for name, value in row.items() if name.endswith("_label") and value in OUTCOMES), None)
        for row in rows
    )
    return {outcome: found[outcome] for outcome in OUTCOMES}

"""What a signal says about one row (a cell) and how its run went (execution details), as plain values.

A cell is a dict in the shape ``phoenix.evals.Score.to_dict()`` writes (name, score, label, explanation,
metadata, kind, direction; None values left out) and execution details the shape
``phoenix.evals.evaluate_dataframe`` writes, so every row source and every sink (a DataFrame, the recipe's
table, span annotations) reads the engine's results as it reads Phoenix's, without the engine importing
Phoenix.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

COMPLETED, FAILED, DID_NOT_RUN = "COMPLETED", "FAILED", "DID NOT RUN"


@dataclass(frozen=True)
class Cell:
    """One signal's result for one row (the fields of ``phoenix.evals.Score``, in its order)."""

    name: str
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    kind: str | None = "code"
    direction: str = "maximize"

    def to_dict(self) -> dict[str, Any]:
        """The cell as ``Score.to_dict()`` writes it: every field that is not None."""
        return {key: value for key, value in vars(self).items() if value is not None}


def execution_details(status: str, exceptions: Sequence[str] = (), seconds: float = 0.0) -> dict[str, Any]:
    """``{"status", "exceptions", "execution_seconds"}`` as Phoenix's dataframe evaluation writes them."""
    return {"status": status, "exceptions": list(exceptions), "execution_seconds": seconds}


def completed(seconds: float = 0.0) -> dict[str, Any]:
    return execution_details(COMPLETED, (), seconds)


def failed(reason: str, seconds: float = 0.0) -> dict[str, Any]:
    return execution_details(FAILED, (reason,), seconds)


def usable(cell: Any) -> bool:
    """A cell with a finite numeric score (a failed row's cell is None)."""
    if not isinstance(cell, Mapping):
        return False
    value = cell.get("score")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def row_number(index: Any, position: int) -> str:
    """How errors name a row: its position, and its index when that differs ("3 (index 'q-7')")."""
    return str(position) if index == position else f"{position} (index {index!r})"

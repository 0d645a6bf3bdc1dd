"""Input checks shared by every entry point: each error names the row and the problem."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class InputError(ValueError):
    """Bad candidates or references; the message names the row index and the problem."""


def _describe(value: Any) -> str | None:
    """What is wrong with one text item, or None if it is a string."""
    if isinstance(value, str):
        return None
    if value is None:
        return "is None (a missing value?)"
    if isinstance(value, float) and math.isnan(value):
        return "is NaN (a missing value?)"
    return f"is {type(value).__name__} {value!r:.40}, expected str"


def _as_list(values: Any, name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise InputError(f"{name} must be a list of strings, got a single {type(values).__name__}")
    try:
        return list(values)
    except TypeError:
        raise InputError(f"{name} must be a list, got {type(values).__name__}") from None


def check_candidates(candidates: Any) -> list[str]:
    items = _as_list(candidates, "candidates")
    for row, item in enumerate(items):
        problem = _describe(item)
        if problem:
            raise InputError(f"candidates[{row}] {problem}")
    return items


def check_references(references: Any, expected_rows: int | None = None) -> list[list[str]]:
    """References as one list of strings per row (a plain string becomes a one-item list)."""
    rows = _as_list(references, "references")
    if expected_rows is not None and len(rows) != expected_rows:
        raise InputError(
            f"candidates and references differ in length: {expected_rows} candidates, {len(rows)} references"
        )
    groups = []
    for row, item in enumerate(rows):
        if isinstance(item, str):
            groups.append([item])
            continue
        if item is None or (isinstance(item, float) and math.isnan(item)):
            raise InputError(f"references[{row}] {_describe(item)}")
        if not isinstance(item, Sequence) and not hasattr(item, "tolist"):
            raise InputError(f"references[{row}] {_describe(item)} or a list of str")
        group = list(item.tolist() if hasattr(item, "tolist") else item)
        if not group:
            raise InputError(f"references[{row}] is an empty list: each candidate needs at least one reference")
        for position, text in enumerate(group):
            problem = _describe(text)
            if problem:
                raise InputError(f"references[{row}][{position}] {problem}")
        groups.append(group)
    return groups


def check_pairs(candidates: Any, references: Any) -> tuple[list[str], list[list[str]]]:
    """Validate and normalise a scoring call's inputs."""
    cands = check_candidates(candidates)
    return cands, check_references(references, expected_rows=len(cands))

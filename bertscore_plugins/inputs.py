"""Input checks shared by every entry point: each error names the row and the problem.

The only accepted shapes are: a sequence of str per side (list, tuple, pandas Series, 1-d numpy array,
Arrow array, or a generator/iterator of them), and for references also a sequence of sequences of str
(several references per row). Everything else is refused with the row named, never guessed at:
a mapping would be scored by its keys, a set in arbitrary order, a 0-d numpy string split per character,
bytes would need a decoding we cannot know. A text must be encodable as UTF-8 (lone surrogates such as
"\\ud800" are refused, naming the row and the character position).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeAlias, cast

from bertscore_plugins.errors import InputError


def _describe(value: object) -> str | None:
    """What is wrong with one text item, or None if it is a usable string."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            return (
                f"holds a lone surrogate {value[error.start]!r} at character {error.start}, which is not "
                "valid Unicode text (decode the source with errors='replace' or fix the data)"
            )
        return None
    if value is None:
        return "is None (a missing value?)"
    if isinstance(value, float) and math.isnan(value):
        return "is NaN (a missing value?)"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"is {type(value).__name__}, expected str (decode it first, e.g. value.decode('utf-8'))"
    return f"is {type(value).__name__} {value!r:.40}, expected str"


def text_problem(value: object) -> str | None:
    """What is wrong with one text ("is None (a missing value?)", "holds a lone surrogate ..."), or None."""
    return _describe(value)


def _shape_problem(values: object) -> str | None:
    """Why a container cannot be read as rows, or None when it can."""
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        return f"a single {type(values).__name__}, not one per row"
    if isinstance(values, Mapping):
        return f"a mapping ({type(values).__name__}); its keys would be scored, pass a list of its values"
    if isinstance(values, AbstractSet):
        return f"a {type(values).__name__}, whose order is arbitrary; pass a list"
    if hasattr(values, "columns") and hasattr(values, "iloc"):
        return "a DataFrame; pass one column, e.g. frame['candidate']"
    if getattr(values, "ndim", None) == 0:
        return f"a 0-d array ({type(values).__name__}), not one item per row"
    if not isinstance(values, Iterable):
        return f"{type(values).__name__}, not a list"
    return None


def _rows(values: object, name: str) -> list[object]:
    problem = _shape_problem(values)
    if problem:
        raise InputError(f"{name} must be a list of strings (one per row), got {problem}")
    return _plain_list(values)


def _plain_list(values: object) -> list[object]:
    if hasattr(values, "to_pylist"):  # Arrow arrays: plain Python values, not Arrow scalars
        return values.to_pylist()
    if hasattr(values, "tolist") and hasattr(values, "dtype"):  # numpy arrays, pandas Series: plain str
        return values.tolist()
    return list(cast("Iterable[object]", values))  # _shape_problem found it iterable


def check_candidates(candidates: object) -> list[str]:
    """Candidates as a list of str; raises InputError naming the bad rows (see `refuse_rows`)."""
    items = _rows(candidates, "candidates")
    refuse_rows(
        "candidates", [(row, problem) for row, item in enumerate(items) if (problem := _describe(item))]
    )
    return cast("list[str]", items)  # every item was checked above


#: a row, or (row, position in its group of references)
RowPosition: TypeAlias = "int | tuple[int, int]"
#: rows a message names before "and N more"
SHOWN_ROWS = 3


def refuse_rows(name: str, bad: Sequence[tuple[RowPosition, str]]) -> None:
    """Raise InputError for the `bad` rows ((row label, problem) pairs, in row order), if any.

    One bad row: ``candidates[3] is NaN (a missing value?)``. Several with the first one's problem:
    ``candidates rows 3, 7, 9 and 12 more are NaN (a missing value?)``, so a column with many missing
    values is found in one run, not one row per run; rows with other problems are counted after it.
    """
    if bad:
        error = InputError(rows_message(name, bad))
        error.side, error.bad_rows = name, list(bad)  # for callers that name rows by their own labels
        raise error


def rows_message(name: str, bad: Sequence[tuple[object, str]]) -> str:
    """The message of `refuse_rows` for these (row label, problem) pairs."""
    first_problem = bad[0][1]
    same = [row for row, problem in bad if problem == first_problem]
    if len(same) == 1:
        message = f"{name}{_indexed(same[0])} {first_problem}"
    else:
        shown = ", ".join(
            f"{row[0]} (reference {row[1]})" if isinstance(row, tuple) else str(row)
            for row in same[:SHOWN_ROWS]
        )
        more = f" and {len(same) - SHOWN_ROWS} more" if len(same) > SHOWN_ROWS else ""
        verb, rest = first_problem.split(" ", 1)
        message = f"{name} rows {shown}{more} {_PLURAL.get(verb, verb)} {rest}"
    others = len(bad) - len(same)
    if others:
        row, problem = next((row, problem) for row, problem in bad if problem != first_problem)
        message += f"; {others} more row(s) have other problems, e.g. {name}{_indexed(row)} {problem}"
    return message


def _indexed(row: object) -> str:
    """``[3]`` for a row, ``[3][1]`` for a (row, position in its references) pair."""
    return "".join(f"[{part}]" for part in row) if isinstance(row, tuple) else f"[{row}]"


_PLURAL = {"is": "are", "holds": "hold", "has": "have"}


def check_references(references: object, expected_rows: int | None = None) -> list[list[str]]:
    """References as one list of strings per row (a plain string becomes a one-item list).

    Raises InputError naming the row (and the position within a row's group) that is not a str, or a
    row count that differs from `expected_rows`.
    """
    rows = _rows(references, "references")
    if expected_rows is not None and len(rows) != expected_rows:
        raise InputError(
            f"candidates and references differ in length: {expected_rows} candidates, {len(rows)} references"
        )
    groups: list[list[object]] = []
    bad: list[tuple[RowPosition, str]] = []
    for row, item in enumerate(rows):
        if isinstance(item, str):
            problem = _describe(item)
            bad += [(row, problem)] if problem else []
            groups.append([item])
            continue
        problem = _describe(item) if item is None or isinstance(item, (float, bytes, bytearray)) else None
        if problem is None and _shape_problem(item) is not None:
            problem = f"is {_shape_problem(item)}; expected a str or a list of str"
        group = _plain_list(item) if problem is None else []
        if problem is None and not group:
            problem = "is an empty list: each candidate needs at least one reference"
        bad += [(row, problem)] if problem else []
        bad += [((row, at), problem) for at, text in enumerate(group) if (problem := _describe(text))]
        groups.append(group)
    refuse_rows("references", bad)
    return cast("list[list[str]]", groups)  # every text was checked above


def check_some_rows(candidates: list[str]) -> None:
    """Refuse a call with no rows: `score([], [])` is almost always an upstream bug (an empty file, a filter
    that kept nothing), and a zero-row result would let it pass silently into a mean of nothing."""
    if not candidates:
        raise InputError(
            "candidates and references are empty: no rows to score (pass at least one candidate and "
            "its reference)"
        )


def check_pairs(candidates: object, references: object) -> tuple[list[str], list[list[str]]]:
    """Validate and normalise a scoring call's inputs (see the module docstring for accepted shapes)."""
    cands = check_candidates(candidates)
    return cands, check_references(references, expected_rows=len(cands))

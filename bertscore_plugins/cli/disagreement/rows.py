"""Reading the recipe's input table: CSV, TSV, JSONL, JSON, parquet (read by :mod:`bertscore_plugins.tables`,
as every door reads a table), or a Hugging Face dataset saved to disk.

Whatever the user's column names, :func:`normalise_rows` gives the rows the names the engine reads
(``input``, ``context``, ``output``, ``reference``) plus ``row_id``; the scores table is written with the
user's own table and names (:mod:`.recipe`). A row is named as the user counts it: its id when the table
has an id column, else its data row counted from 1 (the header is not a row).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

import pandas as pd

from bertscore_plugins.errors import ColumnNotFoundError, FileFormatError, InputTableError, UsageError
from bertscore_plugins.evaluation.dataframe import Columns
from bertscore_plugins.faithfulness.reading import context_problem
from bertscore_plugins.tables import Table

TEXT_COLUMNS = ("input", "context", "output", "reference")


def read_table(
    path: str | Path,
    split: str | None = None,
    input_format: str | None = None,
    wanted: Mapping[str, str] = MappingProxyType({}),
) -> pd.DataFrame:
    """Read ``path`` as a DataFrame: a file through the package's one reader (:mod:`bertscore_plugins.tables`,
    its kind by the suffix or `input_format`; ``-`` is standard input), a folder as a ``datasets`` dataset.

    ``wanted``: the columns the recipe reads (name -> its flag); one the file holds twice is refused as ambiguous, a dotted
    one that is no column (``meta.reference``) is added from the nested records it names."""
    import sys

    from bertscore_plugins.tables import read_table as read_file

    if str(path) == "-":
        data = sys.stdin.buffer.read()
        table = _frame(
            read_file("-", "input table", input_format=input_format, data=data, shown="<stdin>"), wanted
        )
    else:
        path = Path(path)
        if not path.exists():
            raise InputTableError(f"input not found: {path}")
        if path.is_dir():
            table = _read_saved_dataset(path, split)
        else:
            table = _frame(_read_file(path, input_format), wanted)
    if len(table) == 0:  # named here, with the file: later steps only know the rows
        raise InputTableError(f"{path}: the table has no rows")
    return table


def _read_file(path: Path, input_format: str | None) -> Table:
    from bertscore_plugins.tables import read_table as read_file

    try:
        return read_file(path, "input table", input_format=input_format)
    except (FileFormatError, UsageError) as error:
        raise InputTableError(str(error)) from None
    except OSError as error:  # a folder, no permission: named by files.read_bytes
        raise InputTableError(str(error)) from None


def _frame(table: Table, wanted: Mapping[str, str]) -> pd.DataFrame:
    """The table's columns as a DataFrame: an empty CSV/TSV cell is a missing value (a CSV cannot hold a
    present empty text), as is a field a JSON record lacks; a second column of the same name gets pandas'
    ``name.1`` (refused when the recipe reads that name)."""
    from bertscore_plugins.tables import MISSING

    if table.kind == "text":
        raise InputTableError(
            f"{table.name}: unknown file type {Path(table.name).suffix!r}; use .csv, .tsv, .jsonl, .json, "
            ".parquet (or --input-format), or a folder written by datasets.Dataset.save_to_disk"
        )
    delimited = table.kind in ("csv", "tsv")

    def cells(values: list[object]) -> list[object]:
        return [None if value is MISSING or (delimited and value == "") else value for value in values]

    names: list[str] = []
    seen: dict[str, int] = {}
    for name in table.names:
        names.append(f"{name}.{seen[name]}" if name in seen else name)
        seen[name] = seen.get(name, 0) + 1
    frame = pd.DataFrame({name: cells(values) for name, values in zip(names, table.cells, strict=True)})
    for name, flag in wanted.items():
        if table.names.count(name) > 1 or (name not in table.names and "." in name):
            try:
                values = table.column(name, "input table", f"{flag} {name}")
            except (UsageError, ColumnNotFoundError) as error:
                if isinstance(error, ColumnNotFoundError):
                    continue  # named by normalise_rows, with the flags
                raise InputTableError(str(error)) from None
            frame[name] = cells(values)
    return frame


def _read_saved_dataset(path: Path, split: str | None) -> pd.DataFrame:
    try:
        from datasets import DatasetDict, load_from_disk
    except ImportError as err:  # pragma: no cover - datasets is in the [datasets] extra
        raise InputTableError(
            f"{path} is a folder: reading a saved Hugging Face dataset needs the "
            "`datasets` package (pip install 'bertscore-plugins[datasets]')"
        ) from err
    try:
        loaded = load_from_disk(str(path))
    except FileNotFoundError as err:
        raise InputTableError(f"{path} is a folder but not a dataset saved with save_to_disk: {err}") from err
    if isinstance(loaded, DatasetDict):
        if split is None:
            if len(loaded) != 1:
                raise InputTableError(f"{path} holds splits {sorted(loaded)}; choose one with --split")
            split = next(iter(loaded))
        if split not in loaded:
            raise InputTableError(f"{path}: no split {split!r}; it has {sorted(loaded)}")
        loaded = loaded[split]
    return loaded.to_pandas()


def normalise_rows(table: pd.DataFrame, columns: Columns, id_column: str | None = "id") -> pd.DataFrame:
    """Rename the user's columns to ``input/context/output/reference``, add ``row_id``, check every cell.

    ``columns`` names the user's column of each field (the DataFrame adapter's :class:`Columns`: ``input``
    is the question); ``id_column`` the optional column of row ids (the row counted from 1 when absent).

    Raises :class:`InputTableError` naming the missing column, or the first bad row and its problem
    (a missing value, a value that is not text, a context with no text: there is nothing to check the
    answer against, and every door of the package refuses it, ``faithfulness.reading.context_problem``).
    An empty CSV cell is a missing value; a present answer with no words is kept (the engine labels it
    ``empty``); a list of strings is accepted as context (passages) and
    as reference (several gold answers).
    """
    mapping = {name: columns.as_dict()[name] for name in TEXT_COLUMNS}
    missing = [f"{user!r} (for {ours})" for ours, user in mapping.items() if user not in table.columns]
    if missing:
        raise InputTableError(
            f"input has no column {', '.join(missing)}; columns are {list(table.columns)}; "
            "name yours with --question-column/--context-column/--output-column/"
            "--reference-column"
        )
    clashes = [ours for ours, user in mapping.items() if ours in table.columns and ours != user]
    rows = table.drop(columns=clashes).rename(columns={user: ours for ours, user in mapping.items()})
    rows = rows.reset_index(drop=True)
    has_ids = bool(id_column and id_column in rows.columns)
    if has_ids:
        row_ids = rows[id_column].astype(str)
        duplicated = row_ids[row_ids.duplicated()]
        if len(duplicated):
            raise InputTableError(
                f"{row_name(int(duplicated.index[0]))}: id {duplicated.iloc[0]!r} appears twice "
                f"in column {id_column!r}"
            )
        rows["row_id"] = row_ids
    else:
        rows["row_id"] = [str(i + 1) for i in range(len(rows))]
    for name in TEXT_COLUMNS:
        rows[name] = [
            _checked_text(
                value, row_name(index, rows["row_id"][index] if has_ids else None), name, mapping[name]
            )
            for index, value in enumerate(rows[name])
        ]
    if rows.empty:
        raise InputTableError("input has no rows")
    return rows


def row_name(position: int, row_id: object = None) -> str:
    """A row as the user counts it: "data row 3" (from 1, the header not counted), with its id when the
    table has an id column ("data row 3 (id 'q-7')")."""
    return f"data row {position + 1}" + (f" (id {row_id!r})" if row_id is not None else "")


def _checked_text(value: object, row: str, ours: str, user: str) -> str | list[str]:
    """The cell as text (or passages / gold answers); a missing cell (no value: null, an absent key, an
    empty CSV cell) is refused naming the row. A present answer with no words ("" in JSON, blank, emoji)
    is not refused here: the engine labels it ``empty``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise InputTableError(f"{row}: column {user!r} is missing a value")
    if ours == "context" and (isinstance(value, str) or _is_list_of_text(value, empty=True)):
        context = value if isinstance(value, str) else [str(item) for item in value]
        problem = context_problem(context)
        if problem:
            raise InputTableError(f"{row}: column {user!r} {problem}")
        return context
    if isinstance(value, str):
        return value
    if ours == "reference" and _is_list_of_text(value):
        return [str(item) for item in value]
    raise InputTableError(f"{row}: column {user!r} must be text, got {type(value).__name__} {value!r:.60}")


def _is_list_of_text(value: object, empty: bool = False) -> TypeGuard[Iterable[Any]]:
    """A list (or tuple, or array) of texts; with ``empty``, no texts at all counts too."""
    if hasattr(value, "tolist"):  # numpy arrays from parquet / datasets
        value = value.tolist()
    return (
        isinstance(value, (list, tuple))
        and (empty or len(value) > 0)
        and all(isinstance(v, str) for v in value)
    )

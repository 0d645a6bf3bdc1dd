"""Reading the recipe's input table: CSV, JSONL, JSON, parquet, or a Hugging Face dataset saved to disk.

Whatever the user's column names, :func:`normalise_rows` gives the rows the names the engine reads
(``input``, ``context``, ``output``, ``reference``) plus ``row_id``; the scores table is written with the
user's own table and names (:mod:`.recipe`). A row is named as the user counts it: its id when the table
has an id column, else its data row counted from 1 (the header is not a row).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeGuard

import pandas as pd

from bertscore_plugins.errors import InputTableError
from bertscore_plugins.evaluation.dataframe import Columns
from bertscore_plugins.faithfulness.reading import context_problem
from bertscore_plugins.files import MAX_JSON_DEPTH, json_too_deep

TEXT_COLUMNS = ("input", "context", "output", "reference")


def read_table(path: str | Path, split: str | None = None) -> pd.DataFrame:
    """Read ``path`` as a DataFrame, choosing the reader from the suffix (a folder = ``datasets`` on disk)."""
    path = Path(path)
    if not path.exists():
        raise InputTableError(f"input not found: {path}")
    table = _read_saved_dataset(path, split) if path.is_dir() else _read_checked_file(path)
    if len(table) == 0:  # named here, with the file: later steps only know the rows
        raise InputTableError(f"{path}: the table has no rows")
    return table


def _read_checked_file(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    try:
        return _read_file(path, suffix)
    except InputTableError:
        raise
    except (
        ValueError,
        OSError,
    ) as error:  # FileFormatError names file:line; pandas/Arrow errors get the path
        message = str(error)
        raise InputTableError(message if message.startswith(str(path)) else f"{path}: {message}") from None


def _read_file(path: Path, suffix: str) -> pd.DataFrame:
    """Text formats go through the project's reader (UTF-8 errors and bad JSON lines name file:line)."""
    import io
    import json

    from bertscore_plugins.files import read_text, split_lines

    if suffix in (".csv", ".tsv"):
        return pd.read_csv(
            io.StringIO(read_text(path, "input table")),
            sep="," if suffix == ".csv" else "\t",
            dtype=str,
            keep_default_na=False,  # "NA", "null" are texts; only an empty cell is a missing value
            na_values=[""],  # (a CSV cannot hold a present empty text: an empty cell is a missing one)
        )
    if suffix in (".jsonl", ".ndjson"):
        records = []
        for number, line in enumerate(split_lines(read_text(path, "input table")), start=1):
            if not line.strip():
                continue
            if json_too_deep(line):
                raise InputTableError(f"{path}:{number}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputTableError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            if not isinstance(record, dict):
                raise InputTableError(
                    f"{path}:{number}: expected a JSON object per line, got {type(record).__name__}"
                )
            records.append(record)
        return pd.DataFrame(records)
    if suffix == ".json":
        text = read_text(path, "input table")
        if json_too_deep(text):
            raise InputTableError(f"{path}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            return pd.DataFrame(json.loads(text))
        except json.JSONDecodeError as error:
            raise InputTableError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
    if suffix in (".parquet", ".pq"):
        import pyarrow as pa

        try:
            return pd.read_parquet(path)
        except pa.ArrowException as error:
            raise InputTableError(f"{path}: not a readable parquet file ({error})") from None
    raise InputTableError(
        f"{path}: unknown file type {suffix!r}; use .csv, .tsv, .jsonl, .json, .parquet "
        "or a folder written by datasets.Dataset.save_to_disk"
    )


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

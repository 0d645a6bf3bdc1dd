"""Texts from a file as users have them: one text per line, or one column of a CSV, TSV, JSON lines or
parquet table. Every failure names the file and the line (or, in parquet, the row counted from 0).

The kind of file is its suffix (``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson``, ``.parquet``/``.pq``);
any other file (``.txt``, standard input) is one text per line, as `files.read_lines` reads it. Such a
file that holds JSON objects is read as JSON lines when a column is named, and refused otherwise: its
raw lines would be scored as text without a word of warning. A table's cell keeps its line breaks (a
quoted CSV cell, a JSON string): a multi-line context stays in its row.

Which column: the one named; a CSV, TSV or parquet table of one column needs no name; otherwise the file
is refused naming the option and listing the columns there are.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

from bertscore_plugins.errors import ColumnNotFoundError, FileFormatError, UsageError
from bertscore_plugins.files import decode, json_too_deep, read_bytes, split_lines

#: suffix -> kind of table; any other file is plain text, one text per line
TABLE_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_KIND_NAMES = {
    "csv": "a CSV table",
    "tsv": "a TSV table",
    "jsonl": "JSON lines",
    "parquet": "a parquet table",
}
#: how many non-empty lines of a plain text file are looked at to tell JSON lines
_SNIFFED_LINES = 5


def table_kind(path: str | Path) -> str:
    """``csv``, ``tsv``, ``jsonl``, ``parquet`` by the file's suffix, else ``text``."""
    return TABLE_SUFFIXES.get(Path(str(path)).suffix.lower(), "text")


def read_texts(
    path: str | Path,
    what: str = "file",
    column: str | None = None,
    *,
    option: str = "--column NAME",
    data: bytes | None = None,
    shown: str | None = None,
) -> list[str]:
    """One text per row of `path`.

    Args:
        path: the file; its suffix says its kind (see the module's docstring).
        what: what the file is, for messages ("-c/--candidates file").
        column: the column holding the texts (tables only; a plain text file ignores it unless it
            holds JSON lines).
        option: the option that names the column, as the refusal that asks for it shows it.
        data: the file's bytes when already read (standard input); `shown` is then its name.

    Raises:
        UsageError: a table (or JSON lines in a plain text file) whose column is not named.
        ColumnNotFoundError: the named column is not in the table (the message lists those there are).
        FileFormatError: a row that cannot be read, or a cell that is no text, naming file and line.
    """
    shown = shown or str(path)
    kind = table_kind(path) if data is None else "text"
    if kind == "parquet":
        return _parquet_column(path, what, column, option)
    text = decode(read_bytes(path, what) if data is None else data, shown)
    if kind == "text":
        lines = split_lines(text)
        if not _looks_like_json_lines(lines):
            return lines
        kind = "jsonl"
        if column is None:
            keys = _json_keys(lines)
            raise UsageError(
                f"{what} {shown} holds JSON lines, not one text per line: its raw lines would be scored "
                f"as text; name the field to score with {option} (fields: {', '.join(keys)})"
            )
    if kind == "jsonl":
        return _json_lines_column(split_lines(text), shown, what, column, option)
    return _delimited_column(text, shown, what, column, option, "," if kind == "csv" else "\t")


def _looks_like_json_lines(lines: Sequence[str]) -> bool:
    """The first non-empty lines are each one JSON object."""
    seen = 0
    for line in lines:
        if not line.strip():
            continue
        if not line.lstrip().startswith("{") or json_too_deep(line):
            return False
        try:
            if not isinstance(json.loads(line), dict):
                return False
        except ValueError:
            return False
        seen += 1
        if seen == _SNIFFED_LINES:
            break
    return seen > 0


def _json_keys(lines: Sequence[str]) -> list[str]:
    first = next(line for line in lines if line.strip())
    return [str(key) for key in json.loads(first)]


def _choose(columns: Sequence[str], column: str | None, shown: str, what: str, kind: str, option: str) -> str:
    """The column to read: the one named, or the only column of a CSV, TSV or parquet table (JSON lines
    always name it: each line may hold other fields)."""
    if column is None:
        if len(columns) == 1 and kind != "jsonl":
            return columns[0]
        raise UsageError(
            f"{what} {shown} is {_KIND_NAMES[kind]}: name the column to score with {option} "
            f"(columns: {', '.join(columns)})"
        )
    if column not in columns:
        raise ColumnNotFoundError(
            f"{what} {shown} has no column {column!r} (columns: {', '.join(columns) or 'none'})"
        )
    return column


def _cell_text(value: object, shown: str, column: str, line: int | None, where: str = "") -> str:
    """A cell's text, or FileFormatError naming the line: a missing value or a number is not a text."""
    if isinstance(value, str):
        return value
    if value is None:
        problem = f"{column} is missing (null){where}"
    else:
        problem = f"{column} is {type(value).__name__} {json.dumps(value)[:40]}, not text{where}"
    raise FileFormatError(shown, problem, line)


def _json_lines_column(lines: list[str], shown: str, what: str, column: str | None, option: str) -> list[str]:
    texts: list[str] = []
    chosen: str | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue  # a blank line (the one a trailing newline leaves) holds no row
        if json_too_deep(line):
            raise FileFormatError(shown, "the JSON nests too deep", number)
        try:
            record = json.loads(line)
        except ValueError as error:
            raise FileFormatError(shown, f"is not JSON ({getattr(error, 'msg', error)})", number) from None
        if not isinstance(record, dict):
            raise FileFormatError(shown, f"holds a JSON {type(record).__name__}, not an object", number)
        if chosen is None:
            chosen = _choose([str(key) for key in record], column, shown, what, "jsonl", option)
        if chosen not in record:
            raise FileFormatError(
                shown, f"has no field {chosen!r} (fields: {', '.join(map(str, record)) or 'none'})", number
            )
        texts.append(_cell_text(record[chosen], shown, chosen, number))
    return texts


def _delimited_column(
    text: str, shown: str, what: str, column: str | None, option: str, delimiter: str
) -> list[str]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    kind = "csv" if delimiter == "," else "tsv"
    try:
        header = next(reader, None)
        if header is None:
            return []
        index = header.index(_choose(header, column, shown, what, kind, option))
        texts = []
        start = reader.line_num + 1  # the line a row starts on (a quoted cell may span lines)
        for row in reader:
            if not row and len(header) > 1:
                raise FileFormatError(shown, f"is empty; the header has {len(header)} columns", start)
            cells = row or [""]  # a blank line in a one-column table: an empty text
            if len(cells) != len(header):
                raise FileFormatError(
                    shown, f"has {len(cells)} cells; the header has {len(header)} columns", start
                )
            texts.append(cells[index])
            start = reader.line_num + 1
    except csv.Error as error:
        raise FileFormatError(shown, f"is not valid {kind.upper()} ({error})", reader.line_num) from None
    return texts


def _parquet_column(path: str | Path, what: str, column: str | None, option: str) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    read_bytes(path, what)  # a missing file, a folder or no permission: named as any other input
    try:
        schema = pq.read_schema(path)
        chosen = _choose(list(schema.names), column, str(path), what, "parquet", option)
        values = pq.read_table(path, columns=[chosen]).column(chosen)
    except (pa.ArrowException, OSError) as error:
        raise FileFormatError(path, f"is not a readable parquet file ({error})") from None
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        raise FileFormatError(path, f"column {chosen!r} holds {values.type}, not text")
    texts = values.to_pylist()
    for row, value in enumerate(texts):
        _cell_text(value, str(path), chosen, None, f" in row {row} (counted from 0)")
    return texts

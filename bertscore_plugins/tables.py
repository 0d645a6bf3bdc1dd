"""Tables as users have them, read once: one text per line, or the columns of a CSV, TSV, JSON lines, JSON
or parquet file. Every door that reads a file of rows (the CLI's ``score``, ``faithfulness``, ``compare``
and the disagreement recipe) reads it here; every failure names the file and the line (or, where a file
has no lines, the data row counted from 1).

What kind of file: ``--input-format`` (for standard input or a name that says nothing), else the suffix
(``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson``, ``.json``, ``.parquet``/``.pq``; a further ``.gz`` is
decompressed first); any other file is one text per line, as `files.read_lines` reads it. Such a file that
holds JSON objects is read as JSON lines when a column is named, and refused otherwise: its raw lines would
be scored as text without a word of warning.

The dialect is the one pandas reads (``pd.read_csv`` with ``sep=","`` or ``"\\t"``): a byte-order mark and
CRLF line ends are dropped, blank lines (a trailing one included) hold no row, a quoted cell keeps its
commas and line breaks, a cell that starts with ``"`` is quoted in a TSV too (``"a" b`` reads as ``a b``).
Cells are text as written (pandas' ``dtype=str, keep_default_na=False``). A JSON file is an array of
records (or ``{"data": [...]}``); parquet is read through Arrow (a dictionary-encoded column reads as its
texts, a struct as nested records). The file is read once, so a named pipe or standard input works.

Which column (:meth:`Table.column`): the one named; a dotted name that is no column (``meta.reference``)
reaches into nested records; a CSV, TSV or parquet table of one column needs no name; a name the header
holds twice is ambiguous and refused. A cell may be a list of texts where the caller takes several (the
references of a row).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bertscore_plugins.errors import ColumnNotFoundError, FileFormatError, UsageError
from bertscore_plugins.files import decode, json_too_deep, read_bytes, split_lines

#: the kinds of file this module reads; "text" is one text per line
FORMATS = ("text", "csv", "tsv", "jsonl", "json", "parquet")
#: suffix -> kind of file; a file with another suffix (or none) is `--input-format`'s kind, else plain text
TABLE_SUFFIXES = {
    ".txt": "text",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
#: the flag that says what standard input (or a file whose name says nothing) holds
FORMAT_FLAG = "--input-format"
_KIND_NAMES = {
    "csv": "a CSV table",
    "tsv": "a TSV table",
    "jsonl": "JSON lines",
    "json": "a JSON table",
    "parquet": "a parquet table",
    "text": "plain text (one text per line)",
}
#: how many non-empty lines of a plain text file are looked at to tell JSON lines
_SNIFFED_LINES = 5
#: the column whose cells name the rows, when a table has one and no other is named
DEFAULT_ID_COLUMN = "id"
#: a cell a record does not have (a JSON line without the field, a nested record without the key)
MISSING = object()


def table_kind(path: str | Path, input_format: str | None = None) -> str:
    """``csv``, ``tsv``, ``jsonl``, ``json``, ``parquet`` by the file's suffix (a ``.gz`` looked through),
    else `input_format`, else ``text``."""
    name = Path(str(path))
    if name.suffix.lower() == ".gz":
        name = name.with_suffix("")
    return TABLE_SUFFIXES.get(name.suffix.lower()) or input_format or "text"


@dataclass(frozen=True)
class Table:
    """The columns of one file, in the file's order, each a list of cells (text for CSV/TSV; any JSON
    value for JSON and parquet, `MISSING` where a record lacks the field).

    ``lines``: the line each row starts on, for messages (None: rows are named "data row N").
    """

    name: str
    kind: str
    names: tuple[str, ...]
    cells: tuple[list[object], ...]
    lines: tuple[int, ...] | None = None

    def __len__(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def where(self, row: int) -> tuple[int | None, str]:
        """(line, suffix) for a message about `row` (counted from 0)."""
        if self.lines is not None:
            return self.lines[row], ""
        return None, f" in data row {row + 1}"

    def describe(self) -> str:
        return _KIND_NAMES[self.kind]

    def choose(self, column: str | None, what: str, option: str) -> str:
        """The column to read: the one named, or the only column of a CSV, TSV or parquet table (JSON
        always names it: each record may hold other fields).

        Raises UsageError (no name where one is needed, a name the header holds twice),
        ColumnNotFoundError (a name that is neither a column nor a path into nested records)."""
        if column is None:
            if len(self.names) == 1 and self.kind not in ("jsonl", "json"):
                return self.names[0]
            raise UsageError(
                f"{what} {self.name} is {self.describe()}: name the column to score with {option} "
                f"(columns: {', '.join(self.names)})"
            )
        count = self.names.count(column)
        if count > 1:
            positions = [str(k + 1) for k, name in enumerate(self.names) if name == column]
            raise UsageError(
                f"{what} {self.name} has {count} columns named {column!r} (columns {', '.join(positions)}): "
                f"the name given with {option} is ambiguous; rename one of them"
            )
        if count == 0 and self._nested_root(column) is None:
            raise ColumnNotFoundError(
                f"{what} {self.name} has no column {column!r} (columns: {', '.join(self.names) or 'none'})"
            )
        return column

    def _nested_root(self, column: str) -> tuple[str, list[str]] | None:
        """(column, keys) for a dotted name whose longest leading part is a column: ``meta.reference``."""
        parts = column.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            root = ".".join(parts[:cut])
            if self.names.count(root) == 1:
                return root, parts[cut:]
        return None

    def column(self, column: str | None, what: str = "file", option: str = "--column NAME") -> list[object]:
        """The cells of `column` (see `choose`), one per row; a dotted name walks nested records (a row
        whose record lacks a key has `MISSING`)."""
        chosen = self.choose(column, what, option)
        if chosen in self.names:
            return list(self.cells[self.names.index(chosen)])
        root, keys = self._nested_root(chosen) or (chosen, [])
        values = []
        for value in self.cells[self.names.index(root)]:
            for key in keys:
                value = value.get(key, MISSING) if isinstance(value, dict) else MISSING
            values.append(value)
        return values

    def texts(self, column: str | None, what: str = "file", option: str = "--column NAME") -> list[str]:
        """One text per row of `column`; FileFormatError naming the line for a cell that is no text."""
        chosen = self.choose(column, what, option)
        return [
            self.text_of(value, chosen, row) for row, value in enumerate(self.column(chosen, what, option))
        ]

    def texts_or_lists(
        self, column: str | None, what: str = "file", option: str = "--column NAME"
    ) -> list[str | list[str]]:
        """As `texts`, but a cell may also be a non-empty list of texts (several references of a row)."""
        chosen = self.choose(column, what, option)
        found: list[str | list[str]] = []
        for row, value in enumerate(self.column(chosen, what, option)):
            if isinstance(value, (list, tuple)) and value and all(isinstance(item, str) for item in value):
                found.append(list(value))
            elif isinstance(value, (list, tuple)):
                line, suffix = self.where(row)
                problem = "is an empty list" if not value else "is a list holding something other than text"
                raise FileFormatError(self.name, f"{chosen} {problem}{suffix}", line)
            else:
                found.append(self.text_of(value, chosen, row))
        return found

    def text_of(self, value: object, column: str, row: int) -> str:
        """A cell's text, or FileFormatError naming the line: a missing value or a number is not a text."""
        if isinstance(value, str):
            return value
        line, suffix = self.where(row)
        if value is MISSING:
            noun = "field" if self.kind in ("jsonl", "json") else "value"
            fields = ""
            if self.kind in ("jsonl", "json") and "." not in column:
                present = [
                    name
                    for name, cells in zip(self.names, self.cells, strict=True)
                    if cells[row] is not MISSING
                ]
                fields = f" (fields: {', '.join(present) or 'none'})"
            raise FileFormatError(self.name, f"has no {noun} {column!r}{fields}{suffix}", line)
        if value is None:
            problem = f"{column} is missing (null){suffix}"
        else:
            shown = json.dumps(value, default=str)[:40]
            problem = f"{column} is {type(value).__name__} {shown}, not text{suffix}"
        raise FileFormatError(self.name, problem, line)


def read_table(
    path: str | Path,
    what: str = "file",
    *,
    input_format: str | None = None,
    data: bytes | None = None,
    shown: str | None = None,
) -> Table:
    """The table in `path`, read once.

    Args:
        path: the file; its suffix says its kind (see the module's docstring).
        what: what the file is, for messages ("-c/--candidates file").
        input_format: what a file whose name says nothing holds (one of FORMATS; standard input).
        data: the file's bytes when already read (standard input); `shown` is then its name.

    Raises:
        FileFormatError: a file or row that cannot be read, naming the file and line.
        MissingFileError, FolderGivenError, ...: as `files.read_bytes`.
    """
    shown = shown or str(path)
    kind = table_kind(path, input_format) if data is None else (input_format or "text")
    raw = read_bytes(path, what) if data is None else data
    if str(path).lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise FileFormatError(shown, f"is not a readable gzip file ({error})") from None
    if kind == "parquet":
        return _parquet_table(raw, shown)
    text = decode(raw, shown)
    if kind == "text":
        lines = split_lines(text)
        if not _looks_like_json_lines(lines):
            return Table(shown, "text", ("text",), (list(lines),), tuple(range(1, len(lines) + 1)))
        kind = "jsonl"
    if kind == "jsonl":
        return _json_lines_table(split_lines(text), shown)
    if kind == "json":
        return _json_table(text, shown)
    return _delimited_table(text, shown, "," if kind == "csv" else "\t")


def read_texts(
    path: str | Path,
    what: str = "file",
    column: str | None = None,
    *,
    option: str = "--column NAME",
    input_format: str | None = None,
) -> list[str]:
    """One text per row of `path`'s `column` (`read_table`, then `Table.texts`). A plain text file is its
    lines; naming a column of one is refused, naming `option`."""
    table = read_table(path, what, input_format=input_format)
    if table.kind == "text":
        if column is not None:
            raise plain_text_refusal(table, what, option)
        return table.texts(None, what, option)
    return table.texts(column, what, option)


def plain_text_refusal(table: Table, what: str, option: str) -> UsageError:
    """A column flag given for a file read as plain text: named, with the way to say what it holds."""
    flag = option.split(" ")[0]
    return UsageError(
        f"{flag} names a column, but {what} {table.name} is read as plain text (one text per line); "
        f"say what it holds with {FORMAT_FLAG} {{{','.join(FORMATS[1:])}}} or leave {flag} out"
    )


def json_lines_refusal(table: Table, what: str, option: str) -> UsageError:
    """A plain text file that holds JSON lines, read without naming a field: its raw lines would be scored."""
    return UsageError(
        f"{what} {table.name} holds JSON lines, not one text per line: its raw lines would be scored "
        f"as text; name the field to score with {option} (fields: {', '.join(table.names)})"
    )


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


def _columns_of_records(records: list[dict], shown: str, kind: str, lines: tuple[int, ...] | None) -> Table:
    """Records (JSON objects) as columns, in the order fields first appear; a field a record lacks is
    `MISSING` there."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(str(key) for key in record))
    cells = tuple([record.get(name, MISSING) for record in records] for name in names)
    return Table(shown, kind, tuple(names), cells, lines)


def _json_lines_table(lines: list[str], shown: str) -> Table:
    records: list[dict] = []
    numbers: list[int] = []
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
        records.append(record)
        numbers.append(number)
    return _columns_of_records(records, shown, "jsonl", tuple(numbers))


def _json_table(text: str, shown: str) -> Table:
    """An array of records, as ``df.to_json(orient="records")`` and most APIs write it (or the same
    under ``"data"``, as ``datasets`` and many web APIs wrap it)."""
    if json_too_deep(text):
        raise FileFormatError(shown, "the JSON nests too deep")
    try:
        loaded = json.loads(text)
    except ValueError as error:
        raise FileFormatError(
            shown, f"is not JSON ({getattr(error, 'msg', error)})", getattr(error, "lineno", None)
        ) from None
    if isinstance(loaded, dict) and isinstance(loaded.get("data"), list):
        loaded = loaded["data"]
    if not isinstance(loaded, list):
        raise FileFormatError(
            shown, f"holds a JSON {type(loaded).__name__}; a table is an array of records ([{{...}}, ...])"
        )
    for row, record in enumerate(loaded):
        if not isinstance(record, dict):
            raise FileFormatError(
                shown, f"data row {row + 1} is a JSON {type(record).__name__}, not an object (a record)"
            )
    return _columns_of_records(loaded, shown, "json", None)


def _delimited_table(text: str, shown: str, delimiter: str) -> Table:
    """CSV or TSV in pandas' dialect (module docstring): blank lines hold no row, a cell that starts with
    a quote is quoted (the rest after the closing quote is kept, as pandas keeps it)."""
    kind = "csv" if delimiter == "," else "tsv"
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    start = 1
    try:
        for row in reader:
            if not row:
                start = reader.line_num + 1
                continue  # a blank line holds no row (pandas' skip_blank_lines)
            if header is None:
                header = row
            elif len(row) != len(header):
                raise FileFormatError(
                    shown, f"has {len(row)} cells; the header has {len(header)} columns", start
                )
            else:
                rows.append(row)
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as error:
        raise FileFormatError(shown, f"is not valid {kind.upper()} ({error})", reader.line_num) from None
    if rows and '"' in text and _unclosed_quote(text, delimiter):
        # the csv module takes an unclosed quote to the end of the file as one cell; pandas refuses it
        raise FileFormatError(shown, "has a quote that is never closed (EOF inside a quoted cell)", lines[-1])
    if header is None:
        return Table(shown, kind, (), (), ())
    columns: list[list[object]] = [[row[k] for row in rows] for k in range(len(header))]
    return Table(shown, kind, tuple(header), tuple(columns), tuple(lines))


def _unclosed_quote(text: str, delimiter: str) -> bool:
    """Whether the text ends inside a quoted cell (a quote opening a cell, never closed)."""
    state = "start"  # start of a cell, unquoted, quoted, or just after a quote inside a quoted cell
    for char in text:
        if state == "quoted":
            state = "after_quote" if char == '"' else "quoted"
            continue
        if state == "after_quote" and char == '"':
            state = "quoted"  # a doubled quote: one quote in the cell, still quoted
            continue
        if char in (delimiter, "\n", "\r"):
            state = "start"
        else:
            state = "quoted" if state == "start" and char == '"' else "unquoted"
    return state == "quoted"


def _parquet_table(raw: bytes, shown: str) -> Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(raw))
    except (pa.ArrowException, OSError) as error:
        raise FileFormatError(shown, f"is not a readable parquet file ({error})") from None
    # to_pylist: a dictionary-encoded (pandas categorical) column gives its texts, a struct its records
    cells = tuple(table.column(k).to_pylist() for k in range(table.num_columns))
    return Table(shown, "parquet", tuple(table.column_names), cells, None)

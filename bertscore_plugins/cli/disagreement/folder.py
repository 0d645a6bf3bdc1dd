"""The recipe's output folder: the scored table and a state file saying what has been logged to Phoenix.

The scored table is written before anything talks to Phoenix, so a server or judge outage never loses a
score; the state file lets a re-run pick up where the last one stopped without scoring again.
Both files are replaced atomically (write to a temporary file, then rename) and checked when read back:
a damaged file (truncated, edited, from another version) raises DamagedRunFolder naming the file and
line, and the way on (``--rescore`` scores again into the same folder).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, BertScorePluginsError
from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
    details_column,
    score_column,
)
from bertscore_plugins.files import (
    MAX_JSON_DEPTH,
    UnwritableOutputError,
    check_outputs,
    json_too_deep,
    read_text,
    split_lines,
    value_too_deep,
    write_atomically,
)

#: the evaluators whose result columns the recipe writes (and checks when it reads them back); the
#: user's own columns, whatever their names, are kept as they came
RESULT_NAMES = (SIMILARITY, GROUNDEDNESS, FAITHFULNESS, OFFLINE_FAITHFULNESS, DISAGREEMENT)
STATE_FILE = "state.json"
TABLE_FILES = {"jsonl": "scores.jsonl", "parquet": "scores.parquet"}
STATE_VERSION = 1
JSON_COLUMNS_KEY = b"bertscore_plugins.json_columns"
MOVE_IT = "move it away or use another --out"
RESCORE_HINT = "run the same command with --rescore to score again into this folder, or use another --out"


class DamagedRunFolder(BertScorePluginsError, ValueError):
    """A state or table file in the output folder cannot be read back; the message names it and the way on."""

    def __init__(self, path: Path, problem: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where} is damaged ({problem}); {RESCORE_HINT}")


@dataclass
class RunState:
    """What the output folder holds: which input was scored, with what, and which Phoenix steps are done."""

    input_digest: str
    table_format: str = "jsonl"
    run_key: str = field(default_factory=lambda: uuid.uuid4().hex)
    scored_at: str = ""
    rows: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    thresholds: dict[str, Any] = field(default_factory=dict)
    faithfulness_signal: str = ""
    judge_failed_rows: list[str] = field(default_factory=list)
    judge_tries: int = 0
    judge_calls: dict[str, Any] = field(default_factory=dict)  # judge triage: rows, judged, saved, mode
    logged: dict[str, Any] = field(default_factory=dict)
    logging_attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, **self.__dict__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunState:
        """Raises ValueError when `data` is not a state of this version (wrong keys or types)."""
        if not isinstance(data, dict):
            raise ArgumentTypeError(f"expected a JSON object, got {type(data).__name__}")
        data = dict(data)
        version = data.pop("version", None)
        if version != STATE_VERSION:
            raise ArgumentError(f"state file version {version!r} is not {STATE_VERSION}")
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown or not isinstance(data.get("input_digest"), str):
            raise ArgumentError(f"unexpected or missing keys ({', '.join(unknown) or 'input_digest'})")
        state = cls(**data)
        kinds: dict[str, type] = {
            "rows": int,
            "judge_tries": int,
            "judge_calls": dict,
            "logging_attempts": int,
            "settings": dict,
            "thresholds": dict,
            "logged": dict,
            "judge_failed_rows": list,
            "table_format": str,
            "run_key": str,
        }
        for name, kind in kinds.items():
            value = getattr(state, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ArgumentTypeError(f"{name} is {type(value).__name__}, expected {kind.__name__}")
            if kind is int and value < 0:
                raise ArgumentError(f"{name} is {value}, expected a count (0 or more)")
        for name in ("input_digest", "scored_at", "faithfulness_signal"):
            if not isinstance(getattr(state, name), str):
                raise ArgumentTypeError(f"{name} is {type(getattr(state, name)).__name__}, expected str")
        if not all(isinstance(row_id, str) for row_id in state.judge_failed_rows):
            raise ArgumentTypeError("judge_failed_rows holds something other than row ids (text)")
        for name in ("similarity", "faithfulness"):
            cut = state.thresholds.get(name)
            if cut is not None and not _finite_number(cut):
                raise ArgumentError(f"thresholds.{name} is {cut!r}, expected a finite number")
        if state.table_format not in TABLE_FILES:
            raise ArgumentError(f"table_format {state.table_format!r} is not one of {sorted(TABLE_FILES)}")
        if state.faithfulness_signal not in (FAITHFULNESS, OFFLINE_FAITHFULNESS):
            raise ArgumentError(
                f"faithfulness_signal {state.faithfulness_signal!r} is not a signal this recipe writes"
            )
        for step, value in state.logged.items():  # each step records an object ({"id": ..., "at": ...})
            if not isinstance(value, dict) or not all(
                isinstance(v, (str, int, type(None))) for v in value.values()
            ):
                raise ArgumentTypeError(f"logged.{step} is not an object of texts and numbers")
        return state


class OutputFolder:
    """Reads and writes ``scores.<jsonl|parquet>`` and ``state.json`` in one folder."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.report_dir = self.path / "report"

    @property
    def state_path(self) -> Path:
        return self.path / STATE_FILE

    def table_path(self, table_format: str) -> Path:
        return self.path / TABLE_FILES[table_format]

    def check_writable(self, inputs: dict[str, Any], report_files: tuple[str, ...] = ()) -> None:
        """Before any work: the folder (made if missing) takes the table, state and report files, and
        none of them is one of `inputs` ({what: path}).

        Raises UnwritableOutputError (an OSError) or OutputPathError naming the file and the way on."""
        for folder in (self.path, self.report_dir):
            if folder.exists() and not folder.is_dir():
                raise UnwritableOutputError(f"--out: {folder} is a file, not a folder; {MOVE_IT}")
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                reason = error.strerror or error
                raise UnwritableOutputError(f"--out: cannot make folder {folder} ({reason})") from None
        outputs = {"state file": self.state_path}
        outputs.update({f"{name} table": self.table_path(name) for name in TABLE_FILES})
        outputs.update({f"report {name}": self.report_dir / name for name in report_files})
        for what, path in outputs.items():
            if path.is_dir():
                raise UnwritableOutputError(f"--out: {what} {path} is a folder, not a file; {MOVE_IT}")
        check_outputs(outputs, inputs)

    def load_state(self) -> RunState | None:
        """The saved state, or None when the folder has none yet; DamagedRunFolder when unreadable."""
        if not os.path.lexists(self.state_path):
            return None
        try:
            text = read_text(self.state_path, "state file")
            if json_too_deep(text):
                raise ArgumentError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            return RunState.from_json(json.loads(text))
        except json.JSONDecodeError as error:
            raise DamagedRunFolder(self.state_path, f"not valid JSON: {error.msg}", error.lineno) from None
        except (ValueError, TypeError, OSError) as error:  # FileFormatError (invalid UTF-8), a folder
            raise DamagedRunFolder(self.state_path, str(error)) from None

    def save_state(self, state: RunState) -> None:
        write_run_file(self.state_path, json.dumps(state.to_json(), indent=2, default=_plain) + "\n")

    def save_table(self, table: pd.DataFrame, table_format: str) -> Path:
        """Write the scored table (nested cells such as Score dicts are kept as JSON)."""
        path = self.table_path(table_format)
        self.path.mkdir(parents=True, exist_ok=True)
        records = [
            {column: _plain(value) for column, value in row.items()}
            for row in table.to_dict(orient="records")
        ]
        if table_format == "jsonl":
            text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
            write_run_file(path, text)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            # Score cells are dicts with varying keys: kept as JSON text, named in the file's metadata.
            nested = sorted({c for r in records for c, v in r.items() if isinstance(v, (dict, list))})
            flat = pd.DataFrame(
                [{c: json.dumps(v) if c in nested else v for c, v in r.items()} for r in records]
            )
            arrow = pa.Table.from_pandas(flat, preserve_index=False)
            arrow = arrow.replace_schema_metadata(
                {**(arrow.schema.metadata or {}), JSON_COLUMNS_KEY: json.dumps(nested).encode()}
            )
            write_run_file(path, lambda temporary: pq.write_table(arrow, temporary))
        return path

    def load_table(
        self,
        table_format: str,
        rows: int | None = None,
        row_ids: list[str] | None = None,
        columns: tuple[str, ...] = (),
    ) -> pd.DataFrame:
        """Read the scored table back with its nested cells as Python objects, checked cell by cell.

        Raises DamagedRunFolder naming the file and line (the row for parquet) when it cannot be parsed,
        a line is not a JSON object, it does not hold `rows` rows, its row ids are not unique text or
        not the input's `row_ids` in order, or a cell has the wrong type (a score that is not a finite
        number, a label that is not text, ...), or it lacks one of `columns`: a damaged table is never
        reported from.
        """
        path = self.table_path(table_format)
        try:
            table, lines = self._read_jsonl(path) if table_format == "jsonl" else self._read_parquet(path)
        except OSError as error:  # missing, a folder, unreadable
            raise DamagedRunFolder(path, str(error)) from None
        _check_rows(path, table, rows)
        missing = [column for column in columns if column not in table.columns]
        if missing and len(table):
            raise DamagedRunFolder(path, f"it has no column {', '.join(map(repr, missing))}")
        _check_ids(path, table, lines, row_ids)
        _check_cells(path, table, lines)
        return table

    @staticmethod
    def _read_jsonl(path: Path) -> tuple[pd.DataFrame, list[int] | None]:
        try:
            lines = split_lines(read_text(path, "scored table"))
        except ValueError as error:  # invalid UTF-8, named by file and line
            raise DamagedRunFolder(path, str(error)) from None
        records, numbers = [], []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if json_too_deep(line):
                raise DamagedRunFolder(path, f"JSON nested deeper than {MAX_JSON_DEPTH} levels", number)
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise DamagedRunFolder(path, f"not valid JSON: {error.msg}", number) from None
            if not isinstance(record, dict):
                raise DamagedRunFolder(path, "a line is not a JSON object", number)
            records.append(record)
            numbers.append(number)
        return pd.DataFrame(records), numbers

    @staticmethod
    def _read_parquet(path: Path) -> tuple[pd.DataFrame, None]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            arrow = pq.read_table(path)
        except (OSError, pa.ArrowException) as error:
            raise DamagedRunFolder(path, f"not a readable parquet file: {error}") from None
        try:
            nested = _json_cell(
                arrow.schema.metadata.get(JSON_COLUMNS_KEY, b"[]") if arrow.schema.metadata else "[]"
            )
            table = arrow.to_pandas()
            if not isinstance(nested, list) or not all(column in table.columns for column in nested):
                raise ArgumentError(f"its list of JSON columns ({nested!r:.80}) does not match its columns")
            for column in nested:
                table[column] = [None if v is None else _json_cell(v) for v in table[column]]
        except (ValueError, TypeError, pa.ArrowException) as error:
            raise DamagedRunFolder(path, str(error)) from None
        return table.astype(object).where(table.notna(), None), None


def _json_cell(value: str | bytes) -> Any:
    """One JSON cell of a parquet table; ValueError (never RecursionError) when it cannot be read."""
    text = value.decode("utf-8") if isinstance(value, bytes) else value
    if not isinstance(text, str):
        raise ArgumentTypeError(f"a JSON cell holds {type(text).__name__}, expected text")
    if json_too_deep(text):
        raise ArgumentError(f"a JSON cell nests deeper than {MAX_JSON_DEPTH} levels")
    return json.loads(text)  # JSONDecodeError is a ValueError


def _check_rows(path: Path, table: pd.DataFrame, rows: int | None) -> None:
    if rows is not None and len(table) != rows:
        raise DamagedRunFolder(path, f"it holds {len(table)} rows, the state file says {rows}")
    if rows and "row_id" not in table.columns:
        raise DamagedRunFolder(path, "it has no row_id column")


def _where(lines: list[int] | None, position: int) -> tuple[str, int | None]:
    """("", line) for a JSONL table, ("row N: ", None) for parquet: how a problem names its row."""
    return ("", lines[position]) if lines is not None else (f"row {position}: ", None)


def _check_ids(path: Path, table: pd.DataFrame, lines: list[int] | None, row_ids: list[str] | None) -> None:
    """Row ids are unique text and, when the input is known, the input's ids in its order: a row
    replaced by a copy of another would otherwise drop one row from the report and count one twice."""
    if "row_id" not in table.columns:
        return
    first: dict[str, int] = {}
    for position, row_id in enumerate(table["row_id"]):
        prefix, line = _where(lines, position)
        if not isinstance(row_id, str):
            raise DamagedRunFolder(path, f"{prefix}row_id is {type(row_id).__name__}, expected text", line)
        if row_id in first:
            earlier, _ = _where(lines, first[row_id])
            at = f"line {lines[first[row_id]]}" if lines is not None else earlier.rstrip(": ")
            raise DamagedRunFolder(path, f"{prefix}row_id {row_id!r} appears twice (also at {at})", line)
        first[row_id] = position
        if row_ids is not None and position < len(row_ids) and row_id != row_ids[position]:
            raise DamagedRunFolder(
                path,
                f"{prefix}row_id {row_id!r} is not the input's row {position} ({row_ids[position]!r})",
                line,
            )


def _check_cells(path: Path, table: pd.DataFrame, lines: list[int] | None) -> None:
    """Every cell the recipe reads back has the type it wrote: text, a list of texts, a score cell with
    a finite score, execution details, token matches; a NaN score is refused, never reported."""
    for column in table.columns:
        check = _cell_check(str(column))
        if check is None:
            continue
        for position, cell in enumerate(table[column]):
            problem = "nests too deeply" if value_too_deep(cell) else check(cell)
            if problem:
                prefix, line = _where(lines, position)
                raise DamagedRunFolder(path, f"{prefix}{column} {problem}", line)


def _cell_check(column: str) -> Any:
    if column in ("input", "output"):
        return lambda cell: None if isinstance(cell, str) else f"is {_kind(cell)}, expected text"
    if column in ("context", "reference"):
        return _text_or_texts
    if column in {score_column(name) for name in RESULT_NAMES}:
        return _score_cell
    if column in {details_column(name) for name in RESULT_NAMES}:
        return lambda cell: (
            None if cell is None or isinstance(cell, dict) else f"is {_kind(cell)}, expected an object"
        )
    if column == "similarity_matches":
        return _matches_cell
    return None  # the user's own columns are kept as they came


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r:.40}"


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text_or_texts(cell: Any) -> str | None:
    if isinstance(cell, str) or (isinstance(cell, list) and cell and all(isinstance(v, str) for v in cell)):
        return None
    return f"is {_kind(cell)}, expected text or a list of texts"


def _score_cell(cell: Any) -> str | None:
    if cell is None:
        return None  # an evaluator that failed on this row
    if not isinstance(cell, dict):
        return f"is {_kind(cell)}, expected a score object"
    score = cell.get("score")
    if score is not None and not _finite_number(score):
        return f"score is {_kind(score)}, expected a finite number"
    for key in ("label", "explanation", "name"):
        if cell.get(key) is not None and not isinstance(cell[key], str):
            return f"{key} is {_kind(cell[key])}, expected text"
    if cell.get("metadata") is not None and not isinstance(cell["metadata"], dict):
        return f"metadata is {_kind(cell['metadata'])}, expected an object"
    return None


def _matches_cell(cell: Any) -> str | None:
    if cell is None:
        return None
    good = isinstance(cell, list) and all(
        isinstance(m, list)
        and len(m) == 3
        and isinstance(m[0], str)
        and isinstance(m[1], str)
        and _finite_number(m[2])
        for m in cell
    )
    return None if good else "is not a list of [token, matched token, similarity]"


def input_digest(rows: pd.DataFrame, columns: tuple[str, ...]) -> str:
    """A short fingerprint of the input rows, so a re-run never mixes scores of different inputs."""
    digest = hashlib.sha256()
    for values in rows[list(columns)].itertuples(index=False):
        digest.update(json.dumps([_plain(v) for v in values], ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _plain(value: Any) -> Any:
    """JSON-ready copy of a cell: numpy scalars/arrays to Python, NaN to None, nested containers walked."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.isoformat()
    return value


def write_run_file(path: Path, data: str | bytes | Any) -> None:
    """Write one file of the run's output folder atomically (text, bytes, or a function writing to the
    path it is given). A full disk or a refused write is one UnwritableOutputError naming the file (the
    recipe's exit 2), never a traceback; nothing half-written is left, and what was saved before stays."""
    try:
        write_atomically(path, data)
    except OSError as error:
        reason = error.strerror or error
        raise UnwritableOutputError(
            f"--out: {path} cannot be written ({reason}); free some space or use another --out"
        ) from None

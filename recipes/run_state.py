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
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, BertScorePluginsError
from bertscore_plugins.files import read_text, split_lines, write_atomically

STATE_FILE = "state.json"
TABLE_FILES = {"jsonl": "scores.jsonl", "parquet": "scores.parquet"}
STATE_VERSION = 1
JSON_COLUMNS_KEY = b"bertscore_plugins.json_columns"
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
        kinds = {
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
            if not isinstance(getattr(state, name), kind):
                raise ArgumentTypeError(
                    f"{name} is {type(getattr(state, name)).__name__}, expected {kind.__name__}"
                )
        if state.table_format not in TABLE_FILES:
            raise ArgumentError(f"table_format {state.table_format!r} is not one of {sorted(TABLE_FILES)}")
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

    def load_state(self) -> RunState | None:
        """The saved state, or None when the folder has none yet; DamagedRunFolder when unreadable."""
        if not self.state_path.exists():
            return None
        try:
            text = read_text(self.state_path, "state file")
            return RunState.from_json(json.loads(text))
        except json.JSONDecodeError as error:
            raise DamagedRunFolder(self.state_path, f"not valid JSON: {error.msg}", error.lineno) from None
        except (ValueError, TypeError) as error:  # FileFormatError (invalid UTF-8) included
            raise DamagedRunFolder(self.state_path, str(error)) from None

    def save_state(self, state: RunState) -> None:
        _write_atomically(self.state_path, json.dumps(state.to_json(), indent=2, default=_plain) + "\n")

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
            write_atomically(path, text)
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
            write_atomically(path, lambda temporary: pq.write_table(arrow, temporary))
        return path

    def load_table(self, table_format: str, rows: int | None = None) -> pd.DataFrame:
        """Read the scored table back with its nested cells as Python objects.

        Raises DamagedRunFolder naming the file (and line) when it cannot be parsed, a line is not a JSON
        object, or it does not hold `rows` rows.
        """
        path = self.table_path(table_format)
        if table_format == "jsonl":
            try:
                lines = split_lines(read_text(path, "scored table"))
            except ValueError as error:  # invalid UTF-8, named by file and line
                raise DamagedRunFolder(path, str(error)) from None
            records = []
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise DamagedRunFolder(path, f"not valid JSON: {error.msg}", number) from None
                if not isinstance(record, dict):
                    raise DamagedRunFolder(path, "a line is not a JSON object", number)
                records.append(record)
            table = pd.DataFrame(records)
            _check_rows(path, table, rows)
            return table
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            arrow = pq.read_table(path)
        except (OSError, pa.ArrowException) as error:
            raise DamagedRunFolder(path, f"not a readable parquet file: {error}") from None
        nested = json.loads((arrow.schema.metadata or {}).get(JSON_COLUMNS_KEY, b"[]"))
        table = arrow.to_pandas()
        for column in nested:
            table[column] = [None if v is None else json.loads(v) for v in table[column]]
        table = table.astype(object).where(table.notna(), None)
        _check_rows(path, table, rows)
        return table


def _check_rows(path: Path, table: pd.DataFrame, rows: int | None) -> None:
    if rows is not None and len(table) != rows:
        raise DamagedRunFolder(path, f"it holds {len(table)} rows, the state file says {rows}")
    if rows and "row_id" not in table.columns:
        raise DamagedRunFolder(path, "it has no row_id column")


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


def _write_atomically(path: Path, text: str) -> None:
    write_atomically(path, text)

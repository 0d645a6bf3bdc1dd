"""The recipe's output folder: the scored table and a state file saying what has been logged to Phoenix.

The scored table is written before anything talks to Phoenix, so a server or judge outage never loses a
score; the state file lets a re-run pick up where the last one stopped without scoring again.
Both files are replaced atomically (write to a temporary file, then rename).
"""

from __future__ import annotations

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

STATE_FILE = "state.json"
TABLE_FILES = {"jsonl": "scores.jsonl", "parquet": "scores.parquet"}
STATE_VERSION = 1
JSON_COLUMNS_KEY = b"bertscore_plugins.json_columns"


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
    logged: dict[str, Any] = field(default_factory=dict)
    logging_attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, **self.__dict__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunState:
        data = dict(data)
        version = data.pop("version", None)
        if version != STATE_VERSION:
            raise ValueError(f"state file version {version!r} is not {STATE_VERSION}; use a new --out folder")
        return cls(**data)


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
        """The saved state, or None when the folder has none yet."""
        if not self.state_path.exists():
            return None
        return RunState.from_json(json.loads(self.state_path.read_text(encoding="utf-8")))

    def save_state(self, state: RunState) -> None:
        _write_atomically(self.state_path, json.dumps(state.to_json(), indent=2, default=_plain) + "\n")

    def save_table(self, table: pd.DataFrame, table_format: str) -> Path:
        """Write the scored table (nested cells such as Score dicts are kept as JSON)."""
        path = self.table_path(table_format)
        self.path.mkdir(parents=True, exist_ok=True)
        records = [{column: _plain(value) for column, value in row.items()}
                   for row in table.to_dict(orient="records")]
        if table_format == "jsonl":
            text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
            _write_atomically(path, text)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            # Score cells are dicts with varying keys: kept as JSON text, named in the file's metadata.
            nested = sorted({c for r in records for c, v in r.items() if isinstance(v, (dict, list))})
            flat = pd.DataFrame([{c: json.dumps(v) if c in nested else v for c, v in r.items()} for r in records])
            arrow = pa.Table.from_pandas(flat, preserve_index=False)
            arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}),
                                                   JSON_COLUMNS_KEY: json.dumps(nested).encode()})
            tmp = path.with_suffix(".tmp")
            pq.write_table(arrow, tmp)
            os.replace(tmp, path)
        return path

    def load_table(self, table_format: str) -> pd.DataFrame:
        """Read the scored table back with its nested cells as Python objects."""
        path = self.table_path(table_format)
        if table_format == "jsonl":
            with path.open(encoding="utf-8") as fh:
                return pd.DataFrame([json.loads(line) for line in fh if line.strip()])
        import pyarrow.parquet as pq

        arrow = pq.read_table(path)
        nested = json.loads((arrow.schema.metadata or {}).get(JSON_COLUMNS_KEY, b"[]"))
        table = arrow.to_pandas()
        for column in nested:
            table[column] = [None if v is None else json.loads(v) for v in table[column]]
        return table.astype(object).where(table.notna(), None)


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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)

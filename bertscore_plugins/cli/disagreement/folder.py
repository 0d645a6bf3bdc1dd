"""The recipe's output folder: the result store, the scores table, the summary, the report, the state file.

``results.sqlite`` is the one resumable store (:mod:`bertscore_plugins.evaluation.store`): every cell of
every row, saved as computed. ``scores.jsonl`` (or ``.parquet``) and ``summary.json`` are written from it
on every run, in the user's words (their columns, flat score columns, means). ``state.json`` records which
Phoenix steps are done. Every file is replaced atomically (written to a temporary file, then renamed);
a damaged state file raises DamagedRunFolder naming it and the way on (``--rescore`` starts again).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from bertscore_plugins.errors import (
    ArgumentError,
    ArgumentTypeError,
    DamagedRunFolder,
    UnwritableOutputError,
)
from bertscore_plugins.evaluation.names import FAITHFULNESS, OFFLINE_FAITHFULNESS
from bertscore_plugins.files import (
    MAX_JSON_DEPTH,
    check_outputs,
    json_too_deep,
    make_output_folder,
    read_text,
    write_atomically,
)

STATE_FILE, STORE_FILE, SUMMARY_FILE = "state.json", "results.sqlite", "summary.json"
TABLE_FILES = {"jsonl": "scores.jsonl", "parquet": "scores.parquet"}
STATE_VERSION = 2
MOVE_IT = "move it away or use another --out"
RESCORE_HINT = "run the same command with --rescore to score again into this folder, or use another --out"


@dataclass
class RunState:
    """This run of the recipe: its rows and configuration, what it found, which Phoenix steps are done.

    A run over other rows or another configuration is a new run (a new ``run_key``: new traces)."""

    run: str  # the configuration id and a digest of the rows' ids in the store
    signature: str = ""  # the scorer's signature (model, library versions): named when it changes
    run_key: str = field(default_factory=lambda: uuid.uuid4().hex)
    scored_at: str = ""
    rows: int = 0
    thresholds: dict[str, Any] = field(default_factory=dict)
    faithfulness_signal: str = ""
    judge_failed_rows: list[str] = field(default_factory=list)
    judge_calls: dict[str, Any] = field(default_factory=dict)  # judge triage: rows, judged, saved, mode
    logged: dict[str, Any] = field(default_factory=dict)
    logging_attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, **self.__dict__}

    @classmethod
    def from_json(cls, data: Any) -> RunState:
        """Raises ValueError when ``data`` is not a state of this version (wrong keys or types)."""
        if not isinstance(data, dict):
            raise ArgumentTypeError(f"expected a JSON object, got {type(data).__name__}")
        data = dict(data)
        version = data.pop("version", None)
        if version != STATE_VERSION:
            raise ArgumentError(f"state file version {version!r} is not {STATE_VERSION}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown or not isinstance(data.get("run"), str):
            raise ArgumentError(f"unexpected or missing keys ({', '.join(unknown) or 'run'})")
        state = cls(**data)
        _check_state(state)
        return state


_KINDS: dict[str, type] = {
    "rows": int,
    "logging_attempts": int,
    "judge_calls": dict,
    "thresholds": dict,
    "logged": dict,
    "judge_failed_rows": list,
    "run_key": str,
    "scored_at": str,
    "faithfulness_signal": str,
    "signature": str,
}


def _check_state(state: RunState) -> None:
    for name, kind in _KINDS.items():
        value = getattr(state, name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ArgumentTypeError(f"{name} is {type(value).__name__}, expected {kind.__name__}")
        if isinstance(value, int) and value < 0:
            raise ArgumentError(f"{name} is {value}, expected a count (0 or more)")
    if not all(isinstance(row_id, str) for row_id in state.judge_failed_rows):
        raise ArgumentTypeError("judge_failed_rows holds something other than row ids (text)")
    for name in ("similarity", "faithfulness"):
        threshold = state.thresholds.get(name)
        if threshold is not None and not _finite_number(threshold):
            raise ArgumentError(f"thresholds.{name} is {threshold!r}, expected a finite number")
    if state.faithfulness_signal not in ("", FAITHFULNESS, OFFLINE_FAITHFULNESS):
        raise ArgumentError(
            f"faithfulness_signal {state.faithfulness_signal!r} is not a signal this recipe writes"
        )
    for step, value in state.logged.items():  # each step records an object ({"id": ..., "at": ...})
        if not isinstance(value, dict) or not all(
            isinstance(v, (str, int, type(None))) for v in value.values()
        ):
            raise ArgumentTypeError(f"logged.{step} is not an object of texts and numbers")


class OutputFolder:
    """The files of one output folder (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.report_dir = self.path / "report"
        self.state_path = self.path / STATE_FILE
        self.store_path = self.path / STORE_FILE
        self.summary_path = self.path / SUMMARY_FILE

    def table_path(self, table_format: str) -> Path:
        return self.path / TABLE_FILES[table_format]

    def check_writable(self, inputs: dict[str, Any], report_files: tuple[str, ...] = ()) -> None:
        """Before any work: the folder (made if missing) takes every file, and none of them is one of
        ``inputs`` ({what: path}). Raises UnwritableOutputError or OutputPathError naming the file."""
        for folder in (self.path, self.report_dir):
            make_output_folder(folder, "--out", f"--out: {folder} is a file, not a folder; {MOVE_IT}")
        outputs = {
            "state file": self.state_path,
            "result store": self.store_path,
            "summary": self.summary_path,
        }
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
            raise DamagedRunFolder(
                self.state_path, f"not valid JSON: {error.msg}", error.lineno, way_on=RESCORE_HINT
            ) from None
        except (ValueError, TypeError, OSError) as error:  # FileFormatError (invalid UTF-8), a folder
            raise DamagedRunFolder(self.state_path, str(error), way_on=RESCORE_HINT) from None

    def save_state(self, state: RunState) -> None:
        write_run_file(self.state_path, json.dumps(state.to_json(), indent=2) + "\n")

    def save_table(self, table: pd.DataFrame, table_format: str) -> Path:
        """Write the scores table (flat: the user's columns and the score columns)."""
        path = self.table_path(table_format)
        if table_format == "jsonl":
            records = [{c: _plain(v) for c, v in row.items()} for row in table.to_dict(orient="records")]
            write_run_file(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        else:
            write_run_file(path, lambda temporary: table.to_parquet(temporary, index=False))
        return path

    def save_summary(self, summary: dict[str, Any]) -> Path:
        write_run_file(self.summary_path, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return self.summary_path


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _plain(value: Any) -> Any:
    """JSON-ready copy of a cell: numpy scalars and arrays to Python, NaN to None, containers walked."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        value = value.tolist() if hasattr(value, "tolist") else value
        return [_plain(v) for v in value] if isinstance(value, list) else value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.isoformat()
    return value


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_run_file(path: Path, data: str | bytes | Any) -> None:
    """Write one file of the output folder atomically (text, bytes, or a function writing to the path it
    is given). A full disk or a refused write is one UnwritableOutputError naming the file (exit 2),
    never a traceback; nothing half-written is left, and what was saved before stays."""
    try:
        write_atomically(path, data)
    except OSError as error:
        raise UnwritableOutputError(
            f"--out: {path} cannot be written ({error.strerror or error}); free some space or use another --out"
        ) from None

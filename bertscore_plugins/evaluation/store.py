"""A local store of trace-evaluation results, written before anything is sent to Phoenix.

Keyed by (span id, configuration signature, annotation name). A result is stored the moment it is
computed and marked logged once Phoenix confirmed it, so a server outage mid-logging, a judge outage or
Ctrl-C loses nothing: the next run logs what is stored and computes only what is missing. One SQLite
file (standard library; safe across processes, atomic per transaction).
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing_extensions import Self

from bertscore_plugins.errors import BertScorePluginsWarning, ResultStoreError
from bertscore_plugins.files import MAX_JSON_DEPTH, json_too_deep

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    span_id TEXT NOT NULL,
    configuration TEXT NOT NULL,
    name TEXT NOT NULL,
    annotation TEXT,          -- JSON of the span annotation; NULL when the evaluator failed
    failure TEXT,             -- why it failed (a judge outage): retried by the next run
    logged INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (span_id, configuration, name)
)
"""
_COLUMNS = ("span_id", "configuration", "name", "annotation", "failure", "logged")


class DamagedResultWarning(BertScorePluginsWarning):
    """Rows of the result store could not be read back (edited, truncated); they are computed again.

    Warned once per damaged row per open store: a run reads a page's rows twice (before scoring and
    before logging) and a ``--follow`` run every poll, and the row is the same damaged row each time."""


@dataclass(frozen=True)
class StoredResult:
    """One evaluator's stored outcome for one span."""

    name: str
    annotation: dict[str, Any] | None
    failure: str | None
    logged: bool


class ResultStore:
    """The SQLite file at ``path`` (created with its folder when missing)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ResultStoreError(f"result store {self.path}: cannot create its folder ({error})") from error
        self._warned: set[tuple[str, str, str]] = set()  # damaged rows already named (see the warning)
        with self._guard("cannot open it"):
            self._db = sqlite3.connect(self.path, timeout=60)
        try:
            with self._guard("cannot open it"):
                self._refuse_a_foreign_database()
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(_SCHEMA)
                self._db.commit()
        except ResultStoreError:
            self._db.close()
            raise

    @contextlib.contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """SQLite's errors (a damaged or foreign file, a full or read-only disk) named with the file."""
        try:
            yield
        except sqlite3.Error as error:
            raise ResultStoreError(f"result store {self.path}: {action} ({error})") from error

    def _refuse_a_foreign_database(self) -> None:
        # never add our table to somebody else's database, nor read theirs as ours
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = tuple(row[1] for row in self._db.execute("PRAGMA table_info(results)"))
        if tables - {"results"} or (tables and columns != _COLUMNS):
            raise ResultStoreError(
                f"result store {self.path}: this SQLite file is not a bertscore-plugins result store "
                f"(tables {sorted(tables)}); give --store a new file or one this command wrote"
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def results(self, configuration: str, span_ids: Sequence[str]) -> dict[str, dict[str, StoredResult]]:
        """``{span_id: {name: StoredResult}}`` for those spans under ``configuration``."""
        found: dict[str, dict[str, StoredResult]] = {}
        damaged: list[str] = []
        ids = list(span_ids)
        for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            with self._guard("cannot read it"):
                rows = self._db.execute(
                    "SELECT span_id, name, annotation, failure, logged FROM results "
                    f"WHERE configuration = ? AND span_id IN ({','.join('?' * len(chunk))})",
                    [configuration, *chunk],
                ).fetchall()
            for row in rows:
                result, problem = _read_row(*row)
                if problem:
                    key = (configuration, repr(row[0]), repr(row[1]))
                    if key not in self._warned:
                        self._warned.add(key)
                        damaged.append(f"span {row[0]!r} {row[1]!r}: {problem}")
                elif result is not None:
                    found.setdefault(str(row[0]), {})[result.name] = result
        if damaged:
            warnings.warn(
                DamagedResultWarning(
                    f"result store {self.path}: {len(damaged)} stored result(s) cannot be read back and are "
                    f"computed again ({'; '.join(damaged[:3])}{' ...' if len(damaged) > 3 else ''})"
                ),
                stacklevel=2,
            )
        return found

    def put(
        self, configuration: str, entries: Iterable[tuple[str, str, Mapping[str, Any] | None, str | None]]
    ) -> None:
        """Store ``(span_id, name, annotation or None, failure or None)`` results (one transaction)."""
        with self._guard("cannot write to it"), self._db:
            self._db.executemany(
                "INSERT INTO results (span_id, configuration, name, annotation, failure, logged) "
                "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (span_id, configuration, name) DO UPDATE SET "
                "annotation = excluded.annotation, failure = excluded.failure, logged = 0",
                [
                    (span_id, configuration, name, None if a is None else json.dumps(a), failure)
                    for span_id, name, a, failure in entries
                ],
            )

    def mark_logged(self, configuration: str, keys: Iterable[tuple[str, str]]) -> None:
        """Record that Phoenix accepted these ``(span_id, name)`` annotations."""
        with self._guard("cannot write to it"), self._db:
            self._db.executemany(
                "UPDATE results SET logged = 1 WHERE span_id = ? AND configuration = ? AND name = ?",
                [(span_id, configuration, name) for span_id, name in keys],
            )

    def count(self, configuration: str | None = None) -> int:
        query, parameters = "SELECT COUNT(*) FROM results", []
        if configuration is not None:
            query, parameters = query + " WHERE configuration = ?", [configuration]
        with self._guard("cannot read it"):
            return self._db.execute(query, parameters).fetchone()[0]


def _read_row(
    span_id: Any, name: Any, annotation: Any, failure: Any, logged: Any
) -> tuple[StoredResult | None, str | None]:
    """One stored row as written by `put`, or (None, why not): SQLite keeps whatever a hand (or another
    program) put there, so every cell is checked; a damaged row is computed again, never used."""
    if not isinstance(span_id, str) or not isinstance(name, str):
        return None, "its span id or name is not text"
    if logged not in (0, 1) or isinstance(logged, float):
        return None, f"logged is {logged!r}, expected 0 or 1"
    if failure is not None and not isinstance(failure, str):
        return None, f"failure is {type(failure).__name__}, expected text"
    if annotation is None:
        return (StoredResult(name, None, failure, bool(logged)), None) if failure else (None, "no result")
    if not isinstance(annotation, str):
        return None, f"annotation is {type(annotation).__name__}, expected JSON text"
    if json_too_deep(annotation):
        return None, f"annotation nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(annotation)
    except json.JSONDecodeError as error:
        return None, f"annotation is not valid JSON ({error.msg})"
    problem = _annotation_problem(value, span_id, name)
    return (None, problem) if problem else (StoredResult(name, value, failure, bool(logged)), None)


def _annotation_problem(value: Any, span_id: str, name: str) -> str | None:
    """What is wrong with a stored span annotation (`_annotation`'s shape), or None; one copied from
    another row would annotate the wrong span, so its span id and name must be the row's."""
    if not isinstance(value, dict) or not isinstance(value.get("result", {}), dict):
        return "annotation is not a span annotation object"
    if value.get("span_id", span_id) != span_id or value.get("name", name) != name:
        return f"annotation is for span {value.get('span_id')!r} {value.get('name')!r}, not this row's"
    if value.get("metadata") is not None and not isinstance(value["metadata"], dict):
        return "annotation metadata is not an object"
    result = value.get("result", {})
    score = result.get("score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score)
    ):
        return f"annotation score is {score!r}, expected a finite number"
    label = result.get("label")
    if label is not None and not isinstance(label, str):
        return f"annotation label is {label!r}, expected text"
    return None

"""A local store of trace-evaluation results, written before anything is sent to Phoenix.

Keyed by (span id, configuration signature, annotation name). A result is stored the moment it is
computed and marked logged once Phoenix confirmed it, so a server outage mid-logging, a judge outage or
Ctrl-C loses nothing: the next run logs what is stored and computes only what is missing. One SQLite
file (standard library; safe across processes, atomic per transaction).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing_extensions import Self

from bertscore_plugins.errors import ResultStoreError

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
        ids = list(span_ids)
        for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            with self._guard("cannot read it"):
                rows = self._db.execute(
                    "SELECT span_id, name, annotation, failure, logged FROM results "
                    f"WHERE configuration = ? AND span_id IN ({','.join('?' * len(chunk))})",
                    [configuration, *chunk],
                ).fetchall()
            for span_id, name, annotation, failure, logged in rows:
                found.setdefault(span_id, {})[name] = StoredResult(
                    name, json.loads(annotation) if annotation else None, failure, bool(logged)
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

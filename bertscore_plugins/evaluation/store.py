"""The one resumable result store of the evaluation: every signal's cell of every row, on local disk.

Keyed by (row id, key, signal name): the recipe's rows (their id and a digest of their texts) and Phoenix
spans (their span id) alike; each signal's key names what changes its cells (:mod:`.store_keys`: a new judge
model reruns the judge alone), or one configuration id keys them all. A cell is stored the moment the engine computed it
(:mod:`.pipeline`), a failure with its reason (a judge outage: retried by the next run), and a sink marks
it ``logged`` once the sink (Phoenix) confirmed it, so a server outage, a judge outage or Ctrl-C loses
nothing: the next run sends what is stored and computes only what is missing. One SQLite file (standard
library; safe across processes, atomic per transaction).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from typing_extensions import Self

from bertscore_plugins.errors import BertScorePluginsWarning, ResultStoreError
from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.store_keys import StoreKeys
from bertscore_plugins.faithfulness.outcome import OUTCOMES
from bertscore_plugins.files import MAX_JSON_DEPTH, json_too_deep

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    row_id TEXT NOT NULL,
    configuration TEXT NOT NULL,
    name TEXT NOT NULL,
    cell TEXT,                -- JSON of the signal's cell (Score.to_dict() shape); NULL when it failed
    failure TEXT,             -- why it failed (a judge outage): retried by the next run
    logged INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (row_id, configuration, name)
)
"""


class Entry(NamedTuple):
    """One result for the store: a row's cell of one signal, or the failure that stopped it."""

    row_id: str
    name: str
    cell: Cell | None
    failure: str | None


#: what results are kept under: each signal's key, or one configuration id for every signal
Keys = StoreKeys | str


def key_of(keys: Keys, name: str) -> str:
    """The ``configuration`` column of signal ``name``'s results under ``keys``."""
    return keys if isinstance(keys, str) else keys.of(name)


def _key_values(keys: Keys) -> list[str]:
    return [keys] if isinstance(keys, str) else sorted(set(keys.by_name.values()))


_COLUMNS = ("row_id", "configuration", "name", "cell", "failure", "logged")
#: the key a stored cell carries besides its own: the row it belongs to (a cell copied from another row
#: would otherwise be read as this row's)
ROW_KEY = "row_id"


class DamagedResultWarning(BertScorePluginsWarning):
    """Rows of the result store could not be read back (edited, truncated); they are computed again.

    Warned once per damaged row per open store: a ``--follow`` run reads a page's rows every poll, and the
    row is the same damaged row each time."""


@dataclass(frozen=True)
class StoredResult:
    """One signal's stored outcome for one row: its cell, or the failure that stopped it."""

    name: str
    cell: Cell | None
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
        new = not os.path.lexists(self.path)
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
            if new:  # a store this call began (on a full disk): nothing half-made is left behind
                for leftover in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                    with contextlib.suppress(OSError):
                        leftover.unlink()
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
                f"(tables {sorted(tables)}); give a new store file or one this package wrote"
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def results(self, configuration: Keys, row_ids: Sequence[str]) -> dict[str, dict[str, StoredResult]]:
        """``{row_id: {name: StoredResult}}`` for those rows, each signal's under its key in ``configuration``."""
        found: dict[str, dict[str, StoredResult]] = {}
        damaged: list[str] = []
        for key, row in self._rows("row_id, name, cell, failure, logged", configuration, row_ids):
            result, problem = _read_row(*row)
            if problem:
                warned = (key, repr(row[0]), repr(row[1]))
                if warned not in self._warned:
                    self._warned.add(warned)
                    damaged.append(f"row {row[0]!r} {row[1]!r}: {problem}")
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

    def stored_names(self, configuration: Keys, row_ids: Sequence[str]) -> dict[str, dict[str, bool]]:
        """``{row_id: {name: whether it holds a cell}}`` (a failure holds none): what a run will find, read
        without its cells (a plan of the work before the rows are read a chunk at a time)."""
        found: dict[str, dict[str, bool]] = {}
        for _, (row_id, name, has_cell) in self._rows(
            "row_id, name, cell IS NOT NULL", configuration, row_ids
        ):
            found.setdefault(str(row_id), {})[str(name)] = bool(has_cell)
        return found

    def _rows(self, columns: str, configuration: Keys, row_ids: Sequence[str]) -> Iterator[tuple[str, Any]]:
        """``(key, row)`` of ``columns`` for the rows' results under each signal's key (a signal's results
        under another signal's key are not its own)."""
        values = _key_values(configuration)
        ids = list(row_ids)
        step = 500 - len(values)  # SQLite's bound-parameter limit
        for start in range(0, len(ids), step):
            chunk = ids[start : start + step]
            with self._guard("cannot read it"):
                rows = self._db.execute(
                    f"SELECT configuration, name, {columns} FROM results "
                    f"WHERE configuration IN ({','.join('?' * len(values))}) "
                    f"AND row_id IN ({','.join('?' * len(chunk))})",
                    [*values, *chunk],
                ).fetchall()
            for key, name, *row in rows:
                if _owns(configuration, name, key):
                    yield key, tuple(row)

    def put(self, configuration: Keys, entries: Iterable[Entry]) -> None:
        """Store ``(row_id, name, cell or None, failure or None)`` results (one transaction); a result
        stored again replaces the earlier one and is not logged yet."""
        with self._guard("cannot write to it"), self._db:
            self._db.executemany(
                "INSERT INTO results (row_id, configuration, name, cell, failure, logged) "
                "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (row_id, configuration, name) DO UPDATE SET "
                "cell = excluded.cell, failure = excluded.failure, logged = 0",
                [
                    (row_id, key_of(configuration, name), name, _cell_text(row_id, cell), failure)
                    for row_id, name, cell, failure in entries
                ],
            )

    def mark_logged(self, configuration: Keys, keys: Iterable[tuple[str, str]]) -> None:
        """Record that a sink (Phoenix) accepted these ``(row_id, name)`` results."""
        with self._guard("cannot write to it"), self._db:
            self._db.executemany(
                "UPDATE results SET logged = 1 WHERE row_id = ? AND configuration = ? AND name = ?",
                [(row_id, key_of(configuration, name), name) for row_id, name in keys],
            )

    def count(self, configuration: Keys | None = None) -> int:
        """The results stored in all, or under ``configuration`` (each signal's under its key)."""
        if configuration is None:
            query, parameters = "SELECT COUNT(*) FROM results", list[str]()
        elif isinstance(configuration, str):
            query, parameters = "SELECT COUNT(*) FROM results WHERE configuration = ?", [configuration]
        else:
            pairs = list(configuration.by_name.items())
            query = "SELECT COUNT(*) FROM results WHERE " + " OR ".join(
                ["(name = ? AND configuration = ?)"] * len(pairs)
            )
            parameters = [value for pair in pairs for value in pair]
        with self._guard("cannot read it"):
            return int(self._db.execute(query, parameters).fetchone()[0])


def _owns(configuration: Keys, name: object, key: str) -> bool:
    """Whether ``key`` is signal ``name``'s under ``configuration`` (a signal it has no key for: not read;
    under one id, every row is read, a damaged name included, to be named)."""
    if isinstance(configuration, str):
        return key == configuration
    return isinstance(name, str) and configuration.by_name.get(name) == key


def _cell_text(row_id: str, cell: Cell | None) -> str | None:
    """The JSON stored for a cell (one of the three edges where a cell is a dict): the cell with the row it
    belongs to."""
    if cell is None:
        return None
    return json.dumps({**cell.to_dict(), ROW_KEY: row_id}, default=str)


def _read_row(
    row_id: object, name: object, cell: object, failure: object, logged: object
) -> tuple[StoredResult | None, str | None]:
    """One stored row as written by `put`, or (None, why not): SQLite keeps whatever a hand (or another
    program) put there, so every cell is checked; a damaged row is computed again, never used."""
    if not isinstance(row_id, str) or not isinstance(name, str):
        return None, "its row id or name is not text"
    if logged not in (0, 1) or isinstance(logged, float):
        return None, f"logged is {logged!r}, expected 0 or 1"
    if failure is not None and not isinstance(failure, str):
        return None, f"failure is {type(failure).__name__}, expected text"
    if cell is None:
        return (StoredResult(name, None, failure, bool(logged)), None) if failure else (None, "no result")
    if not isinstance(cell, str):
        return None, f"cell is {type(cell).__name__}, expected JSON text"
    if json_too_deep(cell):
        return None, f"cell nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(cell)
    except json.JSONDecodeError as error:
        return None, f"cell is not valid JSON ({error.msg})"
    problem = _cell_problem(value, row_id, name)
    if problem:
        return None, problem
    value.pop(ROW_KEY)
    found = Cell.from_dict({"name": name, **value})
    if found.label in OUTCOMES and found.score is not None:  # an earlier version kept a score: it has none
        found = replace(found, score=None)
    return StoredResult(name, found, failure, bool(logged)), None


def _cell_problem(value: object, row_id: str, name: str) -> str | None:
    """What is wrong with a stored cell (``Score.to_dict()`` shape plus its row), or None; one copied
    from another row would be read as this row's, so its row and name must be the row's."""
    if not isinstance(value, dict):
        return "cell is not an object"
    if value.get(ROW_KEY) != row_id or value.get("name", name) != name:
        return f"cell is for row {value.get(ROW_KEY)!r} {value.get('name')!r}, not this row's"
    if value.get("metadata") is not None and not isinstance(value["metadata"], dict):
        return "cell metadata is not an object"
    score = value.get("score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score)
    ):
        return f"cell score is {score!r}, expected a finite number"
    label = value.get("label")
    if label is not None and not isinstance(label, str):
        return f"cell label is {label!r}, expected text"
    return None

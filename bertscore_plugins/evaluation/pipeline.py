"""The one pipeline: rows from any source -> the engine -> the one result store; sinks read the store.

Every row source (the recipe's table file, a DataFrame, a dataset, a page of Phoenix spans) hands its
rows to :func:`evaluate_stored` as :class:`~.batch.BatchRow` values whose ``key`` is the row's id in
the store. It computes, with :func:`~.batch.evaluate_batch` (the one engine call), only what the store
(:mod:`.store`) lacks under each signal's key (:mod:`.store_keys`), a chunk of rows at a time (each chunk
stored as it ends: a killed run loses at most the chunk in flight, and peak memory is one chunk's), and
stores every result the moment it exists; per chunk:

1. the BERTScore signals (similarity, groundedness, offline faithfulness) of the rows missing one, in one
   engine call, stored before the judge is asked;
2. the judge, only for the rows without a verdict (never asked, or failed: a judge outage is the one
   failure worth retrying; an input error fails again), a chunk of ``judge_concurrency`` rows at a time,
   each chunk's verdicts stored as they arrive: a run killed while the judge answers loses at most the
   chunk in flight, and the next run asks only the rows still without a verdict;
3. the disagreement of the rows whose signals changed (all rows when its thresholds come from the data).

That is the one resume rule, for the recipe and for trace evaluation alike. A stored cell labelled at
another threshold than the configuration's is relabelled from its score (:mod:`.labels`), so a store kept
under keys that leave the thresholds out re-applies new thresholds without a model call;
with ``compute=False`` nothing but that is done, and a row missing a score is an error naming it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bertscore_plugins.core.heap import release_freed_memory
from bertscore_plugins.core.progress import work_progress
from bertscore_plugins.core.score_config import refuse_idf_per_batch
from bertscore_plugins.errors import ArgumentError, BertScorePluginsWarning, InputError
from bertscore_plugins.evaluation.batch import BatchResult, BatchRow, evaluate_batch
from bertscore_plugins.evaluation.cells import Cell, DisagreementMetadata, exceptions_of
from bertscore_plugins.evaluation.disagreement import Thresholds
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.labels import relabel
from bertscore_plugins.evaluation.store import Entry, Keys, ResultStore, StoredResult
from bertscore_plugins.watching import Progress

if TYPE_CHECKING:
    from bertscore_plugins.core.scorer_protocol import Scorer


class ThresholdsNotFromDataWarning(BertScorePluginsWarning):
    """``thresholds_from_data`` could not set the thresholds (no row has both scores yet): the fixed thresholds are used."""


@dataclass
class StoredRun:
    """What the store holds for the rows after a pass: ``cells[row_id][name]`` (the latest cell of each
    signal), ``failures[row_id][name]`` (why a signal has no cell), and what this pass did: ``computed``
    (cells per signal), ``triage`` (judge calls made and saved), the disagreement's ``thresholds`` (None
    when it did not run) and ``seconds`` per part ("score", "judge")."""

    cells: dict[str, dict[str, Cell]]
    failures: dict[str, dict[str, str]]
    computed: dict[str, int] = field(default_factory=dict)
    triage: dict[str, int | str] = field(default_factory=dict)
    thresholds: Thresholds | None = None
    seconds: dict[str, float] = field(default_factory=lambda: {"score": 0.0, "judge": 0.0})
    fresh: list[Entry] = field(default_factory=list)
    #: every (row id, name) this pass stored (computed or relabelled): not logged by any sink yet
    written: set[tuple[str, str]] = field(default_factory=set)

    def cell(self, row_id: str, name: str) -> Cell | None:
        return self.cells.get(row_id, {}).get(name)


def missing(result: StoredResult | None, name: str, config: EvaluationConfig) -> bool:
    """The one resume rule: a signal is computed when the store has nothing for it, or when it holds the
    judge's failure (an outage passes; a BERTScore input error would fail again, so it stays)."""
    return lacks(None if result is None else result.cell is not None, name, config)


def lacks(holds_cell: bool | None, name: str, config: EvaluationConfig) -> bool:
    """:func:`missing` from what the store holds: None (nothing), True (a cell), False (a failure)."""
    if holds_cell is None:
        return True
    return not holds_cell and config.judge is not None and name == config.judge.name


def bertscore_names(config: EvaluationConfig) -> tuple[str, str, str]:
    """The signals of the one BERTScore pass: similarity, groundedness, offline faithfulness."""
    return (config.similarity_name, config.groundedness_name, config.offline_name)


#: rows a chunk: the rows go through the engine a chunk at a time, each chunk's cells stored as it ends, so a
#: killed run loses at most the chunk in flight and the peak memory is one chunk's. Measured with
#: benchmarks/speed/recipe_memory.py (the recipe, no judge, unique RAG-like rows, a shared 2-core CPU): the
#: run's fixed part (interpreter, torch, the model) peaks at 584 MiB (8 rows); a 256-row chunk adds about
#: 110-150 MiB while it is scored (693 MiB after the first chunk, 731 MiB at 512 rows), freed when it is
#: stored; 1,000 rows end at 873 MiB, where one engine call over all rows (before) peaked at 1.32 GB, and
#: 2.25 GB for 4,000 (benchmarks/results/recipe_memory.json). The
#: chunk is as long as it can be while it stays a fraction of the fixed part: the core sorts and batches a
#: call's texts by length, so longer calls batch fuller; a kill loses at most 256 rows' scoring.
CHUNK_ROWS = 256


@dataclass(frozen=True)
class PassOptions:
    """How a pass of :func:`evaluate_stored` runs, apart from what it computes it for.

    Args:
        progress: one bar (a person watching) or plain line (a log) over the rows to compute; False: none.
        say: called with one line before each long step ("Asking the judge about 8 rows ...").
        compute: False: no model and no judge, only the stored cells relabelled at the configuration's
            thresholds and the disagreement computed again from them.
        chunk_rows: rows a chunk (default :data:`CHUNK_ROWS`).
    """

    progress: bool | None = None
    say: Callable[[str], None] | None = None
    compute: bool = True
    chunk_rows: int | None = None


def evaluate_stored(
    rows: Sequence[BatchRow],
    config: EvaluationConfig,
    store: ResultStore,
    configuration: Keys,
    *,
    scorer: Scorer | None = None,
    options: PassOptions | None = None,
    stored: Mapping[str, Mapping[str, StoredResult]] | None = None,
) -> StoredRun:
    """Compute what the store lacks for ``rows`` under ``configuration`` and store it as it comes.

    The rows go through the engine a chunk of rows at a time: each chunk is read from the store, computed
    (BERTScore signals, then the judge, then the disagreement) and stored before the next is read.

    Args:
        rows: the rows; ``key`` is the row's id in the store (text), ``wants`` the signals it can have.
        config: the evaluation configuration (its judge, thresholds, judge rows and concurrency).
        store: the result store; configuration: the keys its results are kept under (:mod:`.store_keys`:
            each signal's, or one id for all).
        scorer: the core scorer (default: ``config.score``'s, loaded only when a row is scored).
        options: how the pass runs (:class:`PassOptions`: progress, say, compute, chunk_rows).
        stored: the rows' results as the caller read them from the store (a page of spans: read once);
            None: read here, a chunk at a time.

    Returns:
        The :class:`StoredRun`.

    Raises:
        InputError: with ``compute=False``, a row the store has no score for (naming it).
        ResultStoreError: the store cannot be read or written.
    """
    rows, options = list(rows), options or PassOptions()
    compute, chunk_rows = options.compute, options.chunk_rows or CHUNK_ROWS
    refuse_idf_per_batch(
        getattr(scorer, "config", None) or config.score,
        "chunk of rows",
        "fit it once (bertscore_plugins.fit_idf(references)) and pass the IdfTable as idf=",
    )
    run = StoredRun(cells={}, failures={}, triage=_no_calls(config))
    plan = _Plan(rows, config, _found(rows, store, configuration, stored))
    shown = plan.start(options)
    try:
        for start in range(0, len(rows), chunk_rows):
            chunk = rows[start : start + chunk_rows]
            ids = [str(row.key) for row in chunk]
            found = stored if stored is not None else store.results(configuration, ids)
            _Pass(chunk, config, store, configuration, scorer, run, found).steps(compute)
            if shown is not None:
                shown.update(sum(1 for i in ids if i in plan.to_compute))
            release_freed_memory()  # the chunk's freed heap pages: else the next chunk's tensors take fresh ones
    finally:
        if shown is not None:
            shown.close()
    if config.thresholds_from_data:  # the thresholds read every row: the disagreement once all are in
        _Pass(rows, config, store, configuration, scorer, run, {}).disagreement()
    return run


def _found(
    rows: list[BatchRow],
    store: ResultStore,
    configuration: Keys,
    stored: Mapping[str, Mapping[str, StoredResult]] | None,
) -> dict[str, dict[str, bool]]:
    """``{row_id: {name: holds a cell}}``: from the results the caller read, else from the store without cells."""
    if stored is not None:
        return {i: {n: r.cell is not None for n, r in found.items()} for i, found in stored.items()}
    return store.stored_names(configuration, [str(row.key) for row in rows])


class _Plan:
    """What a pass will compute, known before the first chunk: the lines said, the rows counted."""

    def __init__(self, rows: list[BatchRow], config: EvaluationConfig, found: dict[str, dict[str, bool]]):
        self.rows, self.config, self.found = rows, config, found
        self.offline = [row for row in rows if self.lacks(row, bertscore_names(config))]
        judge = (config.judge.name,) if config.judge is not None else ()
        self.judged = [row for row in rows if judge and self.lacks(row, judge)]
        self.to_compute = {str(row.key) for row in (*self.offline, *self.judged)}

    def lacks(self, row: BatchRow, names: Sequence[str]) -> bool:
        """Whether the row can have one of ``names`` and the store holds nothing for it (the judge: no verdict)."""
        found = self.found.get(str(row.key), {})
        return any(
            (row.wants is None or name in row.wants) and lacks(found.get(name), name, self.config)
            for name in names
        )

    def start(self, options: PassOptions) -> Progress | None:
        """Say what the pass will compute, and return the progress over its rows (None: none shown); not
        computing, refuse a row without its stored scores instead."""
        if not options.compute:
            self.refuse_missing()
            return None
        self.say(options.say or (lambda _: None))
        return work_progress(len(self.to_compute), options.progress, "scoring", self.characters())

    def say(self, say: Callable[[str], None]) -> None:
        config, total = self.config, len(self.rows)
        if self.offline:
            say(f"Scoring {len(self.offline)} of {total} rows (similarity, groundedness, fact check) ...")
        elif self.rows:
            say(f"Loaded {total} scored rows from the store; nothing is scored again.")
        if self.judged:
            assert config.judge is not None
            retry = any(config.judge.name in self.found.get(str(row.key), {}) for row in self.judged)
            say(
                f"Asking the judge about {len(self.judged)} rows"
                + (" (fewer: the offline signals settle some)" if config.judge_rows == "unsettled" else "")
                + (" (those without a verdict; nothing else is computed again)" if retry else "")
                + " ..."
            )

    def refuse_missing(self) -> None:
        """With ``compute=False``: every signal a row can have must be stored (with a score or a final failure)."""
        config = self.config
        names = [*bertscore_names(config), *((config.judge.name,) if config.judge is not None else ())]
        lacking = [str(row.key) for row in self.rows if self.lacks(row, names)]
        if lacking:
            raise InputError(
                f"{len(lacking)} of {len(self.rows)} rows have no stored scores under this configuration "
                f"(rows {', '.join(lacking[:5])}{' ...' if len(lacking) > 5 else ''}): score them first"
            )

    def characters(self) -> int:
        """About how many characters the rows to score hold (the bar's estimate of the work)."""
        return sum(
            len(str(row.output)) + len(str(row.context)) + len(str(row.reference)) for row in self.offline
        )


class _Pass:
    """One chunk of the rows: each step reads the store's cells and the cells computed before it; the
    cells of every chunk gather in ``run``."""

    def __init__(
        self,
        rows: list[BatchRow],
        config: EvaluationConfig,
        store: ResultStore,
        configuration: Keys,
        scorer: Scorer | None,
        run: StoredRun,
        stored: Mapping[str, Mapping[str, StoredResult]],
    ) -> None:
        self.rows, self.config, self.store, self.configuration = rows, config, store, configuration
        self.scorer, self.run = scorer, run
        ids = [str(row.key) for row in rows]
        self.stored = {row_id: stored.get(row_id, {}) for row_id in ids}
        for row_id, found in self.stored.items():
            if row_id in run.cells:  # a row met again (the disagreement after every chunk): as computed
                continue
            run.cells[row_id] = {n: r.cell for n, r in found.items() if r.cell is not None}
            run.failures[row_id] = {n: r.failure or "" for n, r in found.items() if r.cell is None}
        self.changed: set[str] = set()

    def steps(self, compute: bool) -> None:
        """The chunk's steps in order: relabel; when computing, the BERTScore signals, then the judge; the
        disagreement when its thresholds are fixed (from the data, it waits for every chunk)."""
        self.relabel()
        if compute:
            self.offline()
            if self.config.judge is not None:
                self.judge()
        if not self.config.thresholds_from_data:
            self.disagreement()

    def wants(self, row: BatchRow, names: Sequence[str]) -> frozenset[str]:
        """Which of ``names`` the row can have and the store lacks."""
        stored = self.stored[str(row.key)]
        return frozenset(
            name
            for name in names
            if (row.wants is None or name in row.wants) and missing(stored.get(name), name, self.config)
        )

    def relabel(self) -> None:
        """Stored cells labelled at another threshold than the configuration's: relabelled and stored again."""
        found = []
        for row_id in self.stored:
            cells = self.run.cells[row_id]
            for name, cell in cells.items():
                again = relabel(cell, self.config)
                if again != cell:
                    cells[name] = again
                    found.append(Entry(row_id, name, again, None))
                    self.run.written.add((row_id, name))
                    self.changed.add(row_id)
        if found:
            self.store.put(self.configuration, found)

    def asking(self, row: BatchRow, wants: frozenset[str]) -> BatchRow:
        return replace(row, wants=wants, known={**row.known, **self.run.cells[str(row.key)]})

    def offline(self) -> None:
        config = self.config
        todo = [self.asking(row, w) for row in self.rows if (w := self.wants(row, bertscore_names(config)))]
        if todo:
            self.compute(todo, config.replace(thresholds_from_data=False), "score")

    def judge(self) -> None:
        config = self.config
        assert config.judge is not None
        todo = [self.asking(row, w) for row in self.rows if (w := self.wants(row, (config.judge.name,)))]
        chunk = config.judge_concurrency
        for start in range(0, len(todo), chunk):  # each chunk's verdicts are stored as they arrive
            result = self.compute(
                todo[start : start + chunk], config.replace(thresholds_from_data=False), "judge"
            )
            for key in ("rows", "judged", "saved"):
                self.run.triage[key] = _count(self.run.triage.get(key)) + _count(result.triage.get(key))

    def disagreement(self) -> None:
        config = self.config
        name = config.disagreement_name
        wanting = [row for row in self.rows if row.wants is None or name in row.wants]
        if (
            config.thresholds_from_data
        ):  # the thresholds depend on every row: all again (unchanged cells stay)
            todo = wanting
        else:
            todo = [row for row in wanting if str(row.key) in self.changed or self.stale(row, name)]
        if not todo:  # every disagreement stands, read at the configuration's thresholds (``stale``)
            fixed = Thresholds(config.similarity_threshold, config.effective_faithfulness_threshold)
            self.run.thresholds = fixed if wanting else None
            return
        todo = [self.asking(row, frozenset({name})) for row in todo]
        try:
            result = self.compute(todo, config, "score")
        except ArgumentError as error:  # thresholds_from_data with no row holding both scores yet
            if not config.thresholds_from_data:
                raise
            warnings.warn(
                ThresholdsNotFromDataWarning(
                    f"thresholds not set from the data yet ({error}); fixed thresholds used"
                ),
                stacklevel=3,
            )
            result = self.compute(todo, config.replace(thresholds_from_data=False), "score")
        self.run.thresholds = result.thresholds

    def stale(self, row: BatchRow, name: str) -> bool:
        """The row's disagreement is missing, or was labelled at other thresholds than the configuration's."""
        if self.wants(row, (name,)):
            return True
        cell = self.run.cells[str(row.key)].get(name)
        if cell is None or not isinstance(cell.metadata, DisagreementMetadata):
            return True
        thresholds = (cell.metadata.similarity_threshold, cell.metadata.faithfulness_threshold)
        return thresholds != (self.config.similarity_threshold, self.config.effective_faithfulness_threshold)

    def compute(self, rows: list[BatchRow], config: EvaluationConfig, part: str) -> BatchResult:
        """The one engine call over ``rows``; every cell and failure it gives that the store does not
        hold already is stored at once."""
        # the pass shows one indicator over the chunks (evaluate_stored), never a bar per chunk
        result = evaluate_batch(rows, config, scorer=self.scorer, exit_on_error=False, progress=False)
        self.run.seconds[part] += sum(result.seconds.values())
        found = [
            entry
            for entry in entries(rows, result)
            if entry.cell is None or self.run.cells[entry.row_id].get(entry.name) != entry.cell
        ]
        self.store.put(self.configuration, found)
        self.run.fresh += found
        for row_id, name, cell, failure in found:
            self.run.written.add((row_id, name))
            if cell is not None:
                self.run.cells[row_id][name] = cell
                self.run.failures[row_id].pop(name, None)
                self.changed.add(row_id)
            else:
                self.run.failures[row_id][name] = failure or "no result"
            self.run.computed[name] = self.run.computed.get(name, 0) + (cell is not None)
        return result


def entries(rows: Sequence[BatchRow], result: BatchResult) -> list[Entry]:
    """The store entries of a batch: a cell per computed signal, a failure per failed one (a signal the
    row did not want, or a disagreement that did not run for want of a score, is not recorded)."""
    found: list[Entry] = []
    for name, cells in result.cells.items():
        for row, cell, details in zip(rows, cells, result.details[name], strict=True):
            if row.wants is not None and name not in row.wants:
                continue
            if cell is not None:
                found.append(Entry(str(row.key), name, cell, None))
            elif details is not None and details.get("status") == "FAILED":
                reason = "; ".join(exceptions_of(details)) or "no result"
                found.append(Entry(str(row.key), name, None, reason))
    return found


def _no_calls(config: EvaluationConfig) -> dict[str, int | str]:
    """The judge triage of a pass before it asked anything."""
    return {"rows": 0, "judged": 0, "saved": 0, "mode": config.judge_rows if config.judge else "none"}


def _count(value: int | str | None) -> int:
    return value if isinstance(value, int) else 0

"""The one pipeline: rows from any source -> the engine -> the one result store; sinks read the store.

Every row source (the recipe's table file, a DataFrame, a dataset, a page of Phoenix spans) hands its
rows to :func:`evaluate_stored` as :class:`~.batch.BatchRow` values whose ``label`` is the row's id in
the store. It computes, with :func:`~.batch.evaluate_batch` (the one engine call), only what the store
(:mod:`.store`) lacks under the configuration's id, and stores every result the moment it exists:

1. the BERTScore signals (similarity, groundedness, offline faithfulness) of the rows missing one, in one
   engine call, stored before the judge is asked;
2. the judge, only for the rows without a verdict (never asked, or failed: a judge outage is the one
   failure worth retrying; an input error fails again), a chunk of ``judge_concurrency`` rows at a time,
   each chunk's verdicts stored as they arrive: a run killed while the judge answers loses at most the
   chunk in flight, and the next run asks only the rows still without a verdict;
3. the disagreement of the rows whose signals changed (all rows when its thresholds come from the data).

That is the one resume rule, for the recipe and for trace evaluation alike. A stored cell labelled at
another threshold than the configuration's is relabelled from its score (:mod:`.labels`), so a store kept
under an id that leaves the thresholds out (the recipe's) re-applies new thresholds without a model call;
with ``compute=False`` nothing but that is done, and a row missing a score is an error naming it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bertscore_plugins.errors import ArgumentError, BertScorePluginsWarning, InputError
from bertscore_plugins.evaluation.batch import BatchResult, BatchRow, evaluate_batch
from bertscore_plugins.evaluation.cells import Cell, DisagreementMetadata, exceptions_of
from bertscore_plugins.evaluation.disagreement import Thresholds
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.labels import relabel
from bertscore_plugins.evaluation.store import Entry, ResultStore, StoredResult

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

    def cell(self, row_id: str, name: str) -> Cell | None:
        return self.cells.get(row_id, {}).get(name)


def missing(result: StoredResult | None, name: str, config: EvaluationConfig) -> bool:
    """The one resume rule: a signal is computed when the store has nothing for it, or when it holds the
    judge's failure (an outage passes; a BERTScore input error would fail again, so it stays)."""
    if result is None:
        return True
    return result.cell is None and config.judge is not None and name == config.judge.name


def evaluate_stored(
    rows: Sequence[BatchRow],
    config: EvaluationConfig,
    store: ResultStore,
    configuration: str,
    *,
    scorer: Scorer | None = None,
    progress: bool | None = None,
    say: Callable[[str], None] | None = None,
    compute: bool = True,
) -> StoredRun:
    """Compute what the store lacks for ``rows`` under ``configuration`` and store it as it comes.

    Args:
        rows: the rows; ``label`` is the row's id in the store (text), ``wants`` the signals it can have.
        config: the evaluation configuration (its judge, thresholds, judge rows and concurrency).
        store: the result store; configuration: the id its results are kept under.
        scorer: the core scorer (default: ``config.score``'s); progress: the core's bar.
        say: called with one line before each long step ("Asking the judge about 8 rows ...").
        compute: False: no model and no judge, only the stored cells relabelled at ``config``'s thresholds and
            the disagreement computed again from them.

    Returns:
        The :class:`StoredRun`.

    Raises:
        InputError: with ``compute=False``, a row the store has no score for (naming it).
        ResultStoreError: the store cannot be read or written.
    """
    pass_ = _Pass(list(rows), config, store, configuration, scorer, progress, say or (lambda _: None))
    pass_.relabel()
    if compute:
        pass_.offline()
        if config.judge is not None:
            pass_.judge()
    else:
        pass_.refuse_missing()
    pass_.disagreement()
    return pass_.run


class _Pass:
    """One pass over the rows: each step reads the store's cells and the cells computed before it."""

    def __init__(
        self,
        rows: list[BatchRow],
        config: EvaluationConfig,
        store: ResultStore,
        configuration: str,
        scorer: Scorer | None,
        progress: bool | None,
        say: Callable[[str], None],
    ) -> None:
        self.rows, self.config, self.store, self.configuration = rows, config, store, configuration
        self.scorer, self.progress, self.say = scorer, progress, say
        ids = [str(row.label) for row in rows]
        stored = store.results(configuration, ids)
        self.stored = {row_id: stored.get(row_id, {}) for row_id in ids}
        self.run = StoredRun(cells={}, failures={}, triage=_no_calls(config))
        for row_id, results in self.stored.items():
            self.run.cells[row_id] = {n: r.cell for n, r in results.items() if r.cell is not None}
            self.run.failures[row_id] = {n: r.failure or "" for n, r in results.items() if r.cell is None}
        self.changed: set[str] = set()

    def wants(self, row: BatchRow, names: Sequence[str]) -> frozenset[str]:
        """Which of ``names`` the row can have and the store lacks."""
        stored = self.stored[str(row.label)]
        return frozenset(
            name
            for name in names
            if (row.wants is None or name in row.wants) and missing(stored.get(name), name, self.config)
        )

    def relabel(self) -> None:
        """Stored cells labelled at another threshold than the configuration's: relabelled and stored again."""
        found = []
        for row_id, cells in self.run.cells.items():
            for name, cell in cells.items():
                again = relabel(cell, self.config)
                if again != cell:
                    cells[name] = again
                    found.append(Entry(row_id, name, again, None))
                    self.changed.add(row_id)
        if found:
            self.store.put(self.configuration, found)

    def refuse_missing(self) -> None:
        """With ``compute=False``: every signal a row can have must be stored (with a score or a final failure)."""
        config = self.config
        names = [config.similarity_name, config.groundedness_name, config.offline_name]
        names += [config.judge.name] if config.judge is not None else []
        lacking = [str(row.label) for row in self.rows if self.wants(row, names)]
        if lacking:
            raise InputError(
                f"{len(lacking)} of {len(self.rows)} rows have no stored scores under this configuration "
                f"(rows {', '.join(lacking[:5])}{' ...' if len(lacking) > 5 else ''}): score them first"
            )

    def asking(self, row: BatchRow, wants: frozenset[str]) -> BatchRow:
        return replace(row, wants=wants, known={**row.known, **self.run.cells[str(row.label)]})

    def offline(self) -> None:
        config = self.config
        names = (config.similarity_name, config.groundedness_name, config.offline_name)
        todo = [self.asking(row, w) for row in self.rows if (w := self.wants(row, names))]
        if not todo and self.rows:
            self.say(f"Loaded {len(self.rows)} scored rows from the store; nothing is scored again.")
        if todo:
            self.say(
                f"Scoring {len(todo)} of {len(self.rows)} rows (similarity, groundedness, fact check) ..."
            )
            self.compute(todo, config.replace(thresholds_from_data=False), "score")

    def judge(self) -> None:
        config = self.config
        assert config.judge is not None
        todo = [self.asking(row, w) for row in self.rows if (w := self.wants(row, (config.judge.name,)))]
        if not todo:
            return
        retry = any(config.judge.name in self.run.failures[str(row.label)] for row in todo)
        self.say(
            f"Asking the judge about {len(todo)} rows"
            + (" (fewer: the offline signals settle some)" if config.judge_rows == "unsettled" else "")
            + (" (those without a verdict; nothing else is computed again)" if retry else "")
            + " ..."
        )
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
            todo = [row for row in wanting if str(row.label) in self.changed or self.stale(row, name)]
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
        cell = self.run.cells[str(row.label)].get(name)
        if cell is None or not isinstance(cell.metadata, DisagreementMetadata):
            return True
        thresholds = (cell.metadata.similarity_threshold, cell.metadata.faithfulness_threshold)
        return thresholds != (self.config.similarity_threshold, self.config.effective_faithfulness_threshold)

    def compute(self, rows: list[BatchRow], config: EvaluationConfig, part: str) -> BatchResult:
        """The one engine call over ``rows``; every cell and failure it gives that the store does not
        hold already is stored at once."""
        result = evaluate_batch(rows, config, scorer=self.scorer, exit_on_error=False, progress=self.progress)
        self.run.seconds[part] += sum(result.seconds.values())
        found = [
            entry
            for entry in entries(rows, result)
            if entry.cell is None or self.run.cells[entry.row_id].get(entry.name) != entry.cell
        ]
        self.store.put(self.configuration, found)
        self.run.fresh += found
        for row_id, name, cell, failure in found:
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
                found.append(Entry(str(row.label), name, cell, None))
            elif details is not None and details.get("status") == "FAILED":
                reason = "; ".join(exceptions_of(details)) or "no result"
                found.append(Entry(str(row.label), name, None, reason))
    return found


def _no_calls(config: EvaluationConfig) -> dict[str, int | str]:
    """The judge triage of a pass before it asked anything."""
    return {"rows": 0, "judged": 0, "saved": 0, "mode": config.judge_rows if config.judge else "none"}


def _count(value: int | str | None) -> int:
    return value if isinstance(value, int) else 0

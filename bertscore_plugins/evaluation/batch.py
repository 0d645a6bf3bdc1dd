"""One batch of RAG rows through every signal: similarity -> groundedness and offline faithfulness ->
judge triage and the judge -> disagreement.

This is the only place a row's scores, labels and explanations are computed; the row sources are thin
adapters over it: a DataFrame (:func:`.dataframe.evaluate_rows`), the recipe's table
(``cli.disagreement.recipe``) and a page of Phoenix spans (``integrations.phoenix.trace_evaluation``). So a
row gets the same cells whichever way it came. Rows are plain :class:`BatchRow` values; the BERTScore
signals come from the core (:mod:`.signals`), the verdicts from a :class:`~.judge.Judge`.

    >>> rows = [BatchRow("r0", output="Discharged on Thursday.", context="Discharged on Tuesday.",
    ...                  reference="Discharged on Tuesday.")]
    >>> result = evaluate_batch(rows, EvaluationConfig())          # doctest: +SKIP
    >>> result.cells["offline_faithfulness"][0]["label"]           # doctest: +SKIP
    'unfaithful'
"""

from __future__ import annotations

import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, cast

from bertscore_plugins.errors import BertScorePluginsWarning, InputError
from bertscore_plugins.evaluation.cells import (
    Cell,
    Details,
    DisagreementMetadata,
    completed,
    exceptions_of,
    failed,
    row_number,
    usable,
)
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cell, disagreement_cells
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig, judge_near_chance
from bertscore_plugins.evaluation.judge import (
    Judge,
    JudgeRow,
    ask,
    outcome_judge_cell,
    settled_judge_cell,
    settled_label,
    verdict_cell,
)
from bertscore_plugins.evaluation.signals import (
    Groundedness,
    OfflineSignal,
    Signal,
    Similarity,
    pair_problem,
    scorable,
    signal_cells,
)
from bertscore_plugins.faithfulness import join_context, plain_text
from bertscore_plugins.faithfulness.outcome import answer_outcome

if TYPE_CHECKING:
    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.faithfulness.reading import Context


@dataclass(frozen=True)
class BatchRow:
    """One row: what the evaluators read, which signals it wants, and the cells known from before.

    ``key`` identifies the row: its key in the store, and its name in errors and warnings (a DataFrame
    index, a span id; see ``named``). ``wants`` None means
    every signal of the configuration; a span without a reference wants no similarity. ``known`` holds
    cells computed by an earlier run (a judge retry reads the stored similarity for the disagreement).
    """

    key: object
    output: object
    context: object = None
    reference: object = None
    input: object = None
    wants: frozenset[str] | None = None
    known: Mapping[str, Cell] = field(default_factory=dict)
    #: how warnings and errors name the row when ``key`` is an identity, not the user's count
    #: (the recipe's store key "2#7963d1877101" is "data row 3" to the user)
    named: str | None = None


@dataclass
class BatchResult:
    """Per signal name, one :class:`~.cells.Cell` and one execution-details dict per row.

    A cell is None where the row did not want the signal (its details are None too) or where it failed
    (details say FAILED or DID NOT RUN, with the reason). ``triage`` counts the judge calls made and saved.
    """

    cells: dict[str, list[Cell | None]]
    details: dict[str, list[Details | None]]
    thresholds: Thresholds | None
    triage: dict[str, int | str]
    seconds: dict[str, float] = field(default_factory=dict)  # "score" (BERTScore), "judge"


def evaluate_batch(
    rows: Sequence[BatchRow],
    config: EvaluationConfig,
    *,
    scorer: Scorer | None = None,
    exit_on_error: bool = False,
    progress: bool | None = None,
) -> BatchResult:
    """Every signal of ``config`` for each row that wants it, with one core call per BERTScore signal.

    Args:
        rows: the batch, in order (results come back in the same order).
        config: thresholds, judge and which rows it sees, names.
        scorer: the core scorer to use (default: ``config.score``'s, ``core.scorer.resolve_scorer``).
        exit_on_error: True: a row with a bad output/reference/context raises ``InputError`` naming it;
            False: that row's cell is None with status FAILED and the reason.
        progress: the core's progress bar (None: its default).

    Raises:
        InputError: a bad row with ``exit_on_error``. ValueError: ``thresholds_from_data`` with no row
            that has both scores.
    """
    batch = _Batch(list(rows), config, scorer, exit_on_error, progress)
    if config.judge is not None and config.disagreement_reads == "auto" and judge_near_chance(config.judge):
        _say_the_judge_is_near_chance(config.judge)
    started = time.perf_counter()
    batch.similarity()
    batch.offline()
    seconds = {"score": time.perf_counter() - started, "judge": 0.0}
    if config.judge is not None:
        started = time.perf_counter()
        batch.judge()
        seconds["judge"] = time.perf_counter() - started
    thresholds = batch.disagreement()
    names = (config.similarity_name, config.offline_name, config.groundedness_name)
    order = [*names, *((config.judge.name,) if config.judge is not None else ()), config.disagreement_name]
    return BatchResult(
        cells={name: batch.cells[name] for name in order},
        details={name: batch.details[name] for name in order},
        thresholds=thresholds,
        triage=batch.triage,
        seconds=seconds,
    )


#: the judges already said to be near chance: one run (its batches, chunks and pages) uses one judge object
_SAID_NEAR_CHANCE: weakref.WeakSet[Judge] = weakref.WeakSet()


def _say_the_judge_is_near_chance(judge: Judge) -> None:
    """Once per run, that is per judge object (Python's own once-per-place rule does not hold: the core's
    warning handling resets it): the judge's verdicts are kept, but it does not decide the disagreement."""
    try:
        if judge in _SAID_NEAR_CHANCE:
            return
        _SAID_NEAR_CHANCE.add(judge)
    except TypeError:  # a judge that cannot be weakly referenced or hashed: said each batch
        pass
    auc = getattr(judge, "measured_auc", None)
    measured = f" (development ROC-AUC {auc:.2f}, benchmarks/QUALITY.md section 9)" if auc is not None else ""
    warnings.warn(
        f"the judge {judge.model or judge.name} ranks summaries near chance{measured}: its verdicts are kept "
        "in their own column, but the disagreement reads the offline faithfulness; "
        "disagreement_reads='judge' (--disagreement-reads judge) lets a judge decide",
        BertScorePluginsWarning,
        stacklevel=3,
    )


class _Batch:
    """The batch's working state: each step reads the config and writes ``cells`` / ``details``."""

    def __init__(
        self,
        rows: list[BatchRow],
        config: EvaluationConfig,
        scorer: Scorer | None,
        exit_on_error: bool,
        progress: bool | None,
    ) -> None:
        self.rows, self.config, self._scorer = rows, config, scorer
        self.exit_on_error, self.progress = exit_on_error, progress
        self.cells: dict[str, list[Cell | None]] = {name: [None] * len(rows) for name in config.names}
        self.details: dict[str, list[Details | None]] = {name: [None] * len(rows) for name in config.names}
        self.triage: dict[str, int | str] = {"rows": len(rows), "judged": 0, "saved": 0, "mode": "none"}
        # an answer that is no answer to judge: its outcome is its label on every signal
        self.outcomes = {
            p: outcome
            for p, row in enumerate(rows)
            if isinstance(row.output, str) and (outcome := answer_outcome(plain_text(row.output)))
        }

    @property
    def scorer(self) -> Scorer:
        """The given scorer, else the configuration's (``core.scorer.resolve_scorer``), loaded when a pair is
        first scored: a batch that only asks the judge or reads stored cells (the disagreement) loads no model."""
        if self._scorer is None:
            from bertscore_plugins.core.scorer import resolve_scorer  # torch: loaded when a batch is scored

            self._scorer = resolve_scorer(self.config.score, {})
        return self._scorer

    def wanted(self, name: str) -> list[int]:
        return [i for i, row in enumerate(self.rows) if row.wants is None or name in row.wants]

    def cell(self, name: str, position: int) -> Cell | None:
        """This run's cell, else the one known from before."""
        return self.cells[name][position] or self.rows[position].known.get(name)

    def row_name(self, position: int) -> str:
        row = self.rows[position]
        return row.named or row_number(row.key, position)

    def similarity(self) -> None:
        config = self.config
        signal = Similarity(config.similarity_name, config.similarity_threshold)
        self._score([signal], self.wanted(signal.name))

    def offline(self) -> None:
        """Groundedness and the offline faithfulness from ONE core call (the fact check reads its alignment)."""
        config = self.config
        groundedness = Groundedness(config.groundedness_name, config.groundedness_threshold)
        offline = OfflineSignal(config.offline_name, config.offline_threshold)
        positions = sorted(set(self.wanted(groundedness.name)) | set(self.wanted(offline.name)))
        self._score([groundedness, offline], positions)

    def _score(self, signals: list[Signal], positions: list[int]) -> None:
        """Score the rows at ``positions`` for ``signals`` (which read the same field) in one core call;
        a bad row fails (or raises, with ``exit_on_error``) naming the row and the field."""
        reads, started = signals[0].reads, time.perf_counter()
        pairs: dict[int, tuple[str, object]] = {}
        problems: dict[int, str] = {}
        for p in positions:
            row = self.rows[p]
            problem = pair_problem(row.output, getattr(row, reads), reads)
            if problem is None:
                pairs[p] = scorable(row.output, getattr(row, reads), reads)
                continue
            problems[p] = f"row {self.row_name(p)}: InputError: {problem}"
            if self.exit_on_error:
                raise InputError(f"{signals[0].name}: {problems[p]}")
        row_names = {p: self.row_name(p) for p in pairs}
        outcomes = {p: outcome for p, outcome in self.outcomes.items() if p in pairs}
        cells = signal_cells(self.scorer, signals, pairs, row_names, self.progress, outcomes) if pairs else {}
        seconds = (time.perf_counter() - started) / max(len(positions), 1)
        for signal in signals:
            chosen = set(self.wanted(signal.name))
            for p in positions:
                if p not in chosen:
                    continue
                ok = p in pairs
                self.cells[signal.name][p] = cells[signal.name][p] if ok else None
                self.details[signal.name][p] = completed(seconds) if ok else failed(problems[p], seconds)

    def judge(self) -> None:
        """The judge on the rows it must see; with judge_rows="unsettled", the offline signals settle the
        others (a judge-shaped cell marked ``metadata.source == "offline"``) and the calls are saved. A
        row whose output or context cannot be read fails as its offline cell does, unasked."""
        config = self.config
        assert config.judge is not None
        name = config.judge.name
        positions = []
        for p in self.wanted(name):
            problem = pair_problem(self.rows[p].output, self.rows[p].context, "context")
            if problem is None:
                positions.append(p)
            else:
                self.details[name][p] = failed(f"row {self.row_name(p)}: InputError: {problem}")
        # an empty answer or a refusal is its own outcome: no judge reads it (the same label as offline)
        outcomes = {p: self.outcomes[p] for p in positions if p in self.outcomes}
        for position, outcome in outcomes.items():
            self.cells[name][position] = outcome_judge_cell(outcome, name)
            self.details[name][position] = completed()
        positions = [p for p in positions if p not in outcomes]
        settled: dict[int, str] = {}
        if config.judge_rows == "unsettled":
            labels = {p: settled_label(self.cell(config.offline_name, p)) for p in positions}
            settled = {p: label for p, label in labels.items() if label is not None}
        asked = [p for p in positions if p not in settled]
        for position, label in settled.items():
            offline = self.cell(config.offline_name, position)
            assert offline is not None  # a settled row has its offline cell
            self.cells[name][position] = settled_judge_cell(offline, label, name)
            self.details[name][position] = completed()
        if asked:
            self._ask(name, asked)
        # calls saved: the rows the offline signals settled and the answers that were no answer to judge
        saved = len(settled) + len(outcomes)
        self.triage = {"rows": len(positions) + len(outcomes), "judged": len(asked), "saved": saved}
        self.triage["mode"] = config.judge_rows

    def _ask(self, name: str, asked: list[int]) -> None:
        rows = [
            JudgeRow(
                self.rows[p].key,
                self.rows[p].input,
                str(self.rows[p].output),  # checked: a text (pair_problem)
                join_context(cast("Context", self.rows[p].context)),  # checked: a text or passages
            )
            for p in asked
        ]
        config = self.config
        assert config.judge is not None
        verdicts = ask(
            config.judge, rows, concurrency=config.judge_concurrency, max_retries=config.judge_max_retries
        )
        for position, verdict in zip(asked, verdicts, strict=True):
            self.cells[name][position], self.details[name][position] = (
                verdict_cell(verdict),
                dict(verdict.details),
            )

    def disagreement(self) -> Thresholds | None:
        config = self.config
        positions = self.wanted(config.disagreement_name)
        sim = [self.cell(config.similarity_name, p) for p in positions]
        faith = [self.cell(config.faithfulness_name, p) for p in positions]
        if config.thresholds_from_data:
            thresholds = Thresholds.from_cells(sim, faith)
        else:
            thresholds = Thresholds(
                similarity=config.similarity_threshold, faithfulness=config.effective_faithfulness_threshold
            )
        cells, details = disagreement_cells(
            sim,
            faith,
            thresholds,
            names=(config.similarity_name, config.faithfulness_name, config.disagreement_name),
            row_names=[self.row_name(p) for p in positions],
        )
        if config.reads_judge:
            self._offline_where_the_judge_failed(positions, sim, faith, thresholds, cells, details)
        for position, cell, detail in zip(positions, cells, details, strict=True):
            self.cells[config.disagreement_name][position] = cell
            self.details[config.disagreement_name][position] = detail
        return thresholds

    def _offline_where_the_judge_failed(
        self,
        positions: list[int],
        sim: list[Cell | None],
        faith: list[Cell | None],
        thresholds: Thresholds,
        cells: list[Cell | None],
        details: list[Details],
    ) -> None:
        """A row the judge gave no verdict for (an outage, a refused request) is read with the offline
        faithfulness, its explanation saying why: a judge's failure never blanks a disagreement the offline
        signal can give."""
        config = self.config
        assert config.judge is not None
        at_offline_threshold = Thresholds(thresholds.similarity, config.offline_threshold, thresholds.source)
        for i, position in enumerate(positions):
            offline, similarity = self.cell(config.offline_name, position), sim[i]
            if usable(faith[i]) or offline is None or similarity is None:
                continue
            if not usable(offline) or not usable(similarity):
                continue
            reason = "; ".join(exceptions_of(self.details[config.judge.name][position])) or "no verdict"
            cell = disagreement_cell(similarity, offline, at_offline_threshold, name=config.disagreement_name)
            assert isinstance(cell.metadata, DisagreementMetadata)
            explanation = f"{cell.explanation}; the judge gave no verdict ({reason[:200]}): the offline faithfulness decided"
            metadata = replace(cell.metadata, judge_failed=reason[:500])
            cells[i], details[i] = replace(cell, explanation=explanation, metadata=metadata), completed()

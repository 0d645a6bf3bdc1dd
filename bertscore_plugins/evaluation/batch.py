"""One batch of RAG rows through every signal: similarity -> groundedness and offline faithfulness ->
judge triage and the judge -> disagreement.

This is the only place a row's scores, labels and explanations are computed; the row sources are thin
adapters over it: a DataFrame (`pipeline.evaluate_rows`), the recipe's table (`recipes.disagreement`)
and a page of Phoenix spans (`trace_evaluation`). So a row gets the same cells whichever way it came.

    >>> rows = [BatchRow("r0", output="Discharged on Thursday.", context="Discharged on Tuesday.",
    ...                  reference="Discharged on Tuesday.")]
    >>> result = evaluate_batch(rows, EvaluationConfig())          # doctest: +SKIP
    >>> result.cells["offline_faithfulness"][0]["label"]           # doctest: +SKIP
    'unfaithful'
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from bertscore_plugins.evaluation.config import EvaluationConfig
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cells
from bertscore_plugins.facts import CONTEXT_SEPARATOR
from bertscore_plugins.integrations.phoenix.evaluators import BERTScoreEvaluator, _row_number, score_dataframe
from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator
from bertscore_plugins.integrations.phoenix.offline_faithfulness import (
    OfflineFaithfulnessEvaluator,
    score_offline,
    settled_judge_cell,
    settled_label,
)


@dataclass(frozen=True)
class BatchRow:
    """One row: what the evaluators read, which signals it wants, and the cells known from before.

    ``label`` names the row in errors and warnings (a DataFrame index, a span id). ``wants`` None means
    every signal of the configuration; a span without a reference wants no similarity. ``known`` holds
    cells computed by an earlier run (a judge retry reads the stored similarity for the disagreement).
    """

    label: Any
    output: Any
    context: Any = None
    reference: Any = None
    input: Any = None
    wants: frozenset[str] | None = None
    known: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass
class BatchResult:
    """Per signal name, one ``Score.to_dict()`` cell and one execution-details dict per row.

    A cell is None where the row did not want the signal (its details are None too) or where it failed
    (details say FAILED or DID NOT RUN, with the reason). ``triage`` counts the judge calls made and saved.
    """

    cells: dict[str, list[dict[str, Any] | None]]
    details: dict[str, list[dict[str, Any] | None]]
    thresholds: Thresholds | None
    triage: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)  # "score" (BERTScore), "judge"

    def add_to(self, dataframe: pd.DataFrame) -> pd.DataFrame:
        """A copy of ``dataframe`` (one row per batch row) with ``<name>_execution_details`` and
        ``<name>_score`` columns, the shape ``phoenix.evals.evaluate_dataframe`` writes."""
        result = dataframe.copy()
        for name in self.cells:
            result[f"{name}_execution_details"] = self.details[name]
            result[f"{name}_score"] = self.cells[name]
        result.attrs["judge_triage"] = self.triage
        return result


def evaluate_batch(
    rows: Sequence[BatchRow],
    config: EvaluationConfig,
    *,
    scorer: Any = None,
    exit_on_error: bool = False,
    progress: bool | None = None,
) -> BatchResult:
    """Every signal of ``config`` for each row that wants it, with one core call per BERTScore signal.

    Args:
        rows: the batch, in order (results come back in the same order).
        config: thresholds, judge and which rows it sees, names.
        scorer: the core scorer to use (default ``get_scorer(config.score)``).
        exit_on_error: True: a row with a bad output/reference/context raises ``InputError`` naming it;
            False: that row's cell is None with status FAILED and the reason.
        progress: the core's progress bar (None: its default).

    Raises:
        InputError: a bad row with ``exit_on_error``. ValueError: ``thresholds_from_data`` with no row
            that has both scores.
    """
    batch = _Batch(list(rows), config, _scorer(scorer, config), exit_on_error, progress)
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


def _scorer(scorer: Any, config: EvaluationConfig) -> Any:
    if scorer is not None:
        return scorer
    from bertscore_plugins.core.scorer import get_scorer

    return get_scorer(config.score)


def usable(cell: Any) -> bool:
    """A cell with a finite numeric score (a failed row's is None)."""
    if not isinstance(cell, Mapping):
        return False
    value = cell.get("score")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _completed() -> dict[str, Any]:
    return {"status": "COMPLETED", "exceptions": [], "execution_seconds": 0.0}


def _as_list(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


class _Batch:
    """The batch's working state: each step reads the config and writes ``cells`` / ``details``."""

    def __init__(
        self, rows: list[BatchRow], config: EvaluationConfig, scorer: Any, exit_on_error: bool, progress: Any
    ) -> None:
        self.rows, self.config, self.scorer = rows, config, scorer
        self.exit_on_error, self.progress = exit_on_error, progress
        self.cells: dict[str, list[Any]] = {name: [None] * len(rows) for name in config.names}
        self.details: dict[str, list[Any]] = {name: [None] * len(rows) for name in config.names}
        self.triage: dict[str, Any] = {"rows": len(rows), "judged": 0, "saved": 0, "mode": "none"}

    def wanted(self, name: str) -> list[int]:
        return [i for i, row in enumerate(self.rows) if row.wants is None or name in row.wants]

    def cell(self, name: str, position: int) -> Any:
        """This run's cell, else the one known from before."""
        return self.cells[name][position] or self.rows[position].known.get(name)

    def _frame(self, positions: list[int], source: str) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "output": [self.rows[p].output for p in positions],
                source: [_as_list(getattr(self.rows[p], source)) for p in positions],
            },
            index=[self.rows[p].label for p in positions],  # a warning about a row names it
        )

    def _keep(self, name: str, positions: list[int], frame: pd.DataFrame) -> None:
        for position, cell, details in zip(
            positions, frame[f"{name}_score"], frame[f"{name}_execution_details"], strict=True
        ):
            self.cells[name][position], self.details[name][position] = cell, details

    def similarity(self) -> None:
        name = self.config.similarity_name
        positions = self.wanted(name)
        if not positions:
            return
        evaluator = BERTScoreEvaluator(self.config.similarity_threshold, name=name, scorer=self.scorer)
        frame = score_dataframe(
            self._frame(positions, "reference"),
            evaluator,
            exit_on_error=self.exit_on_error,
            progress=self.progress,
        )
        self._keep(name, positions, frame)

    def offline(self) -> None:
        """Groundedness and the offline faithfulness from ONE core call (the fact check reads its alignment)."""
        config = self.config
        positions = sorted(set(self.wanted(config.groundedness_name)) | set(self.wanted(config.offline_name)))
        if not positions:
            return
        groundedness = GroundednessEvaluator(
            config.groundedness_threshold, name=config.groundedness_name, scorer=self.scorer
        )
        offline = OfflineFaithfulnessEvaluator(
            config.offline_threshold, name=config.offline_name, scorer=self.scorer
        )
        frame = score_offline(
            self._frame(positions, "context"),
            offline,
            groundedness,
            exit_on_error=self.exit_on_error,
            progress=self.progress,
        )
        for name in (config.groundedness_name, config.offline_name):
            chosen = set(self.wanted(name))
            kept = [i for i, p in enumerate(positions) if p in chosen]
            self._keep(name, [positions[i] for i in kept], frame.iloc[kept])

    def judge(self) -> None:
        """The judge on the rows it must see; with judge_rows="unsettled", the offline signals settle the
        others (a judge-shaped cell marked ``metadata.source == "offline"``) and the calls are saved."""
        config = self.config
        name = config.judge.name
        positions = self.wanted(name)
        settled = {}
        if config.judge_rows == "unsettled":
            labels = {p: settled_label(self.cell(config.offline_name, p)) for p in positions}
            settled = {p: label for p, label in labels.items() if label is not None}
        asked = [p for p in positions if p not in settled]
        for position, label in settled.items():
            offline = self.cell(config.offline_name, position)
            self.cells[name][position] = settled_judge_cell(offline, label, name)
            self.details[name][position] = _completed()
        if asked:
            self._ask(name, asked)
        self.triage = {
            "rows": len(positions),
            "judged": len(asked),
            "saved": len(settled),
            "mode": config.judge_rows,
        }

    def _ask(self, name: str, asked: list[int]) -> None:
        from bertscore_plugins.evaluation.judge import run_judge

        slim = pd.DataFrame(  # Phoenix's field names, and no big dict columns
            {
                "input": [self.rows[p].input for p in asked],
                "output": [self.rows[p].output for p in asked],
                "context": [_joined(self.rows[p].context) for p in asked],
            }
        )
        judged = run_judge(
            slim,
            judge=self.config.judge,
            concurrency=self.config.judge_concurrency,
            max_retries=self.config.judge_max_retries,
        )
        for position, cell, details in zip(
            asked, judged[f"{name}_score"], judged[f"{name}_execution_details"], strict=True
        ):
            if not usable(cell):
                reason = "; ".join((details or {}).get("exceptions") or []) or "no verdict"
                cell, details = (
                    None,
                    {**_completed(), **(details or {}), "status": "FAILED", "exceptions": [reason[:500]]},
                )
            self.cells[name][position], self.details[name][position] = cell, details

    def disagreement(self) -> Thresholds | None:
        config = self.config
        positions = self.wanted(config.disagreement_name)
        sim = [self.cell(config.similarity_name, p) for p in positions]
        faith = [self.cell(config.faithfulness_name, p) for p in positions]
        if config.thresholds_from_data:
            thresholds = Thresholds.from_cells(sim, faith)
        else:
            thresholds = Thresholds(
                similarity=config.similarity_threshold, faithfulness=config.faithfulness_cut
            )
        cells, details = disagreement_cells(
            sim,
            faith,
            thresholds,
            names=(config.similarity_name, config.faithfulness_name, config.disagreement_name),
            labels=[_row_number(self.rows[p].label, p) for p in positions],
        )
        for position, cell, detail in zip(positions, cells, details, strict=True):
            self.cells[config.disagreement_name][position] = cell
            self.details[config.disagreement_name][position] = detail
        return thresholds


def _joined(context: Any) -> Any:
    return CONTEXT_SEPARATOR.join(context) if isinstance(context, (list, tuple)) else context

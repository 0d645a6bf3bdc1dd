"""The engine's signals as ``phoenix.evals`` evaluators, and its batch paths in Phoenix's shapes.

Phoenix calls an evaluator once per row; BERTScore is far cheaper per row when the core embeds a whole
batch at once. :func:`batch_evaluate_dataframe` gives the batch speed while writing cells in exactly the
shape of ``phoenix.evals.evaluate_dataframe`` (``Score.to_dict()`` dicts and execution details), so
everything downstream (``to_annotation_dataframe``, span annotations, the disagreement step) cannot tell
them apart. The scores, labels and explanations are the evaluation engine's
(:mod:`bertscore_plugins.evaluation.signals`); this module only speaks Phoenix.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd
from phoenix.evals import Evaluator, Score
from phoenix.evals.utils import remap_eval_input
from pydantic import BaseModel, ConfigDict, ValidationError

from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, InputError
from bertscore_plugins.evaluation import dataframe as engine
from bertscore_plugins.evaluation.cells import Cell, completed, failed, row_number
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cell
from bertscore_plugins.evaluation.names import DISAGREEMENT, SIMILARITY, details_column, score_column
from bertscore_plugins.evaluation.signals import Signal, Similarity, pair_problem, scorable, signal_cells
from bertscore_plugins.integrations.phoenix.phoenix_judge import as_judge
from bertscore_plugins.thresholds import DEFAULT_SIMILARITY_THRESHOLD, check_threshold

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings
    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.evaluation.dataframe import RowOptions


class SimilarityInput(BaseModel):
    """What :class:`BERTScoreEvaluator` reads from a row."""

    output: str
    reference: str | list[str]


class _BERTScoreEvaluatorBase(Evaluator):
    """A BERTScore signal of the engine (``signal_class``) as a Phoenix ``code`` evaluator: one scorer,
    one threshold, the engine's cell as a ``Score``."""

    candidate_field = "output"
    reference_field = "reference"
    signal_class: type[Signal] = Similarity

    def __init__(
        self,
        *,
        name: str,
        threshold: float,
        scorer: Scorer | None = None,
        explain_k: int = 3,
        input_schema: type[BaseModel],
        **core_settings: Unpack[ScoreSettings],
    ) -> None:
        self.signal = self.signal_class(name, check_threshold("threshold", threshold), explain_k)
        if scorer is not None and core_settings:
            raise ArgumentError(
                f"pass either scorer= or core settings, not both (got settings {sorted(core_settings)})"
            )
        super().__init__(name=name, kind="code", direction="maximize", input_schema=input_schema)
        self.threshold = self.signal.threshold
        self.explain_k = self.signal.explain_k
        self.labels = self.signal.labels
        self._scorer = scorer
        self._core_settings = dict(core_settings)
        if scorer is None and core_settings:
            ScoreConfig.from_kwargs(**core_settings)  # fail now, not on the first row, when a name is wrong

    @property
    def scorer(self) -> Scorer:
        """The core ``BERTScorer`` (shared through ``get_scorer``: one model load per configuration)."""
        if self._scorer is None:
            from bertscore_plugins.core.scorer import resolve_scorer  # torch: loaded on first use

            self._scorer = resolve_scorer(None, self._core_settings)
        return self._scorer

    def _pair(self, eval_input: Mapping[str, object]) -> tuple[str, Any]:
        """(candidate, reference or context) as the core scores them, from a validated input; InputError
        for a pair the engine would not score (its own check, so a row reads the same one at a time or in
        a batch: a context with no text is refused either way)."""
        candidate, other = eval_input[self.candidate_field], eval_input[self.reference_field]
        problem = pair_problem(candidate, other, self.signal.reads)
        if problem:
            raise InputError(problem)
        return scorable(candidate, other, self.signal.reads)

    def _evaluate(self, eval_input: Mapping[str, object]) -> list[Score]:
        candidate, reference = self._pair(eval_input)
        cells = signal_cells(self.scorer, [self.signal], {0: (candidate, reference)})
        return [Score(**cells[self.name][0].to_dict())]


class BERTScoreEvaluator(_BERTScoreEvaluatorBase):
    """BERTScore F1 of the output against a reference, as a Phoenix ``code`` evaluator.

    Inputs: ``output`` (str) and ``reference`` (str, or a list of str: the best-matching one counts).
    Map other column names with ``phoenix.evals.bind_evaluator(evaluator=..., input_mapping=...)``; in
    ``run_experiment`` / ``evaluate_experiment`` bind ``{"output": "output", "reference":
    "expected.reference"}`` (or use ``experiments.experiment_evaluators``).

    Returns one ``Score``: ``score`` = F1, ``label`` "similar" when F1 >= ``threshold`` else
    "dissimilar", ``explanation`` naming the worst-matched output tokens ("Thursday -> Tuesday 0.71"),
    ``metadata`` = precision, recall, threshold, the core signature and the worst matches.

    Args:
        threshold: F1 threshold for the label (recorded in every row's metadata).
        name: annotation / column name ("bertscore" -> ``bertscore_score``).
        scorer: a core ``BERTScorer`` to reuse; default ``get_scorer(ScoreConfig(**core_settings))``.
        explain_k: how many worst matches to name.
        **core_settings: any core setting (``model=``, ``layer=``, ``idf=``, ``rescale=``, ...).

    Example::

        sim = BERTScoreEvaluator(threshold=0.9)
        sim.evaluate({"output": "Discharged on Thursday.", "reference": "Discharged on Tuesday."})
    """

    def __init__(
        self,
        threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
        *,
        name: str = SIMILARITY,
        scorer: Scorer | None = None,
        explain_k: int = 3,
        **core_settings: Unpack[ScoreSettings],
    ) -> None:
        super().__init__(
            name=name,
            threshold=threshold,
            scorer=scorer,
            explain_k=explain_k,
            input_schema=SimilarityInput,
            **core_settings,
        )


# -- a whole frame in one core call ------------------------------------------------------------------


def _valid_pairs(
    dataframe: pd.DataFrame, evaluator: _BERTScoreEvaluatorBase, mapping: Any, exit_on_error: bool
) -> tuple[dict[int, tuple[str, Any]], dict[int, str]]:
    """({position: (candidate, reference)} of the valid rows, {position: problem} of the others); with
    ``exit_on_error`` the first problem raises ``InputError`` naming its row."""
    schema = evaluator.input_schema
    assert schema is not None  # set by the base class
    required = {name for name, field in schema.model_fields.items() if field.is_required()}
    pairs: dict[int, tuple[str, Any]] = {}
    failures: dict[int, str] = {}
    for position, (index, record) in enumerate(
        zip(dataframe.index, dataframe.to_dict("records"), strict=True)
    ):
        eval_input = {str(key): value for key, value in record.items()}
        try:
            remapped = remap_eval_input(
                eval_input=eval_input, required_fields=required, input_mapping=mapping
            )
            pair = evaluator._pair(schema.model_validate(remapped).model_dump())
        except (ValidationError, ValueError, TypeError) as error:
            problem = f"row {row_number(index, position)}: {type(error).__name__}: {error}"
            if exit_on_error:
                raise InputError(f"{evaluator.name}: {problem}") from error
            failures[position] = problem
            continue
        pairs[position] = pair
    return pairs, failures


def batch_evaluate_dataframe(
    dataframe: pd.DataFrame,
    evaluator: _BERTScoreEvaluatorBase,
    *,
    input_mapping: Mapping[str, str | Callable[..., object]] | None = None,
    exit_on_error: bool = True,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Evaluate every row of ``dataframe`` with a BERTScore evaluator in ONE core call.

    The result equals ``phoenix.evals.evaluate_dataframe(dataframe, [evaluator])`` cell for cell in
    ``<name>_score`` (same ``Score.to_dict()`` dicts, same scores) and in the keys of
    ``<name>_execution_details``; ``execution_seconds`` is the batch time shared evenly over the rows.

        >>> scored = batch_evaluate_dataframe(frame, BERTScoreEvaluator(threshold=0.9))  # doctest: +SKIP
        >>> scored["bertscore_score"][0]["label"]                                          # doctest: +SKIP
        'similar'

    Args:
        dataframe: one row per example; any index (a ``span_id`` index is kept for annotations).
        evaluator: a :class:`BERTScoreEvaluator`, ``GroundednessEvaluator`` or
            ``OfflineFaithfulnessEvaluator``.
        input_mapping: field -> column name, JSONPath or callable; default: the mapping bound with
            ``bind_evaluator`` / ``.bind()``, else the field names themselves.
        exit_on_error: True: a bad row raises ``InputError`` naming the row and the problem.
            False: that row gets status "FAILED", its exception and a None score; the rest are scored.
        progress: passed to the core's ``score`` (None: its default).

    Returns:
        A copy of ``dataframe`` with ``<name>_execution_details`` and ``<name>_score`` columns.
    """
    options = {"input_mapping": input_mapping, "exit_on_error": exit_on_error, "progress": progress}
    return scored_frame(dataframe, evaluator, [getattr(evaluator, "signal", None)], options)


def scored_frame(
    dataframe: pd.DataFrame, evaluator: Any, signals: list[Any], options: Mapping[str, Any]
) -> pd.DataFrame:
    """``dataframe`` with a score and a details column per signal, all read from ONE core call over the
    rows ``evaluator`` validates (``options``: input_mapping, exit_on_error, progress)."""
    if not isinstance(dataframe, pd.DataFrame):
        raise ArgumentTypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    if not isinstance(evaluator, _BERTScoreEvaluatorBase):
        raise ArgumentTypeError(
            "batch_evaluate_dataframe needs a BERTScoreEvaluator, GroundednessEvaluator or "
            f"OfflineFaithfulnessEvaluator, got {type(evaluator).__name__}"
        )
    started = time.perf_counter()
    mapping = options.get("input_mapping")
    mapping = mapping if mapping is not None else getattr(evaluator, "_input_mapping", None)
    pairs, failures = _valid_pairs(dataframe, evaluator, mapping, options.get("exit_on_error", True))
    row_names = {p: row_number(dataframe.index[p], p) for p in pairs}
    cells = signal_cells(evaluator.scorer, signals, pairs, row_names, options.get("progress"))
    seconds = (time.perf_counter() - started) / max(len(dataframe), 1)
    result = dataframe.copy()
    for signal in signals:
        result[details_column(signal.name)] = [
            failed(failures[p], seconds) if p in failures else completed(seconds)
            for p in range(len(dataframe))
        ]
        found = cells[signal.name]
        result[score_column(signal.name)] = [
            found[p].to_dict() if p in found else None for p in range(len(dataframe))
        ]
    return result


# -- the whole pipeline, with Phoenix's judge --------------------------------------------------------


def evaluate_rows(
    dataframe: pd.DataFrame, llm: object = None, *, judge: object = None, **options: Unpack[RowOptions]
) -> pd.DataFrame:
    """Every signal for every row of ``dataframe``, with Phoenix's ``FaithfulnessEvaluator`` as the judge.

    :func:`bertscore_plugins.evaluation.dataframe.evaluate_rows` (same keywords: ``config``,
    ``thresholds``, ``*_column``, ``exit_on_error``, ``scorer`` and every setting), where the judge may be
    given as a Phoenix ``LLM`` (``llm=``), a Phoenix evaluator or a ready judge (``judge=``); None: no
    judge, the offline faithfulness is the faithfulness signal.
    """
    chosen = as_judge(judge if judge is not None else llm)
    if chosen is None:  # no judge keyword: a judge in ``config`` stays
        return engine.evaluate_rows(dataframe, **options)
    return engine.evaluate_rows(dataframe, **options, judge=chosen)


# -- the disagreement as an evaluator (experiments) ---------------------------------------------------


class _NoInput(BaseModel):
    """The disagreement evaluator reads whatever its two inner evaluators read: keep every key."""

    model_config = ConfigDict(extra="allow")


class DisagreementEvaluator(Evaluator):
    """Per-row disagreement as a Phoenix evaluator (for experiments and ``evaluate_dataframe``).

    It runs the two inner evaluators on the same input (reuse :func:`experiments.experiment_evaluators`
    to share their results so the judge runs once per row) and applies fixed ``thresholds``: an
    experiment sees one row at a time, so quantile thresholds must be computed beforehand.
    """

    def __init__(
        self,
        similarity: Evaluator,
        faithfulness: Evaluator,
        thresholds: Thresholds,
        *,
        name: str = DISAGREEMENT,
    ) -> None:
        if not isinstance(thresholds, Thresholds):
            raise ArgumentTypeError(f"DisagreementEvaluator needs fixed Thresholds, got {thresholds!r}")
        super().__init__(name=name, kind="code", direction="minimize", input_schema=_NoInput)
        self.similarity, self.faithfulness, self.thresholds = similarity, faithfulness, thresholds

    def _score(self, similarity: Score, faithfulness: Score) -> list[Score]:
        cell = disagreement_cell(
            Cell.from_dict(similarity.to_dict()),
            Cell.from_dict(faithfulness.to_dict()),
            self.thresholds,
            name=self.name,
        )
        return [Score(**cell.to_dict())]

    def _evaluate(self, eval_input: Mapping[str, object]) -> list[Score]:
        sim = self.similarity.evaluate(dict(eval_input))[0]
        return self._score(sim, self.faithfulness.evaluate(dict(eval_input))[0])

    async def _async_evaluate(self, eval_input: Mapping[str, object]) -> list[Score]:
        sim = (await self.similarity.async_evaluate(dict(eval_input)))[0]
        return self._score(sim, (await self.faithfulness.async_evaluate(dict(eval_input)))[0])

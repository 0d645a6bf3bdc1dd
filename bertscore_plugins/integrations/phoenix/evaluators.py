"""BERTScore as a ``phoenix.evals`` evaluator, and a batch path that scores a whole dataframe at once.

Phoenix calls an evaluator once per row; BERTScore is far cheaper per row when the core embeds a whole
batch at once. :func:`score_dataframe` gives the batch speed while writing cells in exactly the shape of
``phoenix.evals.evaluate_dataframe`` (``Score.to_dict()`` dicts and execution details), so everything
downstream (``to_annotation_dataframe``, span annotations, the disagreement step) cannot tell them apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
from phoenix.evals import Evaluator, Score
from phoenix.evals.utils import remap_eval_input
from pydantic import BaseModel, ValidationError

from bertscore_plugins.core.config import finite_number
from bertscore_plugins.errors import ArgumentError, ArgumentTypeError

# Unrescaled BERTScore sits high for any fluent English pair, so the useful cut is high too (0.9); pass
# your own ``threshold`` (recorded in every row's metadata) or let the disagreement set it from the data.
from bertscore_plugins.evaluation.config import DEFAULT_SIMILARITY_THRESHOLD as DEFAULT_SIMILARITY_THRESHOLD
from bertscore_plugins.evaluation.names import DISSIMILAR, SIMILAR, SIMILARITY, details_column, score_column


class SimilarityInput(BaseModel):
    """What :class:`BERTScoreEvaluator` reads from a row."""

    output: str
    reference: str | list[str]


def _core() -> Any:
    # Imported late: the core pulls in torch, which unit tests of the cell shapes do not need.
    import bertscore_plugins

    return bertscore_plugins


def _input_error(message: str) -> Exception:
    try:
        return _core().InputError(message)
    except (ImportError, AttributeError):  # core not importable: still fail with a clear message
        return ValueError(message)


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def check_cut(name: str, value: Any) -> float:
    """A label threshold: a finite number no greater than 1, since BERTScore never exceeds 1 (rescaled or
    not) and a cut above it would label every row the same way; SettingError naming ``name`` otherwise."""
    return finite_number(name, value, "a finite number no greater than 1", at_most=1.0)


class _BERTScoreEvaluatorBase(Evaluator):
    """Shared machinery: one scorer, one threshold, one way of turning core results into a Score."""

    candidate_field = "output"
    reference_field = "reference"
    labels = (SIMILAR, DISSIMILAR)

    def __init__(
        self,
        *,
        name: str,
        threshold: float,
        scorer: Any = None,
        explain_k: int = 3,
        input_schema: type[BaseModel],
        **core_settings: Any,
    ) -> None:
        threshold = check_cut("threshold", threshold)
        if scorer is not None and core_settings:
            raise ArgumentError(
                f"pass either scorer= or core settings, not both (got settings {sorted(core_settings)})"
            )
        super().__init__(name=name, kind="code", direction="maximize", input_schema=input_schema)
        self.threshold = float(threshold)
        self.explain_k = int(explain_k)
        self._scorer = scorer
        self._core_settings = dict(core_settings)
        if scorer is None and core_settings:
            # Fail now, not on the first row, when a setting name is wrong.
            _core().ScoreConfig.from_kwargs(**core_settings)

    @property
    def scorer(self) -> Any:
        """The core ``BERTScorer`` (shared through ``get_scorer``: one model load per configuration)."""
        if self._scorer is None:
            core = _core()
            self._scorer = core.get_scorer(core.ScoreConfig.from_kwargs(**self._core_settings))
        return self._scorer

    # -- pieces each variant fills in -------------------------------------------------------------

    def _pair(self, eval_input: Mapping[str, Any]) -> tuple[str, Any]:
        """(candidate, reference) for the core, from a validated input."""
        return eval_input[self.candidate_field], eval_input[self.reference_field]

    def _headline(self, precision: float, recall: float, f1: float) -> float:
        return f1

    def _extra_metadata(self, precision: float, recall: float, f1: float) -> dict[str, Any]:
        return {}

    def _explanation_head(self, precision: float, recall: float, f1: float) -> str:
        return f"F1 {_fmt(f1)} (P {_fmt(precision)}, R {_fmt(recall)})"

    # -- turning core output into a Score ---------------------------------------------------------

    def score_from_result(self, result: Any, row: int) -> Score:
        """The Score for row ``row`` of a core ``Scores`` (computed with ``explain=True``)."""
        precision = float(result.precision[row])
        recall = float(result.recall[row])
        f1 = float(result.f1[row])
        value = self._headline(precision, recall, f1)
        explanation_obj = result.explanations[row] if getattr(result, "explanations", None) else None
        worst = explanation_obj.worst(self.explain_k) if explanation_obj is not None else []
        summary = explanation_obj.summary(self.explain_k) if explanation_obj is not None else ""
        explanation = self._explanation_head(precision, recall, f1)
        if summary:
            explanation += f"; worst: {summary}"
        metadata = {
            "precision": precision,
            "recall": recall,
            **self._extra_metadata(precision, recall, f1),
            "threshold": self.threshold,
            "signature": result.signature,
            "worst_matches": [
                {"token": m.token, "matched_token": m.matched_token, "similarity": float(m.similarity)}
                for m in worst
            ],
        }
        return Score(
            name=self.name,
            score=value,
            label=self.labels[0] if value >= self.threshold else self.labels[1],
            explanation=explanation,
            metadata=metadata,
            kind="code",
            direction="maximize",
        )

    def _evaluate(self, eval_input: Mapping[str, Any]) -> list[Score]:
        candidate, reference = self._pair(eval_input)
        result = self.scorer.score([candidate], [reference], explain=True)
        return [self.score_from_result(result, 0)]


class BERTScoreEvaluator(_BERTScoreEvaluatorBase):
    """BERTScore F1 of the output against a reference, as a Phoenix ``code`` evaluator.

    Inputs: ``output`` (str) and ``reference`` (str, or a list of str: the best-matching one counts).
    Map other column names with ``phoenix.evals.bind_evaluator(evaluator=..., input_mapping=...)``; in
    ``run_experiment`` / ``evaluate_experiment`` bind ``{"output": "output", "reference":
    "expected.reference"}`` (or use ``annotations.experiment_evaluators``).

    Returns one ``Score``: ``score`` = F1, ``label`` "similar" when F1 >= ``threshold`` else
    "dissimilar", ``explanation`` naming the worst-matched output tokens ("Thursday -> Tuesday 0.71"),
    ``metadata`` = precision, recall, threshold, the core signature and the worst matches.

    Args:
        threshold: F1 cut for the label (recorded in every row's metadata).
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
        scorer: Any = None,
        explain_k: int = 3,
        **core_settings: Any,
    ) -> None:
        super().__init__(
            name=name,
            threshold=threshold,
            scorer=scorer,
            explain_k=explain_k,
            input_schema=SimilarityInput,
            **core_settings,
        )


# -- batch path --------------------------------------------------------------------------------------


def _as_texts(reference: Any) -> list[Any]:
    return list(reference) if isinstance(reference, (list, tuple)) else [reference]


def _required_fields(schema: type[BaseModel]) -> set[str]:
    return {name for name, field in schema.model_fields.items() if field.is_required()}


def _row_label(index: Any, position: int) -> str:
    return f"row {_row_number(index, position)}"


def _row_number(index: Any, position: int) -> str:
    return str(position) if index == position else f"{position} (index {index!r})"


def _execution_details(status: str, exceptions: Sequence[str], seconds: float) -> dict[str, Any]:
    return {"status": status, "exceptions": list(exceptions), "execution_seconds": seconds}


def _valid_pairs(
    dataframe: pd.DataFrame, evaluator: _BERTScoreEvaluatorBase, mapping: Any, exit_on_error: bool
) -> tuple[dict[int, tuple[str, Any]], dict[int, str]]:
    """({position: (candidate, reference)} of the valid rows, {position: problem} of the others); with
    ``exit_on_error`` the first problem raises ``InputError`` naming its row."""
    schema = evaluator.input_schema
    assert schema is not None  # set by the base class
    required = _required_fields(schema)
    pairs: dict[int, tuple[str, Any]] = {}
    failures: dict[int, str] = {}
    records = dataframe.to_dict("records")
    for position, (index, record) in enumerate(zip(dataframe.index, records, strict=True)):
        eval_input = {str(key): value for key, value in record.items()}
        try:
            remapped = remap_eval_input(
                eval_input=eval_input, required_fields=required, input_mapping=mapping
            )
            candidate, reference = evaluator._pair(schema.model_validate(remapped).model_dump())
            # the core's text check, per row: one bad text fails its row, not the whole batch
            for field, text in (
                (evaluator.candidate_field, candidate),
                *((evaluator.reference_field, ref) for ref in _as_texts(reference)),
            ):
                problem = _core().inputs.text_problem(text)
                if problem:
                    raise _input_error(f"{field} {problem}")
        except (ValidationError, ValueError, TypeError) as error:
            problem = f"{_row_label(index, position)}: {type(error).__name__}: {error}"
            if exit_on_error:
                raise _input_error(f"{evaluator.name}: {problem}") from error
            failures[position] = problem
            continue
        pairs[position] = (candidate, reference)
    return pairs, failures


def _batch_scores(
    dataframe: pd.DataFrame,
    evaluator: _BERTScoreEvaluatorBase,
    pairs: dict[int, tuple[str, Any]],
    progress: Any,
) -> dict[int, dict[str, Any]]:
    """``{position: Score.to_dict()}`` from ONE core call over the valid pairs."""
    if not pairs:
        return {}
    from bertscore_plugins.core.scorer import row_labels_in_warnings

    kwargs: dict[str, Any] = {"explain": True}
    if progress is not None:
        kwargs["progress"] = progress
    positions = list(pairs)
    # the core's warnings count positions among the scored rows; name the frame's rows instead
    with row_labels_in_warnings([_row_number(dataframe.index[p], p) for p in positions]):
        result = evaluator.scorer.score(
            [pairs[p][0] for p in positions], [pairs[p][1] for p in positions], **kwargs
        )
    return {
        position: evaluator.score_from_result(result, row).to_dict() for row, position in enumerate(positions)
    }


def score_dataframe(
    dataframe: pd.DataFrame,
    evaluator: _BERTScoreEvaluatorBase,
    *,
    input_mapping: Mapping[str, str | Callable[..., Any]] | None = None,
    exit_on_error: bool = True,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Score every row of ``dataframe`` with ``evaluator`` in ONE core call.

    The result equals ``phoenix.evals.evaluate_dataframe(dataframe, [evaluator])`` cell for cell in
    ``<name>_score`` (same ``Score.to_dict()`` dicts, same scores) and in the keys of
    ``<name>_execution_details``; ``execution_seconds`` is the batch time shared evenly over the rows.

    Args:
        dataframe: one row per example; any index (a ``span_id`` index is kept for annotations).
        evaluator: a :class:`BERTScoreEvaluator` or :class:`GroundednessEvaluator`.
        input_mapping: field -> column name, JSONPath or callable; default: the mapping bound with
            ``bind_evaluator`` / ``.bind()``, else the field names themselves.
        exit_on_error: True: a bad row raises ``InputError`` naming the row and the problem.
            False: that row gets status "FAILED", its exception and a None score; the rest are scored.
        progress: passed to the core's ``score`` (None: its default).

    Returns:
        A copy of ``dataframe`` with ``<name>_execution_details`` and ``<name>_score`` columns.
    """
    if not isinstance(dataframe, pd.DataFrame):
        raise ArgumentTypeError(f"dataframe must be a pandas DataFrame, got {type(dataframe).__name__}")
    if not isinstance(evaluator, _BERTScoreEvaluatorBase):
        raise ArgumentTypeError(
            f"score_dataframe needs a BERTScoreEvaluator or GroundednessEvaluator, got {type(evaluator).__name__}"
        )
    started = time.perf_counter()
    mapping = input_mapping if input_mapping is not None else getattr(evaluator, "_input_mapping", None)
    pairs, failures = _valid_pairs(dataframe, evaluator, mapping, exit_on_error)
    scores = _batch_scores(dataframe, evaluator, pairs, progress)
    per_row_seconds = (time.perf_counter() - started) / max(len(dataframe), 1)
    result_df = dataframe.copy()
    result_df[details_column(evaluator.name)] = [
        _execution_details("FAILED", [failures[p]], per_row_seconds)
        if p in failures
        else _execution_details("COMPLETED", [], per_row_seconds)
        for p in range(len(dataframe))
    ]
    result_df[score_column(evaluator.name)] = [scores.get(p) for p in range(len(dataframe))]
    return result_df

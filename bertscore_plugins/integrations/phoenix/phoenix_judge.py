"""Phoenix's own faithfulness judge as the engine's judge: an adapter, nothing more.

``phoenix.evals.metrics.FaithfulnessEvaluator`` (input, output, context -> faithful / unfaithful) with any
Phoenix ``LLM`` (OpenAI, Anthropic, LiteLLM, or the local judge's server by ``base_url``: it serves
structured output and tool calls). :func:`faithfulness_judge` makes it a
:class:`~bertscore_plugins.evaluation.judge.Judge` (rows in, verdicts out, bounded concurrency) for the
evaluation engine; :func:`run_judge` runs it over a dataframe. A failing row is marked and never stops
the others. The judge tier (:mod:`bertscore_plugins.judge`) chooses it from the environment
(``BERTSCORE_JUDGE_STYLE=phoenix``): :func:`phoenix_llm` builds the LLM from the same settings.

    >>> judge = judge_from_env({"BERTSCORE_JUDGE_MODEL": "gpt-4o-mini", "BERTSCORE_JUDGE_STYLE": "phoenix"})  # doctest: +SKIP
    >>> evaluate_rows(frame, judge=judge, judge_rows="unsettled")  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import pandas as pd
from phoenix.evals import LLM, async_evaluate_dataframe, bind_evaluator
from phoenix.evals.metrics import FaithfulnessEvaluator

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.judge import Judge, JudgeRow, Verdict, failed_verdict, is_judge
from bertscore_plugins.evaluation.names import details_column, score_column

logger = logging.getLogger(__name__)
_Result = TypeVar("_Result")


def phoenix_llm(settings: Any) -> LLM:
    """A Phoenix ``LLM`` for the judge ``settings`` describe (``bertscore_plugins.judge.environment.
    JudgeSettings``, which imports this module, not the other way round): the same model, endpoint, key and
    timeout as the yes/no judge; ``provider`` and ``rate`` are Phoenix's.

    A base URL that was set goes to the provider; the local server needs no key (the SDK insists on one,
    so "sk-local" is sent)."""
    endpoint = settings.endpoint
    kwargs: dict[str, object] = {"timeout": endpoint.timeout}
    if settings.base_url_given:
        kwargs["base_url"] = endpoint.base_url
    if settings.own_key or (settings.provider == "openai" and endpoint.api_key):
        kwargs["api_key"] = endpoint.api_key
    elif settings.base_url_given and settings.provider == "openai":
        kwargs["api_key"] = "sk-local"
    if settings.rate is not None:
        kwargs["initial_per_second_request_rate"] = settings.rate
    return LLM(provider=settings.provider, model=endpoint.model, **kwargs)


def faithfulness_evaluator(
    llm: Any,
    *,
    input_mapping: Mapping[str, str | Callable[..., object]] | None = None,
    **invocation_parameters: Any,
) -> FaithfulnessEvaluator:
    """Phoenix's ``FaithfulnessEvaluator`` with ``llm`` (temperature 0 unless given), optionally bound.

    Args:
        llm: a Phoenix ``LLM`` (or any object with ``generate_classification`` /
            ``async_generate_classification``, as Phoenix's own tests use).
        input_mapping: field ("input", "output", "context") -> column name, JSONPath or callable.
        **invocation_parameters: passed to each request (e.g. ``max_tokens=256``).
    """
    invocation_parameters.setdefault("temperature", 0.0)
    judge = FaithfulnessEvaluator(llm=llm, **invocation_parameters)
    if input_mapping:
        judge = bind_evaluator(evaluator=judge, input_mapping=dict(input_mapping))
    return judge


def _report_failures(result: pd.DataFrame, name: str) -> None:
    """Keep the score column (Phoenix drops it when every row failed) and log the failed positions."""
    if score_column(name) not in result.columns:
        result[score_column(name)] = [None] * len(result)
    failed = [
        position
        for position, details in enumerate(result[details_column(name)])
        if not details or details.get("status") == "FAILED"
    ]
    if failed:
        logger.warning(
            "judge %r failed on %d of %d rows (positions %s)", name, len(failed), len(result), failed
        )


class _LogLines(io.TextIOBase):
    """File-like sink that turns what Phoenix's helpers print into log records."""

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip():
                logger.info("phoenix: %s", line.strip())
        return len(text)


def _run_coroutine(factory: Callable[[], Awaitable[_Result]]) -> _Result:
    """Run a coroutine to completion on a worker thread's own event loop; Ctrl-C here cancels it.

    Why a thread, also outside Jupyter: Phoenix's executor, run on the main thread, takes SIGINT for itself
    and returns the rows judged so far as if the run had finished, so a Ctrl-C during the judge was lost
    (``phoenix evaluate --follow`` kept polling). On a worker thread it leaves SIGINT alone: the
    KeyboardInterrupt reaches the caller, and the judge's pending requests are cancelled."""
    loops: list[asyncio.AbstractEventLoop] = []
    values: list[_Result] = []
    errors: list[BaseException] = []
    started = threading.Event()

    def target() -> None:
        loop = asyncio.new_event_loop()
        loops.append(loop)
        started.set()
        try:
            values.append(loop.run_until_complete(factory()))
        except BaseException as error:
            errors.append(error)
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    thread = threading.Thread(target=target, name="bertscore-judge", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        started.wait()
        _cancel(loops[0])
        thread.join(10)
        raise
    if errors:
        raise errors[0]
    return values[0]


def _cancel(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel every task of ``loop`` (another thread's) and let it wind down."""

    def cancel_all() -> None:
        for task in asyncio.all_tasks(loop):
            task.cancel()

    with contextlib.suppress(RuntimeError):  # the loop already finished
        loop.call_soon_threadsafe(cancel_all)


def run_judge(
    dataframe: pd.DataFrame,
    llm: Any = None,
    *,
    judge: Any = None,
    concurrency: int = 4,
    max_retries: int = 1,
    input_mapping: Mapping[str, str | Callable[..., object]] | None = None,
) -> pd.DataFrame:
    """Run the faithfulness judge over every row, ``concurrency`` requests at a time.

    Uses ``phoenix.evals.async_evaluate_dataframe(concurrency=N, exit_on_error=False)``: a row whose
    judge call fails (HTTP error, unparseable answer, unknown label) gets ``faithfulness_score`` None and
    ``faithfulness_execution_details["status"] == "FAILED"`` with the exception; the other rows finish.
    The ``<name>_score`` column always exists (Phoenix drops it when every row failed).

    Args:
        dataframe: rows with ``input``, ``output``, ``context`` (or map them with ``input_mapping``).
        llm: a Phoenix ``LLM``; ignored when ``judge`` is given.
        judge: an already-built judge evaluator (e.g. from :func:`faithfulness_evaluator`).
        concurrency: at most this many judge requests in flight.
        max_retries: extra attempts per failing row before it is marked FAILED.
        input_mapping: as in :func:`faithfulness_evaluator`.

    Returns:
        A copy of ``dataframe`` with ``<judge>_execution_details`` and ``<judge>_score`` columns.
    """
    if judge is None:
        if llm is None:
            raise ArgumentError("run_judge needs llm= (a Phoenix LLM) or judge= (an evaluator)")
        judge = faithfulness_evaluator(llm, input_mapping=input_mapping)
    elif input_mapping:
        judge = bind_evaluator(evaluator=judge, input_mapping=dict(input_mapping))
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ArgumentError(f"concurrency must be a positive integer, got {concurrency!r}")
    if len(dataframe) == 0:
        result = dataframe.copy()
        result[details_column(judge.name)] = []
        result[score_column(judge.name)] = []
        return result

    def evaluate() -> Awaitable[pd.DataFrame]:
        return async_evaluate_dataframe(
            dataframe=dataframe,
            evaluators=[judge],
            concurrency=concurrency,
            exit_on_error=False,
            max_retries=max_retries,
            hide_tqdm_bar=True,
        )

    # Phoenix's executor reports retries with tqdm.write (stdout); library code keeps stdout clean.
    with contextlib.redirect_stdout(_LogLines()):
        result = _run_coroutine(evaluate)
    _report_failures(result, judge.name)
    return result


# -- the engine's judge interface ------------------------------------------------------------------------


class PhoenixJudge:
    """A Phoenix evaluator (``FaithfulnessEvaluator`` by default) as the engine's
    :class:`~bertscore_plugins.evaluation.judge.Judge`: its rows go through :func:`run_judge`."""

    def __init__(self, evaluator: Any) -> None:
        self.evaluator = evaluator
        self.name: str = evaluator.name

    @property
    def model(self) -> str | None:
        """``provider/model`` of the evaluator's LLM (what the evaluation's signature records)."""
        inner = getattr(self.evaluator, "evaluator", None)  # a bound evaluator wraps the judge
        llm = getattr(self.evaluator, "llm", None) or getattr(inner, "llm", None)
        return f"{getattr(llm, 'provider', '?')}/{getattr(llm, 'model', '?')}"

    def verdicts(self, rows: Sequence[JudgeRow], *, concurrency: int, max_retries: int) -> list[Verdict]:
        frame = pd.DataFrame(  # Phoenix's field names, and no big dict columns
            {
                "input": [row.input for row in rows],
                "output": [row.output for row in rows],
                "context": [row.context for row in rows],
            }
        )
        started = time.perf_counter()
        judged = run_judge(frame, judge=self.evaluator, concurrency=concurrency, max_retries=max_retries)
        seconds = (time.perf_counter() - started) / max(len(rows), 1)
        cells = judged[score_column(self.name)]
        details = judged[details_column(self.name)]
        return [
            Verdict(cell if isinstance(cell, Mapping) else None, detail)
            if isinstance(detail, Mapping)
            else failed_verdict("no verdict", seconds)
            for cell, detail in zip(cells, details, strict=True)
        ]

    def __repr__(self) -> str:
        return f"PhoenixJudge({self.name!r}, model={self.model!r})"


def faithfulness_judge(llm: Any, **invocation_parameters: Any) -> PhoenixJudge:
    """Phoenix's ``FaithfulnessEvaluator`` with ``llm`` as the evaluation's judge.

    ``llm`` is a Phoenix ``LLM`` (see :func:`phoenix_llm`) or an evaluator already built (from
    :func:`faithfulness_evaluator`, optionally bound); ``invocation_parameters`` as in
    :func:`faithfulness_evaluator`.
    """
    if _is_evaluator(llm):
        if invocation_parameters:
            raise ArgumentError("invocation parameters go with an LLM, not with a ready evaluator")
        return PhoenixJudge(llm)
    return PhoenixJudge(faithfulness_evaluator(llm, **invocation_parameters))


def as_judge(value: object) -> Judge | None:
    """The engine's judge for what a user passed as ``llm=`` or ``judge=``: None, a
    :class:`~bertscore_plugins.evaluation.judge.Judge` (kept), a Phoenix evaluator or a Phoenix ``LLM``
    (wrapped with :func:`faithfulness_judge`)."""
    if value is None or is_judge(value):
        return value
    return faithfulness_judge(value)


def _is_evaluator(value: Any) -> bool:
    return callable(getattr(value, "async_evaluate", None)) and isinstance(getattr(value, "name", None), str)

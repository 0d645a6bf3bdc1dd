"""Phoenix's own LLM faithfulness judge, plugged into the engine's judge interface.

We never write a judge prompt: ``phoenix.evals.metrics.FaithfulnessEvaluator`` (input, output, context ->
faithful / unfaithful) is the judge, with any Phoenix ``LLM`` (OpenAI, Anthropic, LiteLLM, or a local
OpenAI-compatible server by ``base_url``). :func:`faithfulness_judge` makes it a
:class:`~bertscore_plugins.evaluation.judge.Judge` (rows in, verdicts out, bounded concurrency) for the
evaluation engine; :func:`run_judge` runs it over a dataframe. A failing row is marked and never stops
the others.

    >>> judge = faithfulness_judge(judge_llm_from_env())          # doctest: +SKIP
    >>> evaluate_rows(frame, judge=judge, judge_rows="unsettled")  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
from phoenix.evals import LLM, async_evaluate_dataframe, bind_evaluator
from phoenix.evals.metrics import FaithfulnessEvaluator

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.evaluation.judge import JudgeRow, Verdict, failed_verdict, is_judge

logger = logging.getLogger(__name__)

NO_JUDGE_LINE = (
    "No LLM judge configured: the offline faithfulness (groundedness x the fact check of numbers, dates, "
    "names and negations) is the faithfulness signal"
)
JUDGE_SETUP_HINT = """\
No LLM judge configured, so groundedness (BERTScore precision of the output against its context) combined
with the fact check (numbers, dates, names and negations carried by the context) stands in for faithfulness.
To add a judge (it answers yes or no; its p(yes) is the score), point these at an OpenAI-compatible /v1:
  local model:    bertscore-plugins judge serve   (prints the two variables to set; Gemma 3 270M, no key)
  OpenAI:         BERTSCORE_JUDGE_MODEL=gpt-4o-mini  OPENAI_API_KEY=sk-...
  other provider: BERTSCORE_JUDGE_BASE_URL=https://.../v1  BERTSCORE_JUDGE_MODEL=...  BERTSCORE_JUDGE_API_KEY=...
Optional: BERTSCORE_JUDGE_TIMEOUT (seconds per request, default 60), BERTSCORE_JUDGE_CONTEXT_TOKENS (the
prompt's budget, default 2048), BERTSCORE_JUDGE_STYLE=phoenix (Phoenix's FaithfulnessEvaluator instead:
structured output, any Phoenix LLM, BERTSCORE_JUDGE_PROVIDER=anthropic ...)."""


#: "yes-no" (default): the yes/no judge reading p(yes) (integrations.llm_judge); "phoenix": Phoenix's own
#: FaithfulnessEvaluator with the LLM judge_llm_from_env describes
JUDGE_STYLE_ENV = "BERTSCORE_JUDGE_STYLE"


def judge_from_environment(environ: Mapping[str, str] | None = None) -> Any:
    """The engine's judge ``BERTSCORE_JUDGE_*`` configures, or None when no model is set: the yes/no
    judge over the OpenAI-compatible endpoint (the local server or a provider: the same code), or
    Phoenix's FaithfulnessEvaluator with ``BERTSCORE_JUDGE_STYLE=phoenix``."""
    from bertscore_plugins.integrations.llm_judge.yes_no_judge import judge_from_env

    env = os.environ if environ is None else environ
    style = env.get(JUDGE_STYLE_ENV, "").strip().lower() or "yes-no"
    if style not in ("yes-no", "phoenix"):
        raise ArgumentError(f"{JUDGE_STYLE_ENV} must be 'yes-no' or 'phoenix', got {style!r}")
    if style == "phoenix":
        llm = judge_llm_from_env(env)
        return None if llm is None else faithfulness_judge(llm)
    return judge_from_env(env)


def judge_llm_from_env(environ: Mapping[str, str] | None = None) -> LLM | None:
    """A Phoenix ``LLM`` from ``BERTSCORE_JUDGE_*`` environment variables, or None when not configured.

    ``BERTSCORE_JUDGE_MODEL`` (required), ``BERTSCORE_JUDGE_PROVIDER`` (default "openai"),
    ``BERTSCORE_JUDGE_BASE_URL`` (a local OpenAI-compatible server), ``BERTSCORE_JUDGE_API_KEY``
    (default: the provider's own variable; "sk-local" when only a base URL is given),
    ``BERTSCORE_JUDGE_TIMEOUT`` (seconds), ``BERTSCORE_JUDGE_RATE`` (requests/s at first: Phoenix's client
    starts at 5 and adapts; raise it where the provider allows). See :data:`JUDGE_SETUP_HINT`.
    """
    env = os.environ if environ is None else environ
    model = env.get("BERTSCORE_JUDGE_MODEL", "").strip()
    if not model:
        return None
    provider = env.get("BERTSCORE_JUDGE_PROVIDER", "openai").strip() or "openai"
    kwargs: dict[str, Any] = {}
    base_url = env.get("BERTSCORE_JUDGE_BASE_URL", "").strip()
    if base_url:
        kwargs["base_url"] = base_url
    api_key = env.get("BERTSCORE_JUDGE_API_KEY", "").strip()
    if api_key:
        kwargs["api_key"] = api_key
    elif base_url and provider == "openai" and not env.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "sk-local"  # local servers ignore it; the SDK insists on one
    timeout = _positive_number(env, "BERTSCORE_JUDGE_TIMEOUT", "a number of seconds")
    if timeout is not None:
        kwargs["timeout"] = timeout
    rate = _positive_number(env, "BERTSCORE_JUDGE_RATE", "requests per second")
    if rate is not None:
        kwargs["initial_per_second_request_rate"] = rate
    return LLM(provider=provider, model=model, **kwargs)


def _positive_number(env: Mapping[str, str], name: str, meaning: str) -> float | None:
    text = env.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ArgumentError(f"{name} must be a positive, finite number ({meaning}), got {text!r}")
    return value


def faithfulness_evaluator(
    llm: Any,
    *,
    input_mapping: Mapping[str, str | Callable[..., Any]] | None = None,
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
    if f"{name}_score" not in result.columns:
        result[f"{name}_score"] = [None] * len(result)
    failed = [
        position
        for position, details in enumerate(result[f"{name}_execution_details"])
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


def _run_coroutine(factory: Callable[[], Any]) -> Any:
    """Run a coroutine to completion on a worker thread's own event loop; Ctrl-C here cancels it.

    Why a thread, also outside Jupyter: Phoenix's executor, run on the main thread, takes SIGINT for itself
    and returns the rows judged so far as if the run had finished, so a Ctrl-C during the judge was lost
    (``phoenix evaluate --follow`` kept polling). On a worker thread it leaves SIGINT alone: the
    KeyboardInterrupt reaches the caller, and the judge's pending requests are cancelled."""
    box: dict[str, Any] = {}
    started = threading.Event()

    def target() -> None:
        loop = asyncio.new_event_loop()
        box["loop"] = loop
        started.set()
        try:
            box["value"] = loop.run_until_complete(factory())
        except BaseException as error:
            box["error"] = error
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
        _cancel(box["loop"])
        thread.join(10)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


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
    input_mapping: Mapping[str, str | Callable[..., Any]] | None = None,
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
        result[f"{judge.name}_execution_details"] = []
        result[f"{judge.name}_score"] = []
        return result

    def evaluate() -> Any:
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
        cells = judged[f"{self.name}_score"]
        details = judged[f"{self.name}_execution_details"]
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

    ``llm`` is a Phoenix ``LLM`` (see :func:`judge_llm_from_env`) or an evaluator already built (from
    :func:`faithfulness_evaluator`, optionally bound); ``invocation_parameters`` as in
    :func:`faithfulness_evaluator`.
    """
    if _is_evaluator(llm):
        if invocation_parameters:
            raise ArgumentError("invocation parameters go with an LLM, not with a ready evaluator")
        return PhoenixJudge(llm)
    return PhoenixJudge(faithfulness_evaluator(llm, **invocation_parameters))


def as_judge(value: Any) -> Any:
    """The engine's judge for what a user passed as ``llm=`` or ``judge=``: None, a
    :class:`~bertscore_plugins.evaluation.judge.Judge` (kept), a Phoenix evaluator or a Phoenix ``LLM``
    (wrapped with :func:`faithfulness_judge`)."""
    if value is None or is_judge(value):
        return value
    return faithfulness_judge(value)


def _is_evaluator(value: Any) -> bool:
    return callable(getattr(value, "async_evaluate", None)) and isinstance(getattr(value, "name", None), str)

"""An LLM faithfulness judge that answers yes or no, read as a probability: the engine's ``Judge``.

One door for the local model and for any provider: an OpenAI-compatible ``/v1/chat/completions``
(:class:`~.endpoint.Endpoint`). Every row gets a number in [0, 1] and a label (``verdict.py``), or a
failure cell naming what went wrong for that row; no row's failure stops the others, and the rows are
returned in order, so a rerun asks only about the rows without a verdict.

- before any row: the server is asked which models it serves; not running, or serving another model than
  the one configured, fails every row with that reason (no request is sent to a stranger). A provider
  without ``/models`` (404) is asked without the check: its first answer names the model that answered;
- ``concurrency`` requests in flight, each within the endpoint's deadline (all of the request); a timeout,
  HTTP 429 or 5xx or a refused connection, on every call (the models check too), is retried
  ``max_retries`` times after a pause (the server's Retry-After, else 0.5 s doubling), within
  ``retry_budget`` seconds of waiting; then the row fails as what it was;
- an empty answer, one with neither yes nor no, or log probabilities that are missing or not log
  probabilities (1000, NaN, an integer of 400 digits), or any other malformed reply, fail that row as
  unusable, naming what was written; the other rows are judged.

The judge says what it is: :attr:`YesNoJudge.model` names the model, its digest and the prompt;
:attr:`YesNoJudge.measured_auc` is its measured quality where known (the packaged model's, from
benchmarks/QUALITY.md) and :attr:`YesNoJudge.near_chance` whether that is near chance.

    >>> judge = YesNoJudge(Endpoint("http://127.0.0.1:8080/v1", "gemma-3-270m-q4_k_m"))   # doctest: +SKIP
    >>> evaluate_rows(frame, judge=judge, judge_rows="unsettled")                        # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from bertscore_plugins.errors import EndpointError, UnusableAnswer
from bertscore_plugins.evaluation.cells import Cell, Details, VerdictMetadata
from bertscore_plugins.evaluation.judge import JudgeRow, Verdict, failed_verdict
from bertscore_plugins.evaluation.names import FAITHFULNESS
from bertscore_plugins.faithfulness import as_read
from bertscore_plugins.json_types import JSONObject
from bertscore_plugins.judge.endpoint import Endpoint, retry_wait
from bertscore_plugins.judge.local_model import LOCAL_MODEL, MEASURED_AUC, near_chance
from bertscore_plugins.judge.prompt import CONTEXT_TOKENS, prompt_identity, question
from bertscore_plugins.judge.verdict import JudgeVerdict, read_verdict

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: the first token's alternatives read (OpenAI's maximum)
TOP_LOGPROBS = 20
#: seconds a row may spend waiting between attempts (429 / 5xx / unreachable) before it fails
RETRY_BUDGET_SECONDS = 60.0


class YesNoJudge:
    """The faithfulness judge over an OpenAI-compatible endpoint.

    Args:
        endpoint: where the model is (``Endpoint.from_env()`` reads ``BERTSCORE_JUDGE_*``).
        name: the annotation name of its verdicts (Phoenix's judge's: "faithfulness").
        context_tokens: the prompt's budget in tokens; a longer source is shown as its aligned passages.
        top_logprobs: the first token's alternatives read for yes and no (1 to 20).
        retry_budget: seconds a row may wait between its attempts in all.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        name: str = FAITHFULNESS,
        context_tokens: int = CONTEXT_TOKENS,
        top_logprobs: int = TOP_LOGPROBS,
        retry_budget: float = RETRY_BUDGET_SECONDS,
    ) -> None:
        self.endpoint, self.name, self.context_tokens = endpoint, name, int(context_tokens)
        self.top_logprobs = int(top_logprobs)
        self.retry_budget = float(retry_budget)
        self._answered = False  # the first answer's model is logged once

    @property
    def model(self) -> str:
        """What the evaluation's signature records: model, its digest when known, and the prompt."""
        digest = f"@sha256:{self.endpoint.model_sha256[:12]}" if self.endpoint.model_sha256 else ""
        return f"{self.endpoint.model}{digest};prompt={prompt_identity()}"

    @property
    def measured_auc(self) -> float | None:
        """The model's measured development ROC-AUC (the packaged model's: :data:`MEASURED_AUC`, from
        QUALITY.md section 9), or None when this model was not measured here."""
        return MEASURED_AUC if self.endpoint.model == LOCAL_MODEL else None

    @property
    def near_chance(self) -> bool:
        """True when the model was measured and ranks summaries within 0.1 of chance (AUC 0.5): such a
        judge should not decide a label by default."""
        return near_chance(self.measured_auc)

    def verdicts(self, rows: Sequence[JudgeRow], *, concurrency: int, max_retries: int) -> list[Verdict]:
        if not rows:
            return []
        problem = self._server_problem(max_retries)
        if problem is not None:
            return [failed_verdict(f"row {row.key}: {problem}") for row in rows]
        with ThreadPoolExecutor(max_workers=max(1, int(concurrency)), thread_name_prefix="judge") as pool:
            return list(pool.map(lambda row: self._verdict(row, max_retries), rows))

    def _retried(self, call: Callable[[], T], max_retries: int) -> T:
        """``call()``, tried again after an error worth it (429, 5xx, a timeout, a refused connection) at
        most ``max_retries`` times, waiting the server's Retry-After (else a backoff) while the waits stay
        within :attr:`retry_budget`; else the last EndpointError, saying why it was not tried again."""
        attempts, waited, attempt = max(0, int(max_retries)) + 1, 0.0, 0
        while True:  # the last attempt returns or raises
            attempt += 1
            try:
                return call()
            except EndpointError as error:
                wait = retry_wait(error, attempt)
                if not error.retry or attempt == attempts:
                    raise
                if waited + wait > self.retry_budget:
                    raise EndpointError(
                        error.kind,
                        f"{error} (not tried again: waiting {wait:g} s more would pass the row's retry "
                        f"budget of {self.retry_budget:g} s)",
                        status=error.status,
                    ) from None
                time.sleep(wait)
                waited += wait

    def _server_problem(self, max_retries: int) -> str | None:
        """Why no row can be judged (the server is not there, or serves another model), or None."""
        try:
            served = self._retried(self.endpoint.served_models, max_retries)
        except EndpointError as error:
            if error.status == 404:  # a provider without /models: asked without the check
                logger.info("%s/models: 404; judging without the model check", self.endpoint.base_url)
                return None
            return f"judge unavailable: {error}"
        if served and self.endpoint.model not in served:
            return (
                f"judge model mismatch: {self.endpoint.base_url} serves {served}, not the configured "
                f"{self.endpoint.model!r} (BERTSCORE_JUDGE_MODEL)"
            )
        return None

    def _verdict(self, row: JudgeRow, max_retries: int) -> Verdict:
        started = time.perf_counter()
        answer, source = as_read(row.output, row.context)
        asked = question(answer.strip(), source.strip(), row.passages, self.context_tokens)
        options = {"max_tokens": 1, "temperature": 0.0, "logprobs": True, "top_logprobs": self.top_logprobs}
        try:
            reply = self._retried(lambda: self.endpoint.chat(asked.messages, **options), max_retries)
            verdict = read_verdict(reply)
        except EndpointError as error:
            reason = f"judge {error.kind}: {error}"
        except UnusableAnswer as error:
            reason = f"judge answer unusable: {error}"
        except (ArithmeticError, AttributeError, KeyError, TypeError, ValueError, RecursionError) as error:
            # a reply shaped like nothing read_verdict expects: this row fails, the others are judged
            reason = f"judge answer unusable: {type(error).__name__}: {str(error)[:120]}"
        else:
            if not self._answered:
                self._answered = True
                logger.info("the judge's first answer came from model %r", reply.get("model"))
            return Verdict(self._cell(verdict, asked.cut), _details(time.perf_counter() - started))
        return failed_verdict(f"row {row.key}: {reason}", time.perf_counter() - started)

    def _cell(self, verdict: JudgeVerdict, cut: str) -> Cell:
        how = "p(yes)" if verdict.from_probabilities else "answered (no probabilities from the provider)"
        explanation = f"{self.endpoint.model} {how} {verdict.p_yes:.3f}: '{verdict.word}'" + (
            f"; {cut}" if cut else ""
        )
        details: JSONObject = {
            "model": self.endpoint.model,
            "prompt": prompt_identity(),
            "first_token": verdict.word,
            "from_probabilities": verdict.from_probabilities,
            "context_cut": cut,
        }
        metadata = VerdictMetadata("judge", None, details)
        return Cell(self.name, verdict.p_yes, verdict.label, explanation, metadata, kind="llm")


def _details(seconds: float) -> Details:
    from bertscore_plugins.evaluation.cells import completed

    return completed(seconds)

"""An LLM faithfulness judge that answers yes or no, read as a probability: the engine's ``Judge``.

One door for the local model and for any provider: an OpenAI-compatible ``/v1/chat/completions``
(:class:`~.endpoint.Endpoint`). Every row gets a number in [0, 1] and a label (``verdict.py``), or a
failure cell naming what went wrong for that row; no row's failure stops the others, and the rows are
returned in order, so a rerun asks only about the rows without a verdict.

- before any row: the server is asked which models it serves; not running, or serving another model than
  the one configured, fails every row with that reason (no request is sent to a stranger);
- ``concurrency`` requests in flight, each with the endpoint's timeout; a timeout, an HTTP 5xx or a
  refused connection is retried ``max_retries`` times, then fails the row as what it was;
- an empty answer, or one with neither yes nor no, fails the row as unusable, naming what was written.

    >>> judge = YesNoJudge(Endpoint("http://127.0.0.1:8080/v1", "gemma-3-270m-q4_k_m"))   # doctest: +SKIP
    >>> evaluate_rows(frame, judge=judge, judge_rows="unsettled")                        # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bertscore_plugins.evaluation.judge import JudgeRow, Verdict, failed_verdict
from bertscore_plugins.evaluation.names import FAITHFULNESS
from bertscore_plugins.faithfulness import as_read
from bertscore_plugins.integrations.llm_judge.endpoint import Endpoint, EndpointError
from bertscore_plugins.integrations.llm_judge.prompt import prompt_identity, question
from bertscore_plugins.integrations.llm_judge.verdict import UnusableAnswer, read_verdict

#: the first token's alternatives read (OpenAI's maximum)
TOP_LOGPROBS = 20
#: the judge's window when the endpoint does not say (the local server's; providers' are larger)
DEFAULT_CONTEXT_TOKENS = 2048


class YesNoJudge:
    """The faithfulness judge over an OpenAI-compatible endpoint.

    Args:
        endpoint: where the model is (``Endpoint.from_env()`` reads ``BERTSCORE_JUDGE_*``).
        name: the annotation name of its verdicts (Phoenix's judge's: "faithfulness").
        context_tokens: the prompt's budget in tokens; a longer source is shown as its aligned passages.
        top_logprobs: the first token's alternatives read for yes and no (1 to 20).
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        name: str = FAITHFULNESS,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        top_logprobs: int = TOP_LOGPROBS,
    ) -> None:
        self.endpoint, self.name, self.context_tokens = endpoint, name, int(context_tokens)
        self.top_logprobs = int(top_logprobs)

    @property
    def model(self) -> str:
        """What the evaluation's signature records: model, its digest when known, and the prompt."""
        digest = f"@sha256:{self.endpoint.model_sha256[:12]}" if self.endpoint.model_sha256 else ""
        return f"{self.endpoint.model}{digest};prompt={prompt_identity()}"

    def verdicts(self, rows: Sequence[JudgeRow], *, concurrency: int, max_retries: int) -> list[Verdict]:
        if not rows:
            return []
        problem = self._server_problem()
        if problem is not None:
            return [failed_verdict(f"row {row.label}: {problem}") for row in rows]
        with ThreadPoolExecutor(max_workers=max(1, int(concurrency)), thread_name_prefix="judge") as pool:
            return list(pool.map(lambda row: self._verdict(row, max_retries), rows))

    def _server_problem(self) -> str | None:
        """Why no row can be judged (the server is not there, or serves another model), or None."""
        try:
            served = self.endpoint.served_models()
        except EndpointError as error:
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
        attempts = max(0, int(max_retries)) + 1
        for attempt in range(1, attempts + 1):
            try:
                verdict = read_verdict(self.endpoint.chat(asked.messages, **options))
            except EndpointError as error:
                if error.retry and attempt < attempts:
                    continue
                reason = f"judge {error.kind}: {error}"
            except UnusableAnswer as error:
                reason = f"judge answer unusable: {error}"
            else:
                return Verdict(self._cell(verdict, asked.cut), _details(time.perf_counter() - started))
            break
        return failed_verdict(f"row {row.label}: {reason}", time.perf_counter() - started)

    def _cell(self, verdict: Any, cut: str) -> dict[str, Any]:
        how = "p(yes)" if verdict.from_probabilities else "answered (no probabilities from the provider)"
        explanation = f"{self.endpoint.model} {how} {verdict.p_yes:.3f}: '{verdict.word}'" + (
            f"; {cut}" if cut else ""
        )
        return {
            "name": self.name,
            "score": verdict.p_yes,
            "label": verdict.label,
            "explanation": explanation,
            "metadata": {
                "source": "judge",
                "model": self.endpoint.model,
                "prompt": prompt_identity(),
                "first_token": verdict.word,
                "from_probabilities": verdict.from_probabilities,
                "context_cut": cut,
            },
            "kind": "llm",
            "direction": "maximize",
        }


def _details(seconds: float) -> dict[str, Any]:
    from bertscore_plugins.evaluation.cells import completed

    return completed(seconds)


def judge_from_env(environ: Any = None, *, context_tokens: int | None = None) -> YesNoJudge | None:
    """The judge ``BERTSCORE_JUDGE_*`` configures, or None (no model set): the local server and a
    provider alike (``BERTSCORE_JUDGE_CONTEXT_TOKENS`` sets the prompt's budget)."""
    import os

    env = os.environ if environ is None else environ
    endpoint = Endpoint.from_env(env)
    if endpoint is None:
        return None
    budget = context_tokens or int(env.get("BERTSCORE_JUDGE_CONTEXT_TOKENS", "") or DEFAULT_CONTEXT_TOKENS)
    return YesNoJudge(endpoint, context_tokens=budget)

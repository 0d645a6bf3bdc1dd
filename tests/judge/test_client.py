"""The judge client as a careful user of a provider (a loopback OpenAI-compatible stub stands in for one):
429 and 5xx tried again after the server's Retry-After or a growing pause, within a budget; an answer whose
log probabilities are missing or absurd fails only its own row, by name."""

from __future__ import annotations

import pytest

from bertscore_plugins.evaluation.judge import ask
from bertscore_plugins.judge.endpoint import Endpoint
from bertscore_plugins.judge.yes_no import YesNoJudge
from tests.support.judge_rows import clinic_rows
from tests.support.stub_judge import MODEL_NAME, StubJudge


def _judge(stub: StubJudge, **settings) -> YesNoJudge:
    return YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=10), **settings)


def test_a_429_with_retry_after_is_tried_again_after_that_wait(pauses):
    with StubJudge(refuse_first={"BUSY": [(429, "2")]}) as stub:
        verdicts = ask(_judge(stub), clinic_rows("BUSY"), concurrency=1, max_retries=2)
        answers = list(stub.log.answers)
    assert verdicts[0].details["status"] == "COMPLETED" and verdicts[0].cell.label == "faithful"
    assert pauses == [2.0]
    assert answers == [(429, "refused 429"), (200, "logprobs")]


def test_5xx_without_retry_after_backs_off_exponentially(pauses):
    with StubJudge(refuse_first={"DOWN": [(503, None), (500, None), (502, None)]}) as stub:
        verdicts = ask(_judge(stub), clinic_rows("DOWN"), concurrency=1, max_retries=3)
    assert verdicts[0].details["status"] == "COMPLETED"
    assert pauses == [0.5, 1.0, 2.0]


def test_a_retry_after_beyond_the_rows_budget_fails_the_row_saying_so(pauses):
    with StubJudge(refuse_first={"BUSY": [(429, "120")]}) as stub:
        verdicts = ask(_judge(stub, retry_budget=30), clinic_rows("BUSY", ""), concurrency=1, max_retries=2)
    assert pauses == []
    assert verdicts[0].cell is None
    reason = verdicts[0].details["exceptions"][0]
    assert reason.startswith("row r0: judge http: HTTP 429 from")
    assert reason.endswith("(not tried again: waiting 120 s more would pass the row's retry budget of 30 s)")
    assert verdicts[1].details["status"] == "COMPLETED"


def test_429s_past_max_retries_fail_the_row_as_http_429(pauses):
    with StubJudge(refuse_first={"BUSY": [(429, "1")] * 5}) as stub:
        verdicts = ask(_judge(stub), clinic_rows("BUSY"), concurrency=1, max_retries=1)
    assert pauses == [1.0]
    assert verdicts[0].details["exceptions"][0].startswith("row r0: judge http: HTTP 429 from")


def test_a_400_is_not_tried_again(pauses):
    with StubJudge(refuse_first={"BAD": [(400, None)]}) as stub:
        verdicts = ask(_judge(stub), clinic_rows("BAD"), concurrency=1, max_retries=3)
    assert pauses == [] and verdicts[0].cell is None
    assert verdicts[0].details["exceptions"][0].startswith("row r0: judge http: HTTP 400 from")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (1000.0, "the log probability of 'yes' is 1000, above 0: not a log probability"),
        (None, "the log probability of 'yes' is missing, not a number"),
        ("-0.1", "the log probability of 'yes' is '-0.1', not a number"),
    ],
)
def test_an_absurd_or_missing_log_probability_fails_only_its_row(value, says):
    with StubJudge(logprob_when={"ODD": value}) as stub:
        verdicts = ask(_judge(stub), clinic_rows("", "ODD", ""), concurrency=2, max_retries=0)
    assert [v.details["status"] for v in verdicts] == ["COMPLETED", "FAILED", "COMPLETED"]
    assert verdicts[1].details["exceptions"] == [f"row r1: judge answer unusable: {says}"]
    assert verdicts[0].cell.score == pytest.approx(0.9)

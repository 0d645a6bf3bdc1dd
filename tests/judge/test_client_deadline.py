"""The judge client against a provider having a bad day (a loopback OpenAI-style stub plays it): one
deadline for the whole request, 429/5xx on the models check tried again like any call, a provider
without /models used without the check, and a reply no float can hold failing only its own row."""

from __future__ import annotations

import time

import pytest

from bertscore_plugins.evaluation.judge import ask
from bertscore_plugins.judge.endpoint import Endpoint, EndpointError
from bertscore_plugins.judge.yes_no import YesNoJudge
from tests.support.judge_rows import clinic_rows
from tests.support.stub_judge import MODEL_NAME, StubJudge


@pytest.mark.slow  # waits out a 2 s deadline by design: idle wall time, the whole suite's
def test_a_provider_sending_a_byte_a_second_is_cut_off_at_the_requests_deadline():
    with StubJudge(trickle=1.0) as stub:
        endpoint = Endpoint(stub.base_url, MODEL_NAME, timeout=2.0)
        started = time.monotonic()
        with pytest.raises(EndpointError) as raised:
            endpoint.chat([{"role": "user", "content": "Is it faithful?"}], max_tokens=1)
        took = time.monotonic() - started
    assert raised.value.kind == "timeout" and raised.value.retry
    assert str(raised.value) == f"no whole answer from {stub.base_url} within 2 s"
    assert 2.0 <= took < 4.0  # about 300 bytes at a byte a second would take 300 s


@pytest.mark.slow  # waits out a 2 s deadline by design: idle wall time, the whole suite's
def test_a_trickling_provider_fails_the_row_within_its_deadline_and_the_batch_goes_on():
    with StubJudge(trickle=1.0) as stub:
        judge = YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=2.0))
        started = time.monotonic()
        verdicts = ask(judge, clinic_rows(""), concurrency=1, max_retries=0)
        took = time.monotonic() - started
    assert verdicts[0].cell is None
    assert verdicts[0].details["exceptions"][0].startswith("row r0: judge timeout: no whole answer from")
    assert took < 4.0


@pytest.mark.parametrize("first", [(429, "1"), (503, None)])
def test_a_busy_answer_to_the_models_check_is_tried_again_and_the_rows_are_judged(pauses, first):
    with StubJudge(models_first=[first]) as stub:
        judge = YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=10))
        verdicts = ask(judge, clinic_rows("", ""), concurrency=1, max_retries=2)
        checks = list(stub.log.model_checks)
    assert [v.details["status"] for v in verdicts] == ["COMPLETED", "COMPLETED"]
    assert checks == [first[0], 200]
    assert pauses == [1.0 if first[1] else 0.5]  # the server's Retry-After, else the first backoff


def test_a_models_check_busy_past_the_retries_fails_the_rows_as_unavailable(pauses):
    with StubJudge(models_first=[(503, None)] * 5) as stub:
        judge = YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=10))
        verdicts = ask(judge, clinic_rows(""), concurrency=1, max_retries=1)
    assert pauses == [0.5]
    assert verdicts[0].details["exceptions"][0].startswith("row r0: judge unavailable: HTTP 503 from")


def test_a_provider_without_models_is_asked_without_the_check():
    with StubJudge(no_models=True) as stub:
        judge = YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=10))
        verdicts = ask(judge, clinic_rows("", ""), concurrency=2, max_retries=0)
        answers = list(stub.log.answers)
    assert [v.cell.label for v in verdicts] == ["faithful", "faithful"]
    assert answers == [(200, "logprobs"), (200, "logprobs")]


@pytest.mark.parametrize("value", [10**400, -(10**400)], ids=["huge", "minus-huge"])
def test_a_log_probability_no_float_holds_fails_only_its_row(value):
    with StubJudge(logprob_when={"ODD": value}) as stub:
        judge = YesNoJudge(Endpoint(stub.base_url, MODEL_NAME, timeout=10))
        verdicts = ask(judge, clinic_rows("", "ODD", ""), concurrency=2, max_retries=0)
    assert [v.details["status"] for v in verdicts] == ["COMPLETED", "FAILED", "COMPLETED"]
    assert verdicts[1].details["exceptions"] == [
        "row r1: judge answer unusable: the log probability of 'yes' is an integer of 401 digits, "
        "not a log probability"
    ]


@pytest.mark.parametrize(
    "top", [5, "yes", [{"token": "yes", "logprob": []}], [{"token": ["yes"], "logprob": -0.1}]]
)
def test_alternatives_of_any_shape_fail_only_their_row(top):
    from bertscore_plugins.judge.verdict import UnusableAnswer, read_verdict

    first = {"token": "yes", "logprob": -0.1, "top_logprobs": top}
    reply = {"choices": [{"message": {"content": "yes"}, "logprobs": {"content": [first]}}]}
    try:
        verdict = read_verdict(reply)
    except UnusableAnswer:
        return
    assert 0.0 <= verdict.p_yes <= 1.0

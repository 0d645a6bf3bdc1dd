"""The local judge's server as a hostile or careless client finds it (the real model on 127.0.0.1): every
field honoured or refused with a 400 naming it, limits answered with a reply (never a dropped connection),
structured output and tool calls answered with a label, one answer per prompt whatever else is asked."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import urllib.parse

import pytest

from bertscore_plugins.evaluation.judge import JudgeRow, ask
from bertscore_plugins.judge.environment import judge_from_env
from bertscore_plugins.judge.local_model import LOCAL_MODEL
from bertscore_plugins.judge.serve import MAX_BODY_BYTES

pytestmark = pytest.mark.slow  # a model server

QUESTION = [{"role": "user", "content": "Is the sky blue? Answer yes or no."}]
LABELS = {"type": "string", "enum": ["faithful", "unfaithful"]}
SCHEMA = {
    "type": "object",
    "properties": {"explanation": {"type": "string"}, "label": LABELS},
    "required": ["explanation", "label"],
    "additionalProperties": False,
}


def _send(server, body: bytes, headers: dict[str, str] | None = None, path: str = "/v1/chat/completions"):
    """(status, JSON reply, headers) of one raw POST."""
    url = urllib.parse.urlsplit(server.base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    try:
        connection.putrequest("POST", path, skip_accept_encoding=True)
        sent = {"Content-Type": "application/json", "Content-Length": str(len(body)), **(headers or {})}
        for name, value in sent.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders()
        # the server may answer before reading (a refused size): its reply is still there
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.send(body)
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read()), dict(reply.getheaders())
    finally:
        connection.close()


def _post(server, body: dict) -> tuple[int, dict]:
    status, payload, _ = _send(server, json.dumps(body).encode())
    return status, payload


def _ask(**fields) -> dict:
    return {"model": LOCAL_MODEL, "messages": QUESTION, "max_tokens": 1, "temperature": 0, **fields}


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": -5}, "max_tokens"),
        ({"max_tokens": 1.5}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"max_tokens": "8"}, "max_tokens"),
        ({"max_tokens": 10**9}, "max_tokens"),
        ({"max_tokens": None, "max_completion_tokens": 0}, "max_completion_tokens"),
        ({"top_logprobs": 21, "logprobs": True}, "top_logprobs"),
        ({"top_logprobs": 5}, "top_logprobs"),
        ({"temperature": -1}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"n": 2}, "n"),
        ({"stream": True}, "stream"),
        ({"frequency_penalty": 0.5}, "frequency_penalty"),
        ({"logit_bias": {"1": 5}}, "logit_bias"),
        ({"frobnicate": 1}, "frobnicate"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}, "messages[0].content[0].type"),
        ({"messages": [{"role": "user", "content": "x", "tool_calls": []}]}, "messages[0].tool_calls"),
        ({"response_format": {"type": "json_object"}}, "response_format.type"),
        ({"response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}, "response_format.json_schema.schema.properties.n"),
        ({"tools": [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]}, "tool_choice"),
        ({"tools": [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}], "tool_choice": {"type": "function", "function": {"name": "g"}}}, "tool_choice.function.name"),
    ],
)  # fmt: skip
def test_a_field_the_server_cannot_honour_is_a_400_naming_it(local_judge, fields, param):
    body = {k: v for k, v in _ask(**fields).items() if v is not None}
    status, payload = _post(local_judge, body)
    assert status == 400, payload
    assert payload["error"]["param"] == param
    assert payload["error"]["type"] == "invalid_request_error"


def test_another_model_is_a_404_naming_the_one_served(local_judge):
    status, payload = _post(local_judge, _ask(model="gpt-4o"))
    assert status == 404 and payload["error"]["code"] == "model_not_found"
    assert f"this server serves {LOCAL_MODEL!r}" in payload["error"]["message"]


def test_content_as_a_list_of_text_parts_reads_as_the_joined_text(local_judge):
    parts = [{"type": "text", "text": "Is the sky blue? "}, {"type": "text", "text": "Answer yes or no."}]
    listed = _ask(messages=[{"role": "user", "content": parts}], logprobs=True, top_logprobs=5)
    plain = _ask(logprobs=True, top_logprobs=5)
    (status, by_parts), (_, by_text) = _post(local_judge, listed), _post(local_judge, plain)
    assert status == 200
    assert by_parts["choices"][0]["logprobs"] == by_text["choices"][0]["logprobs"]
    assert by_parts["usage"]["prompt_tokens"] == by_text["usage"]["prompt_tokens"]


def test_a_lone_surrogate_is_a_400_naming_the_field_not_a_500(local_judge):
    body = json.dumps(_ask(messages=[{"role": "user", "content": "bad \ud800 text"}])).encode()
    status, payload, _ = _send(local_judge, body)
    assert status == 400 and payload["error"]["param"] == "messages[0].content"
    assert "lone surrogate (\\ud800)" in payload["error"]["message"]


def test_bodies_that_are_not_usable_json_are_answered_not_dropped(local_judge):
    deep = b"[" * 200_000 + b"]" * 200_000
    status, payload, _ = _send(local_judge, deep)
    assert status == 400 and payload["error"]["message"] == "the body's JSON is nested too deeply"
    status, payload, _ = _send(local_judge, b'{"messages": "\xff\xfe"}')
    assert status == 400 and payload["error"]["message"].startswith("the body is not UTF-8")
    status, payload, _ = _send(local_judge, b"{not json")
    assert status == 400 and payload["error"]["code"] == "invalid_json"


def test_an_absurd_content_length_is_a_413_before_the_body_is_read(local_judge):
    status, payload, headers = _send(local_judge, b"{}", {"Content-Length": str(10**12)})
    assert status == 413 and payload["error"]["code"] == "body_too_large"
    assert str(MAX_BODY_BYTES) in payload["error"]["message"] and headers["Connection"] == "close"
    status, payload, _ = _send(local_judge, b"{}", {"Content-Length": "-1"})
    assert status == 400 and payload["error"]["code"] == "invalid_length"


def test_structured_output_answers_one_of_the_labels_in_the_schemas_shape(local_judge):
    response_format = {"type": "json_schema", "json_schema": {"name": "x", "schema": SCHEMA, "strict": True}}
    status, payload = _post(local_judge, _ask(response_format=response_format, max_tokens=None))
    assert status == 200
    answer = json.loads(payload["choices"][0]["message"]["content"])
    assert set(answer) == {"explanation", "label"} and answer["label"] in LABELS["enum"]
    assert "scored each label by log probability" in answer["explanation"]


def test_a_tool_call_answers_one_of_the_labels_as_the_functions_arguments(local_judge):
    one_of = {
        "type": "object",
        "properties": {"label": {"type": "string", "oneOf": [{"const": "yes"}, {"const": "no"}]}},
    }
    tools = [{"type": "function", "function": {"name": "extract_structured_data", "parameters": one_of}}]
    choice = {"type": "function", "function": {"name": "extract_structured_data"}}
    status, payload = _post(local_judge, _ask(tools=tools, tool_choice=choice))
    assert status == 200 and payload["choices"][0]["finish_reason"] == "tool_calls"
    call = payload["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "extract_structured_data"
    assert json.loads(call["function"]["arguments"])["label"] in ("yes", "no")


def test_an_oversized_prompt_is_refused_without_waiting_for_the_engine(local_judge):
    long_text = " ".join(f"Clause {k}: the tenant keeps the garden tidy." for k in range(40))  # ~3 s of work
    busy = _ask(messages=[{"role": "user", "content": long_text}], max_tokens=4)
    oversized = _ask(messages=[{"role": "user", "content": "word " * 20_000}])
    finished: list[int] = []
    worker = threading.Thread(target=lambda: finished.append(_post(local_judge, busy)[0]))
    worker.start()
    status, payload = _post(local_judge, oversized)
    still_busy = worker.is_alive()
    worker.join()
    assert status == 400 and payload["error"]["code"] == "context_length_exceeded"
    assert payload["error"]["param"] == "messages"
    assert still_busy and finished == [200]  # answered while the engine was still busy with the other


def test_a_prompt_gets_the_same_answer_alone_and_among_concurrent_requests(local_judge):
    probe = _ask(logprobs=True, top_logprobs=5)
    alone = _post(local_judge, probe)[1]["choices"][0]["logprobs"]
    others = [_ask(messages=[{"role": "user", "content": f"Question {k}: is {k} even?"}]) for k in range(4)]
    results: dict[int, dict] = {}

    def send(index: int, body: dict) -> None:
        results[index] = _post(local_judge, body)[1]

    threads = [
        threading.Thread(target=send, args=(k, body)) for k, body in enumerate([*others, probe, *others])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results[4]["choices"][0]["logprobs"] == alone


def test_many_connections_at_once_each_get_an_answer(local_judge):
    url = urllib.parse.urlsplit(local_judge.base_url)
    sockets = [socket.create_connection((url.hostname, url.port), timeout=120) for _ in range(60)]
    request = f"GET /v1/models HTTP/1.1\r\nHost: {url.hostname}\r\nConnection: close\r\n\r\n".encode()
    try:
        for connection in sockets:
            connection.sendall(request)
        replies = [connection.makefile("rb").readline() for connection in sockets]
    finally:
        for connection in sockets:
            connection.close()
    assert replies == [b"HTTP/1.1 200 OK\r\n"] * 60


def test_a_source_in_a_script_of_about_one_token_a_character_is_cut_to_fit(local_judge):
    source = "诊所每周一至周五早上八点开门。患者停车免费。" * 400  # ~8,800 characters, about as many tokens
    judge = judge_from_env(local_judge.environment())
    verdict = ask(judge, [JudgeRow("zh", None, "诊所早上八点开门。", source)], concurrency=1, max_retries=0)[
        0
    ]
    assert verdict.details["status"] == "COMPLETED", verdict.details
    assert "source cut to its first" in verdict.cell.explanation

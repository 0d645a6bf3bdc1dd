"""What one request may cost the local judge's server, and what it answers for every value it accepts:
the labels, the written answer and the prompt each capped and refused by name before the engine is held
(one client cannot starve another), tiny temperatures answered, an oversized body's 413 read by the
client, and a 500 typed as the server's fault. Against the real model, except where a fault or a held
engine has to be made on purpose (a stand-in engine in process)."""

from __future__ import annotations

import http.client
import json
import math
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from bertscore_plugins.judge import serve
from bertscore_plugins.judge.local_model import LOCAL_MODEL

QUESTION = [{"role": "user", "content": "Is the sky blue? Answer yes or no."}]
#: 40 labels of about 300 tokens each: held the engine for minutes before labels had a budget
HOSTILE_LABELS = [f"label {k} " + "very long label text " * 60 for k in range(40)]


def _schema(labels: list[str]) -> dict:
    properties = {"explanation": {"type": "string"}, "label": {"type": "string", "enum": labels}}
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": {"type": "object", "properties": properties}},
    }


def _ask(**fields) -> dict:
    return {"model": LOCAL_MODEL, "messages": QUESTION, "max_tokens": 1, "temperature": 0, **fields}


def _post(base_url: str, body: dict | bytes, timeout: float = 120) -> tuple[int, dict]:
    """(status, JSON reply) of one POST sent as an ordinary client sends it (the whole body, then read)."""
    url = urllib.parse.urlsplit(base_url)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    try:
        connection.request(
            "POST", "/v1/chat/completions", body=data, headers={"Content-Type": "application/json"}
        )
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        connection.close()


class StandIn:
    """An engine made to order: its ``lock`` can be held by the test; ``broken`` makes every step fail."""

    def __init__(self, broken: bool = False) -> None:
        self.end_ids = {0}
        self.lock = threading.Lock()
        self.broken = broken

    def tokens(self, messages) -> list[int]:
        return [1] * sum(len(m["content"].split()) for m in messages)

    def encode_piece(self, text: str) -> list[int]:
        return [1] * len(text.split())

    def piece(self, token: int) -> str:
        return " yes"

    def next_logprobs(self, tokens):
        if self.broken:
            raise RuntimeError("the engine fell over")
        raise AssertionError("this stand-in is never asked to compute")


@pytest.fixture
def stand_in_server():
    """serve's own HTTP server over a stand-in engine, in this process: (base_url, engine)."""
    made = []

    def start(engine: StandIn) -> str:
        server = serve.Server(("127.0.0.1", 0), serve.handler(serve.ServedJudge(engine, LOCAL_MODEL, 2048)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        made.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in made:
        server.shutdown()
        server.server_close()


def test_labels_past_their_budget_are_refused_by_name_while_the_engine_is_busy(stand_in_server):
    engine = StandIn()
    base_url = stand_in_server(engine)
    with engine.lock:  # another request holds the engine: the refusal does not wait for it
        started = time.monotonic()
        status, payload = _post(base_url, _ask(response_format=_schema(HOSTILE_LABELS)), timeout=10)
        took = time.monotonic() - started
    assert status == 400 and took < 5
    error = payload["error"]
    assert error["param"] == "response_format.json_schema.schema.properties.label"
    assert error["code"] == "labels_too_long" and error["type"] == "invalid_request_error"
    assert f"at most {serve.MAX_LABEL_TOKENS} label tokens" in error["message"]


def test_a_tool_calls_labels_past_their_budget_name_the_tools_field(stand_in_server):
    base_url = stand_in_server(StandIn())
    parameters = _schema(HOSTILE_LABELS)["json_schema"]["schema"]
    tools = [{"type": "function", "function": {"name": "judge", "parameters": parameters}}]
    choice = {"type": "function", "function": {"name": "judge"}}
    status, payload = _post(base_url, _ask(tools=tools, tool_choice=choice), timeout=10)
    assert status == 400 and payload["error"]["param"] == "tools[0].function.parameters.properties.label"


def test_an_engine_fault_is_a_500_typed_as_the_servers_fault(stand_in_server):
    base_url = stand_in_server(StandIn(broken=True))
    status, payload = _post(base_url, _ask(), timeout=10)
    assert status == 500
    assert payload["error"]["type"] == "server_error" and payload["error"]["code"] == "engine_error"
    assert payload["error"]["message"] == "RuntimeError: the engine fell over"


def test_the_engine_is_taken_in_the_order_requests_came():
    turns, order = serve.FifoLock(), []
    first_in = threading.Event()

    def request(k: int) -> None:
        with turns:
            if k == 0:
                first_in.set()
                time.sleep(0.3)  # the others queue behind it meanwhile, in the order they arrive
            order.append(k)

    threads = [threading.Thread(target=request, args=(0,))]
    threads[0].start()
    first_in.wait(5)
    for k in range(1, 6):
        threads.append(threading.Thread(target=request, args=(k,)))
        threads[-1].start()
        time.sleep(0.02)
    for thread in threads:
        thread.join(10)
    assert order == [0, 1, 2, 3, 4, 5]


def test_a_huge_integer_is_refused_naming_its_field_not_as_unreadable_json(stand_in_server):
    base_url = stand_in_server(StandIn())
    body = json.dumps(_ask()).replace('"max_tokens": 1', '"seed": ' + "9" * 5000 + ', "max_tokens": 1')
    status, payload = _post(base_url, body.encode(), timeout=10)
    assert status == 400 and payload["error"]["param"] == "seed"


@pytest.mark.slow
def test_a_hostile_request_beside_a_plain_one_leaves_the_plain_one_its_usual_time(local_judge):
    plain = _ask(logprobs=True, top_logprobs=5)
    started = time.monotonic()
    assert _post(local_judge.base_url, plain)[0] == 200
    alone = time.monotonic() - started
    hostile = _ask(response_format=_schema(HOSTILE_LABELS))
    with ThreadPoolExecutor(max_workers=5) as pool:
        attacks = [pool.submit(_post, local_judge.base_url, hostile) for _ in range(4)]
        started = time.monotonic()
        status, _ = _post(local_judge.base_url, plain)
        beside = time.monotonic() - started
        refused = [attack.result() for attack in attacks]
    assert status == 200
    assert [(s, p["error"]["param"]) for s, p in refused] == [
        (400, "response_format.json_schema.schema.properties.label")
    ] * 4
    assert beside < 2 * alone + 5.0, (alone, beside)  # a shared, busy machine: the margin is its noise


@pytest.mark.slow
@pytest.mark.parametrize("temperature", [1e-300, 5e-324, 1e-12, 2.0])
def test_every_valid_temperature_is_answered(local_judge, temperature):
    greedy = _post(local_judge.base_url, _ask(max_tokens=2))
    status, payload = _post(local_judge.base_url, _ask(max_tokens=2, temperature=temperature, seed=7))
    assert status == 200, payload
    if temperature < 1e-6:  # a tiny temperature samples the likeliest token: the greedy answer
        assert payload["choices"][0]["message"]["content"] == greedy[1]["choices"][0]["message"]["content"]
    labels = ["faithful", "unfaithful"]
    status, payload = _post(
        local_judge.base_url, _ask(response_format=_schema(labels), temperature=temperature)
    )
    assert status == 200 and json.loads(payload["choices"][0]["message"]["content"])["label"] in labels


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"top_p": 1e-9, "temperature": 1.0, "seed": -(2**63)}, None),
        ({"seed": 2**64, "temperature": 0.5, "stop": ["a", "b", "c", "d"]}, None),
        ({"max_tokens": 3, "logprobs": True, "top_logprobs": 20, "temperature": 0}, None),
        ({"top_p": 0}, "top_p"),
        ({"temperature": math.ulp(2.0) + 2.0}, "temperature"),
    ],
)
def test_every_parameter_value_is_answered_or_refused_naming_it(local_judge, fields, param):
    status, payload = _post(local_judge.base_url, _ask(**fields))
    if param is None:
        assert status == 200, payload
    else:
        assert status == 400 and payload["error"]["param"] == param


@pytest.mark.slow
def test_an_8_mb_body_gets_its_413_read_by_an_ordinary_client(local_judge):
    body = json.dumps(_ask(messages=[{"role": "user", "content": "x" * (8 * 1024 * 1024)}])).encode()
    status, payload = _post(local_judge.base_url, body, timeout=60)
    assert status == 413 and payload["error"]["code"] == "body_too_large"
    assert _post(local_judge.base_url, _ask())[0] == 200  # and the server goes on

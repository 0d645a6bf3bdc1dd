"""An OpenAI-compatible chat-completions stub that judges faithfulness like a careful reader, with the
package's own fact check (``bertscore_plugins.facts``) and an off-topic check (:func:`careful_judge`).

Tests point Phoenix's ``FaithfulnessEvaluator`` at it through a real ``phoenix.evals.LLM(provider="openai",
base_url=...)``, so the whole adapter path runs: json_schema structured output, the fallback to tool calling
after an HTTP 400, and a row failing with HTTP 500. The yes/no judge (``bertscore_plugins.judge``) asks it
with ``logprobs``: it answers one word and that word's first-token alternatives, as a provider does (the
real local model answers the judge's own tests and the demo; this stub keeps other tests fast).

In process::

    with StubJudge() as judge:                      # 127.0.0.1, a free port, a daemon thread
        llm = judge.llm()                            # phoenix.evals.LLM pointed at it
    StubJudge(reject_response_format=True)           # 400 on response_format -> Phoenix uses tools
    StubJudge(fail_when=["FAIL-ME"])                 # HTTP 500 when the prompt contains a marker
    StubJudge(empty_when=["EMPTY-ME"])               # an empty answer when the prompt contains a marker
    StubJudge(refuse_first={"BUSY": [(429, "2"), (503, None)]})  # those answers first (Retry-After), then it judges
    StubJudge(logprob_when={"ODD": 1000.0})          # that log probability for the word (None: missing)
    StubJudge(models_first=[(429, "1"), (503, None)])  # /models answers those first, then the list
    StubJudge(no_models=True)                        # a provider without /models: 404 there
    StubJudge(trickle=1.0)                           # each chat answer sent one byte a second
    StubJudge(rule=lookup_judge({"output text": "unfaithful"}))

As a process (its own pid, for ``ss``): ``python tests/support/stub_judge.py --port 0`` prints
``LISTENING <port>`` on its first line, then serves until SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from typing_extensions import Self

Verdict = tuple[str, str]  # (label, explanation)
Rule = Callable[[str, str, str], Verdict]  # (query, context, response) -> verdict

MODEL_NAME = "stub-judge"
#: the stub's own sleep: tests record the judge's pauses by replacing time.sleep, and a trickling answer
#: still being written from an earlier test must not show up among them
_pause = time.sleep

_SECTION = {
    name: re.compile(rf"<{name}>\n?(.*?)\n?</{name}>", re.DOTALL) for name in ("query", "context", "response")
}
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
#: the words that say nothing about a topic (the off-topic check reads the others)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "you",
        "your",
        "we",
        "our",
        "i",
        "he",
        "she",
        "his",
        "her",
        "can",
        "will",
        "would",
        "should",
        "could",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "so",
        "than",
        "then",
        "also",
        "just",
        "about",
        "into",
        "over",
        "after",
        "before",
        "up",
        "down",
        "out",
    ]
)


def _norm(word: str) -> str:
    word = word.lower().replace("’", "'")
    for suffix in ("'s", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> list[str]:
    return [piece for token in _WORD.findall(text) for piece in token.split("-") if piece]


def careful_judge(query: str, context: str, response: str, *, min_overlap: float = 0.1) -> Verdict:
    """Unfaithful when the package's own fact check (``bertscore_plugins.facts.check_pair``: every number,
    date, name and negation of the response must be carried by the context, bound to the same thing) finds a
    fact the context does not carry, or when the response is off topic: ``min_overlap`` > 0 calls it
    unfaithful when fewer than that share of its content words occur in the context or the question (0
    disables that check). One fact checker in the project: this judge can never drift from ``facts/``.

    On the 44 demo rows it gives the ``careful_judge`` verdict recorded in recipes/demo_data.jsonl for
    every row (the fact check alone for 41; the 3 off-topic answers carry no checkable fact).
    """
    from bertscore_plugins.facts import check_pair

    check = check_pair(response, context)
    if check.unsupported:
        return "unfaithful", f"The response states what the context does not carry: {check.explanation}."
    response_words = _words(response)
    content = [_norm(w) for w in response_words if w.lower() not in _STOPWORDS]
    if min_overlap > 0 and content:
        known = {_norm(w) for w in _words(context) + _words(query)}
        overlap = sum(w in known for w in content) / len(content)
        if overlap < min_overlap:
            return "unfaithful", f"Only {overlap:.0%} of the response's content words appear in the context."
    return "faithful", "Every checkable detail in the response is supported by the context."


def lookup_judge(verdicts: Mapping[str, str], default: str = "faithful") -> Rule:
    """A rule that answers ``verdicts[key]`` for the first key found in the response, else ``default``."""

    def rule(query: str, context: str, response: str) -> Verdict:
        for key, label in verdicts.items():
            if key in response:
                return label, f"lookup: response contains {key!r}"
        return default, "lookup: default verdict"

    return rule


def _sections(prompt_text: str) -> tuple[str, str, str]:
    from bertscore_plugins.judge.prompt import sections

    ours = sections(prompt_text)  # the yes/no judge's prompt: source and answer, no question
    if ours is not None:
        return "", ours[0].strip(), ours[1].strip()
    found = {name: pattern.search(prompt_text) for name, pattern in _SECTION.items()}
    return tuple(
        m.group(1).strip() if m else "" for m in (found["query"], found["context"], found["response"])
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class RequestLog:
    """What the stub saw: every request body, how it answered, and per-mode counts."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    answers: list[tuple[int, str]] = field(default_factory=list)  # (HTTP status, mode)
    model_checks: list[int] = field(default_factory=list)  # the HTTP status of each /models answer

    def count(self, mode: str) -> int:
        return sum(1 for _, m in self.answers if m == mode)


class StubJudge:
    """The stub server; see the module docstring."""

    def __init__(
        self,
        rule: Rule = careful_judge,
        *,
        reject_response_format: bool = False,
        fail_when: Iterable[str] = (),
        empty_when: Iterable[str] = (),
        plain_text: bool = False,
        refuse_first: Mapping[str, Iterable[tuple[int, str | None]]] | None = None,
        logprob_when: Mapping[str, Any] | None = None,
        models_first: Iterable[tuple[int, str | None]] = (),
        no_models: bool = False,
        trickle: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.rule = rule
        self.reject_response_format = reject_response_format
        self.fail_when = tuple(fail_when)
        self.empty_when = tuple(empty_when)  # answer nothing (as a provider sometimes does)
        self.plain_text = plain_text
        # marker -> the (status, Retry-After) answers still to give before judging that prompt
        self.refuse_first = {marker: list(answers) for marker, answers in (refuse_first or {}).items()}
        self.logprob_when = dict(logprob_when or {})
        self.models_first = list(models_first)
        self.no_models = no_models
        self.trickle = trickle
        self.host = host
        self.log = RequestLog()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), self._handler_class())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def llm(self, **kwargs: Any) -> Any:
        """A ``phoenix.evals.LLM`` pointed at this stub.

        A loopback stub has no rate limit to find: Phoenix's client would start at 5 requests a second and
        spend 0.2 s of every judged row waiting for its token bucket (a test's own rate still wins)."""
        from phoenix.evals import LLM

        kwargs.setdefault("initial_per_second_request_rate", 1000.0)

        return LLM(provider="openai", model=MODEL_NAME, base_url=self.base_url, api_key="sk-stub", **kwargs)

    def start(self) -> StubJudge:
        # polled every 50 ms, not socketserver's 0.5 s: stop() waits one poll, and 30 files stop stubs
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="stub-judge", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------------

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
        """(HTTP status, JSON reply, mode) for one chat-completions request body."""
        messages = body.get("messages") or []
        prompt_text = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        for marker, answers in self.refuse_first.items():
            if marker in prompt_text and answers:
                with self._lock:
                    status, retry_after = answers.pop(0)
                error = {"error": {"message": f"stub judge: {status} for now", "type": "rate_limit_error"}}
                if retry_after is not None:
                    error["_headers"] = {"Retry-After": retry_after}
                return status, error, f"refused {status}"
        if any(marker in prompt_text for marker in self.fail_when):
            return (
                500,
                {"error": {"message": "stub judge: this row is set to fail", "type": "server_error"}},
                "failed",
            )
        if self.reject_response_format and "response_format" in body:
            error = {
                "message": "response_format is not supported by this server",
                "type": "invalid_request_error",
            }
            return 400, {"error": error}, "rejected_response_format"
        label, explanation = self.rule(*_sections(prompt_text))
        arguments = json.dumps({"explanation": explanation, "label": label})
        message: dict[str, Any] = {"role": "assistant", "content": arguments}
        mode = "json_schema"
        logprobs = None
        if any(marker in prompt_text for marker in self.empty_when):
            message["content"], mode = "", "empty"
        elif body.get("logprobs"):  # the yes/no judge: one word, its first token's alternatives
            word, mode = ("yes" if label == "faithful" else "no"), "logprobs"
            message["content"] = word
            odd = [value for marker, value in self.logprob_when.items() if marker in prompt_text]
            first = odd[0] if odd else math.log(0.9)
            top = [
                {"token": word, "logprob": first},
                {"token": "no" if word == "yes" else "yes", "logprob": math.log(0.1)},
            ]
            logprobs = {"content": [{"token": word, "logprob": first, "top_logprobs": top}]}
        elif self.plain_text:
            message["content"], mode = label, "plain_text"
        elif body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_stub",
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                ],
            }
            mode = "tool_calling"
        reply = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", MODEL_NAME),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": logprobs,
                    "finish_reason": "tool_calls" if mode == "tool_calling" else "stop",
                }
            ],
            "usage": {"prompt_tokens": len(prompt_text.split()), "completion_tokens": 20, "total_tokens": 0},
        }
        return 200, reply, mode

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload: dict[str, Any], trickle: float = 0.0) -> None:
                headers = payload.pop("_headers", {})
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                if not trickle:
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self._headers_buffer.append(b"\r\n")  # a slow provider: every byte on its own
                whole = b"".join(self._headers_buffer) + data
                self._headers_buffer = []
                try:
                    for k in range(len(whole)):
                        self.wfile.write(whole[k : k + 1])
                        self.wfile.flush()
                        _pause(trickle)
                except OSError:  # the client gave up
                    self.close_connection = True

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models") and not stub.no_models:
                    with stub._lock:
                        first = stub.models_first.pop(0) if stub.models_first else None
                    stub.log.model_checks.append(first[0] if first else 200)
                    if first is not None:
                        status, retry_after = first
                        refused: dict[str, Any] = {"error": {"message": f"stub judge: {status} for now"}}
                        if retry_after is not None:
                            refused["_headers"] = {"Retry-After": retry_after}
                        self._send(status, refused)
                        return
                    self._send(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "body is not JSON"}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                status, payload, mode = stub.answer(body)
                with stub._lock:
                    stub.log.bodies.append(body)
                    stub.log.answers.append((status, mode))
                self._send(status, payload, stub.trickle)

        return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reject-response-format", action="store_true")
    parser.add_argument("--fail-when", action="append", default=[])
    parser.add_argument("--min-overlap", type=float, default=0.1)
    args = parser.parse_args(argv)

    def rule(query: str, context: str, response: str) -> Verdict:
        return careful_judge(query, context, response, min_overlap=args.min_overlap)

    stub = StubJudge(
        rule, reject_response_format=args.reject_response_format, fail_when=args.fail_when, port=args.port
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stub.start()
    print(f"LISTENING {stub.port}", flush=True)
    stop.wait()
    stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

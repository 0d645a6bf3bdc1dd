"""The local judge's server process: an OpenAI-compatible ``/v1`` over :class:`~.engine.GemmaEngine`, loopback only.

Started by :class:`~.server.JudgeServer` as ``python -m bertscore_plugins.judge.serve MODEL.gguf SHA256 PORT
ALIAS N_CTX THREADS HOST``. Endpoints, in OpenAI's shapes: ``GET /v1/models`` and ``POST
/v1/chat/completions`` (:mod:`.protocol` says which fields it honours; the rest are refused by name).

What a hostile or careless client gets, never a dropped connection or a 500 for its own mistake:

- a body over :data:`MAX_BODY_BYTES` (or a Content-Length claiming so): 413, sent before the body is
  read, and then the body is read and dropped (up to :data:`MAX_DRAIN_BYTES`, :data:`DRAIN_SECONDS`), so
  a client still sending reads the refusal instead of a reset connection; no Content-Length: 411; a body
  that is not JSON, not UTF-8, or nested too deeply: 400;
- a budget per request, checked before it waits for the engine (a refused request never holds it): the
  prompt within the context (400 ``context_length_exceeded``), the written answer within
  ``protocol.MAX_TOKENS`` (400 naming ``max_tokens``), and the labels of a choice within
  :data:`MAX_LABEL_TOKENS` in all (400 naming the labels' field: each label token costs a forward step,
  and 40 labels of 300 tokens held the engine for minutes while other clients timed out);
- every value the protocol accepts is answered (a temperature of 1e-300 samples the likeliest); a 500
  is an engine fault only, typed ``server_error`` / ``engine_error``;
- more than :data:`MAX_WAITING` requests waiting for the engine: 503 with ``Retry-After``; connections
  beyond those wait in a listen backlog of :data:`BACKLOG` instead of being reset.

The engine answers one request at a time (one model, one cache), so an answer is the same under
concurrency as alone; requests take the engine in the order they came (:class:`FifoLock`), so a client
sending many requests delays another's by at most the ones queued before it. SIGTERM (``judge stop``)
shuts the server down and it exits 0; any other end is a non-zero exit. The server never outlives the process that started it: with
``$BERTSCORE_JUDGE_OWNER_PID`` set, a watcher stops it once that process is gone, even after a SIGKILL.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

from bertscore_plugins.errors import Refused
from bertscore_plugins.json_types import JSONObject
from bertscore_plugins.judge import protocol
from bertscore_plugins.judge.decoding import Engine, generate, label_logprobs, label_probabilities
from bertscore_plugins.judge.local_model import LOCAL_MODEL, measured_quality

OWNER_ENV = "BERTSCORE_JUDGE_OWNER_PID"
LOOPBACK = ("127.0.0.1", "::1")
#: a request body larger than this is refused (413): a full context of text is well under 1 MB
MAX_BODY_BYTES = 4 * 1024 * 1024
#: requests waiting for the engine at most; more are answered 503 with Retry-After
MAX_WAITING = 32
#: connections the kernel holds before they are accepted (Python's default is 5: clients got resets)
BACKLOG = 128
RETRY_AFTER_SECONDS = 1
#: the labels of one choice, in tokens in all: each costs a forward step of the engine. Phoenix's
#: classification rails ("faithful"/"unfaithful", "factual"/"hallucinated", ...) take 2 to 8
MAX_LABEL_TOKENS = 32
#: after a 413, at most this much of the refused body is read and dropped, for at most this long
MAX_DRAIN_BYTES = 64 * 1024 * 1024
DRAIN_SECONDS = 10.0


class FifoLock:
    """A first-come, first-served lock: ``with turns:`` waits for the requests that asked before (a plain
    ``threading.Lock`` hands over in no order, so one client's stream of requests could starve another)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: deque[threading.Event] = deque()

    def __enter__(self) -> None:
        turn = threading.Event()
        with self._lock:
            self._waiting.append(turn)
            if len(self._waiting) == 1:
                turn.set()
        turn.wait()

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._waiting.popleft()
            if self._waiting:
                self._waiting[0].set()


class ServedEngine(Engine, Protocol):
    """An engine this server answers with: decoding's, plus the prompt's tokens and the lock it runs under."""

    lock: threading.Lock

    def tokens(self, messages: Sequence[dict[str, str]]) -> list[int]: ...


class ServedJudge:
    """The engine behind the protocol: one request (a parsed body) -> (status, JSON)."""

    def __init__(self, engine: ServedEngine, alias: str, n_ctx: int) -> None:
        self.engine, self.alias, self.n_ctx = engine, alias, n_ctx
        self.waiting = threading.BoundedSemaphore(MAX_WAITING)
        self.turns = FifoLock()

    def answer(self, body: object) -> tuple[int, JSONObject, dict[str, str]]:
        try:
            request = protocol.read_request(body, self.alias)
            tokens = self.engine.tokens(request.messages)
            self._check_budget(request, len(tokens))
        except Refused as refused:
            return refused.status, refused.body(), {}
        if not self.waiting.acquire(blocking=False):
            message = f"{MAX_WAITING} requests are waiting for the engine; retry shortly"
            busy = _error(message, "busy", kind="server_busy")
            return 503, busy, {"Retry-After": str(RETRY_AFTER_SECONDS)}
        try:
            with self.turns, self.engine.lock:
                return 200, self._complete(request, tokens), {}
        finally:
            self.waiting.release()

    def _check_budget(self, request: protocol.Request, prompt_tokens: int) -> None:
        """Refused naming the field that takes the request past its budget (labels, answer, prompt)."""
        needed = request.max_tokens
        if request.choice is not None:
            sizes = [len(self.engine.encode_piece(label)) for label in request.choice.labels]
            if sum(sizes) > MAX_LABEL_TOKENS:
                raise Refused(
                    request.choice.param,
                    f"the {len(sizes)} labels take {sum(sizes)} tokens in all; this server scores at most "
                    f"{MAX_LABEL_TOKENS} label tokens a request",
                    code="labels_too_long",
                )
            needed = max(sizes)
        if prompt_tokens + needed > self.n_ctx:
            raise Refused(
                "messages",
                f"the prompt has {prompt_tokens} tokens and the answer may take {needed}; this server's "
                f"context is {self.n_ctx} tokens",
                code="context_length_exceeded",
            )

    def _complete(self, request: protocol.Request, tokens: list[int]) -> JSONObject:
        if request.choice is not None:
            scores = label_logprobs(self.engine, tokens, request.choice.labels)
            message = protocol.choice_message(
                request.choice, label_probabilities(scores), self.alias, request.temperature, request.seed
            )
            finish = "tool_calls" if request.choice.shape == "tool" else "stop"
            return protocol.completion(self.alias, message, finish, len(tokens), 1)
        written = generate(
            self.engine,
            tokens,
            max_tokens=request.max_tokens,
            top_logprobs=request.top_logprobs,
            temperature=request.temperature,
            top_p=request.top_p,
            seed=request.seed,
            stop=request.stop,
        )
        logprobs: JSONObject | None = {"content": written.pieces} if request.logprobs else None
        answer: JSONObject = {"role": "assistant", "content": written.text}
        return protocol.completion(
            self.alias, answer, written.finish_reason, len(tokens), len(written.pieces), logprobs
        )


def _error(
    message: str, code: str, param: str | None = None, kind: str = "invalid_request_error"
) -> JSONObject:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class Handler(BaseHTTPRequestHandler):
    """One connection's requests; :func:`handler` binds it to a :class:`ServedJudge`."""

    judge: ServedJudge
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet: the log keeps errors only
        pass

    def _send(
        self,
        status: int,
        payload: JSONObject,
        headers: dict[str, str] | None = None,
        close: bool = False,
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            model: JSONObject = {"id": self.judge.alias, "object": "model", "created": 0, "owned_by": "local"}
            if self.judge.alias == LOCAL_MODEL:  # what this model is worth, where a client looks
                model["quality"] = measured_quality()
            models = [model]
            self._send(200, {"object": "list", "data": models})
        else:
            self._send(404, _error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, _error(f"no route {self.path}", "not_found"), close=True)
            return
        body = self._body()
        if body is None:
            return
        try:
            status, payload, headers = self.judge.answer(body)
        except Exception as error:  # an engine failure: 500 typed as the server's fault, and it stays up
            message = f"{type(error).__name__}: {error}"
            status, payload, headers = 500, _error(message, "engine_error", kind="server_error"), {}
            print(f"engine error: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        self._send(status, payload, headers)

    def _body(self) -> object:
        """The parsed JSON body, or None after answering why there is none usable."""
        if self.headers.get("Transfer-Encoding"):
            self._send(
                411,
                _error("send the body with a Content-Length (no chunked encoding)", "length_required"),
                close=True,
            )
            return None
        raw_length = self.headers.get("Content-Length")
        if raw_length is None:
            self._send(411, _error("a Content-Length header is required", "length_required"), close=True)
            return None
        text = raw_length.strip()
        # ASCII digits only (no sign, no "²"); thousands of digits are too large, not int()'s ValueError
        length = (
            (int(text) if len(text) <= 18 else MAX_BODY_BYTES + 1)
            if text.isascii() and text.isdigit()
            else -1
        )
        if length < 0:
            self._send(
                400,
                _error(f"Content-Length {raw_length[:40]!r} is not a size", "invalid_length"),
                close=True,
            )
            return None
        if length > MAX_BODY_BYTES:
            message = f"the body is {length} bytes; this server reads at most {MAX_BODY_BYTES}"
            self._send(413, _error(message, "body_too_large"), close=True)
            self._drop_body(length)
            return None
        raw = self.rfile.read(length)
        try:
            return json.loads(raw.decode("utf-8"), parse_int=_json_integer)
        except UnicodeDecodeError as error:
            self._send(400, _error(f"the body is not UTF-8 (byte {error.start})", "invalid_json"))
        except RecursionError:
            self._send(400, _error("the body's JSON is nested too deeply", "invalid_json"))
        except ValueError as error:
            self._send(400, _error(f"the body is not JSON ({error})", "invalid_json"))
        return None

    def _drop_body(self, length: int) -> None:
        """Read and drop a refused body (bounded): closing with unread bytes resets the connection, and
        the client, still sending, would see a broken pipe instead of the 413 already sent."""
        self.wfile.flush()
        deadline = time.monotonic() + DRAIN_SECONDS
        left = min(length, MAX_DRAIN_BYTES)
        try:
            while left > 0 and (remaining := deadline - time.monotonic()) > 0:
                self.connection.settimeout(remaining)
                chunk = self.rfile.read1(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
        except OSError:  # the client stopped sending: nothing more to drop
            pass


def _json_integer(text: str) -> int | float:
    """A JSON integer; one too long for Python's int() (over 4,300 digits) reads as infinity, which the
    field's own check refuses by name (``seed``, ``max_tokens``), not as a body that is not JSON."""
    return int(text) if len(text) <= 4000 else math.inf


def handler(judge: ServedJudge) -> type[Handler]:
    """The request handler class answering with ``judge``."""
    return type("BoundHandler", (Handler,), {"judge": judge})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG

    def serve_forever(self, poll_interval: float = 0.1) -> None:
        """Polled every 0.1 s, not socketserver's 0.5 s: a shutdown (SIGTERM, `judge stop`) waits one poll."""
        super().serve_forever(poll_interval)


def _watch_owner(owner: int) -> None:
    while True:
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            os.kill(os.getpid(), signal.SIGTERM)
            return
        except PermissionError:
            pass
        time.sleep(1.0)


def main(argv: list[str]) -> None:
    model, sha256, port, alias, n_ctx, threads, host = argv[:7]
    if host not in LOOPBACK:
        sys.exit(f"judge server: host must be a loopback address, got {host!r}")
    owner = os.environ.get(OWNER_ENV, "")
    if owner.isdigit():
        threading.Thread(target=_watch_owner, args=(int(owner),), daemon=True).start()
    from bertscore_plugins.judge.engine import GemmaEngine

    engine = GemmaEngine(model, sha256, threads=int(threads))
    server_class = type(
        "Server", (Server,), {"address_family": socket.AF_INET6 if ":" in host else socket.AF_INET}
    )
    server = server_class((host, int(port)), handler(ServedJudge(engine, alias, int(n_ctx))))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])

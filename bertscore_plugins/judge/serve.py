"""The local judge's server process: an OpenAI-compatible ``/v1`` over :class:`~.engine.GemmaEngine`, loopback only.

Started by :class:`~.server.JudgeServer` as ``python -m bertscore_plugins.judge.serve MODEL.gguf SHA256 PORT
ALIAS N_CTX THREADS HOST``. Endpoints, in OpenAI's shapes: ``GET /v1/models`` and ``POST
/v1/chat/completions`` (:mod:`.protocol` says which fields it honours; the rest are refused by name).

What a hostile or careless client gets, never a dropped connection or a 500 for its own mistake:

- a body over :data:`MAX_BODY_BYTES` (or a Content-Length claiming so): 413, before reading it; no
  Content-Length: 411; a body that is not JSON, not UTF-8, or nested too deeply: 400;
- a prompt longer than the context: 400 ``context_length_exceeded``, counted before it waits for the
  engine (it never holds the engine);
- more than :data:`MAX_WAITING` requests waiting for the engine: 503 with ``Retry-After``; connections
  beyond those wait in a listen backlog of :data:`BACKLOG` instead of being reset.

The engine answers one request at a time (one model, one cache), so an answer is the same under
concurrency as alone. The server never outlives the process that started it: with
``$BERTSCORE_JUDGE_OWNER_PID`` set, a watcher stops it once that process is gone, even after a SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bertscore_plugins.errors import Refused
from bertscore_plugins.judge import protocol
from bertscore_plugins.judge.decoding import generate, label_logprobs, label_probabilities

OWNER_ENV = "BERTSCORE_JUDGE_OWNER_PID"
LOOPBACK = ("127.0.0.1", "::1")
#: a request body larger than this is refused (413): a full context of text is well under 1 MB
MAX_BODY_BYTES = 4 * 1024 * 1024
#: requests waiting for the engine at most; more are answered 503 with Retry-After
MAX_WAITING = 32
#: connections the kernel holds before they are accepted (Python's default is 5: clients got resets)
BACKLOG = 128
RETRY_AFTER_SECONDS = 1


class Judge:
    """The engine behind the protocol: one request (a parsed body) -> (status, JSON)."""

    def __init__(self, engine: Any, alias: str, n_ctx: int) -> None:
        self.engine, self.alias, self.n_ctx = engine, alias, n_ctx
        self.waiting = threading.BoundedSemaphore(MAX_WAITING)

    def answer(self, body: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
        try:
            request = protocol.read_request(body, self.alias)
            tokens = self.engine.tokens(request.messages)
            needed = request.max_tokens
            if request.choice is not None:
                needed = max(len(self.engine.encode_piece(label)) for label in request.choice.labels)
            if len(tokens) + needed > self.n_ctx:
                raise Refused(
                    "messages",
                    f"the prompt has {len(tokens)} tokens and the answer may take {needed}; this server's context "
                    f"is {self.n_ctx} tokens",
                    code="context_length_exceeded",
                )
        except Refused as refused:
            return refused.status, refused.body(), {}
        if not self.waiting.acquire(blocking=False):
            busy = {
                "error": {
                    "message": f"{MAX_WAITING} requests are waiting for the engine; retry shortly",
                    "type": "server_busy",
                    "param": None,
                    "code": "busy",
                }
            }
            return 503, busy, {"Retry-After": str(RETRY_AFTER_SECONDS)}
        try:
            with self.engine.lock:
                return 200, self._complete(request, tokens), {}
        finally:
            self.waiting.release()

    def _complete(self, request: protocol.Request, tokens: list[int]) -> dict[str, Any]:
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
        logprobs = {"content": written.pieces} if request.logprobs else None
        message = {"role": "assistant", "content": written.text}
        return protocol.completion(
            self.alias, message, written.finish_reason, len(tokens), len(written.pieces), logprobs
        )


def _error(message: str, code: str, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


class Handler(BaseHTTPRequestHandler):
    """One connection's requests; :func:`handler` binds it to a :class:`Judge`."""

    judge: Judge
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the log keeps errors only
        pass

    def _send(
        self,
        status: int,
        payload: dict[str, Any],
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
            models = [{"id": self.judge.alias, "object": "model", "created": 0, "owned_by": "local"}]
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
        except Exception as error:  # an engine failure: 500, and the server stays up
            status, payload, headers = 500, _error(f"{type(error).__name__}: {error}", "engine_error"), {}
            print(f"engine error: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        self._send(status, payload, headers)

    def _body(self) -> Any:
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
            self._send(
                413,
                _error(
                    f"the body is {length} bytes; this server reads at most {MAX_BODY_BYTES}",
                    "body_too_large",
                ),
                close=True,
            )
            return None
        raw = self.rfile.read(length)
        try:
            return json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            self._send(400, _error(f"the body is not UTF-8 (byte {error.start})", "invalid_json"))
        except RecursionError:
            self._send(400, _error("the body's JSON is nested too deeply", "invalid_json"))
        except ValueError as error:
            self._send(400, _error(f"the body is not JSON ({error})", "invalid_json"))
        return None


def handler(judge: Judge) -> type[Handler]:
    """The request handler class answering with ``judge``."""
    return type("BoundHandler", (Handler,), {"judge": judge})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG


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
    server = server_class((host, int(port)), handler(Judge(engine, alias, int(n_ctx))))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])

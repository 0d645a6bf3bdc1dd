"""The local judge's server process: an OpenAI-compatible ``/v1`` over llama.cpp, loopback only.

Run by :mod:`.judge_server` as ``python judge_engine.py MODEL.gguf PORT ALIAS N_CTX THREADS HOST``. The
engine is llama.cpp through llama-cpp-python's ``Llama``; the HTTP layer is this file (stdlib only), for
two measured reasons: llama-cpp-python's own server computes the logits of every prompt token and
log-softmaxes all of them when log probabilities are asked for (262,144 words x every prompt token), and it
re-reads a whole prompt whose beginning it has just read. Here only the last position's logits are
computed, and the longest prefix the previous request shares is kept in the cache (16 summaries of one
article are 16 prompts that start alike). ``benchmarks/judge_engine_cost.py`` measures both, side by side.

Endpoints, in OpenAI's shapes: ``GET /v1/models``; ``POST /v1/chat/completions`` (greedy decoding,
``max_tokens``, ``logprobs`` / ``top_logprobs`` of each token); requests are served one at a time (one
model, one cache). It never outlives the process that started it: with ``$BERTSCORE_JUDGE_OWNER_PID``
set, a watcher stops it once that process is gone, even after a SIGKILL. Imports nothing from
bertscore_plugins (it runs as a script).
"""

import json
import math
import os
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OWNER_ENV = "BERTSCORE_JUDGE_OWNER_PID"
LOOPBACK = ("127.0.0.1", "::1")
MAX_TOP_LOGPROBS = 20
MAX_TOKENS = 64
# Gemma's turn markers (the GGUF is the base model and carries no chat template of its own)
TURN = "<start_of_turn>{role}\n{content}<end_of_turn>\n"
REPLY = "<start_of_turn>model\n"


class Engine:
    """One model, one KV cache; ``complete`` is called under a lock (one request at a time)."""

    def __init__(self, model_path, alias, n_ctx, threads):
        import numpy as np
        from llama_cpp import Llama, llama_cpp

        self.np, self.low = np, llama_cpp
        self.llm = Llama(
            model_path,
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=False,
            verbose=False,
        )
        self.alias, self.n_ctx = alias, n_ctx
        self.lock = threading.Lock()

    def prompt_tokens(self, messages):
        text = "".join(
            TURN.format(
                role="model" if m.get("role") == "assistant" else "user", content=m.get("content", "")
            )
            for m in messages
        )
        return self.llm.tokenize((text + REPLY).encode(), add_bos=True, special=True)

    def _last_logits(self, tokens):
        """Evaluate ``tokens`` after the cached prefix they share; the last position's logits."""
        llm, cached = self.llm, list(self.llm.input_ids[: self.llm.n_tokens])
        keep = 0
        for a, b in zip(cached, tokens[:-1], strict=False):  # the last token is always evaluated again
            if a != b:
                break
            keep += 1
        llm.n_tokens = keep
        llm.eval(tokens[keep:])
        pointer = self.low.llama_get_logits_ith(llm._ctx.ctx, -1)
        return self.np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).astype(self.np.float64)

    def _piece(self, token, before):
        return self.llm.detokenize([token], prev_tokens=before).decode("utf-8", errors="replace")

    def complete(self, messages, max_tokens, top):
        np = self.np
        tokens = self.prompt_tokens(messages)
        if len(tokens) + max_tokens > self.n_ctx:
            return None, len(tokens)
        produced, pieces = [], []
        for _ in range(max_tokens):
            logits = self._last_logits(tokens + produced)
            shifted = logits - logits.max()
            logprobs = shifted - math.log(np.exp(shifted).sum())
            token = int(logprobs.argmax())
            best = np.argpartition(-logprobs, top)[:top] if top else np.array([], dtype=int)
            best = best[np.argsort(-logprobs[best])]
            before = tokens + produced
            pieces.append(
                {
                    "token": self._piece(token, before),
                    "logprob": float(logprobs[token]),
                    "bytes": None,
                    "top_logprobs": [
                        {"token": self._piece(int(i), before), "logprob": float(logprobs[i]), "bytes": None}
                        for i in best
                    ],
                }
            )
            if token == self.llm.token_eos() or self._piece(token, before) == "<end_of_turn>":
                pieces.pop()
                break
            produced.append(token)
        return pieces, len(tokens)


def _answer(engine, body):
    """(status, JSON) for a chat-completions request body."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return 400, {"error": {"message": "messages must be a list of {role, content} objects"}}
    max_tokens = body.get("max_tokens") or 16
    top = body.get("top_logprobs") or 0
    if not isinstance(max_tokens, int) or not 1 <= max_tokens <= MAX_TOKENS:
        return 400, {"error": {"message": f"max_tokens must be 1..{MAX_TOKENS}"}}
    if not isinstance(top, int) or not 0 <= top <= MAX_TOP_LOGPROBS:
        return 400, {"error": {"message": f"top_logprobs must be 0..{MAX_TOP_LOGPROBS}"}}
    with engine.lock:
        pieces, prompt_tokens = engine.complete(messages, max_tokens, top)
    if pieces is None:
        return 400, {
            "error": {
                "message": f"the prompt has {prompt_tokens} tokens; this server's context is {engine.n_ctx}",
                "code": "context_length_exceeded",
            }
        }
    content = "".join(piece["token"] for piece in pieces)
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": "length" if len(pieces) == max_tokens else "stop",
        "logprobs": {"content": pieces} if body.get("logprobs") else None,
    }
    return 200, {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": engine.alias,
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(pieces),
            "total_tokens": prompt_tokens + len(pieces),
        },
    }


def handler(engine):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # quiet: the launcher keeps a log of errors only
            pass

        def _send(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": [{"id": engine.alias, "object": "model", "owned_by": "local"}],
                    },
                )
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
            except (ValueError, UnicodeDecodeError) as error:
                self._send(400, {"error": {"message": f"the request body is not JSON ({error})"}})
                return
            if not isinstance(body, dict):
                self._send(400, {"error": {"message": "the request body is not a JSON object"}})
                return
            try:
                status, payload = _answer(engine, body)
            except Exception as error:  # a model failure answers 500 and the server stays up
                status, payload = 500, {"error": {"message": f"{type(error).__name__}: {error}"}}
            self._send(status, payload)

    return Handler


def _watch_owner(owner):
    while True:
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            os.kill(os.getpid(), signal.SIGTERM)
            return
        except PermissionError:
            pass
        time.sleep(1.0)


def main(argv):
    model, port, alias, n_ctx, threads, host = argv[:6]
    if host not in LOOPBACK:
        sys.exit(f"judge engine: host must be a loopback address, got {host!r}")
    owner = os.environ.get(OWNER_ENV, "")
    if owner.isdigit():
        threading.Thread(target=_watch_owner, args=(int(owner),), daemon=True).start()
    engine = Engine(model, alias, int(n_ctx), int(threads))
    server_class = type(
        "Server",
        (ThreadingHTTPServer,),
        {"address_family": __import__("socket").AF_INET6 if ":" in host else __import__("socket").AF_INET},
    )
    server = server_class((host, int(port)), handler(engine))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])

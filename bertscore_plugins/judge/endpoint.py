"""Where the judge is: an OpenAI-compatible ``/v1`` (the local server or a provider), spoken with the stdlib.

The local judge and a provider are the same door (:mod:`.environment` reads which). Each failure is a
named :class:`EndpointError` (not running, timed out, an HTTP error, an answer that is not JSON or not
HTTP), never a library traceback. ``timeout`` is one deadline for the whole request (connect, send and
every read): a server that trickles its answer a byte a second is cut off at the deadline (a per-read
socket timeout let it hold a row for about 2,000 s). A failure worth trying again (a refused connection, a timeout, HTTP 429 or 5xx) says
so, with the wait the server asked for (``Retry-After``) when it gave one: :func:`retry_wait` turns that,
or an exponential backoff, into the pause before the next attempt.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import socket
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bertscore_plugins.errors import EndpointError, SettingError
from bertscore_plugins.json_types import JSONObject, JSONValue

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: seconds one request may take before the row fails as timed out (a slow server fails rows, not the run)
DEFAULT_TIMEOUT = 60.0
#: the shortest and longest request deadline accepted (1e-320 s is a typo, not a deadline; a day is plenty)
MIN_TIMEOUT, MAX_TIMEOUT = 0.01, 86400.0
#: an answer longer than this is not a chat completion of one word: read no further
MAX_ANSWER_BYTES = 16 * 1024 * 1024


#: the first pause between attempts when the server gives no Retry-After; doubled each attempt
BACKOFF_SECONDS = 0.5
#: the longest single pause (a Retry-After beyond the row's budget fails the row instead)
MAX_BACKOFF_SECONDS = 30.0


def retry_wait(error: EndpointError, attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1``: the server's Retry-After, else 0.5, 1, 2, ... s."""
    if error.retry_after is not None:
        return error.retry_after
    return min(BACKOFF_SECONDS * 2.0 ** (attempt - 1), MAX_BACKOFF_SECONDS)


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number, or an HTTP date), or None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            import time as _time

            seconds = parsedate_to_datetime(value).timestamp() - _time.time()
        except (TypeError, ValueError, OverflowError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def base_url_problem(url: object) -> str | None:
    """Why ``url`` is not a usable http(s) base URL (no host, a port that is not a number, an unclosed
    IPv6 bracket, a blank inside), or None when it is."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return "must be an http(s) URL"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "has a blank or a control character in it"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - ValueError for a port that is not a number from 0 to 65535
    except ValueError as error:
        return f"is not a URL ({error})"
    if not parts.hostname:
        return "names no host"
    return None


def timeout_problem(timeout: object) -> str | None:
    """Why ``timeout`` is not a request deadline in seconds, or None when it is."""
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not (math.isfinite(timeout) and MIN_TIMEOUT <= timeout <= MAX_TIMEOUT)
    ):
        return f"must be a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}"
    return None


class _Deadline:
    """Cuts a request's socket at its deadline, whatever the request is doing then (sending, reading
    headers or a body): the blocked read returns and the request fails as timed out."""

    def __init__(self, seconds: float) -> None:
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            passed = self.passed
        if passed:
            self._cut()

    def _cut(self) -> None:
        with self._lock:
            self.passed = True
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener (proxies from the environment, redirects) whose connections ``deadline`` watches."""

    class Watched(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class WatchedTLS(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(Watched, req)

    class TLS(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(WatchedTLS, req, context=self._context)  # type: ignore[attr-defined]

    return urllib.request.build_opener(Plain(), TLS())


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint and the model asked there.

    ``model_sha256``: the weights' digest when known (the local GGUF), recorded in the judge's signature.
    """

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = DEFAULT_TIMEOUT
    model_sha256: str = ""

    def __post_init__(self) -> None:
        problem = base_url_problem(self.base_url)
        if problem is not None:
            raise SettingError("base_url", f"base_url {problem}, got {str(self.base_url)[:80]!r}")
        if not isinstance(self.model, str) or not self.model.strip():
            raise SettingError("model", f"model must be a model name, got {self.model!r}")
        problem = timeout_problem(self.timeout)
        if problem is not None:
            raise SettingError("timeout", f"timeout {problem}, got {self.timeout!r}")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))

    def _request(self, path: str, body: JSONObject | None = None) -> dict[str, object]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers)
        deadline = _Deadline(self.timeout)
        timed_out = EndpointError(
            "timeout", f"no whole answer from {self.base_url} within {self.timeout:g} s", retry=True
        )
        try:
            with _opener(deadline).open(request, timeout=self.timeout) as reply:
                raw = reply.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as error:
            if deadline.passed:
                raise timed_out from None
            detail = ""
            with contextlib.suppress(Exception):  # the error's body is a courtesy: a broken one is no matter
                detail = error.read(300).decode(errors="replace")
            raise EndpointError(
                "http",
                f"HTTP {error.code} from {self.base_url}{path}: {detail}",
                retry=error.code == 429 or error.code >= 500,
                retry_after=_retry_after(error.headers.get("Retry-After") if error.headers else None),
                status=error.code,
            ) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            if deadline.passed or isinstance(reason, (TimeoutError, socket.timeout)):
                raise timed_out from None
            if isinstance(error, (http.client.HTTPException, ValueError)):
                raise EndpointError(
                    "malformed",
                    f"{self.base_url}{path} answered with something that is not HTTP ({error!r:.80})",
                ) from None
            raise EndpointError(
                "unreachable", f"no judge server at {self.base_url} ({reason})", retry=True
            ) from None
        finally:
            deadline.cancel()
        if len(raw) > MAX_ANSWER_BYTES:
            raise EndpointError(
                "malformed", f"{self.base_url}{path} answered with more than {MAX_ANSWER_BYTES} bytes"
            )
        try:
            answer = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise EndpointError(
                "malformed", f"{self.base_url}{path} answered with something that is not JSON"
            ) from None
        if not isinstance(answer, dict):
            raise EndpointError(
                "malformed", f"{self.base_url}{path} answered with JSON that is not an object"
            )
        return answer

    def served_models(self) -> list[str]:
        """The model ids ``/models`` lists (EndpointError when the server cannot be asked)."""
        data = self._request("/models").get("data")
        return (
            [str(entry.get("id")) for entry in data if isinstance(entry, dict)]
            if isinstance(data, list)
            else []
        )

    def chat(self, messages: list[dict[str, str]], **options: JSONValue) -> dict[str, object]:
        """One chat completion (``options``: max_tokens, logprobs, top_logprobs, temperature, ...)."""
        return self._request("/chat/completions", {"model": self.model, "messages": messages, **options})

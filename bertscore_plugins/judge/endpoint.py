"""Where the judge is: an OpenAI-compatible ``/v1`` (the local server or a provider), spoken with the stdlib.

The local judge and a provider are the same door (:mod:`.environment` reads which). Each failure is a
named :class:`EndpointError` (not running, timed out, an HTTP error, an answer that is not JSON), never a
library traceback. A failure worth trying again (a refused connection, a timeout, HTTP 429 or 5xx) says
so, with the wait the server asked for (``Retry-After``) when it gave one: :func:`retry_wait` turns that,
or an exponential backoff, into the pause before the next attempt.
"""

from __future__ import annotations

import json
import math
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from bertscore_plugins.errors import EndpointError, SettingError

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: seconds one request may take before the row fails as timed out (a slow server fails rows, not the run)
DEFAULT_TIMEOUT = 60.0


#: the first pause between attempts when the server gives no Retry-After; doubled each attempt
BACKOFF_SECONDS = 0.5
#: the longest single pause (a Retry-After beyond the row's budget fails the row instead)
MAX_BACKOFF_SECONDS = 30.0


def retry_wait(error: EndpointError, attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1``: the server's Retry-After, else 0.5, 1, 2, ... s."""
    if error.retry_after is not None:
        return error.retry_after
    return min(BACKOFF_SECONDS * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS)


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
        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
            raise SettingError("base_url", f"base_url must be an http(s) URL, got {self.base_url!r}")
        if not isinstance(self.model, str) or not self.model.strip():
            raise SettingError("model", f"model must be a model name, got {self.model!r}")
        timeout = self.timeout
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not (math.isfinite(timeout) and timeout > 0)
        ):
            raise SettingError("timeout", f"timeout must be a positive number of seconds, got {timeout!r}")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))

    def _request(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                raw = reply.read()
        except urllib.error.HTTPError as error:
            detail = error.read()[:300].decode(errors="replace")
            raise EndpointError(
                "http",
                f"HTTP {error.code} from {self.base_url}{path}: {detail}",
                retry=error.code == 429 or error.code >= 500,
                retry_after=_retry_after(error.headers.get("Retry-After") if error.headers else None),
            ) from None
        except TimeoutError:
            raise EndpointError(
                "timeout", f"no answer from {self.base_url} within {self.timeout:g} s", retry=True
            ) from None
        except (urllib.error.URLError, ConnectionError, OSError) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise EndpointError(
                    "timeout", f"no answer from {self.base_url} within {self.timeout:g} s", retry=True
                ) from None
            raise EndpointError(
                "unreachable", f"no judge server at {self.base_url} ({reason})", retry=True
            ) from None
        try:
            answer = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
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

    def chat(self, messages: list[dict[str, str]], **options: Any) -> dict[str, Any]:
        """One chat completion (``options``: max_tokens, logprobs, top_logprobs, temperature, ...)."""
        return self._request("/chat/completions", {"model": self.model, "messages": messages, **options})

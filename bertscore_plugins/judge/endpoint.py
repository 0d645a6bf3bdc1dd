"""Where the judge is: an OpenAI-compatible ``/v1`` (the local server or a provider), spoken with the stdlib.

The local judge and a provider are the same door: ``BERTSCORE_JUDGE_BASE_URL`` (default OpenAI's),
``BERTSCORE_JUDGE_MODEL`` and ``BERTSCORE_JUDGE_API_KEY`` (or ``OPENAI_API_KEY``). Switching changes only
those. Each failure is a named :class:`EndpointError` (not running, timed out, an HTTP error, an answer
that is not JSON), never a library traceback.
"""

from __future__ import annotations

import json
import math
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bertscore_plugins.errors import ArgumentError, SettingError

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: seconds one request may take before the row fails as timed out (a slow server fails rows, not the run)
DEFAULT_TIMEOUT = 60.0


class EndpointError(Exception):
    """A request the endpoint did not answer usably; ``kind`` names why (for the failure cell)."""

    def __init__(self, kind: str, message: str, *, retry: bool = False) -> None:
        self.kind, self.retry = kind, retry
        super().__init__(message)


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

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Endpoint | None:
        """The endpoint ``BERTSCORE_JUDGE_*`` describes, or None when no model is configured."""
        env = os.environ if environ is None else environ
        model = env.get("BERTSCORE_JUDGE_MODEL", "").strip()
        if not model:
            return None
        base_url = env.get("BERTSCORE_JUDGE_BASE_URL", "").strip() or OPENAI_BASE_URL
        api_key = env.get("BERTSCORE_JUDGE_API_KEY", "").strip() or env.get("OPENAI_API_KEY", "").strip()
        raw_timeout = env.get("BERTSCORE_JUDGE_TIMEOUT", "").strip()
        try:
            timeout = float(raw_timeout) if raw_timeout else DEFAULT_TIMEOUT
        except ValueError:
            timeout = math.nan
        if not (math.isfinite(timeout) and timeout > 0):  # a variable, not a flag: named as it is set
            raise ArgumentError(
                f"BERTSCORE_JUDGE_TIMEOUT must be a positive number of seconds, got {raw_timeout!r}"
            )
        digest = env.get("BERTSCORE_JUDGE_MODEL_SHA256", "").strip()
        return cls(base_url, model, api_key, timeout, digest)

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
                "http", f"HTTP {error.code} from {self.base_url}{path}: {detail}", retry=error.code >= 500
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

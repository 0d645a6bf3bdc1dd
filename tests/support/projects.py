"""Phoenix project names no other test uses, so tests can share one server and still see only their spans.

The session's server (tests/conftest.py) is shared by every test of a pytest process (each xdist
worker has its own); a test that needs an empty project takes a fresh name instead of a fresh server.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from typing import Any


def unique_project(prefix: str) -> str:
    """``prefix`` plus the xdist worker and a random suffix: unique across tests, workers and reruns."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    slug = re.sub(r"[^A-Za-z0-9-]+", "-", prefix).strip("-")[:40] or "test"
    return f"{slug}-{worker}-{uuid.uuid4().hex[:8]}"


def wait_for_roots(client: Any, project: str, count: int, seconds: float = 90) -> None:
    """Until ``project`` holds at least ``count`` root spans (the server makes a project, and ingests spans,
    asynchronously); AssertionError naming the project after ``seconds``."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            found = client.spans.get_spans(project_identifier=project, parent_id="null", limit=count)
        except httpx.HTTPStatusError as error:  # 404 until the server has made the project
            if error.response.status_code != 404:
                raise
            found = []
        if len(found) >= count:
            return
        assert time.monotonic() < deadline, f"{project!r}: fewer than {count} root spans after {seconds:g} s"
        time.sleep(0.5)

"""Phoenix project names no other test uses, so tests can share one server and still see only their spans.

The session's server (tests/conftest.py) is shared by every test of a pytest process (each xdist
worker has its own); a test that needs an empty project takes a fresh name instead of a fresh server.
"""

from __future__ import annotations

import os
import re
import uuid


def unique_project(prefix: str) -> str:
    """``prefix`` plus the xdist worker and a random suffix: unique across tests, workers and reruns."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    slug = re.sub(r"[^A-Za-z0-9-]+", "-", prefix).strip("-")[:40] or "test"
    return f"{slug}-{worker}-{uuid.uuid4().hex[:8]}"

"""Shared by the judge client's tests: the pauses the judge takes (the rows they ask about: tests/support/judge_rows.py)."""

from __future__ import annotations

import pytest

from bertscore_plugins.judge import yes_no


@pytest.fixture
def pauses(monkeypatch) -> list[float]:
    """The pauses the judge takes between attempts (recorded, not slept)."""
    taken: list[float] = []
    monkeypatch.setattr(yes_no.time, "sleep", taken.append)
    return taken

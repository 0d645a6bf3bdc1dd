"""The clinic passage the judge's tests ask about, and rows of answers to it that the stub judge reads by
their marker (``"REFUSE"``, ``"EMPTY-ME"``, ...; tests/support/stub_judge.py)."""

from __future__ import annotations

from bertscore_plugins.evaluation.judge import JudgeRow

CLINIC = "The clinic opens at 8 am on weekdays. Parking at the clinic is free for patients."


def clinic_rows(*markers: str) -> list[JudgeRow]:
    """One row per marker (``""`` for none): the marker, then an answer the clinic passage supports."""
    return [
        JudgeRow(f"r{k}", None, f"{m} The clinic opens at 8 am.".strip(), CLINIC)
        for k, m in enumerate(markers)
    ]

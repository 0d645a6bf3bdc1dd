"""What the recipe's tests share: the demo table, the judge settings in the environment, a run's scores read
back with its stored cells, and a count of every way a run could score again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recipes" / "demo_data.jsonl"
JUDGE_VARIABLES = ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY")


def demo_rows() -> list[dict]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


def use_judge(monkeypatch: pytest.MonkeyPatch, judge) -> None:
    """The recipe's judge is the stub judge ``judge`` (``BERTSCORE_JUDGE_*``)."""
    monkeypatch.setenv("BERTSCORE_JUDGE_BASE_URL", judge.base_url)
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", "stub-judge")
    monkeypatch.setenv("BERTSCORE_JUDGE_API_KEY", "sk-stub")


def no_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    """No judge is configured, whatever the environment held."""
    for name in JUDGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def scored(out: Path) -> pd.DataFrame:
    """The run's scores table (flat, the user's columns) with each signal's stored cell beside it as
    ``<name>_score`` (read from the result store under each signal's key in summary.json), ``row_id`` the
    row's id."""
    table = pd.read_json(out / "scores.jsonl", lines=True, dtype=False)
    keys = json.loads((out / "summary.json").read_text())["store_keys"]
    with sqlite3.connect(out / "results.sqlite") as db:
        stored = [
            row
            for name, key in keys.items()
            for row in db.execute(
                "SELECT row_id, name, cell FROM results WHERE configuration = ? AND name = ?", (key, name)
            )
        ]
    db.close()
    cells: dict[str, dict] = {}
    for key, name, cell in stored:
        cells.setdefault(key.split("#")[0], {})[f"{name}_score"] = None if cell is None else json.loads(cell)
    ids = [str(i) for i in (table["id"] if "id" in table else table["row_id"])]
    for column in sorted({column for found in cells.values() for column in found}):
        table[column] = [cells.get(row_id, {}).get(column) for row_id in ids]
    table["row_id"] = ids
    return table


class ScoringCalls:
    """Counts every way the recipe could score again: a model load, the core scorer, the judge."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        import bertscore_plugins
        import bertscore_plugins.models.load
        from bertscore_plugins.judge.yes_no import YesNoJudge

        self.calls: list[str] = []
        for owner, name in (
            (bertscore_plugins.models.load, "load_model"),
            (bertscore_plugins.BERTScorer, "score"),
            (YesNoJudge, "verdicts"),
        ):
            original = getattr(owner, name)
            monkeypatch.setattr(owner, name, self._counted(name, original))

    def _counted(self, name, original):
        def wrapper(*args, **kwargs):
            self.calls.append(name)
            return original(*args, **kwargs)

        return wrapper

"""Judge triage on the development sets: how many rows can the offline signals settle, at what error?

    python benchmarks/faithfulness_train.py     # first: the parts of every development row (.feature-cache)
    python benchmarks/triage.py                 # -> benchmarks/results/triage.json, QUALITY.md section 8

A row is *settled* when the offline signal's label is trusted without asking the LLM judge; the judge is
then asked only about the rest. The error of a rule is the share of settled rows whose label disagrees
with the human one (SummEval consistency 5 / FRANK Factuality 1.0 = faithful). Reported, per set and over
all rows (each set weighing the same):

- the shipped rule (evaluation/judge.py settled_label: an unsupported fact settles "unfaithful",
  groundedness >= 0.9 with every fact carried settles "faithful");
- for the shipped offline faithfulness score, the largest share settled at a disagreement of at most 5%:
  a score at or above ``high`` settles "faithful", at or below ``low`` settles "unfaithful" (an unsupported
  fact alone does not: a third of SummEval's flagged rows are consistent for people); the cuts are
  chosen on all development rows (one pair of cuts, not one per set).
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.faithfulness_cache import CACHE
from benchmarks.faithfulness_train import SETS
from benchmarks.quality_sections import markers, write_section

RESULTS = Path(__file__).resolve().parent / "results" / "triage.json"
BEGIN, END = markers("triage")
MAX_ERROR = 0.05


def weights_at() -> dict:
    from bertscore_plugins.faithfulness import combination

    return combination.weights()


def scores(rows: list[dict], table: dict) -> np.ndarray:
    """faithfulness.combination.score for each row with the given weights (only the parts the table weighs)."""
    from bertscore_plugins.faithfulness import combination

    out = []
    for row in rows:
        logit = table["intercept"] + sum(w * float(row[name]) for name, w in table["weights"].items())
        combined = 1.0 / (1.0 + np.exp(-logit))
        out.append(0.5 + combined / 2 if combination.vouched(row, row["fact_checked"]) else combined / 2)
    return np.array(out)


def _weights(rows: list[dict]) -> np.ndarray:
    sets = [row["set"] for row in rows]
    return np.array([len(rows) / (len(SETS) * sets.count(s)) for s in sets])


def outcome(rows: list[dict], settled: np.ndarray, labels: np.ndarray) -> dict:
    """Share settled and their disagreement with people, over all rows (sets weighing the same) and per set."""
    faithful = np.array([row["faithful"] for row in rows])
    weight = _weights(rows)
    result = {}
    for name in ("all", *SETS):
        inside = np.ones(len(rows), bool) if name == "all" else np.array([r["set"] == name for r in rows])
        w = weight * inside
        s = settled & inside
        wrong = s & (labels != faithful)
        result[name] = {
            "settled": float((w * settled).sum() / w.sum()),
            "error": float((w * wrong).sum() / max((w * s).sum(), 1e-12)),
        }
    return result


def shipped_rule(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    unsupported = np.array([bool(r["unsupported_fact"]) for r in rows])
    checked = np.array([bool(r["fact_checked"]) for r in rows])
    faithful = checked & ~unsupported & (np.array([r["groundedness"] for r in rows]) >= 0.9)
    return unsupported | faithful, faithful


def best_cuts(rows: list[dict], score: np.ndarray) -> tuple[float, float, dict]:
    """The (low, high) cuts settling the most rows at a disagreement of at most MAX_ERROR (all rows)."""
    unsupported = np.array([bool(r["unsupported_fact"]) for r in rows])
    checked = np.array([bool(r["fact_checked"]) for r in rows])
    grid = np.unique(np.round(np.quantile(score, np.linspace(0, 1, 101)), 4))
    nothing = np.zeros(len(rows), dtype=bool)
    best = (-1.0, -1.0, 1.01, outcome(rows, nothing, nothing))
    for low in [-1.0, *grid]:
        for high in [*grid, 1.01]:
            if high <= low:
                continue
            faithful = checked & ~unsupported & (score >= high)
            unfaithful = checked & (score <= low)
            found = outcome(rows, faithful | unfaithful, faithful)
            if found["all"]["error"] <= MAX_ERROR and found["all"]["settled"] > best[0]:
                best = (found["all"]["settled"], float(low), float(high), found)
    return best[1], best[2], best[3]


def main() -> int:
    rows = pickle.loads((CACHE / "parts.pkl").read_bytes())
    settled, labels = shipped_rule(rows)
    report = {"max_error": MAX_ERROR, "rows": len(rows), "shipped rule": outcome(rows, settled, labels)}
    low, high, found = best_cuts(rows, scores(rows, weights_at()))
    report["score cuts"] = {"low": low, "high": high, **found}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    write_triage_section(report)
    print(json.dumps(report, indent=2))
    return 0


def write_triage_section(report: dict) -> None:
    head = "| rule | cuts (low / high) | all rows: settled / error | " + " | ".join(SETS) + " |"
    lines = [
        "## 8. Judge triage: rows the offline signals settle (SummEval, FRANK valid)",
        "",
        "Written by `benchmarks/triage.py`. A settled row is labelled without the LLM judge; error = the "
        "share of settled rows whose label disagrees with people (sets weigh the same). The cuts are "
        f"chosen on all development rows for at most {MAX_ERROR:.0%} disagreement.",
        "",
        head,
        "|" + "---|" * (3 + len(SETS)),
    ]
    for name in ("shipped rule", "score cuts"):
        found = report[name]
        cuts = f"{found['low']:.3f} / {found['high']:.3f}" if "low" in found else "fact / groundedness 0.9"
        cells = [f"{found[s]['settled']:.1%} / {found[s]['error']:.1%}" for s in ("all", *SETS)]
        lines.append(f"| {name} | {cuts} | " + " | ".join(cells) + " |")
    write_section("triage", BEGIN + "\n" + "\n".join(lines) + "\n" + END)


if __name__ == "__main__":
    sys.exit(main())

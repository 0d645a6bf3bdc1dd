"""Judge triage on the development sets: how many rows can the offline signals settle, at what error?

    python benchmarks/training/faithfulness_train.py     # first: the parts of every development row (.feature-cache)
    python benchmarks/quality/triage.py                 # -> benchmarks/results/triage.json, QUALITY.md section 8

A row is *settled* when the offline signal's label is trusted without asking the LLM judge; the judge is
then asked only about the rest. The error of a rule is the share of settled rows whose label disagrees
with the human one (SummEval consistency 5 / FRANK Factuality 1.0 = faithful). Reported, per set and over
all rows (each set weighing the same):

- the earlier rule (until 0.2: an unsupported fact settles "unfaithful", groundedness >= 0.9 with every
  fact carried settles "faithful");
- score cuts: for the shipped offline faithfulness score, the largest share settled at a disagreement of
  at most 5%: a score at or above ``high`` with every fact carried settles "faithful", at or below ``low``
  settles "unfaithful" (an unsupported fact alone does not: a third of SummEval's flagged rows are
  consistent for people); one pair of cuts chosen on all development rows;
- the shipped rule (evaluation/judge.py settled_label): the same search, but a low score settles
  "unfaithful" only with concrete evidence, an unsupported fact or a rare word (a name, a number) the
  source never writes. News summaries do not need that (score cuts settle 4 more points of rows there);
  answers do: a faithful RAG answer wrapped in polite padding, or paraphrased, scores as low as an
  off-topic one (the demo's padding rows score 0.013 to 0.018), and without evidence it must go to the
  judge, not be settled "unfaithful". Also reported for it: the cuts fitted on two sets, scored on the
  third (leave one set out).

The judge calls saved are the settled share of the rows: a settled row is never sent.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_sections import markers, write_section
from benchmarks.training.faithfulness_cache import CACHE
from benchmarks.training.faithfulness_train import SETS

RESULTS = Path(__file__).resolve().parents[1] / "results" / "triage.json"
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


def earlier_rule(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    unsupported = np.array([bool(r["unsupported_fact"]) for r in rows])
    checked = np.array([bool(r["fact_checked"]) for r in rows])
    faithful = checked & ~unsupported & (np.array([r["groundedness"] for r in rows]) >= 0.9)
    return unsupported | faithful, faithful


def settled_by(rows: list[dict], score: np.ndarray, low: float, high: float, evidence: bool) -> tuple:
    """(settled, labelled faithful) for cuts ``low`` / ``high``; ``evidence``: a low score settles only
    with an unsupported fact or a rare word the source never writes."""
    unsupported = np.array([bool(r["unsupported_fact"]) for r in rows])
    checked = np.array([bool(r["fact_checked"]) for r in rows])
    novel = np.array([bool(r["novel_rare_word"]) for r in rows])
    faithful = checked & ~unsupported & (score >= high)
    unfaithful = checked & (score <= low) & ((unsupported | novel) if evidence else True)
    return faithful | unfaithful, faithful


def best_thresholds(rows: list[dict], score: np.ndarray, evidence: bool) -> tuple[float, float, dict]:
    """The (low, high) cuts settling the most rows at a disagreement of at most MAX_ERROR (all rows)."""
    grid = np.unique(np.round(np.quantile(score, np.linspace(0, 1, 101)), 4))
    nothing = np.zeros(len(rows), dtype=bool)
    best = (-1.0, -1.0, 1.01, outcome(rows, nothing, nothing))
    for low in [-1.0, *grid]:
        for high in [*grid, 1.01]:
            if high <= low:
                continue
            found = outcome(rows, *settled_by(rows, score, low, high, evidence))
            if found["all"]["error"] <= MAX_ERROR and found["all"]["settled"] > best[0]:
                best = (found["all"]["settled"], float(low), float(high), found)
    return best[1], best[2], best[3]


def left_out(rows: list[dict], score: np.ndarray) -> dict:
    """The shipped rule's cuts fitted on two sets and applied to the third: per set, settled / error."""
    found = {}
    for name in SETS:
        kept = [i for i, r in enumerate(rows) if r["set"] != name]
        low, high, _ = best_thresholds([rows[i] for i in kept], score[kept], evidence=True)
        held = [i for i, r in enumerate(rows) if r["set"] == name]
        result = outcome(
            [rows[i] for i in held], *settled_by([rows[i] for i in held], score[held], low, high, True)
        )
        found[name] = {"low": low, "high": high, **result["all"]}
    return found


def main() -> int:
    rows = pickle.loads((CACHE / "parts.pkl").read_bytes())
    settled, labels = earlier_rule(rows)
    report = {"max_error": MAX_ERROR, "rows": len(rows), "earlier rule": outcome(rows, settled, labels)}
    score = scores(rows, weights_at())
    low, high, found = best_thresholds(rows, score, evidence=False)
    report["score cuts"] = {"low": low, "high": high, **found}
    low, high, found = best_thresholds(rows, score, evidence=True)
    report["shipped rule"] = {"low": low, "high": high, **found}
    report["shipped rule, fitted without the set"] = left_out(rows, score)
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
        "Written by `benchmarks/quality/triage.py`. A settled row is labelled without the LLM judge, so its call is "
        "saved; error = the share of settled rows whose label disagrees with people (sets weigh the same). "
        f"The cuts are chosen on all development rows for at most {MAX_ERROR:.0%} disagreement. The shipped "
        "rule settles a low score as unfaithful only with concrete evidence (an unsupported fact, or a rare "
        "word the source never writes): a faithful answer padded with politeness or paraphrased scores "
        "low too, and must be judged.",
        "",
        head,
        "|" + "---|" * (3 + len(SETS)),
    ]
    for name in ("earlier rule", "score cuts", "shipped rule"):
        found = report[name]
        cuts = f"{found['low']:.3f} / {found['high']:.3f}" if "low" in found else "fact / groundedness 0.9"
        cells = [f"{found[s]['settled']:.1%} / {found[s]['error']:.1%}" for s in ("all", *SETS)]
        label = {"shipped rule": "**shipped rule** (evidence for a low score)"}.get(name, name)
        lines.append(f"| {label} | {cuts} | " + " | ".join(cells) + " |")
    held = report["shipped rule, fitted without the set"]
    cells = [
        f"{held[s]['settled']:.1%} / {held[s]['error']:.1%} ({held[s]['low']:.3f} / {held[s]['high']:.3f})"
        for s in SETS
    ]
    lines.append("| shipped rule, cuts fitted without the set | (per set) | - | " + " | ".join(cells) + " |")
    saved = report["shipped rule"]["all"]["settled"]
    lines += [
        "",
        f"Judge calls saved by the shipped rule: {saved:.1%} of rows (earlier rule "
        f"{report['earlier rule']['all']['settled']:.1%}, at {report['earlier rule']['all']['error']:.1%} "
        "disagreement).",
    ]
    write_section("triage", BEGIN + "\n" + "\n".join(lines) + "\n" + END)


if __name__ == "__main__":
    sys.exit(main())

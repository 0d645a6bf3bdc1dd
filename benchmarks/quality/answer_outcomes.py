"""How the answer outcomes (empty, abstained: bertscore_plugins/faithfulness/outcome.py) touch the
development data: every output of every set in ../shared/eval-data read by the one rule.

    python benchmarks/quality/answer_outcomes.py      # -> benchmarks/results/answer_outcomes.json + QUALITY.md

An outcome changes a row's offline score only when the answer is empty (score 0.0) and its label when it is
either; the development AUCs of QUALITY.md sections 7 to 9 are computed from the score over the same rows,
so they move exactly when a development output gets an outcome. This script counts them per set (and
shows the texts), so the claim "the AUCs do not fall" is a measurement, not an assumption.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_data import (
    eval_data_dir,
    load_frank,
    load_mrpc_train,
    load_paws_dev,
    load_stsb_dev,
    load_summeval,
    load_wmt16,
)
from benchmarks.quality.quality_sections import markers, write_section
from bertscore_plugins.faithfulness.outcome import OUTCOMES, answer_outcome
from bertscore_plugins.faithfulness.reading import plain_text

RESULTS = Path(__file__).resolve().parents[1] / "results" / "answer_outcomes.json"
BEGIN, END = markers("outcomes")


def outputs_by_set(folder: Path) -> dict[str, list[str]]:
    """Every generated text of the development data, per set (the faithfulness sets' summaries first)."""
    sets: dict[str, list[str]] = {"summeval summaries": [row.summary for row in load_summeval(folder)]}
    frank = load_frank(folder)
    for dataset, name in (("cnndm", "frank cnn/dm summaries"), ("bbc", "frank xsum summaries")):
        sets[name] = [row.summary for row in frank if row.dataset == dataset]
    for pair, pairs in load_wmt16(folder).items():
        sets[f"wmt16 {pair} outputs"] = pairs.first
    for name, pairs in (("stsb", load_stsb_dev(folder)), ("paws", load_paws_dev(folder))):
        sets[f"{name} sentences"] = pairs.first + pairs.second
    mrpc = load_mrpc_train(folder)
    sets["mrpc sentences"] = mrpc.first + mrpc.second
    return sets


def main() -> int:
    found = {}
    for name, texts in outputs_by_set(eval_data_dir()).items():
        outcomes = {i: answer_outcome(plain_text(text)) for i, text in enumerate(texts)}
        hits = {i: o for i, o in outcomes.items() if o is not None}
        counts = Counter(hits.values())
        found[name] = {
            "rows": len(texts),
            **{outcome: counts.get(outcome, 0) for outcome in OUTCOMES},
            "texts": [{"row": i, "outcome": o, "text": texts[i][:200]} for i, o in hits.items()],
        }
    RESULTS.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_section("outcomes", section(found))
    print(section(found))
    return 0


def section(found: dict) -> str:
    rows = sum(entry["rows"] for entry in found.values())
    changed = sum(entry["empty"] + entry["abstained"] for entry in found.values())
    scored = sum(entry["empty"] for name, entry in found.items() if "summaries" in name)
    lines = [
        BEGIN,
        "## Answer outcomes: empty and abstained",
        "",
        "An answer with no word to read (nothing, blanks, emoji, punctuation) is labelled `empty` (offline "
        "score 0.0) and one that declines to answer is `abstained`, on every door and before any judge is "
        "asked (`bertscore_plugins/faithfulness/outcome.py`). Over every output of the development data "
        f"({rows:,} texts, `benchmarks/quality/answer_outcomes.py`), {changed} get an outcome:",
        "",
        "| set | texts | empty | abstained |",
        "|---|---:|---:|---:|",
        *(f"| {name} | {e['rows']:,} | {e['empty']} | {e['abstained']} |" for name, e in found.items()),
        "",
        (
            "No summary of SummEval or FRANK changes score, so every development AUC in sections 7 to 9 is "
            "unchanged (they do not fall)."
            if scored == 0
            else f"{scored} summaries change score: rerun sections 7 to 9 to see the AUCs move."
        ),
        END,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())

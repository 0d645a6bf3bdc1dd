"""What the offline faithfulness adds to groundedness on the same rows (a ratio; the acceptance bound is +30%).

    python benchmarks/facts_cost.py                  # SummEval, first 10 documents x 16 systems
    python benchmarks/facts_cost.py --docs 4 --repeats 5
    python benchmarks/facts_cost.py --demo           # the demo rows (no eval data needed)

Four timings per repeat, interleaved so machine load hits them alike, best of the repeats kept:
  groundedness           scorer.score(outputs, contexts)                (a plain core call)
  groundedness+alignment scorer.score(..., explain=True)                (what the Phoenix evaluator runs)
  offline faithfulness   facts.offline_faithfulness(outputs, contexts)  (groundedness + alignment + parts)
  parts on the alignment facts.evaluate_pair per row, on a kept alignment (the signal's own work: no model,
                         so the steadiest figure on a shared CPU)
Sources are read whole (long_text="window"), as the faithfulness command reads them.
Writes benchmarks/results/facts_cost.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RESULTS = Path(__file__).resolve().parent / "results" / "facts_cost.json"
DEMO = Path(__file__).resolve().parent.parent / "recipes" / "demo_data.jsonl"


def rows(args: argparse.Namespace) -> tuple[str, list[str], list[str]]:
    if args.demo:
        records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
        return (
            f"recipes/demo_data.jsonl ({len(records)} rows)",
            [r["output"] for r in records],
            [r["context"] for r in records],
        )
    from benchmarks.quality_data import eval_data_dir, load_summeval

    summeval = load_summeval(eval_data_dir(), args.docs)
    return (
        f"SummEval, first {args.docs} documents x 16 systems ({len(summeval)} rows)",
        [r.summary for r in summeval],
        [r.source for r in summeval],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    import torch

    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import evaluate_pair, extract, offline_faithfulness

    name, outputs, contexts = rows(args)
    scorer = get_scorer(long_text="window")  # sources read whole, as the faithfulness command does
    offline_faithfulness(outputs[:4], contexts[:4], scorer=scorer)  # model load and first-call costs
    timings: dict[str, list[float]] = {
        "groundedness": [],
        "groundedness+alignment": [],
        "offline faithfulness": [],
        "parts on the alignment": [],
    }
    kept = scorer.score(outputs, contexts, explain=True)

    def parts_only() -> None:
        for output, context, precision, explanation in zip(
            outputs, contexts, kept.precision, kept.explanations, strict=True
        ):
            evaluate_pair(output, context, explanation, float(precision))

    for _ in range(args.repeats):
        for label, run in (
            ("groundedness", lambda: scorer.score(outputs, contexts)),
            ("groundedness+alignment", lambda: scorer.score(outputs, contexts, explain=True)),
            ("offline faithfulness", lambda: offline_faithfulness(outputs, contexts, scorer=scorer)),
            ("parts on the alignment", parts_only),
        ):
            extract.cache_clear()  # every unique text is read once per run, as in a fresh job
            started = time.perf_counter()
            run()
            timings[label].append(time.perf_counter() - started)
    best = {label: min(values) for label, values in timings.items()}
    result = {
        "rows": name,
        "repeats": args.repeats,
        "best_seconds": best,
        "all_seconds": timings,
        "added_over_groundedness": best["offline faithfulness"] / best["groundedness"] - 1.0,
        "parts_over_groundedness": best["parts on the alignment"] / best["groundedness"],
        "added_over_groundedness_with_alignment": best["offline faithfulness"]
        / best["groundedness+alignment"]
        - 1.0,
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, shared CPU",
    }
    print(json.dumps(result, indent=2))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

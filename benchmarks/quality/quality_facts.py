"""The offline faithfulness signals on SummEval (expert consistency), and what the fact check costs.

    python benchmarks/quality/quality_facts.py                 # all 1,600 summaries (100 documents x 16 systems)
    python benchmarks/quality/quality_facts.py --docs 25       # a documented subset (25 documents x 16 systems)

For each summary, against its SOURCE article: groundedness (BERTScore precision, packaged MiniLM), the
fact check alone (bertscore_plugins.facts), groundedness x fact score (the offline signal before the
learned combination of section 7, benchmarks/training/faithfulness_train.py),
ROUGE-L precision and chrF. Reports Spearman with the expert consistency mean and ROC-AUC for
"consistency == 5" (81.6% of the rows), and the fact check's time as a share of groundedness's on the
same rows. Writes benchmarks/results/facts_summeval.json and the marked section of benchmarks/QUALITY.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_data import eval_data_dir, load_summeval
from benchmarks.quality.quality_sections import markers, write_section

RESULTS = Path(__file__).resolve().parents[1] / "results" / "facts_summeval.json"
BEGIN, END = markers("facts")


def ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank), 1-based."""
    order = np.argsort(values, kind="mergesort")
    ranked = np.empty(len(values), dtype=float)
    sorted_values = values[order]
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranked[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranked


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def roc_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a positive row outscores a negative one (ties count half): Mann-Whitney U."""
    r = ranks(scores)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    return float((r[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=None, help="first N documents only (x 16 systems)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--from-json",
        action="store_true",
        help="rewrite the QUALITY.md section from results/facts_summeval.json, without scoring",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        result = json.loads(RESULTS.read_text(encoding="utf-8"))
        write_section("facts", section(result, None if result["documents"] == 100 else result["documents"]))
        return 0

    from bertscore_plugins import get_scorer
    from bertscore_plugins.faithfulness import check_facts

    rows = load_summeval(eval_data_dir(), args.docs)
    summaries = [row.summary for row in rows]
    sources = [row.source for row in rows]
    consistency = np.array([row.consistency for row in rows])
    scorer = get_scorer()
    scorer.score(summaries[:8], sources[:8])  # warm-up: model load and first-call costs

    started = time.perf_counter()
    plain = scorer.score(summaries, sources)
    groundedness_seconds = time.perf_counter() - started
    started = time.perf_counter()
    explained = scorer.score(summaries, sources, explain=True)
    explained_seconds = time.perf_counter() - started
    started = time.perf_counter()
    checks = check_facts(summaries, sources, explanations=explained.explanations)
    check_seconds = time.perf_counter() - started
    assert np.allclose(plain.precision, explained.precision)

    from benchmarks.quality.quality_lexical import lexical_scores

    started = time.perf_counter()
    lexical = lexical_scores(summaries, sources, rouge_part="precision")
    lexical_seconds = time.perf_counter() - started

    groundedness = np.asarray(plain.precision, dtype=float)
    fact_score = np.array([check.score for check in checks])
    signals = {
        "groundedness (BERTScore P vs source)": groundedness,
        "fact check alone": fact_score,
        "groundedness x fact score (the previous offline signal)": groundedness * fact_score,
        "ROUGE-L precision vs source": lexical["rougeL"],
        "chrF vs source": lexical["chrf"],
    }
    positive = consistency == 5.0
    table = {
        name: {"spearman": spearman(values, consistency), "roc_auc": roc_auc(values, positive)}
        for name, values in signals.items()
    }
    flagged = np.array([check.label == "unsupported" for check in checks])
    kinds: dict[str, int] = {}
    for check in checks:
        for finding in check.unsupported:
            kinds[finding.kind] = kinds.get(finding.kind, 0) + 1
    result = {
        "rows": len(rows),
        "documents": len({row.doc_id for row in rows}),
        "positives (consistency == 5)": int(positive.sum()),
        "signals": table,
        "fact_check": {
            "rows_flagged": int(flagged.sum()),
            "consistency_mean_flagged": float(consistency[flagged].mean()) if flagged.any() else None,
            "consistency_mean_not_flagged": float(consistency[~flagged].mean()) if (~flagged).any() else None,
            "share_consistency5_among_flagged": float(positive[flagged].mean()) if flagged.any() else None,
            "share_consistency5_among_not_flagged": float(positive[~flagged].mean()),
            "unsupported_by_kind": kinds,
        },
        "seconds": {
            "groundedness": groundedness_seconds,
            "groundedness_with_alignment": explained_seconds,
            "fact_check_on_alignment": check_seconds,
            "lexical": lexical_seconds,
        },
        "cost_ratio": {
            "fact_check / groundedness": check_seconds / groundedness_seconds,
            "(alignment + fact check) / groundedness": (
                explained_seconds - groundedness_seconds + check_seconds
            )
            / groundedness_seconds,
        },
        "machine": f"{platform.machine()}, {platform.python_version()}, torch threads "
        f"{__import__('torch').get_num_threads()}",
    }
    print(json.dumps(result, indent=2))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        write_section("facts", section(result, args.docs))
    return 0


def section(result: dict, docs: int | None) -> str:
    subset = (
        f"the first {result['documents']} documents x 16 systems = {result['rows']} summaries (a subset, "
        "to keep the run affordable on a 2-core CPU)"
        if docs
        else f"all {result['rows']} summaries ({result['documents']} documents x 16 systems)"
    )
    lines = [
        BEGIN,
        "## 6. Offline faithfulness: groundedness and the fact check (SummEval consistency)",
        "",
        "The shipped offline faithfulness is now the combination of section 7 (whole sources, more parts); "
        "this section keeps the fact check's own figures on SummEval.",
        "",
        (
            f"Written by `benchmarks/quality/quality_facts.py` on {subset}. Every signal compares the summary with its "
            "SOURCE article; human = mean expert consistency (1-5). ROC-AUC is for `consistency == 5` "
            f"({result['positives (consistency == 5)']} of {result['rows']} rows). Default model (packaged MiniLM, "
            "layer 4)."
        ),
        "",
        "| signal | Spearman | ROC-AUC |",
        "|---|---|---|",
    ]
    for name, values in result["signals"].items():
        lines.append(f"| {name} | {values['spearman']:.3f} | {values['roc_auc']:.3f} |")
    facts = result["fact_check"]
    cost = result["cost_ratio"]
    seconds = result["seconds"]
    lines += [
        "",
        (
            f"The fact check flags {facts['rows_flagged']} of {result['rows']} summaries; their mean consistency is "
            f"{_fmt(facts['consistency_mean_flagged'])} against {_fmt(facts['consistency_mean_not_flagged'])} for the "
            f"rest ({_pct(facts['share_consistency5_among_flagged'])} vs "
            f"{_pct(facts['share_consistency5_among_not_flagged'])} fully consistent). Unsupported facts by kind: "
            + ", ".join(f"{kind} {count}" for kind, count in sorted(facts["unsupported_by_kind"].items()))
            + "."
        ),
        "",
        (
            f"Cost on the same rows: groundedness {seconds['groundedness']:.1f} s; the fact check on its alignment "
            f"{seconds['fact_check_on_alignment']:.1f} s (**{cost['fact_check / groundedness']:.1%}** of "
            f"groundedness); keeping the alignment (explain=True, as the Phoenix evaluators always do) costs "
            f"{seconds['groundedness_with_alignment']:.1f} s, so alignment + fact check add "
            f"**{cost['(alignment + fact check) / groundedness']:.1%}** over a bare core call. "
            f"({result['machine']}; a shared 2-core CPU, so single timings are noisy: "
            "`benchmarks/speed/facts_cost.py` interleaves repeats for the ratio.)"
        ),
        "",
        "The offline faithfulness's own cost, measured interleaved by `benchmarks/speed/facts_cost.py`, is in "
        "section 7.",
        "",
        (
            "Rules and thresholds were chosen for their meaning (same normalised value and compatible unit, "
            "polarity of the aligned words in the cue's scope), not tuned on this set."
        ),
        END,
    ]
    return "\n".join(lines)


def facts_cost() -> dict | None:
    """benchmarks/speed/facts_cost.py's interleaved measurement (results/facts_cost.json), when it has been run."""
    path = RESULTS.with_name("facts_cost.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


if __name__ == "__main__":
    sys.exit(main())

"""The local LLM judge against people, beside the offline signal and their combination.

    python benchmarks/training/faithfulness_cache.py summeval && python benchmarks/training/faithfulness_cache.py frank
    python benchmarks/quality/judge_quality.py            # every development row; -> QUALITY.md section 9
    python benchmarks/quality/judge_quality.py --limit 40 # the first 40 rows of each set (a smoke run)
    python benchmarks/quality/judge_quality.py --report-only   # the section from the verdicts kept so far

The judge is the package's own (``YesNoJudge`` over ``JudgeServer``: Gemma 3 270M on llama.cpp, 127.0.0.1,
all cores), asked exactly as the evaluation engine asks it: the prompt of ``bertscore_plugins.judge.prompt``,
a source longer than the judge's window shown as the passages the offline alignment chose. Rows are asked
grouped by source (the server keeps a shared prompt prefix: 16 SummEval summaries of one article), and each
verdict is kept in .feature-cache/judge-<model and prompt>.jsonl, so a stopped run resumes.

Reported per development set (SummEval; FRANK valid overall, CNN/DM and XSum): ROC-AUC for "fully
faithful" (consistency 5 / Factuality 1.0) of the judge's p(yes), of the shipped offline score, and of their
combination (a logistic regression on the two, fitted on the other sets: leave one set out); the share of
unusable answers; seconds per row. The combination ships only if it beats the offline score on every set
left out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_facts import roc_auc
from benchmarks.quality.quality_sections import markers, write_section
from benchmarks.training.faithfulness_cache import CACHE
from benchmarks.training.faithfulness_train import SETS, _explanation, fit

RESULTS = Path(__file__).resolve().parents[1] / "results" / "judge_quality.json"
BEGIN, END = markers("judge")
GROUPS = {"summeval": ("summeval",), "frank": ("frank_cnndm", "frank_bbc"), **{s: (s,) for s in SETS[1:]}}


def development_rows(limit: int | None) -> list[dict]:
    """Every cached development row with its offline result (the package's evaluate_pair)."""
    from bertscore_plugins.faithfulness import evaluate_pair

    rows = []
    for name in ("summeval", "frank"):
        path = CACHE / f"{name}.pkl"
        if not path.exists():
            raise SystemExit(
                f"{path} is missing: run python benchmarks/training/faithfulness_cache.py {name} first"
            )
        cached = pickle.loads(path.read_bytes())
        per_set: dict[str, int] = {}
        for row in cached:
            per_set[row["set"]] = per_set.get(row["set"], 0) + 1
            if limit is not None and per_set[row["set"]] > limit:
                continue
            explanation = _explanation(row["explanation"])
            offline = evaluate_pair(row["summary"], row["source"], explanation, row["precision"])
            rows.append(
                {
                    "key": hashlib.sha1(f"{row['summary']}\0{row['source']}".encode()).hexdigest(),
                    "set": row["set"],
                    "faithful": bool(row["faithful"]),
                    "summary": explanation.candidate_text,
                    "source": explanation.reference_text,
                    "offline": offline.score,
                    "passages": offline.parts.passages if offline.parts else (),
                }
            )
    return rows


def verdicts_path(model: str) -> Path:
    return CACHE / f"judge-{hashlib.sha1(model.encode()).hexdigest()[:10]}.jsonl"


def kept_verdicts(path: Path) -> dict[str, dict]:
    done = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            done[entry["key"]] = entry
    return done


def judge_rows(rows: list[dict], threads: int | None) -> dict[str, dict]:
    """Each row's verdict ({"p_yes", "seconds", "cut"} or {"failed": reason}), asked grouped by source."""
    from bertscore_plugins.evaluation.judge import JudgeRow
    from bertscore_plugins.judge.environment import judge_from_env
    from bertscore_plugins.judge.server import JudgeServer

    with JudgeServer(threads=threads, workdir=CACHE / "judge-server") as server:
        judge = judge_from_env(server.environment())
        path = verdicts_path(judge.model)
        done = kept_verdicts(path)
        todo = sorted((r for r in rows if r["key"] not in done), key=lambda r: (r["source"], r["key"]))
        started = time.perf_counter()
        with open(path, "a", encoding="utf-8") as out:
            for n, row in enumerate(todo, 1):
                asked = JudgeRow(row["key"], None, row["summary"], row["source"], tuple(row["passages"]))
                verdict = judge.verdicts([asked], concurrency=1, max_retries=1)[0]
                seconds = float(verdict.details.get("execution_seconds", 0.0))
                entry = {"key": row["key"], "seconds": seconds}
                if verdict.cell is None:
                    entry["failed"] = "; ".join(verdict.details.get("exceptions") or [])
                else:
                    entry["p_yes"] = verdict.cell.score
                    entry["cut"] = verdict.cell.metadata.details["context_cut"]
                out.write(json.dumps(entry) + "\n")
                out.flush()
                done[row["key"]] = entry
                if n % 50 == 0:
                    rate = (time.perf_counter() - started) / n
                    print(f"judge: {n}/{len(todo)} rows, {rate:.2f} s a row", file=sys.stderr, flush=True)
        return {"verdicts": done, "model": judge.model, "threads": server.threads}


def left_out_combination(rows: list[dict], p_yes: np.ndarray, offline: np.ndarray) -> np.ndarray:
    """Each row's combined score from a logistic regression on (offline, p_yes) fitted on the OTHER sets."""
    x = np.column_stack([offline, p_yes])
    y = np.array([r["faithful"] for r in rows], dtype=float)
    sets = np.array([r["set"] for r in rows])
    combined = np.zeros(len(rows))
    for name in SETS:
        train = sets != name
        weight = np.array([train.sum() / (2 * (sets[train] == s).sum()) for s in sets[train]])
        beta = fit(x[train], y[train], weight, 1.0)
        held = ~train
        combined[held] = 1.0 / (1.0 + np.exp(-(beta[0] + x[held] @ beta[1:])))
    return combined


def report(rows: list[dict], judged: dict) -> dict:
    verdicts = judged["verdicts"]
    rows = [r for r in rows if r["key"] in verdicts]  # a partial run: the rows judged so far
    usable = [r for r in rows if "p_yes" in verdicts[r["key"]]]
    p_yes = np.array([verdicts[r["key"]]["p_yes"] for r in usable])
    offline = np.array([r["offline"] for r in usable])
    combined = left_out_combination(usable, p_yes, offline)
    table: dict = {"model": judged["model"], "threads": judged["threads"], "sets": {}, "of": judged.get("of")}
    for group, members in GROUPS.items():
        inside = np.array([r["set"] in members for r in usable])
        everyone = [r for r in rows if r["set"] in members]
        if not inside.any():
            continue
        labels = np.array([r["faithful"] for r in usable])[inside]
        seconds = [verdicts[r["key"]]["seconds"] for r in everyone]
        table["sets"][group] = {
            "rows": len(everyone),
            "faithful": int(labels.sum()),
            "unusable": len(everyone) - int(inside.sum()),
            "cut": sum(bool(verdicts[r["key"]].get("cut")) for r in everyone),
            "judge_auc": roc_auc(p_yes[inside], labels),
            "offline_auc": roc_auc(offline[inside], labels),
            "combined_left_out_auc": roc_auc(combined[inside], labels),
            "seconds_mean": float(np.mean(seconds)),
            "seconds_median": float(np.median(seconds)),
        }
    gains = [
        table["sets"][s]["combined_left_out_auc"] - table["sets"][s]["offline_auc"]
        for s in SETS
        if s in table["sets"]
    ]
    table["combination_ships"] = bool(gains) and min(gains) > 0.0
    return table


def _partial(table: dict) -> str:
    judged, of = sum(row["rows"] for name, row in table["sets"].items() if name in SETS), table.get("of")
    if not of or judged >= of:
        return ""
    return (
        f" from the {judged:,} of {of:,} development rows judged so far (asked grouped by source in the "
        "order of the source text, so a partial run is a sample of whole articles from every set)"
    )


def section(table: dict) -> str:
    names = {
        "summeval": "SummEval",
        "frank": "FRANK valid",
        "frank_cnndm": "FRANK CNN/DM",
        "frank_bbc": "FRANK XSum",
    }
    lines = [
        "## 9. The local LLM judge against people (SummEval, FRANK valid)",
        "",
        f"Written by `benchmarks/quality/judge_quality.py`{_partial(table)}. The judge: `{table['model']}` (Gemma 3 270M, Q4_K_M GGUF, "
        f"the base model: no instruction tuning) on llama.cpp, {table['threads']} CPU threads, asked one "
        "word and scored by p(yes) from its first token's 20 most likely alternatives. ROC-AUC for fully "
        "faithful (consistency 5; Factuality 1.0). The combination is a logistic regression on the offline "
        "score and p(yes), fitted on the other sets and scored on this one (leave one set out). Seconds per "
        "row: wall time per request, rows asked grouped by source (the server keeps a shared prompt prefix).",
        "",
        "| set | rows (faithful) | judge p(yes) AUC | offline score AUC | combination, set left out | unusable | source cut | s / row (median) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group, row in table["sets"].items():
        lines.append(
            f"| {names[group]} | {row['rows']} ({row['faithful']}) | {row['judge_auc']:.3f} | "
            f"{row['offline_auc']:.3f} | {row['combined_left_out_auc']:.3f} | {row['unusable']} | {row['cut']} | "
            f"{row['seconds_mean']:.2f} ({row['seconds_median']:.2f}) |"
        )
    verdict = (
        "The combination beats the offline score on every set left out, so it ships."
        if table["combination_ships"]
        else "The combination does not beat the offline score on every set left out, so it does not ship: "
        "with a judge configured, the judge's own verdict is reported beside the offline signal, never "
        "blended into it."
    )
    lines += ["", verdict]
    return BEGIN + "\n" + "\n".join(lines) + "\n" + END


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N rows of each set (a smoke run)")
    parser.add_argument("--threads", type=int, default=None, help="the judge's CPU threads (default: all)")
    parser.add_argument("--report-only", action="store_true", help="report the verdicts kept so far")
    args = parser.parse_args(argv)
    rows = development_rows(args.limit)
    if args.report_only:
        from bertscore_plugins.judge.endpoint import Endpoint
        from bertscore_plugins.judge.local_model import LOCAL_MODEL, local_model
        from bertscore_plugins.judge.yes_no import YesNoJudge

        _, digest = local_model()
        model = YesNoJudge(Endpoint("http://127.0.0.1:1/v1", LOCAL_MODEL, model_sha256=digest)).model
        judged = {
            "verdicts": kept_verdicts(verdicts_path(model)),
            "model": model,
            "threads": args.threads or 2,
        }
    else:
        judged = judge_rows(rows, args.threads)
    judged["of"] = len(rows)
    table = report(rows, judged)
    print(json.dumps(table, indent=2))
    if args.limit is None:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
        write_section("judge", section(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())

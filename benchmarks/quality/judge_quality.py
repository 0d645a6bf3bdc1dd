"""The local LLM judge against people, beside the offline signal and their combination.

    python benchmarks/training/faithfulness_cache.py summeval && python benchmarks/training/faithfulness_cache.py frank
    python benchmarks/quality/judge_quality.py            # every development row; -> QUALITY.md section 9
    python benchmarks/quality/judge_quality.py --sample   # the 200 rows of judge_engines.py; -> section 9
    python benchmarks/quality/judge_quality.py --limit 40 # the first 40 rows of each set (a smoke run)
    python benchmarks/quality/judge_quality.py --report-only   # the section from the verdicts kept so far

The judge is the package's own (``YesNoJudge`` over ``JudgeServer``: Gemma 3 270M on the shipped
transformers engine, 127.0.0.1, all cores), asked exactly as the evaluation engine asks it: the prompt of ``bertscore_plugins.judge.prompt``,
a source longer than the judge's window shown as the passages the offline alignment chose. Rows are asked
grouped by source (the server keeps a shared prompt prefix: 16 SummEval summaries of one article), and each
verdict is kept in .feature-cache/judge-<model and prompt>.jsonl, so a stopped run resumes.

Reported per development set (SummEval; FRANK valid overall, CNN/DM and XSum): ROC-AUC for "fully
faithful" (consistency 5 / Factuality 1.0) of the judge's p(yes), of the shipped offline score, and of their
combination (a logistic regression on the two, fitted on the other sets: leave one set out); the share of
unusable answers; seconds per row. The combination ships only if it beats the offline score on every set
left out.

``--sample`` asks the 200 rows that benchmarks/speed/judge_engines.py compares the engines on (SummEval: the
first 6 articles x 16 summaries; FRANK: the first 52 CNN/DM and 52 XSum rows in article-hash order), scored
offline here (no cache needed): at about 7 s a row on two busy cores every development row (2,271) would take
hours. ``bertscore_plugins.judge.local_model.MEASURED_AUC_BY_SET`` is copied from the section this writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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


def _row(row: dict, explanation, precision: float) -> dict:
    from bertscore_plugins.faithfulness import evaluate_pair

    offline = evaluate_pair(row["summary"], row["source"], explanation, precision)
    return {
        "key": hashlib.sha1(f"{row['summary']}\0{row['source']}".encode()).hexdigest(),
        "set": row["set"],
        "faithful": bool(row["faithful"]),
        "summary": explanation.candidate_text,
        "source": explanation.reference_text,
        "offline": offline.score,
        "passages": offline.parts.passages if offline.parts else (),
    }


def sample_rows() -> list[dict]:
    """The 200 rows of benchmarks/speed/judge_engines.py, scored offline as the cache scores them."""
    from benchmarks.speed.judge_engines import development_rows as engine_rows
    from bertscore_plugins.core.scorer import get_scorer

    kept = CACHE / "judge-sample-rows.pkl"  # a report-only run reads them back instead of scoring again
    if kept.exists():
        return pickle.loads(kept.read_bytes())
    chosen = engine_rows()
    scorer = get_scorer(long_text="window")
    rows = []
    for start in range(0, len(chosen), 32):
        chunk = chosen[start : start + 32]
        result = scorer.score([r["summary"] for r in chunk], [r["source"] for r in chunk], explain=True)
        for row, precision, explanation in zip(chunk, result.precision, result.explanations, strict=True):
            rows.append(_row(row, explanation, float(precision)))
    CACHE.mkdir(exist_ok=True)
    kept.write_bytes(pickle.dumps(rows))
    return rows


def development_rows(limit: int | None) -> list[dict]:
    """Every cached development row with its offline result (the package's evaluate_pair)."""
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
            rows.append(_row(row, _explanation(row["explanation"]), row["precision"]))
    return rows


def verdicts_path(model: str) -> Path:
    # the engine in the name: verdicts kept from an earlier engine (same model name) are not reused
    return CACHE / f"judge-{hashlib.sha1(model.encode()).hexdigest()[:10]}-transformers.jsonl"


def kept_verdicts(path: Path) -> dict[str, dict]:
    done = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            done[entry["key"]] = entry
    return done


def interleaved(rows: list[dict]) -> list[dict]:
    """The rows grouped by source (one source's summaries one after another: the server reuses their
    shared prompt prefix), the sources taken from each set in turn, so a run stopped early has judged
    about as many sources of every set."""
    by_set: dict[str, dict[str, list[dict]]] = {}
    for row in sorted(rows, key=lambda r: (r["source"], r["key"])):
        by_set.setdefault(row["set"], {}).setdefault(row["source"], []).append(row)
    queues = [list(sources.values()) for _, sources in sorted(by_set.items())]
    ordered: list[dict] = []
    for turn in range(max((len(q) for q in queues), default=0)):
        for queue in queues:
            if turn < len(queue):
                ordered.extend(queue[turn])
    return ordered


def judge_rows(rows: list[dict], threads: int | None) -> dict[str, dict]:
    """Each row's verdict ({"p_yes", "seconds", "cut"} or {"failed": reason}), asked grouped by source."""
    from bertscore_plugins.evaluation.judge import JudgeRow
    from bertscore_plugins.judge.environment import judge_from_env
    from bertscore_plugins.judge.server import JudgeServer

    # a busy shared machine: the first start (dequantising the GGUF) took over 300 s there
    with JudgeServer(threads=threads, workdir=CACHE / "judge-server", startup_timeout=1200) as server:
        # a row's whole request may take minutes on a busy shared machine (the first prompt of a source is
        # read in full): a timeout here would measure the machine, not the judge
        judge = judge_from_env({**server.environment(), "BERTSCORE_JUDGE_TIMEOUT": "1800"})
        path = verdicts_path(judge.model)
        done = kept_verdicts(path)
        todo = interleaved([r for r in rows if r["key"] not in done])
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
        if len(set(y[train])) < 2:  # a partial run: nothing to fit on without this set
            combined[~train] = np.nan
            continue
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
    table["sample"] = bool(judged.get("sample"))
    table["engine"] = "transformers"  # the package's engine (the GGUF dequantised to float32, torch)
    # the machine is shared: the seconds are its, under this load (1-minute average when reported)
    table["load_average"] = round(os.getloadavg()[0], 1)
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
    rows = (
        f"the {of:,} rows that benchmarks/speed/judge_engines.py compares the engines on (SummEval: the first "
        "6 articles x 16 summaries; FRANK: the first 52 CNN/DM and 52 XSum rows in article-hash order)"
        if table.get("sample")
        else f"{of:,} development rows"
    )
    if not of or judged >= of:
        return f" on {rows}" if table.get("sample") else ""
    return (
        f" from {judged:,} of {rows}, the ones judged in the time there was (asked grouped by source, the "
        "sources of each set taken in turn, so a partial run is a sample of whole articles from every set)"
    )


def _auc(value: float) -> str:
    """An AUC to three places; "n/a" where the rows judged hold one class only (a partial run)."""
    return f"{value:.3f}" if np.isfinite(value) else "n/a"


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
        f"the base model: no instruction tuning) on the package's transformers engine (float32 weights "
        f"dequantised from the GGUF, torch), {table['threads']} CPU threads, asked one "
        "word and scored by p(yes) from its first token's 20 most likely alternatives. ROC-AUC for fully "
        "faithful (consistency 5; Factuality 1.0). The combination is a logistic regression on the offline "
        "score and p(yes), fitted on the other sets and scored on this one (leave one set out). Seconds per "
        "row: wall time per request, rows asked grouped by source (the server keeps a shared prompt prefix), "
        f"on a shared machine of {os.cpu_count()} cores (load average {table.get('load_average', 'unknown')} "
        "when this was written): the seconds are that machine's, not the engine's.",
        "",
        "| set | rows (faithful) | judge p(yes) AUC | offline score AUC | combination, set left out | unusable | source cut | s / row (median) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group, row in table["sets"].items():
        lines.append(
            f"| {names[group]} | {row['rows']} ({row['faithful']}) | {_auc(row['judge_auc'])} | "
            f"{_auc(row['offline_auc'])} | {_auc(row['combined_left_out_auc'])} | {row['unusable']} | {row['cut']} | "
            f"{row['seconds_mean']:.2f} ({row['seconds_median']:.2f}) |"
        )
    lines += [
        "",
        "`bertscore_plugins.judge.local_model.MEASURED_AUC_BY_SET` holds the judge's three AUCs above (SummEval, "
        "FRANK CNN/DM, FRANK XSum) and `MEASURED_AUC` their mean: what `judge serve` prints, `/v1/models` lists "
        "and `near_chance` reads.",
    ]
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
    parser.add_argument("--sample", action="store_true", help="the 200 rows of judge_engines.py")
    parser.add_argument("--report-only", action="store_true", help="report the verdicts kept so far")
    args = parser.parse_args(argv)
    rows = sample_rows() if args.sample else development_rows(args.limit)
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
    judged["sample"] = args.sample
    table = report(rows, judged)
    print(json.dumps(table, indent=2))
    if args.limit is None:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
        write_section("judge", section(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())

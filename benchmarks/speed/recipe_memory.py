"""The disagreement recipe's peak memory and speed at N and 4N RAG-like rows, and its chunk size.

    python benchmarks/speed/recipe_memory.py                          # 1,000 and 4,000 rows, this checkout
    python benchmarks/speed/recipe_memory.py --rows 1000 --chunks 64,256,1000   # the chunk size's trade-off
    python benchmarks/speed/recipe_memory.py --checkout /path/to/older/checkout  # the same rows, before

Each run is ``bertscore-plugins disagreement ROWS.jsonl --no-phoenix`` (no judge) in a fresh process, into a
new output folder, with stderr to a pipe (the plain progress line's case); its peak resident memory is the
process's own (``ru_maxrss``), its seconds the wall clock of the whole command (model load included). The
rows are the demo rows (recipes/demo_data.jsonl) made unique and as long as the RAG rows a user logs (a
question, a context of a few passages, an answer, a reference): row i carries its own case number in the
context, the answer and the reference, so no text repeats and no cache serves a row twice.

Writes benchmarks/results/recipe_memory.json (and prints a table): per run the rows, the chunk size, the
peak RSS in MB, seconds per 1,000 rows; and the 4N/N ratio of the peaks (the target: within 10% or 150 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recipes" / "demo_data.jsonl"
RESULTS = REPO / "benchmarks" / "results" / "recipe_memory.json"

#: run in the child: the recipe with a chosen chunk size (when the checkout has chunks), then its peak RSS
CHILD = """
import json, resource, sys, time
started = time.perf_counter()
chunk = int(sys.argv[1])
if chunk:
    from bertscore_plugins.evaluation import pipeline
    pipeline.CHUNK_ROWS = chunk
from bertscore_plugins.cli.main import main
code = main(["disagreement", *sys.argv[2:]])
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"exit": code, "peak_mb": peak_mb, "seconds": time.perf_counter() - started}))
"""


def rag_rows(count: int) -> list[dict[str, str]]:
    """``count`` unique RAG-like rows cycling over the demo rows (see the module docstring)."""
    demo = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for i in range(count):
        base = demo[i % len(demo)]
        case = f"case {i + 1}"
        rows.append(
            {
                "id": f"r{i + 1:05d}",
                "question": f"{base['question']} ({case})",
                "context": f"{base['context']} This note belongs to {case}, filed at desk {i % 97 + 1}.",
                "output": f"{base['output']} (as noted for {case})",
                "reference": f"{base['reference']} ({case})",
            }
        )
    return rows


def measure(checkout: Path, rows_path: Path, chunk: int) -> dict[str, float]:
    """One recipe run in a fresh process; its exit code, peak RSS (MB) and seconds."""
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "PYTHONDONTWRITEBYTECODE": "1",
        **{
            name: ""
            for name in ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY")
        },
    }
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(chunk), str(rows_path), "--out", out, "--no-phoenix"],
            env=env,
            cwd=out,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"the recipe failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1000,4000", help="row counts, comma-separated (default 1000,4000)")
    parser.add_argument(
        "--chunks", default="0", help="chunk sizes, comma-separated (0: the checkout's default)"
    )
    parser.add_argument(
        "--checkout", default=str(REPO), help="the checkout whose recipe runs (default: this one)"
    )
    parser.add_argument("--label", default="this checkout", help="what the runs are called in the table")
    parser.add_argument("--out", default=str(RESULTS), help="results file (runs are appended)")
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for count in [int(n) for n in args.rows.split(",")]:
            path = Path(folder) / f"rag_{count}.jsonl"
            path.write_text("".join(json.dumps(row) + "\n" for row in rag_rows(count)), encoding="utf-8")
            for chunk in [int(n) for n in args.chunks.split(",")]:
                found = measure(Path(args.checkout), path, chunk)
                run = {
                    "label": args.label,
                    "rows": count,
                    "chunk_rows": chunk or "default",
                    "peak_mb": round(found["peak_mb"], 1),
                    "seconds_per_1000_rows": round(found["seconds"] * 1000 / count, 1),
                }
                print(json.dumps(run), flush=True)
                runs.append(run)
    results = Path(args.out)
    earlier = json.loads(results.read_text())["runs"] if results.exists() else []
    results.parent.mkdir(parents=True, exist_ok=True)
    environment = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }
    results.write_text(json.dumps({"environment": environment, "runs": earlier + runs}, indent=1) + "\n")
    print(table(earlier + runs))
    return 0


def table(runs: list[dict]) -> str:
    """The runs as a markdown table, with each label and chunk size's peak at its largest row count over its
    smallest."""
    lines = ["| checkout | rows | chunk rows | peak RSS MB | s / 1,000 rows |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['label']} | {r['rows']:,} | {r['chunk_rows']} | {r['peak_mb']:,.0f} | {r['seconds_per_1000_rows']} |"
        for r in runs
    ]
    groups: dict[tuple[str, str], list[dict]] = {}
    for run in runs:
        groups.setdefault((run["label"], str(run["chunk_rows"])), []).append(run)
    for (label, chunk), found in groups.items():
        if len({r["rows"] for r in found}) > 1:
            small, large = min(found, key=lambda r: r["rows"]), max(found, key=lambda r: r["rows"])
            lines.append(
                f"\n{label}, chunk {chunk}: peak at {large['rows']:,} rows / at {small['rows']:,} = "
                f"{large['peak_mb'] / small['peak_mb']:.2f} ({large['peak_mb'] - small['peak_mb']:+,.0f} MB)"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

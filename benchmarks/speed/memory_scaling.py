"""Peak memory and speed of the scoring paths at N and 4N pairs, each run in a fresh process.

    python benchmarks/speed/memory_scaling.py                      # score(), CLI score, datasets.map at 5k, 20k
    python benchmarks/speed/memory_scaling.py --paths score --sizes 1000,4000 --layer 0   # a quick look

Paths: ``score`` (``get_scorer(...).score`` in one call), ``cli`` (``bertscore-plugins score -c -r -o``,
files in, a TSV out), ``datasets`` (``Dataset.map(BERTScoreTransform, batched=True, num_proc=K)``) and
``ray`` (``score_ray_dataset`` on a local Ray sized as the README's example). Each run is a new process
tree; the parent polls the RSS of the whole tree (the process and every descendant: datasets' workers,
Ray's raylet and actors) every POLL_SECONDS and keeps the peak. The pairs are WMT16 DAseg rows
(texts.wmt16_pairs, every language pair spread evenly so that any slice of rows, a map() batch or a worker's
shard, holds the same mix; past 3,920 rows every text gets a row-specific suffix, so no text repeats and nothing
is served from a cache).

A run writes its F1 column (float32, input order) beside its figures, so the parent can say whether two
paths gave the same numbers (parallel_paths.py). The verdict per path: peak RSS at the largest size within
10% (or 150 MiB) of the peak at the smallest. Results: benchmarks/results/memory_scaling.{json,md}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(HERE))

#: seconds between two samples of the process tree's RSS (the single process's exact peak comes from wait4)
POLL_SECONDS = 0.5
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
#: growth allowed from N to 4N rows: 10% of the peak at N, or 150 MiB, whichever is larger
GROWTH_FRACTION, GROWTH_MIB = 0.10, 150.0


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, from /proc/PID/task/*/children (no scan of every process: psutil's
    children() reads all of /proc, which cost as much CPU as the scoring on a machine with hundreds)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                queue.extend(int(child) for child in task.read_text().split())
    return found


def tree_rss_mib(root: int) -> float:
    """RSS of `root` and all its descendants, in MiB (a page shared by a fork counts in each process)."""
    total = 0
    for pid in descendants(root):
        with contextlib.suppress(OSError, ValueError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES
    return total / 2**20


def run_path(path: str, pairs: int, options: dict, folder: Path) -> dict:
    """One run of `path` on `pairs` pairs in a fresh process tree: its figures, peak tree RSS included."""
    from texts import wmt16_pairs

    data = wmt16_pairs(pairs, spread=True)
    (folder / "c.txt").write_text("\n".join(data.candidates) + "\n", encoding="utf-8")
    (folder / "r.txt").write_text("\n".join(data.references) + "\n", encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore")
    # the package under test: this checkout's, or another revision's source (--source) found first
    source = options.get("source") or str(REPO)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, str(REPO), env.get("PYTHONPATH")]))
    result_path = folder / "result.json"
    if path == "cli":
        command = [sys.executable, "-m", "bertscore_plugins.cli", "score", "-c", "c.txt", "-r", "r.txt"]
        command += ["-o", "rows.jsonl", "--format", "jsonl", "--summary", "summary.json", "--quiet"]
        command += ["--layer", str(options["layer"]), "--chunk-pairs", str(options["chunk_pairs"])]
    else:
        spec = {"path": path, "pairs": pairs, **{k: v for k, v in options.items() if k != "source"}}
        command = [sys.executable, __file__, "--worker", json.dumps(spec), str(result_path)]
    started = time.monotonic()
    with open(folder / "stderr.txt", "w") as stderr:
        child = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        peak, loads, usage = 0.0, [], None
        try:
            while usage is None:
                peak = max(peak, tree_rss_mib(child.pid))
                loads.append(os.getloadavg()[0])
                time.sleep(POLL_SECONDS)
                finished, status, usage = os.wait4(child.pid, os.WNOHANG)
                usage = usage if finished else None
            child.returncode = os.waitstatus_to_exitcode(status)
        finally:
            if child.returncode is None:
                child.kill()
                child.wait()
    wall = time.monotonic() - started
    if child.returncode != 0:
        tail = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()[-12:]
        return {"path": path, "pairs": pairs, "error": "\n".join(tail), "wall_s": round(wall, 1)}
    if path == "cli":  # the whole command: start, model load, reading, scoring, writing
        rows = (folder / "rows.jsonl").read_text(encoding="utf-8").splitlines()  # JSON: every float32 digit
        f1 = np.array([json.loads(line)["f1"] for line in rows], dtype=np.float32)
        figures = {"score_s": wall, "includes": "the whole command (start, model load, read, score, write)"}
    else:
        figures = json.loads(result_path.read_text())
        f1 = np.load(folder / "f1.npy")
    seconds = figures["score_s"]
    return {
        "path": path,
        "pairs": pairs,
        **{k: v for k, v in options.items() if k not in ("layer", "chunk_pairs", "source")},
        **({"source": options["source"]} if options.get("source") else {}),
        "score_s": round(seconds, 1),
        "s_per_1000": round(1000 * seconds / pairs, 2),
        "wall_s": round(wall, 1),
        "peak_tree_rss_mib": round(max(peak, usage.ru_maxrss / 1024)),
        "peak_process_rss_mib": round(usage.ru_maxrss / 1024),  # the process alone, exact (wait4)
        "load_mean": round(sum(loads) / max(len(loads), 1), 1),
        "f1_sha256": _digest(f1),
        "rows": len(f1),
        "f1": f1,  # kept by run_all for the comparison across paths, not written
        **({"includes": figures["includes"]} if "includes" in figures else {}),
    }


def _digest(values: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(values, dtype=np.float32).tobytes()).hexdigest()[:16]


# ------------------------------------------------------------------------------------- the worker side
def worker(spec: dict, result_path: Path) -> None:
    """Score `spec["pairs"]` pairs along `spec["path"]` in this process; time only the scoring."""
    from texts import wmt16_pairs

    data = wmt16_pairs(spec["pairs"], spread=True)
    settings = {"layer": spec["layer"], "chunk_pairs": spec["chunk_pairs"]}
    if spec["path"] == "score":
        from bertscore_plugins import get_scorer

        scorer = get_scorer(**settings)
        scorer.score(data.candidates[:8], data.references[:8])  # model loaded and warm before timing
        started = time.perf_counter()
        f1 = scorer.score(data.candidates, data.references, progress=False).f1
    elif spec["path"] == "datasets":
        f1, started = _datasets_map(data, settings, spec.get("num_proc", 1))
    elif spec["path"] == "ray":
        f1, started = _ray(data, settings)
    else:
        raise SystemExit(f"unknown path {spec['path']!r}")
    seconds = time.perf_counter() - started
    np.save(result_path.parent / "f1.npy", np.asarray(f1, dtype=np.float32))
    result_path.write_text(json.dumps({"score_s": seconds}))


def _datasets_map(data, settings: dict, num_proc: int):
    import datasets

    from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform

    datasets.disable_progress_bars()
    table = datasets.Dataset.from_dict({"candidate": data.candidates, "reference": data.references})
    transform = BERTScoreTransform(**settings)
    started = time.perf_counter()  # each worker loads the model once, inside the timing (as a user pays it)
    scored = table.map(transform, batched=True, batch_size=1000, num_proc=num_proc if num_proc > 1 else None)
    return np.asarray(scored["bertscore_f1"], dtype=np.float32), started


def _ray(data, settings: dict):
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    from bertscore_plugins.integrations.ray import RayJob, score_ray_dataset

    ray.init(include_dashboard=False, log_to_driver=False)
    cpus = int(ray.cluster_resources()["CPU"])
    # the README's sizing: see README.md's Ray block
    actors = max(1, cpus // 4)
    job = RayJob(actors=actors, cpus_per_actor=1, threads_per_actor=max(1, cpus // actors), batch_size=1000)
    rows = [{"candidate": c, "reference": r} for c, r in zip(data.candidates, data.references, strict=True)]
    ds = ray.data.from_items(rows, override_num_blocks=max(4 * actors, len(rows) // 1000))
    started = time.perf_counter()  # actors start and load the model inside the timing (as a user pays it)
    frame = score_ray_dataset(ds, job=job, **settings).to_pandas()
    f1 = frame["bertscore_f1"].to_numpy(dtype=np.float32)
    ray.shutdown()
    return f1, started


# ----------------------------------------------------------------------------------------- the report
def machine() -> dict:
    from importlib.metadata import version

    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "processor": platform.processor() or platform.machine(),
        "versions": {name: version(name) for name in ("torch", "transformers", "datasets", "ray")},
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO, check=False
        ).stdout.strip(),
    }


def verdicts(runs: list[dict], sizes: list[int]) -> list[dict]:
    """Per path: the peak at the smallest and largest size, and whether the growth is within bounds."""
    found = []
    for path in dict.fromkeys(run["path"] for run in runs):
        peaks = {run["pairs"]: run.get("peak_tree_rss_mib") for run in runs if run["path"] == path}
        small, large = peaks.get(sizes[0]), peaks.get(sizes[-1])
        if small is None or large is None:
            continue
        allowed = max(GROWTH_FRACTION * small, GROWTH_MIB)
        found.append(
            {
                "path": path,
                "peak_small_mib": small,
                "peak_large_mib": large,
                "growth_mib": large - small,
                "allowed_mib": round(allowed),
                "flat": large - small <= allowed,
            }
        )
    return found


#: what a path's seconds include
NOTES = {
    "score": "scoring only (model loaded first)",
    "datasets": "map() only; each worker loads the model inside it",
    "ray": "the job only; Ray's actors start and load the model inside it",
}


#: the paths agree when their F1 columns, row by row in input order, differ by at most this: the core's
#: float32 sums depend on how rows are batched (datasets.map hands over 1,000 rows at a time, Ray its own
#: blocks), which moves the last digits, never a row
SAME_WITHIN = 1e-6


def same_numbers(runs: list[dict]) -> dict[int, bool]:
    """Per size: whether every path that finished gave the same F1 column (input order, within SAME_WITHIN
    of the first path's; `max_abs_diff` on each run says by how much)."""
    return {
        pairs: all(
            run["max_abs_diff"] <= SAME_WITHIN
            for run in runs
            if run["pairs"] == pairs and "max_abs_diff" in run
        )
        for pairs in {run["pairs"] for run in runs}
    }


def markdown(report: dict) -> str:
    lines = [
        f"# {report['title']} ({report['date']})",
        "",
        f"- Machine: {report['machine']['cpus']} CPUs, {report['machine']['memory_gib']} GiB, shared: load "
        f"average (1 min) at start {report['load_start']:.1f}, mean over the runs "
        f"{report['load_mean']:.1f} (timings are noisy; memory is not)",
        f"- Commit {report['machine']['commit']}; model: packaged all-MiniLM-L6-v2, layer {report['layer']}, "
        f"chunk_pairs {report['chunk_pairs']:,}; "
        f"pairs: {report['source']}",
        f"- {report['command']}",
        "",
        "| path | pairs | s / 1,000 rows | peak RSS of the process tree (MiB) | F1 digest | max abs F1 difference from the first path | note |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for run in report["runs"]:
        name = run["path"] + (f" (num_proc={run['num_proc']})" if run.get("num_proc") else "")
        if "error" in run:
            lines.append(f"| {name} | {run['pairs']:,} | - | - | - | - | error: {run['error'][-200:]!r} |")
            continue
        note = run.get("includes") or NOTES.get(run["path"], "")
        lines.append(
            f"| {name} | {run['pairs']:,} | {run['s_per_1000']:.2f} | {run['peak_tree_rss_mib']:,} | "
            f"`{run['f1_sha256']}` | {run.get('max_abs_diff', float('nan')):.1e} | {note} |"
        )
    for pairs, same in report.get("same_numbers", {}).items():
        lines.append(
            f"\nAt {int(pairs):,} pairs every path gave the same F1 column, in input order (within {SAME_WITHIN:g}): {'yes' if same else '**no**'}"
        )
    if report.get("verdicts"):
        lines += [
            "",
            "| path | peak at N | peak at 4N | growth | allowed | flat |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for verdict in report["verdicts"]:
            lines.append(
                f"| {verdict['path']} | {verdict['peak_small_mib']:,} | {verdict['peak_large_mib']:,} | "
                f"{verdict['growth_mib']:+,} | {verdict['allowed_mib']:,} | {'yes' if verdict['flat'] else '**no**'} |"
            )
    return "\n".join(lines) + "\n"


def run_all(paths: list[str], sizes: list[int], settings: dict, num_proc: int, title: str) -> dict:
    from texts import wmt16_pairs

    runs, load_start = [], os.getloadavg()[0]
    reference: dict[int, np.ndarray] = {}
    for pairs in sizes:
        for path in paths:
            options = {**settings, **({"num_proc": num_proc} if path == "datasets" else {})}
            with tempfile.TemporaryDirectory(prefix="memory-scaling-") as folder:
                run = run_path(path, pairs, options, Path(folder))
            if "f1" in run:  # against the first path at this size: same rows, same order, same numbers?
                f1 = run.pop("f1")
                first = reference.setdefault(pairs, f1)
                same_shape = first.shape == f1.shape
                run["max_abs_diff"] = (
                    float(np.max(np.abs(first - f1))) if same_shape and len(f1) else float("inf")
                )
            print(json.dumps(run), flush=True)
            runs.append(run)
    return {
        "title": title,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": "python " + " ".join([str(Path(__file__).relative_to(REPO)), *sys.argv[1:]]),
        "machine": machine(),
        "layer": settings["layer"],
        "chunk_pairs": settings["chunk_pairs"],
        "source": wmt16_pairs(1, spread=True).source + ", language pairs spread evenly",
        "load_start": load_start,
        "load_mean": sum(run.get("load_mean", 0) for run in runs) / max(len(runs), 1),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, metavar=("SPEC", "RESULT"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--paths", default="score,cli,datasets", help="comma-separated: score, cli, datasets, ray"
    )
    parser.add_argument("--sizes", default="5000,20000", help="pair counts, smallest first (N and 4N)")
    parser.add_argument(
        "--layer", type=int, default=4, help="layer of the packaged MiniLM (0: embeddings only)"
    )
    parser.add_argument(
        "--chunk-pairs", type=int, default=8192, help="the core's chunk_pairs (default 8,192: its default)"
    )
    parser.add_argument("--num-proc", type=int, default=2, help="datasets.map's num_proc")
    parser.add_argument(
        "--name", default="memory_scaling", help="results file name under benchmarks/results/"
    )
    parser.add_argument("--source", default=None, help="another revision's source folder to measure instead")
    parser.add_argument("--title", default="Memory at N and 4N pairs", help="the report's heading")
    args = parser.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker[0]), Path(args.worker[1]))
        return 0
    sizes = sorted(int(size) for size in args.sizes.split(","))
    settings = {"layer": args.layer, "chunk_pairs": args.chunk_pairs, "source": args.source}
    report = run_all(args.paths.split(","), sizes, settings, args.num_proc, args.title)
    report["verdicts"] = verdicts(report["runs"], sizes) if len(sizes) > 1 else []
    report["same_numbers"] = same_numbers(report["runs"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(report))
    print(markdown(report))
    return 0 if all(verdict["flat"] for verdict in report["verdicts"]) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Speed and memory of bertscore_plugins against bert_score 0.3.13 and the bare forward pass.

Every contender runs in its own fresh process (so peak RSS is its own), on the same model, layer, texts
and machine, in one invocation; timed runs alternate between contenders round by round and the median
of the rounds is reported. Model loading is timed separately from scoring.

    python benchmarks/speed/speed.py                      # all scenarios, 2,000 WMT16 pairs, 3 rounds
    python benchmarks/speed/speed.py --scenarios cold,fast-cpu-mode --repeats 1 --pairs 500
    python benchmarks/speed/speed.py --quick              # 20 pairs, one round: the smoke test's run
    python benchmarks/speed/speed.py --scenarios cold,cached-references --before d6cce29   # this commit vs that

Scenarios: cold (exact scoring from scratch); cached-references (re-scoring against cached references);
memory-scaling; fast-cpu-mode (int8, bf16); long-text-window (truncate vs window); gpu (skipped without
CUDA). The letters a-f name them in that order and are still accepted.
Writes JSON (--out, default benchmarks/results/speed.json) and a markdown table (same name, .md).
The parts live in benchmarks/speed/speedbench/: plan, run, summary, report.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import random_models
from speedbench.plan import SCENARIOS, Plan, plan_scenarios, scenario_names
from speedbench.report import environment, markdown
from speedbench.run import StopRequested, run_memory_scaling, run_rounds, stop
from speedbench.summary import check_targets, summarize

log = logging.getLogger("speed")
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pairs",
        type=int,
        default=2000,
        help="WMT16 pairs for cold, cached-references, fast-cpu-mode (default 2000)",
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated subset of {', '.join(SCENARIOS)} (the letters a-f still name them in order)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds; the median is reported")
    parser.add_argument(
        "--out", type=Path, default=HERE.parent / "results" / "speed.json", help="JSON report path"
    )
    parser.add_argument("--markdown", type=Path, default=None, help="markdown path (default: --out with .md)")
    parser.add_argument("--quick", action="store_true", help="20 pairs, one round, small sizes (smoke test)")
    parser.add_argument("--model-dir", default=None, help="model directory (default: the packaged MiniLM)")
    parser.add_argument("--layer", type=int, default=4, help="layer for the default model (default 4)")
    parser.add_argument("--memory-sizes", default="2000,8000,32000", help="pair counts for memory-scaling")
    parser.add_argument(
        "--memory-layer",
        type=int,
        default=0,
        help="layer of the 1-layer random BERT scored in memory-scaling (0 = embedding output, "
        "cheapest forward; 1 runs the transformer layer too)",
    )
    parser.add_argument("--rss-cap-mib", type=float, default=12288, help="stop a run whose RSS passes this")
    parser.add_argument("--long-docs", type=int, default=16, help="document pairs in long-text-window")
    parser.add_argument(
        "--long-tokens", type=int, default=2000, help="tokens per document in long-text-window"
    )
    parser.add_argument(
        "--gpu-pairs", type=int, default=None, help="pairs for the gpu scenario (default --pairs)"
    )
    parser.add_argument(
        "--floor-batch-tokens",
        default="4096,8192",
        help="floor token budgets tried on cold (best is used)",
    )
    parser.add_argument("--gpu-floor-batch-tokens", type=int, default=65536, help="GPU floor token budget")
    parser.add_argument(
        "--gpu-models", default="default,large", help="gpu scenario models: default (MiniLM), large (random)"
    )
    parser.add_argument(
        "--no-cpu-bf16",
        dest="cpu_bf16",
        action="store_false",
        help="leave out fast-cpu-mode's bf16-on-CPU contender (measured beside int8 by default)",
    )
    parser.add_argument(
        "--device", default="cpu", help="device for the CPU scenarios (default cpu; gpu uses cuda)"
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run contenders in this process (fast smoke runs; peak RSS then not isolated)",
    )
    parser.add_argument("--work-dir", type=Path, default=None, help="keep models, caches and scores here")
    parser.add_argument(
        "--before",
        metavar="REV",
        default=None,
        help="also run the project as of git revision REV in cold and cached-references, alternating "
        "with this commit in the same rounds; reports this commit's time over REV's",
    )
    args = parser.parse_args(argv)
    if args.before and args.in_process:
        parser.error("--before runs the earlier code in its own processes; leave out --in-process")
    args.before_commit = commit_of(args.before) if args.before else None
    if args.before and args.before_commit is None:
        parser.error(f"--before {args.before}: not a commit of {HERE.parents[1]}")
    if args.quick:
        args.pairs = 20 if args.pairs == 2000 else args.pairs
        args.repeats = 1
        args.memory_sizes = "20,40,80" if args.memory_sizes == "2000,8000,32000" else args.memory_sizes
        args.long_docs, args.long_tokens = 2, 600
    try:
        args.scenarios = scenario_names(args.scenarios)
    except ValueError as error:
        parser.error(str(error))
    args.floor_batch_tokens = [int(budget) for budget in str(args.floor_batch_tokens).split(",")]
    args.gpu_models = [name.strip() for name in args.gpu_models.split(",") if name.strip()]
    args.memory_sizes = sorted(int(size) for size in str(args.memory_sizes).split(","))
    args.model_dir = str(args.model_dir or random_models.default_model_dir())
    args.markdown = args.markdown or args.out.with_suffix(".md")
    return args


def commit_of(revision: str) -> str | None:
    """The full commit id `revision` names in this repository, None when it names none."""
    import subprocess

    found = subprocess.run(
        ["git", "-C", str(HERE.parents[1]), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() if found.returncode == 0 else None


def export_revision(commit: str, folder: Path) -> str:
    """The package as of `commit`, unpacked under `folder`; returns the folder to put on PYTHONPATH."""
    import subprocess
    import tarfile

    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / "package.tar"
    with open(archive, "wb") as out:
        subprocess.run(
            ["git", "-C", str(HERE.parents[1]), "archive", commit, "bertscore_plugins"],
            stdout=out,
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    log.info("--before: commit %s unpacked in %s", commit[:12], folder)
    return str(folder)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, stop)  # a time limit still gets a report of the finished runs
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="bertscore-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    load_start = os.getloadavg()[0]
    try:
        args.before_source = (
            export_revision(args.before_commit, work / "before") if args.before_commit else None
        )
        plan = Plan(default_device=args.device)
        context = plan_scenarios(args, work, plan)
        for key in ("fill_disk_cache", "fill_disk_cache_before"):
            if key in context:
                log.info("filling the disk reference cache for cached-references (%s)", key)
                prepared = harness.run_contender(context[key], timeout_s=3600, in_process=args.in_process)
                if "error" in prepared:
                    log.warning("disk cache preparation failed: %s", prepared["error"])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        loads = run_rounds(
            plan, args.repeats, args.in_process, checkpoint=args.out.with_suffix(".partial.json")
        )
        memory_rows = []
        if "memory-scaling" in args.scenarios and not plan.stopped_early:
            try:
                memory_rows = run_memory_scaling(args, work)
            except StopRequested:
                plan.stopped_early = "stopped during memory-scaling"
        rows, measured = summarize(args, plan, work, memory_rows)
        report = {
            "environment": environment(args),
            "load_average": {
                "start": load_start,
                "during_mean": statistics.mean(loads) if loads else load_start,
                "end": os.getloadavg()[0],
            },
            "rows": rows,
            "measured": measured,
            "targets": check_targets(measured, args.scenarios, before=args.before_source is not None),
        }
        if plan.stopped_early:
            report["stopped_early"] = plan.stopped_early
    finally:
        if args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    table = markdown(report)
    args.markdown.write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

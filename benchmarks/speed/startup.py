"""Start-up cost of the front door: `import bertscore_plugins` and `bertscore-plugins --help`, each in fresh
interpreters, median wall and CPU time (user + system of the child), optionally beside an earlier commit.

    python benchmarks/speed/startup.py                      # this checkout, 10 runs each
    python benchmarks/speed/startup.py --before 9b87d87     # beside that commit, runs alternating

Neither command may load torch or transformers: the package's names are imported on first use, so the
command line refuses a bad flag in a fraction of a second. A shared machine's load shows in the wall time;
the CPU time barely moves with it, so compare CPU medians taken in one run (alternating runs share the
load). Prints a table; --out FILE also writes it as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import commit_of, export_revision

HERE = Path(__file__).resolve().parent
HELP = "import sys; sys.argv = ['bertscore-plugins', '--help']; from bertscore_plugins.cli.main import main; main()"
COMMANDS = {"import bertscore_plugins": "import bertscore_plugins", "bertscore-plugins --help": HELP}


def once(code: str, tree: str, cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh interpreter running `code` with the package of `tree`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": tree},
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{code!r} with {tree} failed:\n{done.stderr.decode()[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def measure(trees: dict[str, str], runs: int, cwd: str) -> list[dict]:
    """Median wall and CPU milliseconds per (command, tree); the trees alternate within each round."""
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(c, t): [] for c in COMMANDS for t in trees}
    for code in COMMANDS.values():  # bytecode written once, outside the measured runs
        for tree in trees.values():
            once(code, tree, cwd)
    for _ in range(runs):
        for command, code in COMMANDS.items():
            for name, tree in trees.items():
                times[(command, name)].append(once(code, tree, cwd))
    return [
        {
            "command": command,
            "tree": name,
            "runs": runs,
            "wall_ms": round(1000 * statistics.median(wall for wall, _ in found), 1),
            "cpu_ms": round(1000 * statistics.median(cpu for _, cpu in found), 1),
        }
        for (command, name), found in times.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh interpreters per command and tree (10)")
    parser.add_argument("--before", metavar="REV", help="also measure the package as of git revision REV")
    parser.add_argument("--out", type=Path, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    with tempfile.TemporaryDirectory(prefix="startup-") as work:
        trees = {"this checkout": str(HERE.parents[1])}
        if args.before:
            commit = commit_of(args.before)
            if commit is None:
                parser.error(f"--before {args.before}: not a commit of {HERE.parents[1]}")
            trees = {f"before ({commit[:7]})": export_revision(commit, Path(work) / "before"), **trees}
        rows = measure(trees, args.runs, work)
    print("| command | tree | wall median (ms) | CPU median (ms) |\n|---|---|---:|---:|")
    for row in rows:
        print(f"| {row['command']} | {row['tree']} | {row['wall_ms']} | {row['cpu_ms']} |")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Running the planned jobs: each in a fresh process, rounds alternating; and the memory-scaling ladder."""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path

import harness
import random_models
from speedbench.plan import Job, Plan, spec
from speedbench.summary import row

log = logging.getLogger("speed")


class StopRequested(BaseException):
    """SIGTERM (e.g. from `timeout`): stop running contenders and report what was measured."""


def stop(signum, frame) -> None:
    """SIGTERM handler: a time limit still gets a report of the finished runs."""
    raise StopRequested(f"signal {signum}")


def run_rounds(
    plan: Plan, rounds: int, in_process: bool = False, checkpoint: Path | None = None
) -> list[float]:
    """Run every job once per round, rotating the order each round; return load averages seen.

    After each run the raw results so far go to `checkpoint` (if given), so a run stopped by a time
    limit still leaves its figures behind.
    """
    jobs = list({id(job): job for job in plan.jobs.values()}.values())  # shared jobs once
    loads = []
    for round_index in range(rounds):
        todo = [job for job in jobs if job.rounds > round_index]
        shift = round_index % max(len(todo), 1)
        for job in todo[shift:] + todo[:shift]:
            loads.append(os.getloadavg()[0])
            log.info("round %d/%d: %s", round_index + 1, rounds, job.name)
            run_spec = dict(job.spec)
            if round_index > 0:
                run_spec.pop("save_scores", None)  # scores are deterministic: keep the first round's
            try:
                result = harness.run_contender(run_spec, timeout_s=3600, in_process=in_process)
            except StopRequested:
                log.warning(
                    "stopped during round %d (%s): reporting what was measured", round_index + 1, job.name
                )
                plan.stopped_early = f"stopped during round {round_index + 1} of {rounds}, at {job.name}"
                return loads
            if "error" in result:
                log.warning("%s failed: %s", job.name, result["error"])
            job.results.append(result)
            if checkpoint is not None:
                raw = {name: {"spec": job.spec, "results": job.results} for name, job in plan.jobs.items()}
                checkpoint.write_text(json.dumps(raw, indent=1, default=str))
    return loads


def run_memory_scaling(args: argparse.Namespace, work: Path) -> list[dict]:
    """Peak RSS at growing pair counts, project and bert_score, one run each; returns table rows."""
    model_dir = str(
        random_models.build_random_model(
            "memory-1x768", work / "memory-1x768", tokenizer_dir=Path(args.model_dir)
        )
    )
    rows = []
    peaks: dict[str, list[tuple[int, float]]] = {"project": [], "bert_score": []}
    for size in args.memory_sizes:
        for contender in ("project", "bert_score"):
            job = Job(
                f"memory-scaling/{contender}@{size}",
                spec(
                    contender,
                    {"kind": "pairs", "pairs": size, "unique": True},
                    model_dir,
                    args.memory_layer,
                    device=args.device,
                ),
                1,
            )
            available = harness.available_memory_mib() or float("inf")
            cap = min(args.rss_cap_mib, 0.7 * available)
            history = peaks[contender]
            if len(history) >= 2:  # linear extrapolation from the last two sizes
                (n1, r1), (n2, r2) = history[-2:]
                predicted = r2 + (r2 - r1) * (size - n2) / max(n2 - n1, 1)
                if predicted > cap:
                    job.results.append(
                        {"error": f"skipped: predicted peak {predicted:.0f} MiB > cap {cap:.0f} MiB"}
                    )
                    rows.append(row("memory-scaling", job, predicted_peak_rss_mib=predicted))
                    continue
            log.info("memory scaling: %s", job.name)
            job.results.append(
                harness.run_contender(job.spec, rss_cap_mib=cap, timeout_s=3600, in_process=args.in_process)
            )
            if job.ok():
                history.append((size, job.first("peak_rss_mib")))
            rows.append(
                row("memory-scaling", job, model=f"random BERT 1 layer x 768 at layer {args.memory_layer}")
            )
    return rows

"""Figures from the finished jobs: median rows, ratios, agreement with exact scores, target checks."""

from __future__ import annotations

import argparse
from pathlib import Path

import texts as bench_texts
from speedbench.plan import BEFORE_TARGETS, TARGETS, Job, Plan, cuda_available, scores_path


def load_scores(path: str):
    """The P/R/F1 arrays a job saved, or None when it saved none (failed or stopped)."""
    import numpy as np

    if not Path(path).is_file():
        return None
    data = np.load(path)
    return {key: data[key] for key in ("precision", "recall", "f1")}


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator in (None, 0):
        return None
    return numerator / denominator


def row(scenario: str, job: Job, **extra) -> dict:
    """One table row: median timings of a job plus scenario-specific figures."""
    score_s = job.median("score_s")
    pairs = job.first("pairs")
    entry = {
        "scenario": scenario,
        "contender": job.name,
        "pairs": pairs,
        "unique_texts": job.first("unique_texts"),
        "tokens": job.first("tokens"),
        "score_s_median": score_s,
        "score_s_runs": [result.get("score_s") for result in job.ok()],
        "pairs_per_s": ratio(pairs, score_s),
        "load_s_median": job.median("load_s"),
        "peak_rss_mib": job.median("peak_rss_mib"),
        "rss_after_load_mib": job.median("rss_after_load_mib"),
    }
    if job.first("gpu_peak_mib") is not None:
        entry["gpu_peak_mib"] = job.median("gpu_peak_mib")
    if job.error():
        entry["error"] = job.error()
        seen = [result.get("seen_peak_rss_mib") or 0 for result in job.results]
        if max(seen, default=0) > 0:  # a stopped run still tells how far its memory had grown
            entry["seen_peak_rss_mib"] = max(seen)
    entry.update(extra)
    return entry


def max_abs_delta(left, right) -> dict | None:
    if left is None or right is None or len(left["f1"]) != len(right["f1"]):
        return None
    import numpy as np

    return {key: float(np.max(np.abs(left[key] - right[key]))) if len(left[key]) else 0.0 for key in left}


def summarize(args: argparse.Namespace, plan: Plan, work: Path, memory_rows: list[dict]) -> tuple[list, dict]:
    """Table rows and measured target figures from the finished jobs, scenario by scenario."""
    rows: list[dict] = []
    measured: dict[str, float | None] = {}
    for scenario, summarize_scenario in SUMMARIES.items():
        if scenario in args.scenarios:
            summarize_scenario(args, plan.jobs, work, memory_rows, rows, measured)
    return rows, measured


def _cold(args, jobs, work, memory_rows, rows, measured) -> None:
    bs, project = jobs["cold/bert_score"], jobs["cold/project"]
    floors = [jobs[f"cold/floor@{budget}"] for budget in args.floor_batch_tokens]
    floor = min(floors, key=lambda job: job.median("score_s") or float("inf"))
    delta = max_abs_delta(
        load_scores(scores_path(work, "cold_project")), load_scores(scores_path(work, "cold_bert_score"))
    )
    speedup = ratio(bs.median("score_s"), project.median("score_s"))
    vs_floor = ratio(project.median("score_s"), floor.median("score_s"))
    rows += [
        row("cold", bs),
        row("cold", project, speedup_vs_bert_score=speedup, time_vs_floor=vs_floor, max_abs_delta=delta),
    ]
    rows += [row("cold", job, floor_used=job is floor) for job in floors]
    if "cold/project@before" in jobs:
        rows.append(
            _before_row("cold", jobs["cold/project@before"], project, work, "cold_before", "cold_project")
        )
        measured["cold_time_vs_before"] = rows[-1]["time_after_vs_before"]
    measured["cold_speedup_vs_bert_score"] = speedup
    measured["cold_time_vs_floor"] = vs_floor
    measured["cold_max_abs_delta"] = max(delta.values()) if delta else None


def _cached_references(args, jobs, work, memory_rows, rows, measured) -> None:
    bs = jobs["cached-references/bert_score"]
    reference = load_scores(scores_path(work, "cached_bert_score"))
    rows.append(row("cached-references", bs))
    for label in ("memory", "disk"):
        job = jobs[f"cached-references/project-{label}-cache"]
        speedup = ratio(bs.median("score_s"), job.median("score_s"))
        rows.append(
            row(
                "cached-references",
                job,
                speedup_vs_bert_score=speedup,
                max_abs_delta=max_abs_delta(load_scores(scores_path(work, f"cached_{label}")), reference),
            )
        )
        measured[f"cached_references_{label}_cache_speedup_vs_bert_score"] = speedup
        before = jobs.get(f"cached-references/project-{label}-cache@before")
        if before is not None:
            rows.append(
                _before_row(
                    "cached-references", before, job, work, f"cached_{label}_before", f"cached_{label}"
                )
            )
            measured[f"cached_references_{label}_cache_time_vs_before"] = rows[-1]["time_after_vs_before"]


def _before_row(
    scenario: str, before: Job, after: Job, work: Path, before_scores: str, after_scores: str
) -> dict:
    """The earlier commit's row: this commit's time over its time, and how far their scores differ."""
    return row(
        scenario,
        before,
        time_after_vs_before=ratio(after.median("score_s"), before.median("score_s")),
        package=before.first("package"),
        max_abs_delta_vs_after=max_abs_delta(
            load_scores(scores_path(work, before_scores)), load_scores(scores_path(work, after_scores))
        ),
    )


def _memory_scaling(args, jobs, work, memory_rows, rows, measured) -> None:
    rows += memory_rows
    for contender in ("project", "bert_score"):
        done = [
            r
            for r in memory_rows
            if r["contender"].startswith(f"memory-scaling/{contender}@") and r["peak_rss_mib"]
        ]
        growth = ratio(done[-1]["peak_rss_mib"], done[0]["peak_rss_mib"]) if len(done) >= 2 else None
        sizes = f"{done[0]['pairs']}->{done[-1]['pairs']}" if len(done) >= 2 else None
        measured[f"memory_scaling_{contender}_rss_growth"] = growth
        measured[f"memory_scaling_{contender}_rss_growth_sizes"] = sizes


def _fast_cpu_mode(args, jobs, work, memory_rows, rows, measured) -> None:
    exact, int8 = jobs["fast-cpu-mode/project-exact"], jobs["fast-cpu-mode/project-int8"]
    exact_scores = load_scores(scores_path(work, "cold_project"))
    agreement = f1_agreement(exact_scores, load_scores(scores_path(work, "fast_int8")), args.pairs)
    speedup = ratio(exact.median("score_s"), int8.median("score_s"))
    rows += [
        row("fast-cpu-mode", exact, **agreement.pop("exact", {})),
        row("fast-cpu-mode", int8, speedup_vs_exact=speedup, **agreement),
    ]
    measured["fast_cpu_mode_int8_speedup_vs_exact"] = speedup
    measured["fast_cpu_mode_int8_spearman_f1"] = agreement.get("spearman_f1_vs_exact")
    measured["fast_cpu_mode_int8_max_abs_delta_f1"] = agreement.get("max_abs_delta_f1_vs_exact")
    if args.cpu_bf16:
        bf16 = jobs["fast-cpu-mode/project-bf16"]
        agreement = f1_agreement(exact_scores, load_scores(scores_path(work, "fast_bf16")), args.pairs)
        agreement.pop("exact", None)
        speedup = ratio(exact.median("score_s"), bf16.median("score_s"))
        rows.append(row("fast-cpu-mode", bf16, speedup_vs_exact=speedup, **agreement))
        measured["fast_cpu_mode_bf16_speedup_vs_exact"] = speedup
        measured["fast_cpu_mode_bf16_spearman_f1"] = agreement.get("spearman_f1_vs_exact")
        measured["fast_cpu_mode_bf16_max_abs_delta_f1"] = agreement.get("max_abs_delta_f1_vs_exact")
    least_spearman = TARGETS["fast-cpu-mode"]["fast_cpu_mode_spearman_f1"][1]
    candidates = [
        mode
        for mode in ("int8", "bf16")
        if measured.get(f"fast_cpu_mode_{mode}_speedup_vs_exact") is not None
        and (measured.get(f"fast_cpu_mode_{mode}_spearman_f1") or 0) >= least_spearman
    ] or ["int8"]
    fast = max(candidates, key=lambda mode: measured.get(f"fast_cpu_mode_{mode}_speedup_vs_exact") or 0)
    measured["fast_cpu_mode"] = fast
    measured["fast_cpu_mode_speedup_vs_exact"] = measured.get(f"fast_cpu_mode_{fast}_speedup_vs_exact")
    measured["fast_cpu_mode_spearman_f1"] = measured.get(f"fast_cpu_mode_{fast}_spearman_f1")


def _long_text_window(args, jobs, work, memory_rows, rows, measured) -> None:
    per_token = {}
    for mode in ("truncate", "window"):
        job = jobs[f"long-text-window/project-{mode}"]
        processed = job.first("tokens_truncated" if mode == "truncate" else "tokens")
        per_token[mode] = ratio(job.median("score_s"), processed)
        rows.append(
            row(
                "long-text-window",
                job,
                tokens_processed=processed,
                ms_per_1k_tokens=per_token[mode] * 1e6 if per_token[mode] else None,
            )
        )
    rows[-1]["cost_per_token_vs_truncate"] = ratio(per_token["window"], per_token["truncate"])
    measured["long_text_window_cost_per_token_vs_truncate"] = rows[-1]["cost_per_token_vs_truncate"]


def _gpu(args, jobs, work, memory_rows, rows, measured) -> None:
    if not cuda_available():
        rows.append({"scenario": "gpu", "contender": "skipped", "note": "CUDA not available"})
        return
    for label in args.gpu_models:
        bs, project = jobs[f"gpu/{label}/bert_score-fp32"], jobs[f"gpu/{label}/project-bf16"]
        floor = jobs[f"gpu/{label}/floor-bf16"]
        speedup = ratio(bs.median("score_s"), project.median("score_s"))
        vs_floor = ratio(project.median("score_s"), floor.median("score_s"))
        rows += [
            row("gpu", bs),
            row("gpu", project, speedup_vs_bert_score=speedup, time_vs_floor=vs_floor),
            row("gpu", floor, batch_tokens=args.gpu_floor_batch_tokens),
        ]
        measured[f"gpu_{label}_speedup_vs_bert_score"] = speedup
        measured[f"gpu_{label}_time_vs_bf16_floor"] = vs_floor
    if "default" in args.gpu_models:
        delta = max_abs_delta(
            load_scores(scores_path(work, "gpu_default_bf16")),
            load_scores(scores_path(work, "gpu_default_fp32")),
        )
        rows.append(row("gpu", jobs["gpu/default/project-fp32"], bf16_vs_fp32_max_abs_delta=delta))
        measured["gpu_bf16_max_abs_delta_f1"] = delta["f1"] if delta else None


#: each scenario's summary, in report order (the keys are plan.SCENARIOS)
SUMMARIES = {
    "cold": _cold,
    "cached-references": _cached_references,
    "memory-scaling": _memory_scaling,
    "fast-cpu-mode": _fast_cpu_mode,
    "long-text-window": _long_text_window,
    "gpu": _gpu,
}


def f1_agreement(exact, approximate, pairs: int) -> dict:
    """Spearman and max |delta| of F1 between exact and approximate scores, plus WMT16 human Pearson."""
    if exact is None or approximate is None:
        return {}
    import numpy as np
    from scipy.stats import pearsonr, spearmanr

    figures = {
        "spearman_f1_vs_exact": float(spearmanr(exact["f1"], approximate["f1"]).statistic),
        "max_abs_delta_f1_vs_exact": float(np.max(np.abs(exact["f1"] - approximate["f1"]))),
    }
    data = bench_texts.wmt16_pairs(pairs)
    if data.human and len(set(data.language_pairs)) > 1:
        human = np.asarray(data.human)
        lps = np.asarray(data.language_pairs)

        def mean_pearson(f1) -> float:
            values = [
                pearsonr(f1[lps == lp], human[lps == lp]).statistic
                for lp in bench_texts.TO_ENGLISH
                if (lps == lp).sum() > 2
            ]
            return float(np.mean(values)) if values else float("nan")

        figures["wmt16_mean_pearson_human"] = mean_pearson(approximate["f1"])
        figures["exact"] = {"wmt16_mean_pearson_human": mean_pearson(exact["f1"])}
    return figures


def check_targets(measured: dict, scenarios: list[str], before: bool = False) -> list[dict]:
    """Each target of the scenarios run, its measured value and whether it passed (None: not measured).

    `before`: also the targets against an earlier commit (`--before`)."""
    checks = []
    for scenario, targets in TARGETS.items():
        if scenario not in scenarios:
            continue
        extra = BEFORE_TARGETS.get(scenario, {}) if before else {}
        for name, (op, goal) in {**targets, **extra}.items():
            value = measured.get(name)
            passed = None if value is None else (value >= goal if op == ">=" else value <= goal)
            checks.append({"target": name, "goal": f"{op} {goal:g}", "measured": value, "pass": passed})
    return checks

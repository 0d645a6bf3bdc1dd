"""Which scenarios and contenders a speed run measures, and the targets it checks them against."""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import random_models

#: scenario name -> what it measures; the names appear in row labels, target names and `--scenarios`
SCENARIOS = {
    "cold": "cold exact scoring, fp32, default model",
    "cached-references": "re-scoring new candidates against the same references",
    "memory-scaling": "peak RSS at growing pair counts",
    "fast-cpu-mode": "int8 and bf16 on CPU against exact scoring",
    "long-text-window": "long documents, truncate vs window",
    "gpu": "GPU bf16 against bert_score fp32 and the bf16 floor",
}
#: the letters used before the names (RESULTS.md's older command lines); still accepted by `--scenarios`
ALIASES = dict(zip("abcdef", SCENARIOS, strict=True))

# Speed and memory targets, checked against the measured figures; each belongs to one scenario.
TARGETS = {
    "cold": {
        "cold_speedup_vs_bert_score": (">=", 1.2),
        "cold_time_vs_floor": ("<=", 1.10),
        "cold_max_abs_delta": ("<=", 1e-5),
    },
    "cached-references": {
        "cached_references_memory_cache_speedup_vs_bert_score": (">=", 1.8),
        "cached_references_disk_cache_speedup_vs_bert_score": (">=", 1.8),
    },
    "memory-scaling": {"memory_scaling_project_rss_growth": ("<=", 1.15)},
    # the fast CPU mode: the faster of int8 and bf16 among those with Spearman >= 0.99 (bf16 needs
    # AMX / AVX512-BF16; int8 runs everywhere); both are reported
    "fast-cpu-mode": {
        "fast_cpu_mode_speedup_vs_exact": (">=", 1.8),
        "fast_cpu_mode_spearman_f1": (">=", 0.99),
    },
    "long-text-window": {"long_text_window_cost_per_token_vs_truncate": ("<=", 1.3)},
    "gpu": {
        "gpu_default_speedup_vs_bert_score": (">=", 5.0),
        "gpu_large_speedup_vs_bert_score": (">=", 5.0),
        "gpu_bf16_max_abs_delta_f1": ("<=", 2e-3),
        "gpu_default_time_vs_bf16_floor": ("<=", 1.25),
        "gpu_large_time_vs_bf16_floor": ("<=", 1.25),
    },
}


#: with `--before REV`: the project at this commit against the project at REV, same run, alternating
BEFORE_TARGETS = {
    "cold": {"cold_time_vs_before": ("<=", 1.03)},
    "cached-references": {
        "cached_references_memory_cache_time_vs_before": ("<=", 1.03),
        "cached_references_disk_cache_time_vs_before": ("<=", 1.03),
    },
}


def scenario_names(text: str) -> list[str]:
    """Scenario names from a comma-separated `--scenarios` value, old letters mapped to names.

    Raises ValueError naming the unknown entries.
    """
    names = [ALIASES.get(name.strip(), name.strip()) for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        raise ValueError(
            f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)} "
            f"(or the letters {', '.join(ALIASES)})"
        )
    return list(dict.fromkeys(names))  # once each, in the order asked


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
        if key in self._by_spec:  # e.g. exact mode in cold and fast-cpu-mode: one job, both rows
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
    """Where a job saves its P/R/F1 arrays for the agreement figures."""
    return str(work / ("scores-" + job_name.replace("/", "_") + ".npz"))


def cuda_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # torch missing or broken: no GPU scenario
        return False


def plan_scenarios(args: argparse.Namespace, work: Path, plan: Plan) -> dict:
    """Add each selected scenario's jobs to `plan`; return what the run needs beyond them.

    Memory scaling has no jobs here: its ladder of sizes depends on the peaks measured (run.py).
    """
    model, layer, rounds = args.model_dir, args.layer, args.repeats
    pairs = {"kind": "pairs", "pairs": args.pairs}
    context: dict = {}
    if "cold" in args.scenarios:
        plan.add(
            "cold/bert_score",
            spec("bert_score", pairs, model, layer, save_scores=scores_path(work, "cold_bert_score")),
            rounds,
        )
        plan.add(
            "cold/project",
            spec("project", pairs, model, layer, save_scores=scores_path(work, "cold_project")),
            rounds,
        )
        for budget in args.floor_batch_tokens:  # the floor is the best of these budgets
            plan.add(f"cold/floor@{budget}", spec("floor", pairs, model, layer, batch_tokens=budget), rounds)
        if args.before_source:
            plan.add(
                "cold/project@before",
                spec(
                    "project",
                    pairs,
                    model,
                    layer,
                    source=args.before_source,
                    save_scores=scores_path(work, "cold_before"),
                ),
                rounds,
            )
    if "cached-references" in args.scenarios:
        rescoring = {"kind": "rescoring", "pairs": args.pairs}
        cache_dir = str(work / "reference-cache")
        context["fill_disk_cache"] = spec(
            "project", rescoring, model, layer, cache="disk", cache_dir=cache_dir, prepare_only=True
        )
        plan.add(
            "cached-references/bert_score",
            spec("bert_score", rescoring, model, layer, save_scores=scores_path(work, "cached_bert_score")),
            rounds,
        )
        plan.add(
            "cached-references/project-memory-cache",
            spec(
                "project",
                rescoring,
                model,
                layer,
                cache="memory",
                save_scores=scores_path(work, "cached_memory"),
            ),
            rounds,
        )
        plan.add(
            "cached-references/project-disk-cache",
            spec(
                "project",
                rescoring,
                model,
                layer,
                cache="disk",
                cache_dir=cache_dir,
                save_scores=scores_path(work, "cached_disk"),
            ),
            rounds,
        )
        if args.before_source:  # the earlier code fills (and reads) a cache folder of its own
            before_cache = str(work / "reference-cache-before")
            before = {"source": args.before_source}
            context["fill_disk_cache_before"] = spec(
                "project",
                rescoring,
                model,
                layer,
                cache="disk",
                cache_dir=before_cache,
                prepare_only=True,
                **before,
            )
            for label, cache in (
                ("memory", {"cache": "memory"}),
                ("disk", {"cache": "disk", "cache_dir": before_cache}),
            ):
                plan.add(
                    f"cached-references/project-{label}-cache@before",
                    spec(
                        "project",
                        rescoring,
                        model,
                        layer,
                        save_scores=scores_path(work, f"cached_{label}_before"),
                        **cache,
                        **before,
                    ),
                    rounds,
                )
    if "fast-cpu-mode" in args.scenarios:
        plan.add(  # the same spec as cold/project: shared when both scenarios run
            "fast-cpu-mode/project-exact",
            spec("project", pairs, model, layer, save_scores=scores_path(work, "cold_project")),
            rounds,
        )
        plan.add(
            "fast-cpu-mode/project-int8",
            spec(
                "project",
                pairs,
                model,
                layer,
                config={"quantize": "int8"},
                save_scores=scores_path(work, "fast_int8"),
            ),
            rounds,
        )
        if args.cpu_bf16:  # the other fast CPU candidate: bf16 matmuls (AMX / AVX512-BF16 CPUs)
            plan.add(
                "fast-cpu-mode/project-bf16",
                spec(
                    "project",
                    pairs,
                    model,
                    layer,
                    dtype="bfloat16",
                    save_scores=scores_path(work, "fast_bf16"),
                ),
                rounds,
            )
    if "long-text-window" in args.scenarios:
        long_texts = {"kind": "long", "count": args.long_docs, "tokens": args.long_tokens}
        for mode in ("truncate", "window"):
            plan.add(
                f"long-text-window/project-{mode}",
                spec("project", long_texts, model, layer, config={"long_text": mode}),
                rounds,
            )
    if "gpu" in args.scenarios and cuda_available():
        plan_gpu(args, work, plan)
    return context


def plan_gpu(args: argparse.Namespace, work: Path, plan: Plan) -> None:
    """The GPU scenario's jobs: per model bert_score fp32, project bf16 and the bf16 floor."""
    model, layer, rounds = args.model_dir, args.layer, args.repeats
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
            f"gpu/{label}/bert_score-fp32",
            spec("bert_score", gpu_pairs, model_dir, model_layer, **gpu),
            rounds,
        )
        plan.add(
            f"gpu/{label}/project-bf16",
            spec(
                "project",
                gpu_pairs,
                model_dir,
                model_layer,
                dtype="bfloat16",
                save_scores=scores_path(work, f"gpu_{label}_bf16"),
                **gpu,
            ),
            rounds,
        )
        plan.add(
            f"gpu/{label}/floor-bf16",
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
            "gpu/default/project-fp32",
            spec(
                "project",
                gpu_pairs,
                model,
                layer,
                device="cuda",
                save_scores=scores_path(work, "gpu_default_fp32"),
            ),
            1,
        )

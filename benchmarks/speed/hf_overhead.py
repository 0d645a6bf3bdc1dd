"""Overhead of the Hugging Face adapters over one core call (the adapters must cost little over the core).

Scores the same WMT16 pairs (default 2,000, the to-English language pairs in file order) three ways, with
the model already loaded:

- core: one `get_scorer(config).score(candidates, references)` call;
- datasets: `ds.map(BERTScoreTransform(), batched=True, batch_size=256)` on a disk-backed dataset (cache
  file written, cache lookup off so it really scores);
- evaluate: `evaluate.load(<metric card>).compute(predictions=..., references=...)` (evaluate's Arrow
  round trip included; the one-off `evaluate.load` is timed separately).

Each is repeated (`--repeats`, interleaved) and the minimum and median are reported, for wall-clock time
and for this process's CPU time (all its threads). On a shared machine the CPU-time ratio is the fairer
measure of overhead: other people's jobs stretch wall time at random. Targets: datasets <= 1.15x core,
evaluate <= 1.10x core. Prints JSON, then a markdown table row.

    python benchmarks/speed/hf_overhead.py [--pairs 2000] [--repeats 3] [--device cpu] [--out result.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import datasets
import evaluate
import numpy as np
import torch

from bertscore_plugins import ScoreConfig, get_scorer
from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
from bertscore_plugins.integrations.hf_evaluate import metric_card_path

REPO = Path(__file__).resolve().parents[2]
TO_ENGLISH = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")
TARGETS = {"datasets_map": 1.15, "evaluate": 1.10}


def read_pairs(limit: int) -> tuple[list[str], list[str]]:
    folder = Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))
    path = folder / "wmt16_daseg" / "wmt16_daseg_joined.tsv"
    if not path.is_file():
        raise SystemExit(f"WMT16 data not found at {path} (set BERTSCORE_EVAL_DATA)")
    candidates, references = [], []
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["lp"] in TO_ENGLISH and len(candidates) < limit:
                candidates.append(row["mt"])
                references.append(row["reference"])
    return candidates, references


def timed(function) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - started, time.process_time() - cpu_started, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=256, help="ds.map batch size")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default=None, help="cpu, cuda, ... (default: the core's choice)")
    parser.add_argument("--model", default="default", help="model setting (hub id or local folder)")
    parser.add_argument("--layer", type=int, default=None)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)

    datasets.disable_progress_bars()
    candidates, references = read_pairs(args.pairs)
    config = ScoreConfig(model=args.model, layer=args.layer, device=args.device)
    scorer = get_scorer(config)
    scorer.score(candidates[:64], references[:64])  # load the model and warm the kernels

    with tempfile.TemporaryDirectory() as workdir:
        Dataset = datasets.Dataset
        Dataset.from_dict({"candidate": candidates, "reference": references}).save_to_disk(f"{workdir}/pairs")
        disk_dataset = datasets.load_from_disk(f"{workdir}/pairs")
        transform = BERTScoreTransform(config=config)
        load_seconds, _, module = timed(
            lambda: evaluate.load(
                metric_card_path(),
                model=args.model,
                layer=args.layer,
                device=args.device,
                cache_dir=f"{workdir}/metrics",
            )
        )

        runs = {
            "core": lambda: scorer.score(candidates, references).f1,
            "datasets_map": lambda: np.asarray(
                disk_dataset.map(
                    transform, batched=True, batch_size=args.batch_size, load_from_cache_file=False
                )["bertscore_f1"]
            ),
            "evaluate": lambda: np.asarray(
                module.compute(predictions=candidates, references=references)["f1"]
            ),
        }
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        cpu_seconds: dict[str, list[float]] = {name: [] for name in runs}
        outputs: dict[str, np.ndarray] = {}
        for _ in range(args.repeats):
            for name, run in runs.items():
                elapsed, cpu, outputs[name] = timed(run)
                seconds[name].append(elapsed)
                cpu_seconds[name].append(cpu)

    def summary(values: dict[str, list[float]]) -> dict:
        best = {name: min(times) for name, times in values.items()}
        median = {name: statistics.median(times) for name, times in values.items()}
        return {
            "min": {name: round(value, 3) for name, value in best.items()},
            "median": {name: round(value, 3) for name, value in median.items()},
            "all": {name: [round(v, 3) for v in times] for name, times in values.items()},
            "ratio_to_core_min": {name: round(best[name] / best["core"], 3) for name in TARGETS},
            "ratio_to_core_median": {name: round(median[name] / median["core"], 3) for name in TARGETS},
        }

    wall, cpu = summary(seconds), summary(cpu_seconds)
    ratios = cpu["ratio_to_core_min"]
    result = {
        "pairs": len(candidates),
        "map_batch_size": args.batch_size,
        "repeats": args.repeats,
        "device": str(scorer.config.device or ("cuda" if torch.cuda.is_available() else "cpu")),
        "torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "signature": scorer.signature,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "evaluate_load_seconds": round(load_seconds, 3),
        "targets": TARGETS,
        "within_target_cpu_min": {name: ratios[name] <= TARGETS[name] for name in TARGETS},
        "within_target_wall_min": {
            name: wall["ratio_to_core_min"][name] <= TARGETS[name] for name in TARGETS
        },
        "max_abs_difference_to_core": {
            name: float(np.max(np.abs(outputs[name] - outputs["core"]))) for name in TARGETS
        },
    }
    text = json.dumps(result, indent=2)
    print(text)
    print()
    print(
        f"| pairs | device | time (min of {args.repeats}) | core s | ds.map (batch {args.batch_size}) s | ratio "
        "| evaluate s | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, table in (("CPU", cpu), ("wall", wall)):
        best, ratio = table["min"], table["ratio_to_core_min"]
        print(
            f"| {result['pairs']} | {result['device']} ({result['torch_threads']} threads) | {label} "
            f"| {best['core']:.2f} | {best['datasets_map']:.2f} | {ratio['datasets_map']:.3f} "
            f"| {best['evaluate']:.2f} | {ratio['evaluate']:.3f} |"
        )
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

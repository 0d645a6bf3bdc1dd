"""Choose a preset's default layer on WMT16, the way bert_score's tune_layers chose its table.

    python benchmarks/quality/preset_layers.py --core-layers 0-12       # full sweep; writes results/preset_layers.json
    python benchmarks/quality/preset_layers.py --limit 40 --out /tmp/x.json   # a quick partial run

On a busy 2-core CPU one full-data pass of the preset takes ~20 min per layer set, so the committed
results were made as separate runs, merged (per-row F1 kept with --keep-rows, then --merge):
    ... --core-layers 7 --bert-score-top -1 --keep-rows --out /tmp/core.json
    ... --core-layers none --bert-score-top 7 --bert-score-only-top --keep-rows --out /tmp/bs.json
    ... --limit 34 --core-layers none --bert-score-top -1 --speed-pairs 200 --keep-rows --out /tmp/speed.json
    ... --merge /tmp/speed.rows.json /tmp/core.rows.json /tmp/bs.rows.json   # -> results/preset_layers.json
    ... --limit 100 --core-layers 7 --bert-score-top 12 --out results/preset_layers_first100.json

Protocol (bert_score `tune_layers/`): WMT16 segment-level DA, the six to-English pairs, Pearson of
BERTScore F1 (no idf, no rescaling) with the human z-scores, averaged over the pairs.

Two sources, same weights (the preset's assembled folder), same rows:
- bert_score 0.3.13 with `all_layers=True` (one pass gives every layer 0..N, as tune_layers does);
- the project's core, `get_scorer(ScoreConfig(model=<preset>, layer=L))`, for `--core-layers`.
The project's figure for the default layer must equal bert_score's within 1e-4 (the quality preset's parity check).
Results are written after every step, so a stopped run keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import pearsonr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality_data import EvalDataMissing, PairSet, eval_data_dir, load_wmt16

HERE = Path(__file__).resolve().parent
PARITY_TOLERANCE = 1e-4
#: the published preset figures (bert_score 0.3.13, same weights, all 560 rows per pair)
ISSUE_FIGURES = {5: 0.6967, 6: 0.7152, 7: 0.7166, 8: 0.7099, 12: 0.6445}


def _layers(text: str) -> list[int]:
    if text in ("", "none"):
        return []
    if "-" in text and "," not in text:
        first, last = (int(x) for x in text.split("-"))
        return list(range(first, last + 1))
    return [int(x) for x in text.split(",")]


def _mean_pearson(
    f1_by_pair: dict[str, np.ndarray], sets: dict[str, PairSet]
) -> tuple[float, dict[str, float]]:
    per_pair = {pair: float(pearsonr(f1, sets[pair].human)[0]) for pair, f1 in f1_by_pair.items()}
    return float(np.mean(list(per_pair.values()))), per_pair


def bert_score_sweep(
    folder: Path, sets: dict[str, PairSet], top: int, only_top: bool = False
) -> dict[str, Any]:
    """Every layer 0..top from one bert_score pass per language pair (all_layers=True).

    With `only_top`, just layer `top`, from bert_score's truncated model (cheaper on a CPU).
    """
    import bert_score

    start = time.perf_counter()
    scorer = bert_score.BERTScorer(
        model_type=str(folder), num_layers=top, all_layers=not only_top, batch_size=64
    )
    f1_rows: dict[str, np.ndarray] = {}
    for pair, pairs in sets.items():
        _, _, f1 = scorer.score(pairs.first, pairs.second)
        rows = f1.numpy()
        if only_top:  # keep row indices = layers, so the comparison code stays one path
            rows = np.concatenate([np.full((top, rows.shape[0]), np.nan, dtype=rows.dtype), rows[None, :]])
        f1_rows[pair] = rows  # (top + 1, N)
    out: dict[str, Any] = {"mean": {}, "per_pair": {}, "seconds": round(time.perf_counter() - start, 1)}
    for layer in [top] if only_top else range(top + 1):
        mean, per_pair = _mean_pearson({pair: rows[layer] for pair, rows in f1_rows.items()}, sets)
        out["mean"][str(layer)] = round(mean, 6)
        out["per_pair"][str(layer)] = {pair: round(value, 6) for pair, value in per_pair.items()}
    out["f1"] = {pair: rows.tolist() for pair, rows in f1_rows.items()}  # kept for the per-row comparison
    return out


def core_layer(preset: str, layer: int, sets: dict[str, PairSet]) -> dict[str, Any]:
    """One layer through the project's core."""
    from bertscore_plugins import ScoreConfig, get_scorer

    start = time.perf_counter()
    scorer = get_scorer(ScoreConfig(model=preset, layer=layer))
    f1 = {pair: scorer.score(pairs.first, pairs.second).f1.astype(np.float64) for pair, pairs in sets.items()}
    mean, per_pair = _mean_pearson(f1, sets)
    return {
        "mean": round(mean, 6),
        "per_pair": {pair: round(v, 6) for pair, v in per_pair.items()},
        "seconds": round(time.perf_counter() - start, 1),
        "signature": scorer.signature,
        "f1": {pair: values.tolist() for pair, values in f1.items()},
    }


def cpu_speed(preset: str, layer: int, sets: dict[str, PairSet], pairs: int) -> dict[str, Any]:
    """Pairs per second (wall) and per CPU-second (all threads) for the default model and the preset.

    CPU-seconds are reported beside wall time because on a shared machine wall time mostly measures the
    other processes; both models run on the same rows in the same process, after a warm-up call.
    """
    from bertscore_plugins import ScoreConfig, get_scorer

    candidates = [c for s in sets.values() for c in s.first][:pairs]
    references = [r for s in sets.values() for r in s.second][:pairs]
    out: dict[str, Any] = {"pairs": len(candidates)}
    for name, config in (("default", ScoreConfig()), (preset, ScoreConfig(model=preset, layer=layer))):
        scorer = get_scorer(config)
        scorer.score(["warm up"], ["warm up"])
        wall, cpu = time.perf_counter(), time.process_time()
        scorer.score(candidates, references)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        out[name] = {
            "layer": scorer.layer,
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "pairs_per_s": round(len(candidates) / wall, 2),
            "pairs_per_cpu_s": round(len(candidates) / cpu, 2),
        }
    out["preset_cpu_cost_vs_default"] = round(out[preset]["cpu_s"] / out["default"]["cpu_s"], 2)
    return out


def summarise(results: dict[str, Any]) -> dict[str, Any]:
    """Best layer, and core vs bert_score differences (mean Pearson and per row)."""
    summary: dict[str, Any] = {}
    reference = results.get("bert_score")
    core = results.get("core", {})
    if reference:
        means = {int(k): v for k, v in reference["mean"].items()}
        best = max(means, key=means.get)
        summary["best_layer_bert_score"] = {"layer": best, "mean_pearson": means[best]}
    if core:
        means = {int(k): v["mean"] for k, v in core.items()}
        best = max(means, key=means.get)
        summary["best_layer_core"] = {"layer": best, "mean_pearson": means[best]}
    if reference and core:
        parity = {}
        for layer, measured in core.items():
            if layer not in reference["mean"]:
                continue
            row_diff = max(
                float(
                    np.max(
                        np.abs(
                            np.asarray(measured["f1"][pair]) - np.asarray(reference["f1"][pair][int(layer)])
                        )
                    )
                )
                for pair in measured["f1"]
            )
            pearson_diff = abs(measured["mean"] - reference["mean"][layer])
            parity[layer] = {
                "core": measured["mean"],
                "bert_score": reference["mean"][layer],
                "abs_diff_mean_pearson": pearson_diff,
                "max_abs_diff_f1_per_row": row_diff,
                "within_tolerance": pearson_diff < PARITY_TOLERANCE,
            }
        summary["parity"] = parity
    return summary


def _write(path: Path, results: dict[str, Any], keep_rows: bool = False) -> None:
    results["summary"] = summarise(results)
    if keep_rows:  # the per-row F1 goes to a side file (for --merge); the results file holds figures only
        path.with_suffix(".rows.json").write_text(json.dumps(results))
    slim = json.loads(json.dumps(results))  # drop the per-row F1 lists from the file: figures only
    for section in [slim.get("bert_score"), *list(slim.get("core", {}).values())]:
        if section:
            section.pop("f1", None)
    path.write_text(json.dumps(slim, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="quality")
    parser.add_argument("--core-layers", default="7", help="e.g. 7, 5,6,7,8,12 or 0-12 (default 7)")
    parser.add_argument("--bert-score-top", type=int, default=12, help="bert_score sweep 0..N; -1 = skip")
    parser.add_argument(
        "--bert-score-only-top",
        action="store_true",
        help="bert_score for layer --bert-score-top only (truncated model, no sweep)",
    )
    parser.add_argument("--limit", type=int, default=None, help="rows per language pair (partial run)")
    parser.add_argument(
        "--speed-pairs",
        type=int,
        default=0,
        help="also time the default model vs the preset on this many pairs (CPU and wall)",
    )
    parser.add_argument("--out", type=Path, default=HERE.parent / "results" / "preset_layers.json")
    parser.add_argument(
        "--keep-rows",
        action="store_true",
        help="also write per-row F1 to OUT.rows.json, so separate runs can be merged",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        default=None,
        help="combine the .rows.json side files of separate runs (e.g. core and bert_score) into --out",
    )
    args = parser.parse_args(argv)
    if args.merge:
        merged: dict[str, Any] = {}
        for path in args.merge:
            part = json.loads(path.read_text())
            core = {**merged.get("core", {}), **part.get("core", {})}
            merged = {**merged, **{k: v for k, v in part.items() if v is not None}, "core": core}
        _write(args.out, merged)
        print(json.dumps(merged["summary"], indent=1))
        return 0

    try:
        sets = load_wmt16(eval_data_dir(), args.limit)
    except EvalDataMissing as error:
        print(f"skipped: {error}")
        return 0
    from bertscore_plugins.models import presets

    info = presets.resolve_preset(args.preset)
    import bert_score
    import torch
    import transformers

    results: dict[str, Any] = {
        "preset": args.preset,
        "identity": info.identity,
        "folder": str(info.path),
        "protocol": "WMT16 DAseg, 6 to-English pairs, Pearson(F1, human z), mean over pairs; no idf, no rescaling",
        "rows_per_pair": {pair: len(s) for pair, s in sets.items()},
        "partial": args.limit is not None,
        "issue_figures_bert_score": {str(k): v for k, v in ISSUE_FIGURES.items()},
        "versions": {
            "bert_score": "0.3.13" if bert_score.__version__ == "0.3.12" else bert_score.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
        "torch_threads": torch.get_num_threads(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "core": {},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    warnings.filterwarnings("ignore")
    for layer in _layers(args.core_layers):
        results["core"][str(layer)] = core_layer(args.preset, layer, sets)
        print(
            f"core L{layer}: {results['core'][str(layer)]['mean']:.4f} ({results['core'][str(layer)]['seconds']} s)",
            flush=True,
        )
        _write(args.out, results, args.keep_rows)
    if args.speed_pairs:
        results["speed"] = cpu_speed(args.preset, info.default_layer, sets, args.speed_pairs)
        print("speed:", results["speed"], flush=True)
        _write(args.out, results, args.keep_rows)
    if args.bert_score_top >= 0:
        results["bert_score"] = bert_score_sweep(
            info.path, sets, args.bert_score_top, args.bert_score_only_top
        )
        print(
            "bert_score:",
            {k: round(v, 4) for k, v in results["bert_score"]["mean"].items()},
            f"({results['bert_score']['seconds']} s)",
            flush=True,
        )
    results["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    _write(args.out, results, args.keep_rows)
    print(json.dumps(results["summary"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

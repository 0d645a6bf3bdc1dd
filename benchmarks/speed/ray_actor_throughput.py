"""Single-actor throughput for recipes/RAY.md: the work one BERTScoreRayUDF actor does, timed.

One actor calls `get_scorer(config).score(candidates, references)` on consecutive batches, so this times
exactly that (no Ray needed) after a warm-up batch. Pairs: WMT16 DAseg + STS-B train from the eval data
(BERTSCORE_EVAL_DATA), or a TSV given with --pairs.

    python benchmarks/speed/ray_actor_throughput.py --device cuda --rows 256 1024 4096
    python benchmarks/speed/ray_actor_throughput.py --device cpu --rows 256 --limit 500 --threads 1

--random-weights builds the default model's architecture with random weights from its config and
tokenizer files (throughput does not depend on weight values), for machines where only a few MB can
be copied.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def load_pairs(pairs_tsv: str | None, limit: int | None) -> tuple[list[str], list[str]]:
    pairs: list[tuple[str, str]] = []
    if pairs_tsv:
        with open(pairs_tsv, encoding="utf-8") as handle:
            pairs = [tuple(line.rstrip("\n").split("\t")[:2]) for line in handle]
    else:
        data = Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))
        with open(data / "wmt16_daseg" / "wmt16_daseg_joined.tsv", newline="", encoding="utf-8") as handle:
            pairs += [(row["mt"], row["reference"]) for row in csv.DictReader(handle, delimiter="\t")]
        with open(data / "stsbenchmark" / "sts-train.csv", encoding="utf-8") as handle:
            pairs += [(p[5], p[6]) for p in (line.rstrip("\n").split("\t") for line in handle) if len(p) >= 7]
    pairs = pairs[:limit] if limit else pairs
    return [c for c, _ in pairs], [r for _, r in pairs]


def random_weights_model(source: str) -> str:
    from transformers import BertConfig, BertModel

    folder = tempfile.mkdtemp(prefix="minilm_random_")
    for name in (
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
        "special_tokens_map.json",
    ):
        shutil.copy(Path(source) / name, folder)
    torch.manual_seed(0)
    BertModel(BertConfig.from_json_file(Path(folder) / "config.json")).save_pretrained(folder)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rows", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--pairs", default=None, help="TSV of candidate<TAB>reference")
    parser.add_argument("--model", default="default")
    parser.add_argument(
        "--random-weights", default=None, help="folder with the model's config/tokenizer files"
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    from bertscore_plugins import ScoreConfig, get_scorer

    model = random_weights_model(args.random_weights) if args.random_weights else args.model
    candidates, references = load_pairs(args.pairs, args.limit)
    settings = {"model": model, "layer": 4, "device": args.device, "dtype": args.dtype}
    if args.batch_tokens:
        settings["batch_tokens"] = args.batch_tokens
    scorer = get_scorer(ScoreConfig(**settings))
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    for rows in args.rows:
        scorer.score(candidates[:rows], references[:rows])  # warm-up: model load, kernels
        sync()
        start = time.perf_counter()
        for begin in range(0, len(candidates), rows):
            scorer.score(candidates[begin : begin + rows], references[begin : begin + rows])
        sync()
        seconds = time.perf_counter() - start
        print(
            json.dumps(
                {
                    "device": args.device,
                    "rows_per_batch": rows,
                    "dtype": args.dtype,
                    "threads": torch.get_num_threads(),
                    "pairs": len(candidates),
                    "seconds": round(seconds, 3),
                    "pairs_per_s": round(len(candidates) / seconds, 1),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

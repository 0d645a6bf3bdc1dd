"""Values for the metric card's "Values measured on public data" table (default configuration).

STS-B dev: Spearman and Pearson of F1(sentence1, sentence2) with the gold similarity (1,500 pairs).
WMT16 DAseg: Pearson of F1(mt, reference) with the human z-score, mean over the 6 to-English pairs
(560 segments each), the protocol bert_score used to pick its default layers.

    python benchmarks/quality/metric_card_values.py [--layer 4] [--idf] [--rescale] [--out values.json]

Reads BERTSCORE_EVAL_DATA (default ../shared/eval-data next to the repo root); exits 0 with a message
when the data is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from bertscore_plugins import ScoreConfig, get_scorer

REPO = Path(__file__).resolve().parents[2]
TO_ENGLISH = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")


def eval_data() -> Path:
    return Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))


def read_stsb_dev(folder: Path) -> tuple[list[str], list[str], np.ndarray]:
    first, second, gold = [], [], []
    with open(folder / "stsbenchmark" / "sts-dev.csv", encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            gold.append(float(row[4]))
            first.append(row[5])
            second.append(row[6])
    return first, second, np.asarray(gold)


def read_wmt16(folder: Path) -> dict[str, tuple[list[str], list[str], np.ndarray]]:
    pairs: dict[str, tuple[list[str], list[str], list[float]]] = {}
    with open(folder / "wmt16_daseg" / "wmt16_daseg_joined.tsv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["lp"] in TO_ENGLISH:
                mt, ref, human = pairs.setdefault(row["lp"], ([], [], []))
                mt.append(row["mt"])
                ref.append(row["reference"])
                human.append(float(row["human_z"]))
    return {lp: (mt, ref, np.asarray(human)) for lp, (mt, ref, human) in sorted(pairs.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layer", type=int, default=None)
    parser.add_argument("--idf", action="store_true", help="idf fitted on each call's references")
    parser.add_argument("--rescale", action="store_true")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)

    folder = eval_data()
    if not (folder / "stsbenchmark").is_dir() or not (folder / "wmt16_daseg").is_dir():
        print(f"eval data not found under {folder} (set BERTSCORE_EVAL_DATA); nothing measured")
        return 0
    scorer = get_scorer(ScoreConfig(layer=args.layer, idf=args.idf, rescale=args.rescale))
    started = time.perf_counter()

    first, second, gold = read_stsb_dev(folder)
    f1 = scorer.score(first, second).f1
    results: dict = {
        "signature": scorer.signature,
        "stsb_dev": {
            "pairs": len(gold),
            "spearman_f1": round(float(spearmanr(f1, gold).statistic), 4),
            "pearson_f1": round(float(pearsonr(f1, gold).statistic), 4),
            # where scores fall: pairs rated unrelated (gold < 1) vs equivalent or nearly (gold >= 4)
            "f1_quartiles_gold_below_1": [
                round(float(q), 3) for q in np.percentile(f1[gold < 1], [25, 50, 75])
            ],
            "f1_quartiles_gold_4_or_more": [
                round(float(q), 3) for q in np.percentile(f1[gold >= 4], [25, 50, 75])
            ],
        },
    }
    per_pair = {}
    for lp, (mt, ref, human) in read_wmt16(folder).items():  # idf=True: fitted per language pair
        per_pair[lp] = round(float(pearsonr(scorer.score(mt, ref).f1, human).statistic), 4)
    results["wmt16_daseg_to_english"] = {
        "segments_per_pair": 560,
        "pearson_f1": per_pair,
        "mean_pearson_f1": round(float(np.mean(list(per_pair.values()))), 4),
    }
    results["seconds"] = round(time.perf_counter() - started, 1)
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

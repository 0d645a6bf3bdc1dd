"""The recipe's scatter: similarity vs faithfulness per row, with both thresholds and the two
disagreement quadrants shaded, saved as a PNG (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bertscore_plugins.cli.disagreement.folder import write_run_file
from bertscore_plugins.evaluation.names import OFFLINE_FAITHFULNESS

QUADRANT_COLOURS = {
    "agree": "#4c72b0",
    "high_sim_unfaithful": "#c44e52",
    "low_sim_faithful": "#dd8452",
    "not scored": "#999999",
}
OFFLINE = OFFLINE_FAITHFULNESS


def plot_scatter(
    rows: list[Any],
    thresholds: dict[str, float],
    path: Path,
    *,
    faithfulness_name: str,
    binary_faithfulness: bool,
) -> Path:
    """Save the similarity-vs-faithfulness scatter with threshold lines and shaded disagreement quadrants."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    t_sim, t_faith = thresholds["similarity"], thresholds["faithfulness"]
    scored = [r for r in rows if r.similarity is not None and r.faithfulness is not None]
    sims = [r.similarity for r in scored]
    x_low = min([*sims, t_sim]) - 0.03
    x_high = max([*sims, t_sim, 1.0]) + 0.01
    faiths = [r.faithfulness for r in scored]
    y_low, y_high = (
        (-0.15, 1.15)
        if binary_faithfulness
        else (min([*faiths, t_faith]) - 0.03, max([*faiths, t_faith, 1.0]) + 0.01)
    )
    # A judge answers 0 or 1: spread the points vertically a little (seeded) so overlaps stay visible.
    jitter = (
        np.random.default_rng(0).uniform(-0.07, 0.07, len(scored))
        if binary_faithfulness
        else np.zeros(len(scored))
    )

    fig, ax = plt.subplots(figsize=(8, 6), dpi=110)
    ax.axvspan(
        t_sim,
        x_high,
        ymin=0,
        ymax=(t_faith - y_low) / (y_high - y_low),
        color=QUADRANT_COLOURS["high_sim_unfaithful"],
        alpha=0.08,
    )
    ax.axvspan(
        x_low,
        t_sim,
        ymin=(t_faith - y_low) / (y_high - y_low),
        ymax=1,
        color=QUADRANT_COLOURS["low_sim_faithful"],
        alpha=0.08,
    )
    ax.axvline(t_sim, color="#333333", linestyle="--", linewidth=1)
    ax.axhline(t_faith, color="#333333", linestyle="--", linewidth=1)
    counts: dict[str, int] = {}
    for label, colour in QUADRANT_COLOURS.items():
        idx = [i for i, r in enumerate(scored) if r.label == label]
        counts[label] = len(idx)
        if idx:
            ax.scatter(
                [sims[i] for i in idx],
                [faiths[i] + jitter[i] for i in idx],
                s=36,
                color=colour,
                edgecolor="white",
                linewidth=0.6,
                label=f"{label} ({len(idx)})",
                zorder=3,
            )
    ax.text(
        x_high,
        y_low,
        "high similarity, unfaithful ",
        ha="right",
        va="bottom",
        fontsize=9,
        color=QUADRANT_COLOURS["high_sim_unfaithful"],
    )
    ax.text(
        x_low,
        y_high,
        " low similarity, faithful",
        ha="left",
        va="top",
        fontsize=9,
        color=QUADRANT_COLOURS["low_sim_faithful"],
    )
    ax.text(t_sim, y_high, f" similarity threshold {t_sim:.3f}", ha="left", va="top", fontsize=8, rotation=90)
    ax.text(
        x_low, t_faith, f" {faithfulness_name} threshold {t_faith:.3f}", ha="left", va="bottom", fontsize=8
    )
    ax.set_xlim(x_low, x_high)
    ax.set_ylim(y_low, y_high)
    ax.set_xlabel("similarity to the reference (BERTScore F1)")
    ax.set_ylabel(
        f"{faithfulness_name} (judge: 1 = faithful, 0 = unfaithful)"
        if binary_faithfulness
        else f"{faithfulness_name} (offline faithfulness)"
        if faithfulness_name == OFFLINE
        else f"{faithfulness_name} (BERTScore precision against the context)"
    )
    ax.set_title(f"Similarity vs {faithfulness_name}: {len(scored)} rows")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=4, fontsize=8, frameon=False)
    fig.tight_layout()
    try:
        write_run_file(path, lambda temporary: fig.savefig(temporary, format="png"))
    finally:
        plt.close(fig)
    return path

"""The recipe's scatter: similarity vs faithfulness per row, with both thresholds and the two
disagreement quadrants shaded, saved as a PNG (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Frame:
    """The plot's extent and thresholds: x is the similarity, y the faithfulness."""

    t_sim: float
    t_faith: float
    x: tuple[float, float]
    y: tuple[float, float]

    def below_threshold(self) -> float:
        """Where the faithfulness threshold sits on the y axis, as a fraction of its height."""
        return (self.t_faith - self.y[0]) / (self.y[1] - self.y[0])


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

    scored = [r for r in rows if r.similarity is not None and r.faithfulness is not None]
    frame = _frame(scored, thresholds, binary_faithfulness)
    fig, ax = plt.subplots(figsize=(8, 6), dpi=110)
    _quadrants(ax, frame, faithfulness_name)
    _points(ax, scored, binary_faithfulness)
    ax.set_xlim(*frame.x)
    ax.set_ylim(*frame.y)
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


def _frame(scored: list[Any], thresholds: dict[str, float], binary: bool) -> _Frame:
    t_sim, t_faith = thresholds["similarity"], thresholds["faithfulness"]
    sims = [r.similarity for r in scored]
    faiths = [r.faithfulness for r in scored]
    x = (min([*sims, t_sim]) - 0.03, max([*sims, t_sim, 1.0]) + 0.01)
    y = (-0.15, 1.15) if binary else (min([*faiths, t_faith]) - 0.03, max([*faiths, t_faith, 1.0]) + 0.01)
    return _Frame(t_sim, t_faith, x, y)


def _quadrants(ax: Any, frame: _Frame, faithfulness_name: str) -> None:
    """The two disagreement quadrants shaded and named, the thresholds drawn and labelled."""
    (x_low, x_high), (y_low, y_high) = frame.x, frame.y
    high, low = QUADRANT_COLOURS["high_sim_unfaithful"], QUADRANT_COLOURS["low_sim_faithful"]
    ax.axvspan(frame.t_sim, x_high, ymin=0, ymax=frame.below_threshold(), color=high, alpha=0.08)
    ax.axvspan(x_low, frame.t_sim, ymin=frame.below_threshold(), ymax=1, color=low, alpha=0.08)
    ax.axvline(frame.t_sim, color="#333333", linestyle="--", linewidth=1)
    ax.axhline(frame.t_faith, color="#333333", linestyle="--", linewidth=1)
    ax.text(x_high, y_low, "high similarity, unfaithful ", ha="right", va="bottom", fontsize=9, color=high)
    ax.text(x_low, y_high, " low similarity, faithful", ha="left", va="top", fontsize=9, color=low)
    ax.text(
        frame.t_sim,
        y_high,
        f" similarity threshold {frame.t_sim:.3f}",
        ha="left",
        va="top",
        fontsize=8,
        rotation=90,
    )
    ax.text(
        x_low,
        frame.t_faith,
        f" {faithfulness_name} threshold {frame.t_faith:.3f}",
        ha="left",
        va="bottom",
        fontsize=8,
    )


def _points(ax: Any, scored: list[Any], binary: bool) -> None:
    """One colour per quadrant; a judge answers 0 or 1, so its points are spread vertically a little
    (seeded) to keep overlaps visible."""
    import numpy as np

    jitter = np.random.default_rng(0).uniform(-0.07, 0.07, len(scored)) if binary else np.zeros(len(scored))
    for label, colour in QUADRANT_COLOURS.items():
        idx = [i for i, r in enumerate(scored) if r.label == label]
        if idx:
            ax.scatter(
                [scored[i].similarity for i in idx],
                [scored[i].faithfulness + jitter[i] for i in idx],
                s=36,
                color=colour,
                edgecolor="white",
                linewidth=0.6,
                label=f"{label} ({len(idx)})",
                zorder=3,
            )

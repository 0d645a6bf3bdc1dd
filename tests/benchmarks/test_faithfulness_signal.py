"""The offline faithfulness combination: its fit is a deterministic optimum, and the committed figures
(benchmarks/results/faithfulness_signal.json, written by faithfulness_train.py) meet the acceptance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SHIPPED = "**offline faithfulness (shipped score)**"


def test_the_fit_is_the_penalised_optimum_and_deterministic():
    from benchmarks.training.faithfulness_train import fit

    rng = np.random.default_rng(0)
    x = rng.random((200, 3))
    y = (x @ np.array([2.0, -1.0, 0.5]) + rng.normal(0, 0.5, 200) > 0.7).astype(float)
    weight = np.ones(200)
    beta = fit(x, y, weight, c=1.0)
    assert np.array_equal(beta, fit(x, y, weight, c=1.0))
    design = np.hstack([np.ones((200, 1)), x])
    p = 1 / (1 + np.exp(-design @ beta))
    gradient = design.T @ (weight * (p - y)) + np.r_[0.0, beta[1:]]  # log-loss + |w|^2 / 2
    assert np.abs(gradient).max() < 1e-8


def test_the_shipped_score_beats_groundedness_and_rouge_l_on_every_development_set():
    table = json.loads((BENCHMARKS / "results" / "faithfulness_signal.json").read_text(encoding="utf-8"))
    assert set(table) == {"summeval", "frank", "frank_cnndm", "frank_bbc"}
    for name, result in table.items():
        auc = {signal: values["roc_auc"] for signal, values in result["signals"].items()}
        assert auc[SHIPPED] > auc["groundedness (BERTScore P vs source)"], name
        assert auc[SHIPPED] > auc["ROUGE-L precision vs source (rouge-score)"], name


def test_the_weights_file_matches_the_fit_the_figures_come_from():
    quality = (BENCHMARKS / "QUALITY.md").read_text(encoding="utf-8")
    weights = json.loads(
        (BENCHMARKS.parent / "bertscore_plugins" / "faithfulness" / "weights.json").read_text(
            encoding="utf-8"
        )
    )
    assert f"intercept {weights['intercept']:+.2f}" in quality
    for name, value in weights["weights"].items():
        assert f"{name} {value:+.2f}" in quality

"""Baseline rescaling: bert_score's formula and file format (no model)."""

from __future__ import annotations

import numpy as np
import pytest

from bertscore_plugins.core.baseline import (
    BaselineNotFoundError,
    find_baseline,
    read_baseline,
    write_baseline,
)


def test_a_written_baseline_reads_back_per_layer(tmp_path):
    path = tmp_path / "model.tsv"
    write_baseline(path, [(0, 0.5, 0.4, 0.45), (4, 0.3, 0.25, 0.275)])
    assert path.read_text().splitlines()[0] == "LAYER,P,R,F"
    baseline = read_baseline(path, 4)
    assert (baseline.precision, baseline.recall, baseline.f1) == (0.3, 0.25, 0.275)
    assert baseline.label == f"model.tsv@{baseline.digest}" and len(baseline.digest) == 8
    with pytest.raises(BaselineNotFoundError, match="no row for layer 2"):
        read_baseline(path, 2)


def test_rescaling_maps_the_baseline_to_zero_and_one_to_one(tmp_path):
    path = tmp_path / "b.tsv"
    write_baseline(path, [(4, 0.3, 0.25, 0.2)])
    baseline = find_baseline(str(path), None, "unused", "unused", "en", 4)
    f1 = np.array([0.2, 1.0, 0.6], dtype=np.float32)
    rescaled = baseline.rescale(f1, "f1")
    assert rescaled.dtype == np.float32
    np.testing.assert_allclose(rescaled, [0.0, 1.0, 0.5], atol=1e-7)
    np.testing.assert_allclose(baseline.rescale(f1, "precision"), (f1 - 0.3) / 0.7, atol=1e-7)


def test_no_baseline_anywhere_names_the_model_and_the_way_out(tmp_path):
    with pytest.raises(BaselineNotFoundError, match="pass baseline_path="):
        find_baseline(None, None, str(tmp_path), "mine", "en", 4)

"""Test pairs for the Ray and Spark tests: WMT16 segments when the eval data is present, else project text.

The eval data is read in place from BERTSCORE_EVAL_DATA (default ../shared/eval-data next to the repo).
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def eval_data_dir() -> Path:
    return Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))


def _wmt16_pairs(limit: int) -> list[tuple[str, str]] | None:
    path = eval_data_dir() / "wmt16_daseg" / "wmt16_daseg_joined.tsv"
    if not path.exists():
        return None
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [(row["mt"], row["reference"]) for row in rows[:limit]]


def _project_text_pairs(limit: int) -> list[tuple[str, str]]:
    # sentences from the project's own documentation and docstrings: real English, always present
    sentences: list[str] = []
    for path in sorted((REPO / "bertscore_plugins").rglob("*.py")) + sorted(REPO.glob("*.md")):
        for sentence in re.split(r"(?<=[.!?])\s+", path.read_text(encoding="utf-8")):
            sentence = " ".join(sentence.split())
            if 30 <= len(sentence) <= 300:
                sentences.append(sentence)
    if len(sentences) < 2:
        raise RuntimeError("not enough project text to build test pairs")
    return [(sentences[i % len(sentences)], sentences[(i + 1) % len(sentences)]) for i in range(limit)]


def load_pairs(limit: int) -> tuple[list[str], list[str], str]:
    """`limit` (candidate, reference) pairs and the name of their source."""
    pairs = _wmt16_pairs(limit)
    source = "wmt16_daseg"
    if pairs is None or len(pairs) < limit:
        pairs, source = _project_text_pairs(limit), "project text (eval data not found)"
    return [c for c, _ in pairs], [r for _, r in pairs], source


def multi_references(candidates: list[str], references: list[str]) -> list[list[str]]:
    """1 to 3 references per row (the row's own reference plus neighbours' ones), deterministic."""
    count = len(references)
    return [[references[(i + step * 7) % count] for step in range(1 + i % 3)] for i in range(len(candidates))]


def assert_matches_core(scored, expected, prefix: str = "bertscore_") -> None:
    """A distributed result (a pandas frame of P/R/F1 and signature columns) equals the core's `Scores`."""
    import numpy as np

    for name in ("precision", "recall", "f1"):
        np.testing.assert_allclose(
            scored[f"{prefix}{name}"].to_numpy(np.float64),
            getattr(expected, name).astype(np.float64),
            atol=1e-6,
            rtol=0,
            err_msg=name,
        )
    assert set(scored[f"{prefix}signature"]) == {expected.signature}

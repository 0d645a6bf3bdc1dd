"""Baseline rescaling: (x - b) / (1 - b) per column, with bert_score's baseline file format.

A baseline file is comma-separated despite its .tsv name, with a header ``LAYER,P,R,F`` and one row per
layer (0 = embeddings). A requested baseline that cannot be found is an error, never a silent no-op.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class BaselineNotFoundError(FileNotFoundError):
    """Rescaling was requested but no baseline exists for this model, language and layer."""


@dataclass(frozen=True)
class Baseline:
    precision: float
    recall: float
    f1: float
    source: str  # e.g. "en/all-MiniLM-L6-v2" or a file name
    digest: str  # sha256 of the file (first 8 hex digits)

    def rescale(self, values: np.ndarray, column: str) -> np.ndarray:
        b = {"precision": self.precision, "recall": self.recall, "f1": self.f1}[column]
        return ((values - b) / (1 - b)).astype(np.float32)

    @property
    def label(self) -> str:
        return f"{self.source}@{self.digest}"


def read_baseline(path: str | Path, layer: int, source: str | None = None) -> Baseline:
    """Read one layer's (b_P, b_R, b_F) from a bert_score-format file."""
    path = Path(path)
    if not path.is_file():
        raise BaselineNotFoundError(f"baseline file {path} does not exist")
    data = path.read_bytes()
    rows = list(csv.reader(data.decode().splitlines()))
    header = [cell.strip() for cell in rows[0]]
    if header[:4] != ["LAYER", "P", "R", "F"]:
        raise ValueError(f"baseline file {path} must start with the header LAYER,P,R,F (got {rows[0]})")
    for row in rows[1:]:
        if row and int(float(row[0])) == layer:
            return Baseline(
                float(row[1]), float(row[2]), float(row[3]), source or path.name,
                hashlib.sha256(data).hexdigest()[:8],
            )
    raise BaselineNotFoundError(f"baseline file {path} has no row for layer {layer}")


def installed_bert_score_baseline(lang: str, model_name: str) -> Path | None:
    """bert_score's own baseline file for a hub model, when the bert_score package is installed."""
    import importlib.util

    spec = importlib.util.find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "rescale_baseline" / lang / f"{model_name}.tsv"
    return path if path.is_file() else None


def find_baseline(
    baseline_path: str | None, shipped: str | None, location: str, name: str, lang: str, layer: int
) -> Baseline:
    """The baseline to use: the user's file, the shipped one, or bert_score's installed one."""
    if baseline_path:
        return read_baseline(baseline_path, layer, source=Path(baseline_path).name)
    if shipped:
        return read_baseline(shipped, layer, source=f"{lang}/{name}")
    # hub ids only: bert_score names its files after the id (a local folder has no such file)
    installed = None if Path(location).is_absolute() else installed_bert_score_baseline(lang, location)
    if installed is not None:
        return read_baseline(installed, layer, source=f"{lang}/{location}")
    raise BaselineNotFoundError(
        f"no rescaling baseline for model {location!r}, lang {lang!r}: pass baseline_path=... "
        "(bert_score's LAYER,P,R,F format), or compute one with `bertscore-plugins baseline`, or rescale=False"
    )


def write_baseline(path: str | Path, rows: list[tuple[int, float, float, float]]) -> None:
    """Write per-layer means in bert_score's format."""
    lines = ["LAYER,P,R,F"] + [f"{layer},{p:.8f},{r:.8f},{f:.8f}" for layer, p, r, f in rows]
    Path(path).write_text("\n".join(lines) + "\n")

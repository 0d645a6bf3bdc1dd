"""Baseline rescaling: (x - b) / (1 - b) per column, with bert_score's baseline file format.

A baseline file is comma-separated despite its .tsv name, with a header ``LAYER,P,R,F`` and one row per
layer (0 = embeddings). A requested baseline that cannot be found is an error, never a silent no-op.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bertscore_plugins.errors import ArgumentError, BaselineNotFoundError, FileFormatError
from bertscore_plugins.files import (
    decode,
    parse_number,
    read_bytes,
    split_lines,
    write_atomically,
)

if TYPE_CHECKING:
    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.models.resolve import ModelSource

#: a baseline b must leave 1 - b at least this large: (x - b) / (1 - b) stays finite in float32
_LARGEST_BASELINE = 1 - 1e-6


@dataclass(frozen=True)
class Baseline:
    precision: float
    recall: float
    f1: float
    source: str  # e.g. "en/all-MiniLM-L6-v2" or a file name
    digest: str  # sha256 of the file (first 8 hex digits)

    def __post_init__(self) -> None:
        for column in ("precision", "recall", "f1"):
            value = getattr(self, column)
            if not _valid(value):
                raise ArgumentError(f"baseline {column} must be a finite number in [-1, 1), got {value!r}")

    def rescale(self, values: np.ndarray, column: str) -> np.ndarray:
        b = {"precision": self.precision, "recall": self.recall, "f1": self.f1}[column]
        return ((values - b) / (1 - b)).astype(np.float32)

    @property
    def label(self) -> str:
        return f"{self.source}@{self.digest}"


def _valid(value: float) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and -1 <= value <= _LARGEST_BASELINE


def read_baseline(path: str | Path, layer: int, source: str | None = None) -> Baseline:
    """Read one layer's (b_P, b_R, b_F) from a bert_score-format file.

    Raises:
        BaselineNotFoundError: no such file, or no row for `layer`.
        FileFormatError: a malformed file, naming the file and line: a wrong header, a row without four
            cells, a value that is not a finite number in [-1, 1) (nan, inf, 1 and 1.5 would give NaN,
            infinite or reversed scores), a layer given twice.
    """
    path = Path(path)
    if not path.is_file():
        raise BaselineNotFoundError(
            f"baseline file {path} does not exist" + (" (it is a folder)" if path.exists() else "")
        )
    data = read_bytes(path, "baseline file")
    lines = split_lines(decode(data, path))
    if not lines or [cell.strip() for cell in lines[0].split(",")][:4] != ["LAYER", "P", "R", "F"]:
        got = lines[0][:60] if lines else "an empty file"
        raise FileFormatError(
            path, f"a baseline file must start with the header LAYER,P,R,F (got {got!r})", 1
        )
    found: dict[int, tuple[float, float, float]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) < 4:
            raise FileFormatError(
                path, f"expected 4 comma-separated cells LAYER,P,R,F, got {len(cells)}", number
            )
        row_layer = parse_number(
            path, number, "LAYER", cells[0], lambda v: v >= 0 and v == int(v), "a non-negative integer"
        )
        values = tuple(
            parse_number(path, number, name, cell, _valid, "a finite number in [-1, 1)")
            for name, cell in zip("PRF", cells[1:4], strict=True)
        )
        if int(row_layer) in found:
            raise FileFormatError(path, f"layer {int(row_layer)} is given twice", number)
        found[int(row_layer)] = values  # type: ignore[assignment]
    if layer not in found:
        raise BaselineNotFoundError(f"baseline file {path} has no row for layer {layer}")
    precision, recall, f1 = found[layer]
    return Baseline(precision, recall, f1, source or path.name, hashlib.sha256(data).hexdigest()[:8])


def installed_bert_score_baseline(lang: str, model_name: str) -> Path | None:
    """bert_score's own baseline file for a hub model, when the bert_score package is installed."""
    import importlib.util

    spec = importlib.util.find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "rescale_baseline" / lang / f"{model_name}.tsv"
    return path if path.is_file() else None


def baseline_for(config: ScoreConfig, source: ModelSource, layer: int) -> Baseline:
    """The one decision of which baseline rescales a configuration's scores at `layer`: the user's file
    (baseline_path), else the one shipped for the model and language, else (English) the preset's own,
    else bert_score's installed one for a hub id. Raises BaselineNotFoundError naming the model and lang.
    """
    # the model cache is shared across languages, so the shipped file is looked up per configuration
    shipped = shipped_baseline(config.lang, source.name) or (
        source.baseline_file if config.lang == "en" else None
    )
    return find_baseline(config.baseline_path, shipped, source.location, source.name, config.lang, layer)


def shipped_baseline(lang: str, name: str) -> str | None:
    """A baseline file shipped in bertscore_plugins/baselines/<lang>/<name>.tsv, if any."""
    path = resources.files("bertscore_plugins").joinpath(f"baselines/{lang}/{name}.tsv")
    return str(path) if path.is_file() else None


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


def baseline_text(rows: list[tuple[int, float, float, float]]) -> str:
    """Per-layer means in bert_score's format (LAYER,P,R,F, 8 decimals)."""
    lines = ["LAYER,P,R,F"] + [f"{layer},{p:.8f},{r:.8f},{f:.8f}" for layer, p, r, f in rows]
    return "\n".join(lines) + "\n"


def write_baseline(path: str | Path, rows: list[tuple[int, float, float, float]]) -> None:
    """Write per-layer means in bert_score's format."""
    write_atomically(path, baseline_text(rows))

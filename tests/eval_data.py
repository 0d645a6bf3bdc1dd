"""Shared test data: WMT16 pairs from ../shared/eval-data when present, else the project's own pairs."""

from __future__ import annotations

import csv
import os
from importlib import resources
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def eval_data_dir() -> Path:
    return Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))


def project_pairs() -> tuple[list[str], list[str]]:
    text = resources.files("bertscore_plugins").joinpath("examples/pairs.tsv").read_text()
    rows = [line.split("\t") for line in text.splitlines()[1:] if line.strip()]
    return [r[0] for r in rows], [r[1] for r in rows]


def wmt16_pairs(count: int, languages: tuple[str, ...] = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")):
    """(candidates, references, source) for up to `count` WMT16 pairs spread over the languages.

    Falls back to the project's own pairs, crossed with shifted references to reach `count`.
    """
    path = eval_data_dir() / "wmt16_daseg" / "wmt16_daseg_joined.tsv"
    if path.is_file():
        with open(path, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.DictReader(handle, delimiter="\t") if row["lp"] in languages]
        per_language = -(-count // len(languages))
        picked = []
        for lp in languages:
            picked += [row for row in rows if row["lp"] == lp][:per_language]
        picked = picked[:count]
        return [r["mt"] for r in picked], [r["reference"] for r in picked], "wmt16"
    cands, refs = project_pairs()
    out_c, out_r, shift = [], [], 0
    while len(out_c) < count:
        out_c += cands
        out_r += refs[shift:] + refs[:shift]
        shift += 1
    return out_c[:count], out_r[:count], "project"

"""Shared test data: WMT16 pairs from ../shared/eval-data when present, else pairs shipped in tests/support/data."""

from __future__ import annotations

import csv
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: 318 candidate/reference pairs written for this project (MIT, like the rest of it): 159 references,
#: each with a close paraphrase and a variant that changes a fact, so every pair is related text, as
#: translations of the reference are (see the README's parity section for why unrelated pairs are not
#: a sound parity oracle at the model's last layer)
WRITTEN_PAIRS = Path(__file__).resolve().parent / "data" / "written_pairs.tsv"


def eval_data_dir() -> Path:
    return Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO.parent / "shared" / "eval-data"))


def written_pairs() -> tuple[list[str], list[str]]:
    """The shipped pairs: rows 2k and 2k+1 share reference k (a paraphrase, then a changed fact)."""
    rows = [line.split("\t") for line in WRITTEN_PAIRS.read_text(encoding="utf-8").splitlines()[1:] if line]
    return [r[0] for r in rows], [r[1] for r in rows]


def wmt16_pairs(
    count: int, languages: tuple[str, ...] = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")
):
    """(candidates, references, source) for up to `count` WMT16 pairs spread over the languages.

    Without the eval data: the first `count` shipped pairs (at most 318), source "written".
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
    candidates, references = written_pairs()
    return candidates[:count], references[:count], "written"

"""The texts every benchmark contender scores, built the same way in every process.

WMT16 segment-level DA pairs (machine translation vs reference) come from the shared evaluation data
(`BERTSCORE_EVAL_DATA`, default ``../shared/eval-data`` beside the repository). When that folder is absent
the benchmark falls back to sentences built from the project's own text (its README and docs), so it still
runs, with a note in the report saying which source was used.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
WMT16_FILE = Path("wmt16_daseg") / "wmt16_daseg_joined.tsv"
# The six to-English pairs come first (they are what bert_score tuned its layers on); en-ru last.
TO_ENGLISH = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")


@dataclass(frozen=True)
class PairSet:
    """Candidates and references in row order, plus where they came from."""

    candidates: list[str]
    references: list[str]
    source: str
    human: list[float] | None = None
    language_pairs: list[str] | None = None


def eval_data_dir() -> Path:
    """The shared evaluation-data folder (`BERTSCORE_EVAL_DATA`, default ../shared/eval-data)."""
    return Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO_ROOT.parent / "shared" / "eval-data"))


def _wmt16_rows(spread: bool = False) -> list[dict[str, str]] | None:
    path = eval_data_dir() / WMT16_FILE
    if not path.is_file():
        return None
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if spread:
        return _spread_evenly(rows)
    # round robin over the six to-English pairs (so any prefix mixes them), then anything else (en-ru)
    by_pair: dict[str, list[dict[str, str]]] = {lp: [] for lp in TO_ENGLISH}
    others = []
    for row in rows:
        by_pair[row["lp"]].append(row) if row["lp"] in by_pair else others.append(row)
    mixed = []
    for i in range(max(len(group) for group in by_pair.values())):
        mixed.extend(group[i] for group in by_pair.values() if i < len(group))
    return mixed + others


def _spread_evenly(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Every language pair spread evenly through the rows (row k of a pair with n rows sits at (k + 0.5) / n),
    so any slice (a map() batch, a worker's shard) holds the whole set's mix. In the round-robin order the
    en-ru rows (76 tokens a text against 32, Cyrillic in an English vocabulary) fill rows 3,360-3,919 alone:
    a 1,000-row batch of them needs 1.3x the memory of any other (944 against 720-797 MiB, one thread), so a
    5k set split in two shards gave one worker none of them and a 20k set gave both."""
    by_pair: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_pair.setdefault(row["lp"], []).append(row)
    placed = [
        ((k + 0.5) / len(group), lp, row) for lp, group in by_pair.items() for k, row in enumerate(group)
    ]
    return [row for _, _, row in sorted(placed, key=lambda item: item[:2])]


def _project_sentences() -> list[str]:
    """Sentences from the project's own text files: the fallback when the WMT16 data is absent."""
    sentences: list[str] = []
    for path in sorted(REPO_ROOT.glob("*.md")) + sorted(REPO_ROOT.glob("bertscore_plugins/**/*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for piece in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
            words = piece.split()
            if 5 <= len(words) <= 60:
                sentences.append(" ".join(words))
    if len(sentences) < 4:
        sentences = [f"The benchmark fallback sentence number {i} has a few plain words." for i in range(64)]
    return sentences


def wmt16_pairs(pairs: int, unique: bool = False, offset: int = 0, spread: bool = False) -> PairSet:
    """`pairs` rows of (candidate, reference); WMT16 when present, else the project's own sentences.

    Rows beyond the data's size repeat it. With `unique=True` (or once rows repeat) every text gets a
    row-specific suffix, so no two rows share a text and memory really grows with the row count.
    `offset` shifts the suffix numbering (used to build different-but-similar sets). With `spread=True`
    every language pair is spread evenly through the rows (the memory benchmark: any slice has the mix).
    """
    rows = _wmt16_rows(spread)
    if rows:
        base_cands = [row["mt"] for row in rows]
        base_refs = [row["reference"] for row in rows]
        human = [float(row["human_z"]) for row in rows]
        lps = [row["lp"] for row in rows]
        source = f"WMT16 DAseg ({eval_data_dir() / WMT16_FILE})"
    else:
        sentences = _project_sentences()
        base_cands = sentences[1:] + sentences[:1]  # each candidate is the next sentence: unrelated-ish pairs
        base_refs = sentences
        human, lps = None, None
        source = "project text (WMT16 data absent)"
    size = len(base_refs)
    suffix_all = unique or pairs > size
    candidates, references = [], []
    for i in range(pairs):
        cand, ref = base_cands[i % size], base_refs[i % size]
        if suffix_all:
            tag = f" (item {i + offset})"
            cand, ref = cand + tag, ref + tag
        candidates.append(cand)
        references.append(ref)
    return PairSet(
        candidates,
        references,
        source,
        human=[human[i % size] for i in range(pairs)] if human and not suffix_all else None,
        language_pairs=[lps[i % size] for i in range(pairs)] if lps and not suffix_all else None,
    )


def new_candidates(candidates: list[str]) -> list[str]:
    """A second system's outputs for re-scoring: every candidate changed, so none is cached or shared.

    Drops each candidate's last word and moves its first word to the end: a plausible new output of
    about the same length that is not equal to any existing text.
    """
    changed = []
    for text in candidates:
        words = text.split()
        if len(words) >= 3:
            changed.append(" ".join([*words[1:-1], words[0].lower()]) + " .")
        else:
            changed.append(text + " again")
    return changed


def long_documents(count: int, target_tokens: int, count_tokens) -> PairSet:
    """`count` document pairs of about `target_tokens` tokens each, built from consecutive WMT16 rows.

    `count_tokens(text) -> int` measures a text with the benchmark model's tokenizer. Candidate
    documents concatenate the machine translations, references the matching human references.
    """
    rows = _wmt16_rows()
    base = wmt16_pairs(len(rows) if rows else len(_project_sentences()))
    candidates, references = [], []
    row = 0
    for _ in range(count):
        cand_parts, ref_parts, tokens = [], [], 0
        while tokens < target_tokens:
            cand_parts.append(base.candidates[row % len(base.candidates)])
            ref_parts.append(base.references[row % len(base.references)])
            tokens += count_tokens(ref_parts[-1])
            row += 1
        candidates.append(" ".join(cand_parts))
        references.append(" ".join(ref_parts))
    return PairSet(candidates, references, base.source + f", {count} documents of ~{target_tokens} tokens")


WARMUP_CANDIDATES = [f"A short warm-up sentence, number {i}, about nothing." for i in range(8)]
WARMUP_REFERENCES = [f"This is warm-up text {i} which is not scored for time." for i in range(8)]

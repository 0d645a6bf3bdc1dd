"""Readers for the human-judgment data sets in the shared eval-data folder (one function per set).

The folder comes from `BERTSCORE_EVAL_DATA`, default `../shared/eval-data` relative to the repository
root. Each reader follows the parsing notes in that set's README (quoting, BOMs, extra columns).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
WMT16_TO_ENGLISH = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")


class EvalDataMissing(FileNotFoundError):
    """The eval-data folder (or one of its sets) is not on this machine."""


def eval_data_dir() -> Path:
    """The eval-data folder: $BERTSCORE_EVAL_DATA or ../shared/eval-data next to the repository."""
    folder = Path(os.environ.get("BERTSCORE_EVAL_DATA", REPO_ROOT.parent / "shared" / "eval-data"))
    if not folder.is_dir():
        raise EvalDataMissing(
            f"eval data not found at {folder}; set BERTSCORE_EVAL_DATA to the folder with wmt16_daseg/, "
            "stsbenchmark/, paws/, mrpc/, summeval/ and published_bertscore_numbers/"
        )
    return folder


def _need(path: Path) -> Path:
    if not path.exists():
        raise EvalDataMissing(f"{path} is missing")
    return path


@dataclass
class PairSet:
    """Sentence pairs with one human judgment each (a score or a 0/1 label)."""

    name: str
    first: list[str] = field(default_factory=list)
    second: list[str] = field(default_factory=list)
    human: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.human)

    def head(self, limit: int | None) -> PairSet:
        if limit is None:
            return self
        return PairSet(self.name, self.first[:limit], self.second[:limit], self.human[:limit])


def load_wmt16(folder: Path, limit: int | None = None) -> dict[str, PairSet]:
    """WMT16 DAseg, per to-English pair: first = MT output (candidate), second = reference, human = DA z."""
    sets = {pair: PairSet(pair) for pair in WMT16_TO_ENGLISH}
    with _need(folder / "wmt16_daseg" / "wmt16_daseg_joined.tsv").open(
        encoding="utf-8", newline=""
    ) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["lp"] in sets:
                sets[row["lp"]].first.append(row["mt"])
                sets[row["lp"]].second.append(row["reference"])
                sets[row["lp"]].human.append(float(row["human_z"]))
    return {pair: pairs.head(limit) for pair, pairs in sets.items()}


def load_stsb_dev(folder: Path, limit: int | None = None) -> PairSet:
    """STS-B dev: 1,500 pairs, gold similarity 0-5. Columns 0-6 only; no quote handling (README)."""
    pairs = PairSet("stsb-dev")
    with _need(folder / "stsbenchmark" / "sts-dev.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            pairs.first.append(row[5])
            pairs.second.append(row[6])
            pairs.human.append(float(row[4]))
    return pairs.head(limit)


def load_paws_dev(folder: Path, limit: int | None = None) -> PairSet:
    """PAWS-Wiki final dev: 8,000 word-swap pairs, label 1 = paraphrase."""
    pairs = PairSet("paws-dev")
    path = _need(folder / "paws" / "paws_wiki_labeled_final_dev.tsv")
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            pairs.first.append(row[1])
            pairs.second.append(row[2])
            pairs.human.append(float(row[3]))
    return pairs.head(limit)


def load_mrpc_train(folder: Path, limit: int | None = None) -> PairSet:
    """MRPC train: 4,076 pairs, quality 1 = paraphrase. The file starts with a BOM (README)."""
    pairs = PairSet("mrpc-train")
    path = _need(folder / "mrpc" / "msr_paraphrase_train.txt")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            pairs.first.append(row[3])
            pairs.second.append(row[4])
            pairs.human.append(float(row[0]))
    return pairs.head(limit)


@dataclass
class SummEvalRow:
    doc_id: str
    system: str
    source: str
    references: list[str]
    summary: str
    consistency: float
    relevance: float
    coherence: float
    fluency: float


def load_summeval(folder: Path, limit_docs: int | None = None) -> list[SummEvalRow]:
    """SummEval: 100 CNN/DM documents x 16 systems, 11 references each, expert means (1-5)."""
    rows = []
    with gzip.open(
        _need(folder / "summeval" / "summeval_bartscore_flat.jsonl.gz"), "rt", encoding="utf-8"
    ) as handle:
        for line in handle:
            record = json.loads(line)
            rows.append(
                SummEvalRow(
                    record["doc_id"],
                    record["system"],
                    record["source"],
                    list(record["references"]),
                    record["summary"],
                    float(record["consistency"]),
                    float(record["relevance"]),
                    float(record["coherence"]),
                    float(record["fluency"]),
                )
            )
    if limit_docs is not None:
        keep = sorted({row.doc_id for row in rows})[:limit_docs]
        rows = [row for row in rows if row.doc_id in set(keep)]
    return rows


@dataclass(frozen=True)
class PublishedFigure:
    setting: str
    value: float
    source: str


def load_published_wmt16(folder: Path) -> list[PublishedFigure]:
    """Published WMT16 to-English mean Pearson figures (bert_score's layer table, MENLI) for peer models."""
    figures = []
    path = _need(folder / "published_bertscore_numbers" / "published_bertscore_numbers.tsv")
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["dataset"] == "WMT16 DAseg to-English" and row["statistic"] == "mean Pearson":
                figures.append(
                    PublishedFigure(
                        row["metric_setting"].split(";")[0],
                        float(row["value"]),
                        f"{row['source_repo']} {row['source_path']} @ {row['source_commit'][:7]}",
                    )
                )
    return figures


def load_published_summeval(folder: Path) -> dict[str, str]:
    """The published SummEval system-level Kendall figures (MENLI, roberta-large), as text."""
    path = _need(folder / "published_bertscore_numbers" / "published_bertscore_numbers.tsv")
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["dataset"].startswith("SummEval"):
                return {
                    "setting": row["metric_setting"],
                    "statistic": row["statistic"],
                    "value": row["value"],
                    "source": f"{row['source_repo']} {row['source_path']} @ {row['source_commit'][:7]}",
                    "notes": row["notes"],
                }
    return {}


@dataclass
class FrankRow:
    hash: str
    model: str
    dataset: str  # "cnndm" | "bbc" (XSum)
    article: str
    summary: str
    factuality: float  # share of the summary's sentences found error-free; 1.0 = fully factual


def load_frank(folder: Path) -> list[FrankRow]:
    """FRANK's validation split: 671 model summaries of CNN/DM and XSum articles, human factuality."""
    rows = []
    with gzip.open(_need(folder / "frank_valid" / "frank_valid.jsonl.gz"), "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            rows.append(
                FrankRow(
                    record["hash"],
                    record["model_name"],
                    record["dataset"],
                    record["article"],
                    record["summary"],
                    float(record["Factuality"]),
                )
            )
    return rows

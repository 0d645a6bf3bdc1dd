"""The offline faithfulness score: a small logistic combination of the signal's parts.

    score = 1 / (1 + exp(-(intercept + sum(weight[name] * part[name]))))

The weights live in ``weights.json`` beside this file, written by ``benchmarks/training/faithfulness_train.py``
from the development data only (SummEval and FRANK valid); that file says what it was trained on and
how well each part and the combination rank faithful summaries there. Every weight is readable: a part
with a positive weight raises the score; ``unsupported_fact`` (1 when the fact check finds a fact the
source contradicts or never states) and ``novel_rare_word`` (1 when the output writes a rare word, a name
or a number, that the source never writes) lower it.

The score then puts the combination in one of two halves, by the concrete evidence a reader would check:
a row is *vouched for* when its facts were checked, every one is carried by the source, it writes no rare
word the source never writes, and even its weakest sentence has a close counterpart in the source
(``weakest_sentence >= SENTENCE_SUPPORT``), or every sentence is copied from the source, its words in order
(``weakest_lexical`` 1: a copy's embeddings drift with what surrounds it in the source, so a sentence copied
from a long, repetitive source can sit below the similarity bar). Vouched rows score 0.5 + combination / 2, the others
combination / 2: the label ("faithful" at score >= 0.5) is that evidence, and within each half the
fitted combination orders the rows. Why not the combination alone at 0.5: it was fitted on news
summaries, where copying is the mark of a faithful summary, so a correct answer in its own words (a RAG
answer, a paraphrase) falls below 0.5 although every sentence and fact is supported. On the development
sets the halves cost no ranking (AUC within 0.01 of the combination's, benchmarks/QUALITY.md section 7),
and the label's balanced accuracy there is within 0.04 of the combination's at 0.5.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from bertscore_plugins.errors import FileFormatError

WEIGHTS = Path(__file__).resolve().parent / "weights.json"
#: the parts the combination reads, in the order weights.json lists them
#: the weakest output sentence's similarity to its best source window (weakest_sentence, packaged MiniLM)
#: at or above which a row with every fact carried is vouched for: every sentence says something the
#: source says. 0.7 keeps the ranking on the development sets (0.6 to 0.7 do; 0.75 costs CNN/DM 0.01 AUC)
SENTENCE_SUPPORT = 0.7
#: weakest_lexical at which every output sentence is a word-for-word, in-order copy from a source passage:
#: vouched for like a close sentence (on the development sets it moves no AUC of QUALITY.md section 7)
COPIED = 1.0 - 1e-9
FEATURES = (
    "groundedness",
    "weakest_sentence",
    "lcs",
    "weakest_lexical",
    "lexical",
    "novel_rare_word",
    "unsupported_fact",
)


@lru_cache(maxsize=1)
def weights() -> dict[str, Any]:
    """weights.json: {"intercept": float, "weights": {part: float}, ...provenance}, checked (read once)."""
    return read_weights(WEIGHTS)


def read_weights(path: Path) -> dict[str, Any]:
    """A weights file, checked: FileFormatError naming the file when it is unreadable, not JSON, or lacks
    a finite number for the intercept or for any part (a NaN, infinite, string or null weight would make
    every score NaN or fail deep inside the arithmetic)."""
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise FileFormatError(path, f"cannot be read ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FileFormatError(path, f"is not valid JSON ({error}); reinstall the package") from None
    if not isinstance(table, dict) or not isinstance(table.get("weights"), dict):
        raise FileFormatError(path, 'needs an object with "intercept" and "weights": {part: number}')
    missing = set(FEATURES) - set(table["weights"])
    if missing:
        raise FileFormatError(path, f"lacks weights for {sorted(missing)}")
    unknown = set(table["weights"]) - set(FEATURES)
    if unknown:
        raise FileFormatError(
            path, f"has weights for unknown parts {sorted(unknown)}; the parts are {FEATURES}"
        )
    for name, value in [("intercept", table.get("intercept")), *table["weights"].items()]:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise FileFormatError(path, f"{name} must be a finite number, got {value!r}")
    return table


def weights_identity() -> str:
    """weights.json's sha256 (short): which combination made a score, for signatures."""
    import hashlib

    return hashlib.sha256(WEIGHTS.read_bytes()).hexdigest()[:12]


def combine(features: dict[str, float], table: dict[str, Any] | None = None) -> float:
    """The score in [0, 1] for one row's parts (a logistic of their weighted sum)."""
    table = table or weights()
    logit = table["intercept"] + sum(table["weights"][name] * float(features[name]) for name in FEATURES)
    return 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0


def vouched(features: dict[str, float], checked: bool = True) -> bool:
    """The evidence a reader would check: facts checked and all carried, no rare word the source never
    writes, and every sentence close to something the source says (or copied from it)."""
    return (
        checked
        and not features["unsupported_fact"]
        and not features["novel_rare_word"]
        and (features["weakest_sentence"] >= SENTENCE_SUPPORT or features["weakest_lexical"] >= COPIED)
    )


def score(features: dict[str, float], table: dict[str, Any] | None = None, checked: bool = True) -> float:
    """The offline faithfulness score: :func:`combine` in the upper half of [0, 1] when the row is
    :func:`vouched` for, in the lower half otherwise (``checked``: whether the fact check could read it)."""
    combined = combine(features, table)
    return 0.5 + combined / 2 if vouched(features, checked) else combined / 2

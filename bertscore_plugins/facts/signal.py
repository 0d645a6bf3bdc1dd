"""The offline faithfulness score: a small logistic combination of the signal's parts.

    score = 1 / (1 + exp(-(intercept + sum(weight[name] * part[name]))))

The weights live in ``weights.json`` beside this file, written by ``benchmarks/faithfulness_train.py``
from the development data only (SummEval and FRANK valid); that file says what it was trained on and
how well each part and the combination rank faithful summaries there. Every weight is readable: a part
with a positive weight raises the score; ``unsupported_fact`` (1 when the fact check finds a fact the
source contradicts or never states) and ``novel_rare_word`` (1 when the output writes a rare word, a name
or a number, that the source never writes) lower it.

A row with an unsupported fact is then scaled by ``UNSUPPORTED_FACTOR``, so its score stays below the
"faithful" threshold (0.5) whatever its other parts say: the score and the label tell the same story,
and a fact the source contradicts is concrete evidence that the other parts cannot outvote. (On the
development sets this costs at most 0.015 AUC against the plain combination; see QUALITY.md.)
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
#: what a row with an unsupported fact keeps of its combined score (below 1, so it falls under 0.5)
UNSUPPORTED_FACTOR = 0.5
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
    """weights.json: {"intercept": float, "weights": {part: float}, ...provenance}."""
    table = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    missing = set(FEATURES) - set(table["weights"])
    if missing:
        raise FileFormatError(WEIGHTS, f"lacks weights for {sorted(missing)}")
    return table


def combine(features: dict[str, float], table: dict[str, Any] | None = None) -> float:
    """The score in [0, 1] for one row's parts (a logistic of their weighted sum)."""
    table = table or weights()
    logit = table["intercept"] + sum(table["weights"][name] * float(features[name]) for name in FEATURES)
    return 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0


def score(features: dict[str, float], table: dict[str, Any] | None = None) -> float:
    """The offline faithfulness score: :func:`combine`, scaled by ``UNSUPPORTED_FACTOR`` when the fact
    check found an unsupported fact."""
    combined = combine(features, table)
    return combined * UNSUPPORTED_FACTOR if features["unsupported_fact"] else combined

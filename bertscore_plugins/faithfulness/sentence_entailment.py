"""Sentence-level entailment, a part of the offline faithfulness signal: does the source say what each
output sentence says? Read by the package's own small NLI model (entailment.py), not by word overlap.

The alignment already finds, for each output sentence, the window of source sentences its tokens match best
(passages.py); only that passage goes through the model, with the sentence as the hypothesis, so the cost
grows with the output's sentences, never with the source's length. Two numbers per row:

- ``weakest``: the lowest probability, over the output's sentences, that its passage entails it;
- ``contradiction``: the highest probability that its passage contradicts it; at ``CONTRADICTED`` or more,
  the explanation names the sentence and the source sentence closest to it
  ("'the train left on time' contradicts 'it was delayed by 20 minutes'").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from bertscore_plugins.facts.text import TextFacts
from bertscore_plugins.faithfulness.passages import sentence_windows

if TYPE_CHECKING:
    from bertscore_plugins.core.explain import Explanation
    from bertscore_plugins.faithfulness.entailment_model import EntailmentModel

#: p(contradiction) at or above which a sentence is named as contradicted in the explanation
CONTRADICTED = 0.5
#: rows whose sentence pairs go through the model together (memory stays flat in the number of rows)
ROWS_PER_CALL = 64
#: characters of a premise passage or a quoted sentence kept (the model reads 128 tokens of a pair)
PASSAGE_CHARS = 600


@dataclass(frozen=True)
class Passage:
    """One output sentence and the source passage the alignment puts it against."""

    sentence: str
    passage: str
    closest: str  # the passage's source sentence closest to it (what a contradiction is named against)


@dataclass(frozen=True)
class SentenceEntailment:
    """One row's entailment part (see the module docstring); an output without a sentence is not read."""

    weakest: float = 1.0
    contradiction: float = 0.0
    contradicted: str = ""


def _text(facts: TextFacts, sentences: Sequence[int]) -> str:
    words = [facts.words[k] for s in sentences for k in facts.sentence_words(s)]
    if not words:
        return ""
    return " ".join(facts.text[words[0].start : words[-1].end].split())[:PASSAGE_CHARS]


def passages(out: TextFacts, ctx: TextFacts, explanation: Explanation | None) -> list[Passage]:
    """Each output sentence with its best source passage (none without an alignment)."""
    windows = sentence_windows(out, ctx, explanation)
    if windows is None:
        return []
    found = []
    for sentence, window, closest in zip(windows.sentences, windows.windows, windows.closest, strict=True):
        text = _text(out, [sentence])
        if any(c.isalnum() for c in text):
            found.append(Passage(text, _text(ctx, window), _text(ctx, [closest])))
    return found


def read(rows: Sequence[Sequence[Passage]], model: EntailmentModel | None = None) -> list[SentenceEntailment]:
    """The entailment part of each row (a row: its sentences' passages), one model call per
    ``ROWS_PER_CALL`` rows."""
    model = model or shipped_model()
    results: list[SentenceEntailment] = []
    for start in range(0, len(rows), ROWS_PER_CALL):
        chunk = rows[start : start + ROWS_PER_CALL]
        flat = [passage for row in chunk for passage in row]
        probabilities = model.probabilities([p.passage for p in flat], [p.sentence for p in flat])
        offset = 0
        for row in chunk:
            results.append(_of_row(row, probabilities[offset : offset + len(row)]))
            offset += len(row)
    return results


def _of_row(row: Sequence[Passage], probabilities: np.ndarray) -> SentenceEntailment:
    if not row:
        return SentenceEntailment()
    entailed, contradicted = probabilities[:, 0], probabilities[:, 2]
    worst = int(contradicted.argmax())
    named = ""
    if contradicted[worst] >= CONTRADICTED:
        named = f"'{_quoted(row[worst].sentence)}' contradicts '{_quoted(row[worst].closest)}'"
    return SentenceEntailment(float(entailed.min()), float(contradicted[worst]), named)


def _quoted(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


@lru_cache(maxsize=1)
def shipped_model() -> EntailmentModel:
    """The shipped entailment adapter on the packaged encoder, loaded once per process."""
    from bertscore_plugins.faithfulness.entailment_model import load_entailment
    from bertscore_plugins.models.resolve import resolve_model

    return load_entailment(resolve_model("default").location)


def identity() -> str:
    """The shipped adapter's identity (its weights' sha256, short), for signatures; reads no weights."""
    from bertscore_plugins.faithfulness.entailment_model import read_meta

    digest: str = read_meta()["weights_sha256"]
    return digest[:12]

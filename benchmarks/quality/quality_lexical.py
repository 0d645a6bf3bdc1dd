"""Lexical baselines scored on the same rows as BERTScore: sentence BLEU, chrF (sacrebleu), ROUGE-L.

These are what users would otherwise pick, so every BERTScore figure in QUALITY.md sits next to them.
Scores are on a 0-1 scale. With several references: BLEU and chrF use sacrebleu's multi-reference
statistics, ROUGE-L takes the best reference (rouge-score's `score_multi`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

LEXICAL_METRICS = ("bleu", "chrf", "rougeL")


def _references_per_row(references: Sequence[str | Sequence[str]]) -> list[list[str]]:
    return [[reference] if isinstance(reference, str) else list(reference) for reference in references]


def lexical_scores(
    candidates: Sequence[str], references: Sequence[str | Sequence[str]], rouge_part: str = "fmeasure"
) -> dict[str, np.ndarray]:
    """Per-row sentence BLEU, chrF and ROUGE-L (F-measure, or `rouge_part="precision"`) in [0, 1]."""
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU, CHRF

    bleu = BLEU(effective_order=True)
    chrf = CHRF()
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rows = _references_per_row(references)
    out = {name: np.zeros(len(candidates)) for name in LEXICAL_METRICS}
    for index, (candidate, refs) in enumerate(zip(candidates, rows, strict=True)):
        out["bleu"][index] = bleu.sentence_score(candidate, refs).score / 100.0
        out["chrf"][index] = chrf.sentence_score(candidate, refs).score / 100.0
        if len(refs) == 1:
            rouge_l = rouge.score(refs[0], candidate)["rougeL"]
        else:
            rouge_l = rouge.score_multi(refs, candidate)["rougeL"]
        out["rougeL"][index] = getattr(rouge_l, rouge_part)
    return out

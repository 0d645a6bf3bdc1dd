"""Where in the source each output sentence comes from, read off the core's alignment.

For each output sentence: the mean of its tokens' best similarity within each window of
``WINDOW_SENTENCES`` consecutive source sentences. Its best window is the passage it is read against (the
weakest-sentence part, the entailment part), and the source sentence its tokens match best is the one a
contradiction is named against. Linear in the output's length: one pass over the similarity matrix, then
per output sentence one reduction over source sentences (windows slide over sentences, not tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bertscore_plugins.facts.text import TextFacts

#: source sentences in one window that an output sentence is compared with (a summary sentence often
#: fuses two or three adjacent source sentences)
WINDOW_SENTENCES = 3
#: output tokens reduced at a time: a block of the similarity matrix (x ~1,000 source tokens) stays in the
#: CPU cache while it is gathered and reduced, so a long output costs the same per token as a short one
ROW_BLOCK = 1024


@dataclass(frozen=True)
class SentenceWindows:
    """Per output sentence (``sentences``, in text order): its best window's score, that window's source
    sentences, and the one source sentence its tokens match best."""

    sentences: list[int]
    scores: np.ndarray
    windows: list[list[int]]
    closest: list[int]


def _sentence_of(spans: list[tuple[int, int]], facts: TextFacts) -> np.ndarray:
    """The sentence of the word each model token starts (-1 where it starts no word of ours)."""
    words = facts.word_indexes(spans)
    sentences = np.array([w.sentence for w in facts.words] or [0], dtype=np.int64)
    return np.where(words >= 0, sentences[np.clip(words, 0, None)], -1)


def _group_starts(labels: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])


def similarity_matrix(explanation: Any) -> np.ndarray | None:
    """The alignment's (output tokens x source tokens) similarities, or None without an alignment."""
    similarity = getattr(explanation, "similarity", None)
    if similarity is None or similarity.numel() == 0 or not explanation.candidate_spans:
        return None
    return similarity.float().numpy() if hasattr(similarity, "float") else np.asarray(similarity, dtype=float)


def sentence_windows(out: TextFacts, ctx: TextFacts, explanation: Any) -> SentenceWindows | None:
    """The output sentences' windows; None without an alignment, a source sentence or an output sentence."""
    matrix = similarity_matrix(explanation)
    if matrix is None:
        return None
    out_sentence = _sentence_of(explanation.candidate_spans, out)
    ctx_sentence = _sentence_of(explanation.reference_spans, ctx)
    kept = np.flatnonzero(ctx_sentence >= 0)
    kept = kept[np.argsort(ctx_sentence[kept], kind="stable")]
    in_sentence = np.flatnonzero(out_sentence >= 0)
    if len(kept) == 0 or len(in_sentence) == 0:
        return None
    labels = ctx_sentence[kept]
    starts = _group_starts(labels)
    source_sentences = labels[starts]
    per_sentence = np.concatenate(  # output tokens x source sentences
        [
            np.maximum.reduceat(matrix[row : row + ROW_BLOCK][:, kept], starts, axis=1)
            for row in range(0, matrix.shape[0], ROW_BLOCK)
        ]
    )
    span = min(WINDOW_SENTENCES, per_sentence.shape[1])
    count = per_sentence.shape[1] - span + 1
    windows = np.stack([per_sentence[:, i : count + i] for i in range(span)], axis=0).max(axis=0)
    # per output sentence, the mean over its tokens (one pass: tokens sorted by sentence)
    rows = in_sentence[np.argsort(out_sentence[in_sentence], kind="stable")]
    out_labels = out_sentence[rows]
    out_starts = _group_starts(out_labels)
    counts = np.diff(np.r_[out_starts, len(out_labels)])[:, None]
    window_means = np.add.reduceat(windows[rows], out_starts, axis=0) / counts
    sentence_means = np.add.reduceat(per_sentence[rows], out_starts, axis=0) / counts
    best = window_means.argmax(axis=1)
    return SentenceWindows(
        sentences=[int(s) for s in out_labels[out_starts]],
        scores=window_means.max(axis=1),
        windows=[[int(s) for s in source_sentences[b : b + span]] for b in best],
        closest=[int(source_sentences[c]) for c in sentence_means.argmax(axis=1)],
    )

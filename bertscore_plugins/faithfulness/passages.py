"""Where in the source each output sentence comes from, read off the core's alignment.

For each output sentence: the mean of its tokens' best similarity within each window of
``WINDOW_SENTENCES`` consecutive source sentences. Its best window is the passage it is read against (the
weakest-sentence part, the entailment part), and the source sentence its tokens match best is the one a
contradiction is named against. Linear in the output's length: one pass over the similarity matrix, then
per output sentence one reduction over source sentences (windows slide over sentences, not tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bertscore_plugins.facts.text import TextFacts

if TYPE_CHECKING:
    from bertscore_plugins.core.explain import Explanation

#: source sentences in one window that an output sentence is compared with (a summary sentence often
#: fuses two or three adjacent source sentences)
WINDOW_SENTENCES = 3
#: output tokens (whole output sentences) reduced at a time: a block's reductions (x the source's sentences)
#: stay in the CPU cache, so a long text costs the same per matrix cell as a short one
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


class _SourceRuns(NamedTuple):
    """How the matrix's columns group into source sentences."""

    #: where each run of adjacent columns of one sentence (or of none) starts
    starts: np.ndarray
    #: the runs to keep, in sentence order (None: every run, as they are)
    kept: np.ndarray | None
    #: where each sentence's runs start among the kept ones
    sentence_starts: np.ndarray
    #: the source sentences, in order
    sentences: np.ndarray


def _source_runs(ctx_sentence: np.ndarray) -> _SourceRuns:
    """The runs of the matrix's columns (``ctx_sentence``: each column's source sentence, -1 for none)."""
    run_starts = _group_starts(ctx_sentence)
    run_labels = ctx_sentence[run_starts]
    kept = np.flatnonzero(run_labels >= 0)
    labels = run_labels[kept]
    if np.all(labels[1:] > labels[:-1]):  # one run per sentence, in order: the usual case
        return _SourceRuns(
            run_starts, None if len(kept) == len(run_labels) else kept, np.arange(len(kept)), labels
        )
    kept = kept[np.argsort(labels, kind="stable")]
    labels = run_labels[kept]
    starts = _group_starts(labels)
    return _SourceRuns(run_starts, kept, starts, labels[starts])


def _best_per_source_sentence(block: np.ndarray, runs: _SourceRuns) -> np.ndarray:
    """(rows of ``block`` x source sentences): each row's best similarity within each source sentence.
    The block is reduced where it lies, run by run of adjacent columns, then a sentence's runs are
    combined when its columns are not adjacent (a maximum is the same in any grouping): no copy of the
    matrix's columns is made (a gathered copy cost eight times the reduction)."""
    reduced = np.maximum.reduceat(block, runs.starts, axis=1)
    if runs.kept is None:
        return reduced
    reduced = reduced[:, runs.kept]
    if len(runs.sentence_starts) == reduced.shape[1]:
        return reduced
    return np.maximum.reduceat(reduced, runs.sentence_starts, axis=1)


def similarity_matrix(explanation: Explanation | None) -> np.ndarray | None:
    """The alignment's (output tokens x source tokens) similarities, or None without an alignment."""
    similarity = getattr(explanation, "similarity", None)
    if (
        explanation is None
        or similarity is None
        or similarity.numel() == 0
        or not explanation.candidate_spans
    ):
        return None
    return similarity.float().numpy() if hasattr(similarity, "float") else np.asarray(similarity, dtype=float)


def sentence_windows(
    out: TextFacts, ctx: TextFacts, explanation: Explanation | None
) -> SentenceWindows | None:
    """The output sentences' windows; None without an alignment, a source sentence or an output sentence."""
    matrix = similarity_matrix(explanation)
    if matrix is None or explanation is None:  # no matrix without an explanation
        return None
    out_sentence = _sentence_of(explanation.candidate_spans, out)
    ctx_sentence = _sentence_of(explanation.reference_spans, ctx)
    in_sentence = np.flatnonzero(out_sentence >= 0)
    if not np.any(ctx_sentence >= 0) or len(in_sentence) == 0:
        return None
    runs = _source_runs(ctx_sentence)
    source_sentences = runs.sentences
    span = min(WINDOW_SENTENCES, len(source_sentences))
    count = len(source_sentences) - span + 1
    # output tokens sorted by sentence; per output sentence, the sum over its tokens of their best
    # similarity in each window and in each source sentence, ``ROW_BLOCK`` tokens (whole sentences) at a
    # time: a block's reductions stay in the CPU cache, and each sum adds its rows in the same order
    rows = in_sentence[np.argsort(out_sentence[in_sentence], kind="stable")]
    out_labels = out_sentence[rows]
    out_starts = _group_starts(out_labels)
    counts = np.diff(np.r_[out_starts, len(out_labels)])[:, None]
    window_sums = np.empty((len(out_starts), count), dtype=matrix.dtype)
    sentence_sums = np.empty((len(out_starts), len(source_sentences)), dtype=matrix.dtype)
    first = 0
    while first < len(out_starts):
        low = out_starts[first]
        last = max(first + 1, int(np.searchsorted(out_starts, low + ROW_BLOCK)))
        high = out_starts[last] if last < len(out_starts) else len(rows)
        block_rows = rows[low:high]
        contiguous = block_rows[-1] - block_rows[0] + 1 == len(block_rows)
        block = matrix[block_rows[0] : block_rows[-1] + 1] if contiguous else matrix[block_rows]
        per_sentence = _best_per_source_sentence(block[:, : len(ctx_sentence)], runs)
        windows = per_sentence[:, :count].copy()
        for i in range(1, span):
            np.maximum(windows, per_sentence[:, i : count + i], out=windows)
        local_starts = out_starts[first:last] - low
        window_sums[first:last] = np.add.reduceat(windows, local_starts, axis=0)
        sentence_sums[first:last] = np.add.reduceat(per_sentence, local_starts, axis=0)
        first = last
    window_means = window_sums / counts
    sentence_means = sentence_sums / counts
    best = window_means.argmax(axis=1)
    return SentenceWindows(
        sentences=[int(s) for s in out_labels[out_starts]],
        scores=window_means.max(axis=1),
        windows=[[int(s) for s in source_sentences[b : b + span]] for b in best],
        closest=[int(source_sentences[c]) for c in sentence_means.argmax(axis=1)],
    )

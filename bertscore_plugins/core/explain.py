"""Explanations: which tokens matched worst, and with what ("Thursday -> Tuesday 0.71").

This turns a number into something a reviewer can act on; it is what a Phoenix annotation says.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from bertscore_plugins.core.token_match import TokenMatch
from bertscore_plugins.core.tokenize import TokenizedText

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_WORD_RUN = re.compile(r"\w+")


@dataclass
class Explanation:
    """Token-level view of one candidate/reference pair.

    ``candidate_matches`` / ``reference_matches`` (every token's best counterpart) are built on first
    use: most callers read only the similarity matrix or the worst few, and building a TokenMatch per
    token of a long context costs more than the matching itself.
    """

    candidate_tokens: list[str]
    reference_tokens: list[str]
    similarity: torch.Tensor  # candidate content tokens x reference content tokens
    # character span of the whole word each content token belongs to, in the stripped text: lets the
    # fact check (facts/) map its own words onto this alignment
    candidate_spans: list[tuple[int, int]] = field(default_factory=list)
    reference_spans: list[tuple[int, int]] = field(default_factory=list)
    candidate_text: str = ""  # the stripped texts those spans point into
    reference_text: str = ""
    _candidate_matches: list[TokenMatch] | None = field(default=None, repr=False)
    _reference_matches: list[TokenMatch] | None = field(default=None, repr=False)

    @property
    def candidate_matches(self) -> list[TokenMatch]:
        """Each candidate token, its best reference token and their similarity."""
        if self._candidate_matches is None:
            self._candidate_matches = _best_matches(
                self.similarity, self.candidate_tokens, self.reference_tokens
            )
        return self._candidate_matches

    @property
    def reference_matches(self) -> list[TokenMatch]:
        """Each reference token, its best candidate token and their similarity."""
        if self._reference_matches is None:
            self._reference_matches = _best_matches(
                self.similarity.T, self.reference_tokens, self.candidate_tokens
            )
        return self._reference_matches

    def worst(self, k: int = 3) -> list[TokenMatch]:
        """The k candidate words that matched worst (one entry per distinct word)."""
        seen, out = set(), []
        for match in sorted(self.candidate_matches, key=lambda m: m.similarity):
            if match.token.lower() in seen:
                continue
            seen.add(match.token.lower())
            out.append(match)
            if len(out) == k:
                break
        return out

    def summary(self, k: int = 3) -> str:
        """e.g. "Thursday -> Tuesday 0.71; patient -> patient 0.98"."""
        worst = self.worst(k)
        return "; ".join(str(match) for match in worst) if worst else "(empty text)"


def _best_matches(similarity: torch.Tensor, tokens: list[str], others: list[str]) -> list[TokenMatch]:
    if similarity.numel() == 0:
        return []
    best, index = similarity.max(dim=1)
    return [
        TokenMatch(token, others[j], value)
        for token, j, value in zip(tokens, index.tolist(), best.tolist(), strict=True)
    ]


def _word_spans(tokenized: TokenizedText) -> list[tuple[int, int]]:
    """The whole-word character span of every token (cached on the tokenized text: a context shared by
    many rows is scanned once). A piece inside a word takes the word's span; other pieces keep theirs."""
    cached: list[tuple[int, int]] | None = getattr(tokenized, "_word_spans", None)
    if cached is not None:
        return cached
    text = tokenized.text
    starts, ends = [], []
    for match in _WORD_RUN.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    spans = []
    for start, end in tokenized.offsets:
        i = bisect.bisect_right(starts, start) - 1
        if end > start and i >= 0 and start < ends[i]:
            spans.append((starts[i], ends[i]))
        else:
            spans.append((start, end))
    tokenized._word_spans = spans  # type: ignore[attr-defined]
    return spans


def _content(
    tokenized: TokenizedText, prefix: int, suffix: int
) -> tuple[slice, list[str], list[tuple[int, int]]]:
    end = len(tokenized.ids) - suffix
    spans = _word_spans(tokenized)[prefix:end]
    text = tokenized.text
    words = [text[a:b] if b > a else "?" for a, b in spans]
    return slice(prefix, end), words, spans


def explain_pair(
    candidate: TokenizedText,
    candidate_embedding: torch.Tensor,
    reference: TokenizedText,
    reference_embedding: torch.Tensor,
    prefix: int,
    suffix: int,
) -> Explanation:
    """Best match of every content token on both sides (special tokens left out of the view)."""
    cand_slice, cand_words, cand_spans = _content(candidate, prefix, suffix)
    ref_slice, ref_words, ref_spans = _content(reference, prefix, suffix)
    if candidate_embedding is None or reference_embedding is None:  # an empty side
        similarity = torch.zeros(len(cand_words), len(ref_words))
    else:
        similarity = (candidate_embedding[cand_slice] @ reference_embedding[ref_slice].T).float().cpu()
    return Explanation(
        cand_words,
        ref_words,
        similarity,
        candidate_spans=cand_spans,
        reference_spans=ref_spans,
        candidate_text=candidate.text,
        reference_text=reference.text,
    )


def plot_explanation(explanation: Explanation, title: str = "", path: str | None = None) -> Figure:
    """A token-by-token similarity heatmap (matplotlib Figure), like bert_score's plot_example.

    The Figure is built without pyplot, so matplotlib's global backend and pyplot's list of open figures
    are left alone (nothing to close; it is freed with the object). Jupyter displays it as the cell's
    value; saved to `path` when given.
    """
    from matplotlib.figure import Figure

    matrix = explanation.similarity.numpy()
    width = max(4.0, 0.45 * len(explanation.reference_tokens) + 2)
    height = max(3.0, 0.4 * len(explanation.candidate_tokens) + 1.5)
    figure = Figure(figsize=(width, height))
    axes = figure.subplots()
    image = axes.imshow(matrix, cmap="Blues", vmin=min(0.0, float(matrix.min(initial=0))), vmax=1.0)
    axes.set_xticks(
        range(len(explanation.reference_tokens)), explanation.reference_tokens, rotation=60, ha="right"
    )
    axes.set_yticks(range(len(explanation.candidate_tokens)), explanation.candidate_tokens)
    axes.set_xlabel("reference")
    axes.set_ylabel("candidate")
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            axes.text(
                j,
                i,
                f"{matrix[i, j]:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if matrix[i, j] > 0.6 else "black",
            )
    figure.colorbar(image, ax=axes, fraction=0.04)
    if title:
        axes.set_title(title)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=100)
    return figure

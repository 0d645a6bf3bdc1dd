"""Explanations: which tokens matched worst, and with what ("Thursday -> Tuesday 0.71").

This turns a number into something a reviewer can act on; it is what a Phoenix annotation says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch

from bertscore_plugins.tokenize import TokenizedText

_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class TokenMatch:
    """A token, its best counterpart on the other side, and their cosine similarity."""

    token: str
    matched_token: str
    similarity: float

    def __str__(self) -> str:
        return f"{self.token} -> {self.matched_token} {self.similarity:.2f}"


@dataclass
class Explanation:
    """Token-level view of one candidate/reference pair."""

    candidate_tokens: list[str]
    reference_tokens: list[str]
    similarity: torch.Tensor  # candidate content tokens x reference content tokens
    candidate_matches: list[TokenMatch] = field(default_factory=list)
    reference_matches: list[TokenMatch] = field(default_factory=list)

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


def _word_at(text: str, span: tuple[int, int], fallback: str) -> str:
    """The whole word around a word piece, as written in the original text."""
    start, end = span
    if end <= start:
        return fallback
    if not _WORD.match(text[start:end][:1] or " "):
        return text[start:end]
    while start > 0 and _WORD.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WORD.match(text[end]):
        end += 1
    return text[start:end]


def _content(tokenized: TokenizedText, prefix: int, suffix: int) -> tuple[slice, list[str]]:
    end = len(tokenized.ids) - suffix
    words = [_word_at(tokenized.text, span, "?") for span in tokenized.offsets[prefix:end]]
    return slice(prefix, end), words


def explain_pair(
    candidate: TokenizedText,
    candidate_embedding: torch.Tensor,
    reference: TokenizedText,
    reference_embedding: torch.Tensor,
    prefix: int,
    suffix: int,
) -> Explanation:
    """Best match of every content token on both sides (special tokens left out of the view)."""
    cand_slice, cand_words = _content(candidate, prefix, suffix)
    ref_slice, ref_words = _content(reference, prefix, suffix)
    if candidate_embedding is None or reference_embedding is None:  # an empty side
        return Explanation(cand_words, ref_words, torch.zeros(len(cand_words), len(ref_words)))
    similarity = (candidate_embedding[cand_slice] @ reference_embedding[ref_slice].T).float().cpu()
    explanation = Explanation(cand_words, ref_words, similarity)
    if similarity.numel() == 0:
        return explanation
    best_ref, best_ref_index = similarity.max(dim=1)
    best_cand, best_cand_index = similarity.max(dim=0)
    explanation.candidate_matches = [
        TokenMatch(cand_words[i], ref_words[int(best_ref_index[i])], float(best_ref[i]))
        for i in range(len(cand_words))
    ]
    explanation.reference_matches = [
        TokenMatch(ref_words[j], cand_words[int(best_cand_index[j])], float(best_cand[j]))
        for j in range(len(ref_words))
    ]
    return explanation


def plot_explanation(explanation: Explanation, title: str = "", path: str | None = None):
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
    axes.set_xticks(range(len(explanation.reference_tokens)), explanation.reference_tokens, rotation=60,
                    ha="right")
    axes.set_yticks(range(len(explanation.candidate_tokens)), explanation.candidate_tokens)
    axes.set_xlabel("reference")
    axes.set_ylabel("candidate")
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            axes.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7,
                      color="white" if matrix[i, j] > 0.6 else "black")
    figure.colorbar(image, ax=axes, fraction=0.04)
    if title:
        axes.set_title(title)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=100)
    return figure

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
    # character span of the whole word each content token belongs to, in the stripped text: lets the
    # fact check (facts/) map its own words onto this alignment
    candidate_spans: list[tuple[int, int]] = field(default_factory=list)
    reference_spans: list[tuple[int, int]] = field(default_factory=list)
    candidate_text: str = ""  # the stripped texts those spans point into
    reference_text: str = ""

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


def _word_span(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The character span of the whole word around a word piece."""
    start, end = span
    if end <= start or not _WORD.match(text[start:end][:1] or " "):
        return start, end
    while start > 0 and _WORD.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WORD.match(text[end]):
        end += 1
    return start, end


def _word_at(text: str, span: tuple[int, int], fallback: str) -> str:
    """The whole word around a word piece, as written in the original text."""
    start, end = _word_span(text, span)
    return text[start:end] if end > start else fallback


def _content(tokenized: TokenizedText, prefix: int, suffix: int) -> tuple[slice, list[str], list[tuple[int, int]]]:
    end = len(tokenized.ids) - suffix
    spans = [_word_span(tokenized.text, span) for span in tokenized.offsets[prefix:end]]
    words = [tokenized.text[a:b] if b > a else "?" for a, b in spans]
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
        return Explanation(cand_words, ref_words, torch.zeros(len(cand_words), len(ref_words)),
                           candidate_spans=cand_spans, reference_spans=ref_spans,
                           candidate_text=candidate.text, reference_text=reference.text)
    similarity = (candidate_embedding[cand_slice] @ reference_embedding[ref_slice].T).float().cpu()
    explanation = Explanation(cand_words, ref_words, similarity, candidate_spans=cand_spans,
                              reference_spans=ref_spans, candidate_text=candidate.text,
                              reference_text=reference.text)
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
    """A token-by-token similarity heatmap (matplotlib Figure), like bert_score's plot_example."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    matrix = explanation.similarity.numpy()
    width = max(4.0, 0.45 * len(explanation.reference_tokens) + 2)
    height = max(3.0, 0.4 * len(explanation.candidate_tokens) + 1.5)
    figure, axes = plt.subplots(figsize=(width, height))
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

"""What deserves one warning per scoring call, and the warnings themselves (never a print).

Empty texts, texts made only of the unknown token, truncated texts and idf fallbacks are counted while the
chunks go by and said once at the end, naming the rows; callers that score a subset of their rows rename
the rows with `row_names_in_warnings`.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence

from bertscore_plugins.core.chunks import Chunk
from bertscore_plugins.core.tokenize import TextTokenizer, TokenizedText
from bertscore_plugins.errors import BertScorePluginsWarning


class CallReport:
    """Counts what deserves one warning per call (never a print)."""

    def __init__(self) -> None:
        self.empty_candidates: list[int] = []
        self.empty_references: list[int] = []
        self.truncated: set[str] = set()
        self.idf_fallback: set[str] = set()
        self.unknown_only: set[str] = set()

    def note(self, chunk: Chunk, tokenizer: TextTokenizer) -> None:
        """Record the chunk's truncated texts, texts made only of the unknown token, and rows with an
        empty side."""
        self.truncated.update(
            text for text, tokens in zip(chunk.texts, chunk.tokens, strict=True) if tokens.truncated
        )
        unknown = tokenizer.tokenizer.unk_token_id
        if unknown is not None:
            self.unknown_only.update(
                text
                for text, tokens in zip(chunk.texts, chunk.tokens, strict=True)
                if _only_unknown(tokens, unknown, tokenizer)
            )
        empty = {text for text, tokens in zip(chunk.texts, chunk.tokens, strict=True) if tokens.is_empty}
        if not empty:
            return
        for row, candidate, group in zip(chunk.rows, chunk.candidates, chunk.references, strict=True):
            if candidate in empty:
                self.empty_candidates.append(row)
            if any(text in empty for text in group):
                self.empty_references.append(row)

    def warn(self, rescaled: bool = False) -> None:
        if self.empty_candidates or self.empty_references:
            warnings.warn(
                EmptyTextWarning.of(self.empty_candidates, self.empty_references, rescaled), stacklevel=4
            )
        if self.unknown_only:
            warnings.warn(
                f"{len(self.unknown_only)} text(s) are made only of the model's unknown token (e.g. a script its "
                "vocabulary lacks); they are scored as bert_score does, by that token's embedding, so two such "
                "texts score about 1.0 against each other whatever they say. Use a model whose vocabulary "
                "covers them",
                UnknownTokenWarning,
                stacklevel=4,
            )
        if self.truncated:
            warnings.warn(
                f"{len(self.truncated)} text(s) longer than the model window were truncated; "
                "set long_text='window' to score every token",
                TruncationWarning,
                stacklevel=4,
            )
        if self.idf_fallback:
            warnings.warn(
                f"{len(self.idf_fallback)} text(s) got zero idf weight on every token (their tokens occur in "
                "every idf document, e.g. identical references); they were scored with uniform weights",
                IdfFallbackWarning,
                stacklevel=4,
            )


class EmptyTextWarning(BertScorePluginsWarning):
    """Empty or whitespace-only texts scored 0.

    ``candidate_rows`` / ``reference_rows`` are the rows, as positions in the call's inputs, or as the
    caller's own row names once :func:`row_names_in_warnings` has renamed them."""

    def __init__(
        self,
        message: str,
        candidate_rows: Sequence[int | str] = (),
        reference_rows: Sequence[int | str] = (),
        rescaled: bool = False,
    ):
        super().__init__(message)
        self.candidate_rows, self.reference_rows, self.rescaled = (
            tuple(candidate_rows),
            tuple(reference_rows),
            rescaled,
        )

    @classmethod
    def of(
        cls, candidate_rows: Sequence[int | str], reference_rows: Sequence[int | str], rescaled: bool = False
    ) -> EmptyTextWarning:
        # bert_score's convention: the raw score is 0 and is rescaled like any other, so that an empty
        # pair still ranks below every real match; the message says which number the user gets
        value = "0 before rescaling, i.e. (0 - b) / (1 - b) with the baseline b," if rescaled else "0"
        return cls(
            f"{len(candidate_rows)} empty candidate(s) and {len(reference_rows)} row(s) with an "
            f"empty reference scored {value} for precision, recall and F1 against that reference "
            f"(candidate rows {rows_text(candidate_rows)}; reference rows {rows_text(reference_rows)})",
            candidate_rows,
            reference_rows,
            rescaled,
        )


@contextlib.contextmanager
def row_names_in_warnings(row_names: Sequence[int | str]) -> Iterator[None]:
    """Within the block, the rows an :class:`EmptyTextWarning` names are ``row_names[position]``.

    For callers that score a subset or a batch of their rows (a DataFrame without its failed rows, one
    ``map()`` batch, a page of spans), so the warning names the user's row, never a shifted position.
    Other warnings pass through unchanged."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            caught = recorded
            yield
    finally:  # re-emitted outside the recording, also when the block raises
        for record in caught:
            found = record.message
            if isinstance(found, EmptyTextWarning):
                found = EmptyTextWarning.of(
                    [row_names[int(row)] for row in found.candidate_rows],  # the scorer's positions
                    [row_names[int(row)] for row in found.reference_rows],
                    found.rescaled,
                )
            warnings.warn_explicit(
                found, record.category, record.filename, record.lineno, source=record.source
            )


class UnknownTokenWarning(BertScorePluginsWarning):
    """Texts made only of the unknown token were scored (their scores say nothing about their content)."""


def _only_unknown(tokens: TokenizedText, unknown: int, tokenizer: TextTokenizer) -> bool:
    content = tokens.ids[len(tokenizer.prefix_ids) : len(tokens.ids) - len(tokenizer.suffix_ids)]
    return bool(content) and all(token_id == unknown for token_id in content)


class TruncationWarning(BertScorePluginsWarning):
    """Texts longer than the model window were truncated."""


class IdfFallbackWarning(BertScorePluginsWarning):
    """idf gave a text zero total weight; uniform weights were used."""


def rows_text(rows: Sequence[int | str], limit: int = 10) -> str:
    if not rows:
        return "none"
    shown = ", ".join(str(row) for row in rows[:limit])
    return shown + (f", ... ({len(rows)} in all)" if len(rows) > limit else "")

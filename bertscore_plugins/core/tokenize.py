"""Text -> token ids, in batches, with bert_score's exact conventions and an explicit long-text policy.

bert_score strips each text, adds the model's special tokens, gives byte-level BPE models (GPT-2,
RoBERTa) a prefix space, and silently truncates at the model's limit. Here truncation is counted and
reported, or replaced by overlapping windows so every token takes part.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bertscore_plugins.errors import ArgumentError

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PretrainedConfig, PreTrainedTokenizerBase

#: model_max_length values above this are "no limit" sentinels (e.g. 1e30 on DeBERTa)
_SENTINEL_LENGTH = 1_000_000


@dataclass
class TokenizedText:
    """One text's token ids (special tokens included) and where each token came from."""

    ids: list[int]
    offsets: list[tuple[int, int]]  # character spans in the stripped text; (0, 0) for special tokens
    text: str  # the stripped text the offsets point into
    content_length: int  # content tokens before any truncation
    truncated: bool

    @property
    def is_empty(self) -> bool:
        return self.content_length == 0


class TextTokenizer:
    """Wraps a Hugging Face tokenizer: batched, fast, no hidden truncation or padding."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        max_length: int | None = None,
        model_config: PretrainedConfig | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self._backend = _private_backend(tokenizer)
        self.prefix_ids, self.suffix_ids = _special_template(tokenizer, self._backend)
        self.add_prefix_space = _is_byte_level(self._backend)
        self.max_length = max_length or model_limit(tokenizer, model_config)
        self.max_content = self.max_length - len(self.prefix_ids) - len(self.suffix_ids)
        if self.max_content < 1:
            raise ArgumentError(
                f"max_length={self.max_length} leaves no room for text between special tokens"
            )
        # bert_score gives these ids weight 0 when idf is off
        self.zero_weight_ids = {
            token_id for token_id in (tokenizer.cls_token_id, tokenizer.sep_token_id) if token_id is not None
        }

    def content(self, texts: Sequence[str]) -> list[tuple[list[int], list[tuple[int, int]], str]]:
        """Content token ids and offsets (no special tokens, no truncation) of stripped texts."""
        stripped = [text.strip() for text in texts]
        shift = 1 if self.add_prefix_space else 0
        inputs = [" " + text if shift else text for text in stripped]
        if self._backend is not None:
            encodings = self._backend.encode_batch(inputs, add_special_tokens=False)
            results = []
            for encoding, text in zip(encodings, stripped, strict=True):
                offsets = encoding.offsets
                if shift:
                    offsets = [(max(start - shift, 0), max(end - shift, 0)) for start, end in offsets]
                results.append((encoding.ids, offsets, text))
            return results
        # slow tokenizers only: no offsets available
        results = []
        for text, model_input in zip(stripped, inputs, strict=True):
            ids = self.tokenizer.encode(model_input, add_special_tokens=False) if text else []
            results.append((ids, [(0, 0)] * len(ids), text))
        return results

    def encode(self, texts: Sequence[str], truncate: bool = True) -> list[TokenizedText]:
        """Full sequences with special tokens; truncated to max_length when `truncate`."""
        out = []
        for ids, offsets, text in self.content(texts):
            content_length = len(ids)
            truncated = truncate and content_length > self.max_content
            if truncated:
                ids, offsets = ids[: self.max_content], offsets[: self.max_content]
            out.append(
                TokenizedText(
                    ids=self.prefix_ids + ids + self.suffix_ids,
                    offsets=[(0, 0)] * len(self.prefix_ids) + offsets + [(0, 0)] * len(self.suffix_ids),
                    text=text,
                    content_length=content_length,
                    truncated=truncated,
                )
            )
        return out

    def tokens(self, ids: Sequence[int]) -> list[str]:
        tokens: list[str] = self.tokenizer.convert_ids_to_tokens(list(ids))
        return tokens

    def windows(self, content_length: int, stride: int | None) -> list[tuple[int, int]]:
        """Overlapping [start, end) content windows covering every token."""
        return content_windows(content_length, self.max_content, stride)


def content_windows(content_length: int, size: int, stride: int | None) -> list[tuple[int, int]]:
    """Overlapping [start, end) windows of at most `size` tokens covering `content_length` tokens.

    Windows start every `stride` tokens (None: 7/8 of a window, so neighbours overlap by 1/8); the last
    one ends at the last token.
    """
    step = stride or max(size - size // 8, 1)
    step = min(step, size)
    starts = list(range(0, max(content_length - size, 0) + 1, step))
    if starts[-1] + size < content_length:
        starts.append(content_length - size)
    return [(start, min(start + size, content_length)) for start in starts]


def model_limit(tokenizer: PreTrainedTokenizerBase, model_config: PretrainedConfig | None = None) -> int:
    """The real maximum sequence length, capping "no limit" sentinels at the position embeddings."""
    limit = getattr(tokenizer, "model_max_length", None)
    if limit is None or limit > _SENTINEL_LENGTH:
        return position_limit(model_config) or 512
    return int(limit)


def position_limit(model_config: PretrainedConfig | None) -> int | None:
    """Tokens the model's position embeddings can index, or None when it has none (relative positions)."""
    positions = getattr(model_config, "max_position_embeddings", None) if model_config else None
    if not positions:
        return None
    # RoBERTa-style models reserve padding_idx + 1 positions
    offset = (
        (getattr(model_config, "pad_token_id", 0) or 0) + 1
        if "roberta" in str(getattr(model_config, "model_type", ""))
        else 0
    )
    return int(positions) - offset


def _private_backend(tokenizer: PreTrainedTokenizerBase) -> Tokenizer | None:
    """A private copy of the Rust tokenizer with truncation and padding off.

    Some tokenizer.json files (e.g. sentence-transformers exports) switch on truncation at 128 and
    fixed padding; encoding through them would silently cut texts.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    private = Tokenizer.from_str(backend.to_str())
    private.no_truncation()
    private.no_padding()
    return private


def _special_template(
    tokenizer: PreTrainedTokenizerBase, backend: Tokenizer | None
) -> tuple[list[int], list[int]]:
    """The special tokens a model puts before and after a text (e.g. [CLS] ... [SEP])."""
    probe = "hello"
    if backend is not None:
        with_specials = backend.encode(probe, add_special_tokens=True).ids
        without = backend.encode(probe, add_special_tokens=False).ids
    else:
        with_specials = tokenizer.encode(probe, add_special_tokens=True)
        without = tokenizer.encode(probe, add_special_tokens=False)
    for start in range(len(with_specials) - len(without) + 1):
        if with_specials[start : start + len(without)] == without:
            return list(with_specials[:start]), list(with_specials[start + len(without) :])
    return [], []


def _is_byte_level(backend: Tokenizer | None) -> bool:
    """Byte-level BPE (GPT-2/RoBERTa): bert_score encodes these with a prefix space."""
    if backend is None:
        return False
    return "ByteLevel" in json.dumps(json.loads(backend.to_str()).get("pre_tokenizer"))

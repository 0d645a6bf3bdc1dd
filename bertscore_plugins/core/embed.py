"""Token ids -> L2-normalised contextual embeddings, batched by a token budget.

Texts are sorted by token count so each batch pads little, and a batch holds as many texts as fit in
`batch_tokens` padded positions. Long texts in "window" mode are cut into overlapping windows; each
token keeps the embedding from the window where it sits most centrally.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
import torch

from bertscore_plugins.core.tokenize import TextTokenizer, TokenizedText
from bertscore_plugins.models.load import LoadedModel

#: the fixed cost of one encoder batch in padded positions, as a fraction of the token budget.
#: CPU: measured 35-58 positions of MiniLM per batch (4,096 budget: 1/64). GPUs are launch-
#: bound: ~1,000 positions per batch on an H200 (phoenix_batch.py timings; 16,384 budget: 1/16)
BATCH_COST = {"cpu": 1 / 64, "other": 1 / 16}


def plan_batches(lengths: Sequence[int], batch_tokens: int, overhead: float) -> list[tuple[int, int]]:
    """Cut lengths (sorted longest first) into [first, last) batches of at most `batch_tokens` padded
    positions (a longer text goes alone), minimising padded positions plus `overhead` per batch.

    Small calls (e.g. 256 rows from `datasets.map`) have few texts of each length: a fixed padding rule
    either pads a lot or makes many tiny batches; this plan weighs the two. An exact dynamic programme
    over the sorted lengths: cost(i..j) = overhead + (j - i) * lengths[i].
    """
    count = len(lengths)
    best = np.zeros(count + 1)
    cut = np.zeros(count, dtype=np.int64)
    for first in range(count - 1, -1, -1):
        longest = lengths[first]
        most = min(max(1, batch_tokens // max(longest, 1)), count - first)
        sizes = np.arange(1, most + 1)
        totals = overhead + sizes * longest + best[first + 1 : first + most + 1]
        choice = int(np.argmin(totals))
        best[first], cut[first] = totals[choice], first + choice + 1
    plan, first = [], 0
    while first < count:
        plan.append((first, int(cut[first])))
        first = int(cut[first])
    return plan


def owned_spans(windows: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The [start, end) content tokens each window supplies when stitching overlapping windows.

    Each window owns the tokens up to the middle of its overlap with the next one, so every token keeps
    the embedding from the window where it has the most context on both sides.
    """
    spans, owned_from = [], 0
    for position, (_, end) in enumerate(windows):
        owned_to = end if position == len(windows) - 1 else (windows[position + 1][0] + end) // 2
        spans.append((owned_from, owned_to))
        owned_from = owned_to
    return spans


class Embedder:
    """Runs the (truncated) encoder over token sequences."""

    def __init__(
        self,
        model: LoadedModel,
        tokenizer: TextTokenizer,
        batch_tokens: int | None,
        window_stride: int | None = None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        # CPU float32: a 4k-token budget keeps activations in cache (1.4x faster than 16k, speed.py);
        # CPU bfloat16 runs on AMX tiles, which want tall matrices (16k: 1.25x faster than 4k);
        # GPUs want big batches
        cpu_fp32 = model.device.type == "cpu" and model.dtype == "float32"
        self.batch_tokens = batch_tokens or (4096 if cpu_fp32 else 16384)
        self.window_stride = window_stride
        pad = model.tokenizer.pad_token_id
        self.pad_id = 0 if pad is None else pad

    def embed(
        self,
        texts: Sequence[TokenizedText],
        layers: Sequence[int],
        on_batch: Callable[[int], None] | None = None,
    ) -> list[torch.Tensor]:
        """One (layers, tokens, hidden) float32 tensor per text from one forward pass, unit-norm rows, on
        the model's device (`layers`: hidden-state indices, 0 = the embedding layer)."""
        sequences: list[list[int]] = []
        # per text: its sequence index, or its windows as (sequence, start, end)
        plans: list[int | list[tuple[int, int, int]]] = []
        for text in texts:
            content = len(text.ids) - len(self.tokenizer.prefix_ids) - len(self.tokenizer.suffix_ids)
            if content <= self.tokenizer.max_content:
                plans.append(len(sequences))
                sequences.append(text.ids)
                continue
            prefix, suffix = self.tokenizer.prefix_ids, self.tokenizer.suffix_ids
            body = text.ids[len(prefix) : len(text.ids) - len(suffix)]
            windows = []
            for start, end in self.tokenizer.windows(len(body), self.window_stride):
                windows.append((len(sequences), start, end))
                sequences.append(prefix + body[start:end] + suffix)
            plans.append(windows)

        outputs = self._run(sequences, list(layers), on_batch)
        return [outputs[plan] if isinstance(plan, int) else self._stitch(plan, outputs) for plan in plans]

    def _run(
        self, sequences: list[list[int]], layers: list[int], on_batch: Callable[[int], None] | None
    ) -> list[torch.Tensor]:
        order = sorted(range(len(sequences)), key=lambda index: len(sequences[index]), reverse=True)
        results: list[torch.Tensor | None] = [None] * len(sequences)
        device = self.model.device
        # every text's rows go into one buffer, in batch order: a single large block returned whole
        # when the chunk ends (views into padded batches kept every batch alive and fragmented the
        # heap: 32k-pair runs peaked 1.2x higher than 2k-pair runs), filled by one copy per batch
        total = sum(len(sequence) for sequence in sequences)
        store: torch.Tensor | None = None
        filled = 0
        for first, last in self._plan_batches([len(sequences[index]) for index in order]):
            batch = order[first:last]
            longest = len(sequences[batch[0]])
            lengths = np.array([len(sequences[index]) for index in batch])
            real = np.arange(longest)[None, :] < lengths[:, None]  # (texts, longest) real-token mask
            input_ids = np.full((len(batch), longest), self.pad_id, dtype=np.int64)
            input_ids[real] = np.fromiter(
                itertools.chain.from_iterable(sequences[index] for index in batch),
                np.int64,
                int(lengths.sum()),
            )
            mask = torch.from_numpy(real).to(device)
            hidden = self._forward(torch.from_numpy(input_ids).to(device), mask.long(), layers)
            packed = hidden[:, mask, :].float()  # (layers, real tokens, hidden), batch order
            packed = packed / packed.norm(dim=-1, keepdim=True)
            if store is None:
                store = packed.new_empty((len(layers), total, packed.shape[-1]))
            store[:, filled : filled + packed.shape[1], :] = packed
            for index, length in zip(batch, lengths.tolist(), strict=True):
                results[index] = store[:, filled : filled + length, :]
                filled += length
            del hidden, packed
            if on_batch is not None:
                on_batch(len(batch))
        return cast("list[torch.Tensor]", results)  # every index was filled above

    def _plan_batches(self, lengths: list[int]) -> list[tuple[int, int]]:
        overhead = self.batch_tokens * BATCH_COST["cpu" if self.model.device.type == "cpu" else "other"]
        return plan_batches(lengths, self.batch_tokens, overhead)

    def _forward(self, input_ids: torch.Tensor, attention: torch.Tensor, layers: list[int]) -> torch.Tensor:
        """(layers, texts, tokens, hidden) hidden states."""
        encoder = self.model.encoder
        with torch.inference_mode():
            if layers == [self.model.layer] and not self.model.uses_hidden_states:
                # the encoder is truncated at that layer: its output is the layer, and keeping no other
                # hidden states saves their memory
                hidden: torch.Tensor = encoder(input_ids=input_ids, attention_mask=attention)[0][None]
                return hidden
            out = encoder(input_ids=input_ids, attention_mask=attention, output_hidden_states=True)
            return torch.stack([out.hidden_states[layer] for layer in layers])

    def _stitch(self, plan: list[tuple[int, int, int]], outputs: list[torch.Tensor]) -> torch.Tensor:
        prefix, suffix = len(self.tokenizer.prefix_ids), len(self.tokenizer.suffix_ids)
        rows = [outputs[plan[0][0]][..., :prefix, :]]
        spans = owned_spans([(start, end) for _, start, end in plan])
        for (sequence, start, _), (owned_from, owned_to) in zip(plan, spans, strict=True):
            rows.append(outputs[sequence][..., prefix + owned_from - start : prefix + owned_to - start, :])
        last = outputs[plan[-1][0]]
        tokens = last.shape[-2]
        rows.append(last[..., tokens - suffix :, :] if suffix else last[..., :0, :])
        return torch.cat(rows, dim=-2)

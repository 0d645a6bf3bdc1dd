"""What the local judge does with the next-token log probabilities: write an answer, or choose a label.

Engine-agnostic: an engine has ``next_logprobs(tokens)`` (a vector over the vocabulary), ``piece(token)``,
``encode_piece(text)`` and ``end_ids``. Both functions run under the engine's lock.

- :func:`generate` writes up to ``max_tokens`` tokens: the most likely one each time at temperature 0,
  else sampled (``top_p``, ``seed``), stopping at the end of the turn or a stop string;
- :func:`label_logprobs` scores each allowed label as the answer: the sum of its tokens' log
  probabilities after the prompt (how structured output and tool calls are served: the label the model
  finds most likely, never free text that may not be one of them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bertscore_plugins.json_types import JSONObject

if TYPE_CHECKING:
    import random

    import torch


class Engine(Protocol):
    """What decoding needs of an engine (:class:`~.engine.GemmaEngine` is one)."""

    end_ids: set[int]

    def next_logprobs(self, tokens: Sequence[int]) -> torch.Tensor:
        """log p(next token | tokens) over the vocabulary (a torch vector)."""
        ...

    def piece(self, token: int) -> str: ...

    def encode_piece(self, text: str) -> list[int]: ...


@dataclass
class Written:
    """The answer written: its text, each token's log probability and alternatives, why it stopped."""

    text: str = ""
    pieces: list[JSONObject] = field(default_factory=list)
    finish_reason: str = "length"


def _top(values: torch.Tensor, count: int) -> list[int]:
    """The ``count`` likeliest token ids, likeliest first (``values``: a torch vector)."""
    return [int(i) for i in values.topk(count).indices] if count > 0 else []


def generate(
    engine: Engine,
    tokens: Sequence[int],
    *,
    max_tokens: int,
    top_logprobs: int = 0,
    temperature: float = 0.0,
    top_p: float = 1.0,
    seed: int | None = None,
    stop: Sequence[str] = (),
) -> Written:
    """Write the answer that follows ``tokens`` (see the module's docstring)."""
    import random

    rng = random.Random(seed)
    written, produced = Written(), list(tokens)
    for _ in range(max_tokens):
        values = engine.next_logprobs(produced)
        token = int(values.argmax()) if temperature <= 0.0 else _sample(values, temperature, top_p, rng)
        if token in engine.end_ids:
            written.finish_reason = "stop"
            break
        piece = engine.piece(token)
        written.pieces.append(
            {
                "token": piece,
                "logprob": float(values[token]),
                "bytes": list(piece.encode("utf-8")),
                "top_logprobs": [
                    {
                        "token": engine.piece(i),
                        "logprob": float(values[i]),
                        "bytes": list(engine.piece(i).encode()),
                    }
                    for i in _top(values, top_logprobs)
                ],
            }
        )
        written.text += piece
        produced.append(token)
        cut = min((written.text.find(s) for s in stop if s in written.text), default=-1)
        if cut >= 0:
            written.text, written.finish_reason = written.text[:cut], "stop"
            break
    return written


def _sample(values: torch.Tensor, temperature: float, top_p: float, rng: random.Random) -> int:
    order = _top(values, 1000)  # beyond the 1,000 likeliest tokens the mass is negligible for sampling
    peak = float(values[order[0]])
    # the distance to the likeliest, then divided: at a tiny temperature (1e-300) the quotient is -inf
    # (weight 0) or 0 (the likeliest, weight 1), never inf - inf = NaN
    weights = [math.exp((float(values[i]) - peak) / temperature) for i in order]
    total, kept, mass = sum(weights), [], 0.0
    for index, weight in zip(order, weights, strict=True):
        kept.append((index, weight))
        mass += weight / total
        if mass >= top_p:
            break
    return int(rng.choices([i for i, _ in kept], weights=[w for _, w in kept])[0])


def label_logprobs(engine: Engine, tokens: Sequence[int], labels: Sequence[str]) -> list[float]:
    """log p(label | prompt) for each label: its tokens' log probabilities, summed."""
    scores = []
    for label in labels:
        ids = engine.encode_piece(label)
        total, context = 0.0, list(tokens)
        for token in ids:
            total += float(engine.next_logprobs(context)[token])
            context.append(token)
        scores.append(total)
    return scores


def label_probabilities(logprobs: Sequence[float]) -> list[float]:
    """The labels' log probabilities normalised over the labels (they sum to 1)."""
    peak = max(logprobs)
    weights = [math.exp(v - peak) for v in logprobs]
    total = sum(weights)
    return [w / total for w in weights]

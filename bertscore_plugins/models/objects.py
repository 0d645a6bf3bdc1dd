"""Model objects as a `model` setting: a `PreTrainedModel` with its tokenizer, or a SentenceTransformer.

Settings are plain values (hashable, picklable, part of cache keys), so an object is registered here and
the setting holds its key, e.g. ``in-memory:BertModel(my-finetune)#1``. That key is also what the
signature records: the weights of an object in memory are not hashed, so no digest is claimed.
The registry keeps the objects alive for the process (as the model cache does for loaded models).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from bertscore_plugins.errors import ArgumentError, ArgumentTypeError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase

    #: an in-memory model: its encoder and its (fast) tokenizer
    ModelObjects = tuple[torch.nn.Module, PreTrainedTokenizerBase]

PREFIX = "in-memory:"

_OBJECTS: dict[str, ModelObjects] = {}
_KEYS: dict[int, str] = {}
_LOCK = threading.Lock()


def is_in_memory(model: object) -> bool:
    return isinstance(model, str) and model.startswith(PREFIX)


def is_model_object(value: object) -> bool:
    """A SentenceTransformer, or a (model, tokenizer) pair whose model is a torch module."""
    if _sentence_transformer_parts(value) is not None:
        return True
    if isinstance(value, tuple) and len(value) == 2:
        import torch

        return isinstance(value[0], torch.nn.Module)
    return False


def _sentence_transformer_parts(
    value: Any,
) -> ModelObjects | None:  # duck-typed: sentence-transformers is optional
    first = value[0] if type(value).__name__ == "SentenceTransformer" and len(value) else None
    encoder = getattr(first, "auto_model", None)
    tokenizer = getattr(first, "tokenizer", None) or getattr(value, "tokenizer", None)
    return (encoder, tokenizer) if encoder is not None and tokenizer is not None else None


def register(value: object) -> str:
    """The setting string for a model object (the same key each time for the same object)."""
    parts = _sentence_transformer_parts(value)
    if parts is None:
        if not (isinstance(value, tuple) and len(value) == 2):
            raise ArgumentTypeError(
                'model must be a string ("default", a preset, a hub id or a folder), a SentenceTransformer, '
                f"or a (PreTrainedModel, tokenizer) pair; got {type(value).__name__}"
            )
        parts = value
    encoder, tokenizer = parts
    if not getattr(tokenizer, "is_fast", False):
        raise ArgumentTypeError(
            f"the tokenizer must be a fast (Rust) Hugging Face tokenizer, got {type(tokenizer).__name__}"
        )
    with _LOCK:
        key = _KEYS.get(id(encoder))
        if key is None or _OBJECTS[key][1] is not tokenizer:
            origin = getattr(getattr(encoder, "config", None), "name_or_path", "") or "unnamed"
            key = f"{PREFIX}{type(encoder).__name__}({origin})#{len(_OBJECTS) + 1}"
            _OBJECTS[key] = (encoder, tokenizer)
            _KEYS[id(encoder)] = key
        return key


def describe(key: str) -> tuple[str, str, ModelObjects]:
    """(display name, signature identity, (encoder, tokenizer)) of a registered object."""
    try:
        objects = _OBJECTS[key]
    except KeyError:
        raise ArgumentError(
            f"model {key!r} was an object in another process's memory; objects cannot travel between "
            "processes: save it (save_pretrained) and pass the folder instead"
        ) from None
    name = key[len(PREFIX) :]
    return name, key, objects

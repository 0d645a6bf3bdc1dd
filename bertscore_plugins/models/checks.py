"""Checks that a loaded model is the model its folder describes, so a broken folder is refused by name
instead of scoring with a made-up tokenizer or randomly initialised layers.

- Tokenizer: transformers builds a tokenizer from tokenizer_config.json alone when the vocabulary files
  are missing (a 5-token vocabulary: every word is the unknown token and unrelated sentences score 0.997),
  so a local folder must hold at least one of the files its tokenizer class reads its vocabulary from.
  A vocabulary (its added tokens counted) larger than the model's embedding table would index past it
  mid-score.
- Tensors: loading reports the checkpoint's missing, unexpected and shape-mismatched tensors, and
  transformers fills the missing and mismatched ones with random values. Which of them matter is decided
  by what the forward pass at the chosen layer runs (see `TensorReport.of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from bertscore_plugins.errors import ModelLoadError
from bertscore_plugins.models.layers import find_layer_list

if TYPE_CHECKING:
    from transformers import PretrainedConfig, PreTrainedTokenizerBase

#: how many tensor names a message lists before "... (N in all)"
_SHOWN = 5


def check_tokenizer(
    tokenizer: PreTrainedTokenizerBase, location: str, model_config: PretrainedConfig
) -> None:
    """Raise ModelLoadError when `tokenizer` was not built from vocabulary files in the folder
    `location`, or when its vocabulary has ids beyond the model's embedding table."""
    folder = Path(location)
    expected = sorted(set(getattr(tokenizer, "vocab_files_names", {}).values()))
    if folder.is_dir() and expected and not any((folder / name).is_file() for name in expected):
        raise ModelLoadError(
            f"model folder {folder} has no tokenizer files: expected {' or '.join(expected)} "
            f"(for its {type(tokenizer).__name__}). Without them transformers builds a tokenizer that knows "
            "almost no words; copy the tokenizer files of this model into the folder"
        )
    embeddings = getattr(model_config, "vocab_size", None)
    # len() counts the added tokens too (vocab_size does not): a special token renamed in
    # tokenizer_config.json is added past the vocabulary, and padding with it indexes past the table
    vocabulary = len(tokenizer)
    if isinstance(embeddings, int) and vocabulary > embeddings:
        raise ModelLoadError(
            f"the tokenizer of model {location!r} has {vocabulary} tokens but the model's config.json has "
            f"vocab_size {embeddings}: the tokenizer files and config.json do not belong together (from "
            "different models, or a token added or renamed in tokenizer_config.json)"
        )


def weight_files(location: str) -> str:
    """The weight files of a local folder (comma-separated), else the location itself (a hub id)."""
    folder = Path(location)
    files = (sorted(folder.glob("*.safetensors")) or sorted(folder.glob("*.bin"))) if folder.is_dir() else []
    return ", ".join(str(path) for path in files) or location


@dataclass(frozen=True)
class TensorReport:
    """The checkpoint's problems that can reach a score, each with the layer that uses it (None: used at
    every layer, e.g. the embeddings or a final norm)."""

    missing: tuple[tuple[str, int | None], ...] = ()
    mismatched: tuple[tuple[str, tuple[int, ...], tuple[int, ...], int | None], ...] = ()
    unexpected: tuple[str, ...] = ()

    @classmethod
    def of(cls, model: torch.nn.Module, kept: torch.nn.Module, info: dict[str, Any]) -> TensorReport:
        """The problems in transformers' loading `info` for `model`, of which the module `kept` is scored.

        Left out, because no score can depend on them: buffers (position ids and the like are computed at
        construction, never random); the pooler (its output is not used); anything outside `kept` (an
        encoder-decoder's decoder); unexpected tensors outside the model's own modules (a masked-LM or
        classification head saved with the checkpoint). A missing or mismatched tensor of layer k only
        matters when scoring at a layer above k, so that is decided in `check`. An unexpected tensor inside
        the model's modules (an extra layer, a renamed weight) means config.json and the weights disagree,
        whatever the layer.
        """
        where = _Places(model, kept)
        missing = tuple(
            (key, where.layer(key)) for key in sorted(info.get("missing_keys") or ()) if where.used(key)
        )
        mismatched = tuple(
            (key, tuple(found), tuple(wanted), where.layer(key))
            for key, found, wanted in sorted(info.get("mismatched_keys") or (), key=lambda item: item[0])
            if where.used(key)
        )
        unexpected = tuple(key for key in sorted(info.get("unexpected_keys") or ()) if where.inside(key))
        return cls(missing, mismatched, unexpected)

    def check(self, layer: int, location: str) -> None:
        """Raise ModelLoadError naming the weight files and tensors when a problem reaches `layer`."""
        reached = [(key, at) for key, at in self.missing if at is None or at < layer]
        shapes = [
            (key, found, wanted) for key, found, wanted, at in self.mismatched if at is None or at < layer
        ]
        problems = []
        if shapes:
            problems.append(
                "tensors with other shapes than config.json gives: "
                + _listed(
                    f"{key} is {list(found)} in the file, {list(wanted)} in the model"
                    for key, found, wanted in shapes
                )
            )
        if reached:
            problems.append(
                f"tensors the encoder uses up to layer {layer} are missing (they would be randomly "
                f"initialised): {_listed(key for key, _ in reached)}"
            )
        if self.unexpected:
            problems.append(
                f"tensors with no place in the model config.json describes: {_listed(self.unexpected)}"
            )
        if problems:
            raise ModelLoadError(
                f"the weights of model {location!r} ({weight_files(location)}) do not fit its config.json: "
                + "; ".join(problems)
                + ". Check that config.json belongs to these weights and that the weight files are complete"
            )


class _Places:
    """Where a tensor name lives in a loaded model: used by the scored module or not, and in which layer."""

    def __init__(self, model: torch.nn.Module, kept: torch.nn.Module) -> None:
        self.model = model
        self.buffers = {name for name, _ in model.named_buffers()}
        pooler = getattr(kept, "pooler", None)
        unused = list(pooler.modules()) if isinstance(pooler, torch.nn.Module) else []
        self.unused_modules = {id(module) for module in unused}
        self.kept_modules = {id(module) for module in kept.modules()} - self.unused_modules
        self.unused_parameters = {id(p) for module in unused for p in module.parameters()}
        self.kept_parameters = {id(p) for p in kept.parameters()} - self.unused_parameters
        found = find_layer_list(kept)
        self.layers = (
            {id(p): index for index, block in enumerate(found[2]) for p in block.parameters()}
            if found
            else {}
        )

    def _parameter(self, key: str) -> torch.nn.Parameter | None:
        try:
            return self.model.get_parameter(key)
        except AttributeError:
            return None

    def used(self, key: str) -> bool:
        if key in self.buffers:
            return False
        parameter = self._parameter(key)
        return parameter is None or id(parameter) in self.kept_parameters  # unknown: assume it matters

    def layer(self, key: str) -> int | None:
        parameter = self._parameter(key)
        return self.layers.get(id(parameter)) if parameter is not None else None

    def inside(self, key: str) -> bool:
        """An unexpected tensor under one of the scored module's own submodules (not its root)."""
        if key in self.buffers:
            return False
        parts = key.split(".")
        for end in range(len(parts) - 1, 0, -1):
            try:
                module = self.model.get_submodule(".".join(parts[:end]))
            except AttributeError:
                continue
            return id(module) in self.kept_modules and module is not self.model
        return False


def _listed(names: Iterable[str]) -> str:
    names = list(names)
    shown = ", ".join(names[:_SHOWN])
    return shown + (f", ... ({len(names)} in all)" if len(names) > _SHOWN else "")

"""The encoder's layer stack: found by attribute path, cut at the chosen layer, optionally quantized.

Only the layers up to the chosen one are kept, so the forward pass does no unused work. Truncating the
layer list (instead of reading hidden_states[k]) is what makes models with a final norm (T5, mBART) match
bert_score.
"""

from __future__ import annotations

import copy
import re
import warnings
from typing import NamedTuple

import torch

from bertscore_plugins.errors import BertScorePluginsWarning, SettingError
from bertscore_plugins.models.resolve import ModelSource


class DefaultLayerWarning(BertScorePluginsWarning):
    """A model missing from the default-layer table is read at its last layer."""


# Layer lists that bert_score truncates, by attribute path
_LAYER_LISTS = (
    "encoder.layer",
    "transformer.layer",
    "encoder.block",
    "block",  # T5's encoder stack itself (what get_encoder() returns)
    "encoder.layers",
    "layers",
    "layer",
)

#: encoders whose output passes a final norm: hidden_states[k] != the k-layer truncated model's output
FINAL_NORM_MODELS = frozenset({"t5", "mt5", "umt5", "mbart", "pegasus", "led"})


class Truncated(NamedTuple):
    """An encoder cut at `layer` of its `num_layers`; `uses_hidden_states` when no layer list was found."""

    encoder: torch.nn.Module
    layer: int
    num_layers: int
    uses_hidden_states: bool


def find_layer_list(encoder: torch.nn.Module) -> tuple[torch.nn.Module, str, torch.nn.ModuleList] | None:
    """(owner module, attribute, layer list) of the encoder's layer stack, or None."""
    for path in _LAYER_LISTS:
        found = _layer_list_at(encoder, path)
        if found is not None:
            return found
    return None


def _layer_list_at(
    encoder: torch.nn.Module, path: str
) -> tuple[torch.nn.Module, str, torch.nn.ModuleList] | None:
    parent, _, attribute = path.rpartition(".")
    try:
        owner = encoder.get_submodule(parent) if parent else encoder
    except AttributeError:  # no such module in this architecture (e.g. DistilBERT has no `encoder`)
        return None
    layers = getattr(owner, attribute, None)
    return (owner, attribute, layers) if isinstance(layers, torch.nn.ModuleList) and len(layers) > 0 else None


def choose_layer(source: ModelSource, requested: int | None, num_layers: int) -> int:
    """The one decision of the layer a configuration scores with: the requested one (checked against
    the model's depth), else the model's tuned layer (bert_score's table, a preset's), else its last
    layer with a warning. Made where the model's depth is known: the loader, which keeps only the
    layers up to this one."""
    if requested is None:
        requested = source.default_layer
        if requested is None:
            warnings.warn(
                f"model {source.name!r} is not in the default-layer table; using its last layer "
                f"({num_layers}). Pass layer=... to choose (bert_score tunes it on WMT16)",
                DefaultLayerWarning,
                stacklevel=4,
            )
            return num_layers
    if requested > num_layers:
        raise SettingError(
            "layer", f"layer must be between 0 and {num_layers} for model {source.name!r}, got {requested}"
        )
    return requested


def truncate(
    encoder: torch.nn.Module, source: ModelSource, requested: int | None, *, shared: bool
) -> Truncated:
    """`encoder` keeping only the layers up to the chosen one: cut in place, or, for a model object the
    user holds (`shared`), in a shallow copy that leaves the user's object whole."""
    found = find_layer_list(encoder)
    num_layers = len(found[2]) if found else int(getattr(encoder.config, "num_hidden_layers", 0))
    layer = choose_layer(source, requested, num_layers)
    if found and shared:
        encoder = _shallow_truncated(encoder, layer)
    elif found:
        owner, attribute, layers = found
        setattr(owner, attribute, torch.nn.ModuleList(list(layers)[:layer]))
    return Truncated(encoder, layer, num_layers, found is None)


def _shallow_truncated(encoder: torch.nn.Module, layer: int) -> torch.nn.Module:
    """`encoder` with only its first `layer` layers, sharing every parameter: the modules on the path to
    the layer list are copied shallowly (their child tables too), so the user's object keeps all layers."""
    path = next((path for path in _LAYER_LISTS if _layer_list_at(encoder, path) is not None), None)
    if path is None:  # pragma: no cover - only called when find_layer_list found a list
        return encoder
    parent, _, attribute = path.rpartition(".")
    layers = getattr(encoder.get_submodule(parent) if parent else encoder, attribute)

    def shallow(module: torch.nn.Module) -> torch.nn.Module:
        clone = copy.copy(module)
        clone._modules = dict(module._modules)
        return clone

    root = node = shallow(encoder)
    for part in parent.split(".") if parent else []:
        child = shallow(node.get_submodule(part))
        node._modules[part] = child
        node = child
    node._modules[attribute] = torch.nn.ModuleList(list(layers)[:layer])
    return root


def quantize_int8(encoder: torch.nn.Module) -> torch.nn.Module:
    """int8 dynamic quantization with per-channel weights, keeping the FFN output projections in fp32.

    Those projections see the activations with outliers; quantizing them too shifted F1 down by 0.04 on
    average, keeping them halves the error (benchmarks/speed/PROFILE_NOTES.md, scenario d).
    """
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    spec = {
        name: per_channel_dynamic_qconfig
        for name, module in encoder.named_modules()
        if isinstance(module, torch.nn.Linear) and not re.search(r"layer\.\d+\.output\.dense$", name)
    }
    return quantize_dynamic(encoder, spec, dtype=torch.qint8)

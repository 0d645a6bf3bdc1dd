"""Loading: a resolved `ModelSource` -> a tokenizer and an encoder cut at the chosen layer, on its device.

Loading rules: safetensors only (unless the user opts in), `trust_remote_code` off, fp32 unless asked.
Resolution (which model a setting names) is resolve.py's; the layer stack is layers.py's; whether the
loaded model is what its folder says is checks.py's. Loaded models are cached per `ModelSpec`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import torch

from bertscore_plugins.errors import ArgumentError, ModelLoadError, SettingError
from bertscore_plugins.models import checks as model_checks
from bertscore_plugins.models import objects as model_objects
from bertscore_plugins.models.layers import Truncated, quantize_int8, truncate
from bertscore_plugins.models.resolve import ModelSource, resolve_model

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

_TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
#: seconds to wait for the hub's host before saying it cannot be reached (huggingface_hub retries ~46 s)
_HUB_PROBE_SECONDS = 3.0


@dataclass
class LoadedModel:
    """A tokenizer and an encoder truncated to the chosen layer, on its device, in eval mode."""

    source: ModelSource
    tokenizer: PreTrainedTokenizerBase
    encoder: torch.nn.Module
    layer: int
    num_layers: int  # layers the full model has
    device: torch.device
    dtype: str
    uses_hidden_states: bool  # True when the layer list could not be truncated
    revision: str | None


@dataclass(frozen=True)
class ModelSpec:
    """The settings that decide which loaded model a configuration needs: the model cache's key.

    `identity` (digests of the weights and of every other file, memoised per file) is part of it, so a
    checkpoint, tokenizer or config.json rewritten in the same folder is loaded again instead of silently
    reusing the old model. Built from a configuration by the core (`core.scorer.model_spec`).
    """

    model: str
    identity: str
    layer: int | None
    dtype: str
    device: str | None
    # lang only chooses the model, which `identity` names: configs differing in lang share the load
    lang: str = field(default="en", compare=False)
    allow_pickle_weights: bool = False
    quantize: str | None = None
    # the model resolved once for this configuration (not part of the key: `identity` names it)
    source: ModelSource | None = field(default=None, compare=False, repr=False)


def resolve_device(device: str | None) -> torch.device:
    """Validate a device string; None = cuda if available else cpu."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise SettingError(
            "device", f"device {device!r} is not a valid torch device (e.g. 'cpu', 'cuda', 'cuda:1')"
        ) from error
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise SettingError(
                "device", f"device {device!r} requested but CUDA is not available on this machine"
            )
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise SettingError(
                "device",
                f"device {device!r} does not exist: this machine has {torch.cuda.device_count()} CUDA device(s)",
            )
    elif parsed.type == "mps":
        if not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
            raise SettingError(
                "device", f"device {device!r} requested but MPS is not available on this machine"
            )
    elif parsed.type != "cpu":
        raise SettingError("device", f"device {device!r} is not supported; use 'cpu', 'cuda[:N]' or 'mps'")
    return parsed


def load_model(spec: ModelSpec) -> LoadedModel:
    """Load tokenizer and encoder, truncated to `spec.layer` (resolved from the table when None)."""
    if model_objects.is_in_memory(spec.model):
        source = spec.source or resolve_model(spec.model, spec.lang)
        return _use_in_memory(source, spec.layer, spec.dtype, spec.device)
    # a device this machine lacks is named before transformers' tokenizer machinery is imported (~1 s)
    torch_device = resolve_device(spec.device)
    from transformers import AutoTokenizer

    source = spec.source or resolve_model(spec.model, spec.lang)
    if source.is_hub_id:
        check_hub_model_reachable(source)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.location, use_fast=True, trust_remote_code=False)
    # any error: the tokenizers library raises a bare Exception for a tokenizer.json of the wrong shape
    except Exception as error:
        if source.chosen_for_lang:
            raise ModelLoadError(_lang_model_message(source, str(error))) from error
        raise ModelLoadError(f"could not load the tokenizer of {source.location!r}: {error}") from error
    encoder, tensors = _load_encoder(source, spec.dtype, spec.allow_pickle_weights)
    model_checks.check_tokenizer(tokenizer, source.location, encoder.config)
    encoder.eval()
    cut = truncate(encoder, source, spec.layer, shared=False)
    tensors.check(cut.layer, source.location)
    return _placed(source, tokenizer, cut, spec, torch_device, getattr(encoder.config, "_commit_hash", None))


def _placed(
    source: ModelSource,
    tokenizer: PreTrainedTokenizerBase,
    cut: Truncated,
    spec: ModelSpec,
    torch_device: torch.device,
    revision: str | None,
) -> LoadedModel:
    """The truncated encoder quantized when asked and moved to its device."""
    encoder = cut.encoder
    if spec.quantize == "int8":
        if torch_device.type != "cpu":
            raise ArgumentError("quantize='int8' is a CPU mode; use dtype='bfloat16' on GPUs")
        encoder = quantize_int8(encoder)
    encoder.to(torch_device)
    return LoadedModel(
        source,
        tokenizer,
        encoder,
        cut.layer,
        cut.num_layers,
        torch_device,
        spec.dtype,
        cut.uses_hidden_states,
        revision,
    )


def _use_in_memory(source: ModelSource, layer: int | None, dtype: str, device: str | None) -> LoadedModel:
    """A model object the user holds: used in place (eval mode), never copied, its own weights untouched;
    the layers above `layer` are left out of a shallow copy of the module path that holds them."""
    _, _, (encoder, tokenizer) = model_objects.describe(source.location)
    parameter = next(encoder.parameters(), None)
    held_dtype = str(parameter.dtype).removeprefix("torch.") if parameter is not None else "float32"
    if held_dtype != dtype:
        raise ArgumentError(
            f"the model object holds {held_dtype} weights but dtype={dtype!r}: pass dtype={held_dtype!r} "
            "(a model object is used as it is, never converted)"
        )
    held_device = parameter.device if parameter is not None else torch.device("cpu")
    torch_device = resolve_device(device) if device is not None else held_device
    encoder.eval()
    cut = truncate(encoder, source, layer, shared=True)
    cut.encoder.to(torch_device)
    return LoadedModel(
        source,
        tokenizer,
        cut.encoder,
        cut.layer,
        cut.num_layers,
        torch_device,
        dtype,
        cut.uses_hidden_states,
        None,
    )


# -- the hub: fail in seconds, naming HF_HUB_OFFLINE, instead of huggingface_hub's retries ----------


def check_hub_model_reachable(source: ModelSource) -> None:
    """Raise ModelLoadError at once when a hub model is not in the local Hugging Face cache and cannot
    be downloaded: HF_HUB_OFFLINE=1 is set, or the hub's host does not answer within a few seconds."""
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:  # pragma: no cover - transformers depends on it
        return
    if isinstance(try_to_load_from_cache(source.location, "config.json"), str):
        return  # cached: transformers loads it (offline too)
    if constants.HF_HUB_OFFLINE:
        reason = "HF_HUB_OFFLINE=1 is set and it is not in the Hugging Face cache"
    else:
        unreachable = _hub_unreachable(constants.ENDPOINT)
        if unreachable is None:
            return
        reason = f"{unreachable}, and it is not in the Hugging Face cache"
    if source.chosen_for_lang:
        raise ModelLoadError(_lang_model_message(source, reason))
    raise ModelLoadError(
        f"model {source.location!r} cannot be loaded: {reason}. Download it once with a network "
        f"(huggingface-cli download {source.location}) or pass a local model folder; with no network, "
        "set HF_HUB_OFFLINE=1 so hub models fail at once instead of after retries"
    )


def _hub_unreachable(endpoint: str) -> str | None:
    """Why the hub's host cannot be reached (None: it answers, or a proxy decides)."""
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None  # the proxy reaches the hub, not us: let huggingface_hub try
    parts = urlsplit(endpoint)
    host, port = parts.hostname or "huggingface.co", parts.port or (80 if parts.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=_HUB_PROBE_SECONDS).close()
    except OSError as error:
        return f"the hub ({endpoint}) cannot be reached ({error})"
    return None


def _lang_model_message(source: ModelSource, reason: str) -> str:
    return (
        f"lang={source.chosen_for_lang!r} scores with bert_score's model for that language, "
        f"{source.location!r}, which is not available here ({reason.splitlines()[0] if reason else 'offline'}). "
        f"Download it once with a network (huggingface-cli download {source.location}), or pass "
        f"model= (model_type=) a local folder of a model for that language; the packaged default model is "
        "English-only. With no network, set HF_HUB_OFFLINE=1 so this fails at once"
    )


# -- the encoder ------------------------------------------------------------------------------------


def _load_encoder(
    source: ModelSource, dtype: str, allow_pickle: bool
) -> tuple[torch.nn.Module, model_checks.TensorReport]:
    # transformers 5 draws a "Loading weights" bar on stderr for every load; keep library use quiet
    with _quiet_progress_bars(), _quiet_load_report():
        return _load_encoder_quietly(source, dtype, allow_pickle)


@contextmanager
def _quiet_load_report():
    """transformers logs a table of missing and unexpected tensors at every load that has any (a masked-LM
    head, a missing pooler: "consider training"); model_checks decides which matter and names those in
    its error, so that one record is dropped. A filter, not a level: transformers runs extra checks, and
    logs more, when its logger's level is set."""
    report_logger = logging.getLogger("transformers.modeling_utils")
    report_logger.addFilter(_drop_load_report)
    try:
        yield
    finally:
        report_logger.removeFilter(_drop_load_report)


def _drop_load_report(record: logging.LogRecord) -> bool:
    return record.funcName != "log_state_dict_report"


@contextmanager
def _quiet_progress_bars():
    """transformers' and huggingface_hub's bars off for a load, then exactly the user's setting again
    (a `disable_progress_bar()` call or HF_HUB_DISABLE_PROGRESS_BARS=1 stays in force)."""
    from transformers.utils import logging as transformers_logging

    try:
        from huggingface_hub.utils import tqdm as hub_tqdm

        hub_states = dict(hub_tqdm.progress_bar_states)
    except (ImportError, AttributeError):  # another huggingface_hub layout: restore transformers' flag only
        hub_tqdm, hub_states = None, {}
    was_enabled = transformers_logging.is_progress_bar_enabled()
    if was_enabled:
        transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()
        if hub_tqdm is not None:
            hub_tqdm.progress_bar_states.clear()
            hub_tqdm.progress_bar_states.update(hub_states)


#: what transformers raises for a config.json it cannot use (bad JSON, unknown model_type, a list, ...)
_CONFIG_ERRORS = (OSError, ValueError, TypeError, KeyError, AttributeError)


def _load_encoder_quietly(
    source: ModelSource, dtype: str, allow_pickle: bool
) -> tuple[torch.nn.Module, model_checks.TensorReport]:
    from transformers import AutoConfig, AutoModel, T5EncoderModel

    try:
        config = AutoConfig.from_pretrained(source.location, trust_remote_code=False)
    except _CONFIG_ERRORS as error:
        raise ModelLoadError(
            f"the config.json of model {source.location!r} cannot be used: {error}"
        ) from error
    kwargs: dict[str, Any] = {
        "config": config,
        "trust_remote_code": False,
        "use_safetensors": None if allow_pickle else True,
        _dtype_keyword(): _TORCH_DTYPES[dtype],
        # report missing, unexpected and mismatched tensors instead of raising on the last: checked below
        "output_loading_info": True,
        "ignore_mismatched_sizes": True,
    }
    model_class = (
        T5EncoderModel if config.model_type == "t5" or "t5" in source.location.lower() else AutoModel
    )
    try:
        # with output_loading_info, a (model, info) pair (transformers' annotation says the model alone)
        model, info = cast(
            "tuple[Any, dict[str, Any]]", model_class.from_pretrained(source.location, **kwargs)
        )
    except OSError as error:
        raise ModelLoadError(
            f"could not load model {source.location!r}: {error}. Only safetensors weights load by default; "
            "pass allow_pickle_weights=True to accept pytorch_model.bin"
        ) from error
    except Exception as error:
        if type(error).__name__ == "SafetensorError":
            # a truncated or corrupted weights file: say which file, not the bare safetensors message
            raise ModelLoadError(
                f"the weights of model {source.location!r} are damaged ({model_checks.weight_files(source.location)}: "
                f"{error}); replace the file (download it again or restore it)"
            ) from error
        if isinstance(error, (*_CONFIG_ERRORS, RuntimeError)):  # e.g. hidden_act "gleu", 3 heads for 32 dims
            raise ModelLoadError(
                f"model {source.location!r} cannot be built from its config.json and weights: "
                f"{type(error).__name__}: {error}"
            ) from error
        raise
    # encoder-decoder models: keep the encoder, as bert_score does
    kept = (
        model.get_encoder()
        if getattr(config, "is_encoder_decoder", False) and hasattr(model, "get_encoder")
        else model
    )
    return kept, model_checks.TensorReport.of(model, kept, info)


def _dtype_keyword() -> str:
    """transformers >= 4.56 takes `dtype`, older versions `torch_dtype`."""
    import transformers
    from packaging.version import Version

    return "dtype" if Version(transformers.__version__) >= Version("4.56") else "torch_dtype"


_MODEL_CACHE: dict[ModelSpec, LoadedModel] = {}
_MODEL_LOCK = threading.Lock()


def get_model(spec: ModelSpec) -> LoadedModel:
    """A process-wide cache of loaded models, so every configuration with the same spec shares one."""
    with _MODEL_LOCK:
        if spec not in _MODEL_CACHE:
            _MODEL_CACHE[spec] = load_model(spec)
        return _MODEL_CACHE[spec]


def clear_model_cache() -> None:
    """Free every cached model (e.g. to release GPU memory)."""
    with _MODEL_LOCK:
        _MODEL_CACHE.clear()

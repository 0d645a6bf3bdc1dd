"""The one configuration object: every setting that changes a number lives here.

Integrations accept the same keyword names and pass them through; they never re-declare defaults.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from bertscore_plugins.core.idf import IdfTable
from bertscore_plugins.errors import ArgumentTypeError, SettingError
from bertscore_plugins.models.model_names import refuse_a_misspelt_name
from bertscore_plugins.settings import (
    as_float,
    beyond_floats,
    document,
    names_of,
    setting,
    shown,
    upstream_renames,
)

#: the name users type for the embedded, offline default model
DEFAULT_MODEL = "default"

LONG_TEXT_POLICIES = ("truncate", "window")
MULTI_REF_RULES = ("max", "best_f1")
DTYPES = ("float32", "bfloat16", "float16")
QUANTIZE_MODES = ("int8",)


@dataclass(frozen=True)
class ScoreConfig:
    """Settings for one BERTScore configuration: every setting that changes a number lives here.

    Each field declares its own default, help, command-line flag and whether it changes scores
    (`bertscore_plugins.settings`); the CLI flags, the signature, the `datasets` fingerprint and bert_score's
    alias names are derived from these declarations. The settings are listed below.
    """

    model: str = setting(
        DEFAULT_MODEL,
        "'default' (the packaged all-MiniLM-L6-v2, offline; with a non-English lang, bert_score's model "
        "for that language), a preset such as 'quality', a Hugging Face hub id (needs a network), a local "
        "model folder, or (in Python) a model object: a SentenceTransformer or a (PreTrainedModel, fast "
        "tokenizer) pair, used in memory",
        short="-m",
        upstream="model_type",
    )
    layer: int | None = setting(
        None,
        "hidden layer to use (0 = embeddings); None = the model's tuned layer, or the last layer with a "
        "warning for unknown models",
        short="-l",
        upstream="num_layers",
    )
    idf: bool | IdfTable = setting(
        False,
        "weight tokens by idf: True = fitted on the references of each call (bert_score's formula); in "
        "Python also an IdfTable fitted once (e.g. on a whole column)",
    )
    rescale: bool = setting(
        False,
        "rescale with a baseline (the shipped one for the model and lang, or baseline_path)",
        upstream="rescale_with_baseline",
    )
    baseline_path: str | None = setting(
        None,
        "a baseline file in bert_score's format (LAYER,P,R,F), used when rescale is on",
        metavar="FILE",
        also=("--baseline_path",),
    )
    lang: str = setting(
        "en",
        "language of the texts: picks the baseline and, with the default model, bert_score's model for a "
        "language other than English (a download)",
    )
    max_length: int | None = setting(
        None, "tokens per window including special tokens; None = the model's limit", signature_key="maxlen"
    )
    long_text: str = setting(
        "truncate",
        "texts longer than the window: 'truncate' (counted and warned) or 'window' (overlapping windows, "
        "every token used)",
        choices=LONG_TEXT_POLICIES,
        signature_key="long",
    )
    window_stride: int | None = setting(
        None, "tokens between window starts with long_text='window'; None = 7/8 of a window"
    )
    multi_ref: str = setting(
        "max",
        "several references: 'max' (bert_score's per-column max) or 'best_f1' (the P, R, F of the reference "
        "with the best F1)",
        choices=MULTI_REF_RULES,
        signature_key="multiref",
    )
    dtype: str = setting(
        "float32",
        "model precision: float32 is exact; bfloat16/float16 are faster on GPUs (bfloat16 also on CPUs "
        "with AMX or AVX512-BF16: ~1.9x, Spearman 1.000 vs exact on WMT16)",
        choices=DTYPES,
    )
    device: str | None = setting(None, "cpu, cuda, cuda:N; None = cuda if available, else cpu", signed=False)
    batch_tokens: int | None = setting(
        None,
        "padded tokens per encoder batch; None = 4,096 for float32 on CPU (measured fastest), else 16,384",
        signed=False,
    )
    chunk_pairs: int = setting(
        8192,
        "at most this many pairs per chunk; chunks also close at 256 MiB of embeddings "
        "(scorer.CHUNK_VALUES), so peak memory is one chunk's whatever the input size",
        signed=False,
    )
    allow_pickle_weights: bool = setting(
        False, "load pytorch_model.bin when a folder has no safetensors (opt-in: pickles can run code)"
    )
    quantize: str | None = setting(
        None,
        "'int8': dynamic quantization of linear layers on CPU (a fast, approximate mode)",
        choices=QUANTIZE_MODES,
    )

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) and self.model is not None:  # a model object -> its registry key
            from bertscore_plugins.models.objects import is_model_object, register

            if is_model_object(self.model):
                object.__setattr__(self, "model", register(self.model))
        check_config(self)

    def replace(self, **changes: object) -> ScoreConfig:
        """A copy with some settings changed (unknown names raise TypeError listing the known ones).

        bert_score's names (`model_type`, `num_layers`, ...) are translated: see UPSTREAM_RENAMES.
        """
        return self.with_arguments(changes, "ScoreConfig")

    def with_arguments(
        self, arguments: Mapping[str, object], where: str, also: tuple[str, ...] = ()
    ) -> ScoreConfig:
        """A copy with a caller's keyword arguments applied: the one check of their names for every entry
        point (an unknown name raises ArgumentTypeError naming `where` and listing what it accepts:
        `also`, the caller's own arguments, then the settings and bert_score's names)."""
        accepted = (*also, *names_of(type(self)), *UPSTREAM_RENAMES, *UPSTREAM_NO_EFFECT)
        unknown = sorted(set(arguments) - set(accepted) - set(UPSTREAM_CALL_OPTIONS))
        if unknown:
            raise ArgumentTypeError(
                f"{where} got unknown argument(s) {', '.join(unknown)}; accepted: {', '.join(accepted)}"
            )
        settings = {name: value for name, value in arguments.items() if name not in also}
        return dataclasses.replace(self, **translate_upstream(settings)) if settings else self

    @classmethod
    def from_kwargs(cls, **kwargs: object) -> ScoreConfig:
        """Build from keyword arguments, rejecting unknown names with the list of accepted ones."""
        return cls().replace(**kwargs)


ScoreConfig.__doc__ = (ScoreConfig.__doc__ or "") + document(ScoreConfig)


def setting_names() -> tuple[str, ...]:
    """The keyword names every entry point accepts, in declaration order."""
    return names_of(ScoreConfig)


def check_config(config: ScoreConfig) -> None:
    """Check every setting once, strictly; raise SettingError naming the bad one.

    Types are exact: a bool is a bool (``"false"``, ``0`` or ``np.bool_`` are not: a safety flag such as
    `allow_pickle_weights` must never be switched on by a truthy string), an int is not a bool
    (``batch_tokens=True`` is refused), and numbers are finite and in range. numpy integers are taken
    as the ints they are.
    """
    _flag(config, "rescale")
    _flag(config, "allow_pickle_weights")
    _text(config, "model")
    refuse_a_misspelt_name(config.model)  # before any download is tried ("qualty" -> did you mean?)
    _text(config, "lang")
    if not isinstance(config.idf, (bool, IdfTable)):
        raise SettingError(
            "idf",
            f"idf must be False, True (fit on the references) or an IdfTable, got {type(config.idf).__name__}; "
            "build a table with bertscore_plugins.fit_idf(references, model=...)",
        )
    _whole(config, "layer", 0, "a non-negative integer or None", optional=True)
    _whole(config, "max_length", 3, "an integer >= 3 or None", optional=True)
    _whole(config, "window_stride", 1, "a positive integer or None", optional=True)
    _whole(config, "batch_tokens", 1, "a positive integer or None", optional=True)
    _whole(config, "chunk_pairs", 1, "a positive integer", optional=False)
    _choice(config, "long_text", LONG_TEXT_POLICIES)
    _choice(config, "multi_ref", MULTI_REF_RULES)
    _choice(config, "dtype", DTYPES)
    _choice(config, "quantize", (None, *QUANTIZE_MODES))
    if config.quantize is not None and config.dtype != "float32":
        # dynamic int8 quantization replaces float32 linear layers; on half-precision ones it fails mid-load
        raise SettingError(
            "quantize", f"quantize={config.quantize!r} works on float32 weights; drop dtype={config.dtype!r}"
        )
    if config.baseline_path is not None:
        if isinstance(config.baseline_path, os.PathLike):
            object.__setattr__(config, "baseline_path", os.fspath(config.baseline_path))
        if not isinstance(config.baseline_path, str) or not config.baseline_path.strip():
            raise SettingError(
                "baseline_path", f"baseline_path must be a path (str) or None, got {config.baseline_path!r}"
            )
    if config.device is not None and (not isinstance(config.device, str) or not config.device.strip()):
        raise SettingError(
            "device", f"device must be a string such as 'cpu' or 'cuda:0', got {config.device!r}"
        )


def _flag(config: ScoreConfig, name: str) -> None:
    value = getattr(config, name)
    if type(value) is not bool:
        raise SettingError(name, f"{name} must be True or False, got {type(value).__name__} {value!r}")


def _text(config: ScoreConfig, name: str) -> None:
    value = getattr(config, name)
    if not isinstance(value, str) or not value.strip():
        raise SettingError(name, f"{name} must be a non-empty string, got {value!r}")


def _whole(config: ScoreConfig, name: str, smallest: int, expected: str, optional: bool) -> None:
    value = getattr(config, name)
    if value is None and optional:
        return
    # a numpy integer becomes the plain int (hashing, signatures, JSON)
    object.__setattr__(config, name, whole_number(name, value, smallest, expected))


def whole_number(name: str, value: object, smallest: int, expected: str) -> int:
    """``value`` as an int if it is a whole number (not a bool) >= ``smallest``; else SettingError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise SettingError(name, f"{name} must be {expected}, got {type(value).__name__} {shown(value)}")
    if value < smallest or beyond_floats(value):  # 10**400 is no length, layer or batch
        raise SettingError(name, f"{name} must be {expected}, got {shown(value)}")
    return int(value)


def finite_number(
    name: str, value: object, expected: str, *, above: float | None = None, at_most: float | None = None
) -> float:
    """``value`` as a float if it is a real, finite number (not a bool) in range; else SettingError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise SettingError(name, f"{name} must be {expected}, got {type(value).__name__} {shown(value)}")
    number = as_float(value)  # 10**400 (an int or a Fraction): refused below by name, no OverflowError
    if (
        not math.isfinite(number)
        or (above is not None and not number > above)
        or (at_most is not None and number > at_most)
    ):
        raise SettingError(name, f"{name} must be {expected}, got {shown(value)}")
    return number


def check_layer_list(layers: object, deepest: int, model_name: str) -> list[int]:
    """`score_layers`' `layers` as a sorted list of layer numbers 0..deepest (None: all of them).

    Raises:
        SettingError: not a list, empty, or holding something that is not a layer of this model.
    """
    if layers is None:
        return list(range(deepest + 1))
    if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
        raise SettingError("layers", f"layers must be a list of layer numbers, got {layers!r}")
    wanted = list(layers)
    if not wanted:
        raise SettingError("layers", f"layers is empty: pass at least one of 0..{deepest}, or None for all")
    for layer in wanted:
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer <= deepest:
            raise SettingError(
                "layers",
                f"layers must hold layer numbers 0..{deepest} of model {model_name!r}, got {layer!r}",
            )
    return sorted({int(layer) for layer in wanted})


def _choice(config: ScoreConfig, name: str, choices: tuple[str | None, ...]) -> None:
    value = getattr(config, name)
    if not (value is None or isinstance(value, str)) or value not in choices:
        raise SettingError(name, f"{name} must be one of {choices}, got {value!r}")


# ------------------------------------------------------------------------------------------------------
# Upstream names: bert_score 0.3.13 (score(), BERTScorer, the bert-score CLI) and evaluate's `bertscore`
# module. This is the one table every entry point reads (ScoreConfig.replace/from_kwargs and so score(),
# BERTScorer, the evaluate module and the datasets transform; compat.py; the CLI's flag aliases), so code
# written for upstream runs with its own argument names and upstream's meaning.

#: upstream name -> this project's setting, same meaning
UPSTREAM_RENAMES = upstream_renames(ScoreConfig)
#: upstream names accepted and ignored because they cannot change a score here, and why
UPSTREAM_NO_EFFECT = {
    "batch_size": "upstream's sentences per batch; batches here are cut by a padded-token budget "
    "(batch_tokens), and no batch size changes a score",
    "nthreads": "upstream's processes for counting idf; here idf is counted from one batched tokenizer call",
    "use_fast_tokenizer": "a fast tokenizer is always used; its token ids equal the slow one's for the "
    "tested models (upstream's default is the slow one)",
}
#: upstream names that are options of a scoring call rather than settings: where each is accepted
UPSTREAM_CALL_OPTIONS = {
    "verbose": "progress=True (accepted as verbose by compat.score, BERTScorer.score and evaluate's compute)",
    "all_layers": "BERTScorer.score_layers(...), compat.score(all_layers=True) or evaluate's compute(all_layers=True)",
    "return_hash": "compat.score(return_hash=True); every Scores has .signature",
    "idf_sents": "compat.BERTScorer(idf_sents=...) or IdfTable = BERTScorer.fit_idf(sentences)",
}


def refuse_idf_per_batch(config: object, batch: str, remedy: str) -> None:
    """The one refusal of ``idf=True`` where rows are scored in batches (a datasets map, Ray, pages of
    spans): idf fitted per batch would make a row's score depend on its neighbours. ``remedy`` says how
    to fit the table once for this entry point. Raises SettingError (idf)."""
    if getattr(config, "idf", False) is True:
        raise SettingError(
            "idf",
            f"idf=True would fit idf on each {batch} separately, so a row's score would depend on which "
            f"rows share its {batch}; {remedy}",
        )


def idf_from_upstream(idf: object) -> object:
    """bert_score's `idf` argument: a bool, or a dict token id -> weight (used as is, as upstream does).

    An empty dict is falsy upstream and means no idf; so it does here. Token ids missing from a plain
    dict weigh 0 (upstream raises KeyError); a `defaultdict` gives them its default.
    """
    if not isinstance(idf, dict):
        return idf
    if not idf:
        return False
    factory = getattr(idf, "default_factory", None)
    unseen = float(factory()) if factory is not None else 0.0
    return IdfTable(dict(idf), unseen)


def translate_upstream(arguments: Mapping[str, object]) -> dict[str, Any]:
    """Settings with upstream names renamed, upstream's `None` (= default) dropped, idf dicts turned into
    IdfTables and no-effect names removed. Raises TypeError when a name is given both ways, or for a call
    option (`verbose`, `all_layers`, ...) that reached a configuration (the message says where it goes).
    The values are the caller's, unchecked: ScoreConfig's __post_init__ checks each one by its setting."""
    settings: dict[str, Any] = {}
    for name, value in arguments.items():
        if name in UPSTREAM_CALL_OPTIONS:
            raise ArgumentTypeError(
                f"{name} is an option of a scoring call, not a setting; use {UPSTREAM_CALL_OPTIONS[name]}"
            )
        if name in UPSTREAM_NO_EFFECT:
            continue
        ours = UPSTREAM_RENAMES.get(name, name)
        if value is None and (ours != name or name == "lang"):  # upstream's None means "the default"
            continue
        if ours in settings or (ours != name and arguments.get(ours) is not None):
            raise ArgumentTypeError(
                f"{name} and {ours} both given; they are the same setting ({name} is bert_score's name)"
            )
        settings[ours] = idf_from_upstream(value) if ours == "idf" else value
    return settings


_Value = TypeVar("_Value")


def split_call_options(
    arguments: Mapping[str, _Value], accepted: tuple[str, ...]
) -> tuple[dict[str, _Value], dict[str, _Value]]:
    """(settings, call options): the upstream call options named in `accepted` taken out of `arguments`."""
    settings = {name: value for name, value in arguments.items() if name not in accepted}
    options = {name: value for name, value in arguments.items() if name in accepted}
    return settings, options

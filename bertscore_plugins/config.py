"""The one configuration object: every setting that changes a number lives here.

Integrations accept the same keyword names and pass them through; they never re-declare defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bertscore_plugins.idf import IdfTable

#: the name users type for the embedded, offline default model
DEFAULT_MODEL = "default"

LONG_TEXT_POLICIES = ("truncate", "window")
MULTI_REF_RULES = ("max", "best_f1")
DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class ScoreConfig:
    """Settings for one BERTScore configuration.

    Args:
        model: "default" (the packaged all-MiniLM-L6-v2), a preset name ("quality"), a Hugging Face hub
            id, or a local model directory.
        layer: which hidden layer to use (0 = embeddings). None = the model's default-layer table entry,
            or the last layer with a warning for unknown models.
        idf: False = uniform weights; True = idf fitted on the references of each `score` call
            (bert_score semantics); an `IdfTable` = a fixed table (e.g. fitted on a whole column).
        rescale: rescale with a baseline (`baseline_path`, or the shipped/installed file for the model).
        baseline_path: a bert_score-format baseline file (``LAYER,P,R,F``); implies nothing unless
            `rescale` is True.
        lang: language of the baseline file to look up.
        max_length: tokens per window including special tokens; None = the model's limit.
        long_text: "truncate" (count and warn) or "window" (overlapping windows, every token used).
        window_stride: tokens between window starts in "window" mode; None = 7/8 of a window (windows
            overlap by 1/8).
        multi_ref: "max" (bert_score: per-column max over references) or "best_f1" (P, R, F of the
            reference with the best F1).
        dtype: "float32" (exact), "bfloat16" or "float16": faster on GPUs; "bfloat16" is also the fast
            CPU mode on CPUs with AMX or AVX512-BF16 (~1.9x, Spearman 1.000 vs exact on WMT16).
        device: "cpu", "cuda", "cuda:1", ...; None = cuda if available else cpu. Not number-changing.
        batch_tokens: padded tokens per encoder batch (token budget); None = 4,096 for float32 on CPU
            (cache-friendly, measured fastest), else 16,384 (GPUs; bfloat16 on AMX CPUs). Not
            number-changing.
        chunk_pairs: at most this many pairs per chunk. Chunks also close when their texts' embeddings
            reach 256 MiB (scorer.CHUNK_VALUES), the bound that usually applies: peak memory is one
            chunk's, whatever the input size and text lengths. Not number-changing.
        allow_pickle_weights: load `pytorch_model.bin` when no safetensors exist (opt-in).
        quantize: "int8" dynamic quantization of linear layers on CPU (fast, approximate) or None.
    """

    model: str = DEFAULT_MODEL
    layer: int | None = None
    idf: bool | IdfTable = False
    rescale: bool = False
    baseline_path: str | None = None
    lang: str = "en"
    max_length: int | None = None
    long_text: str = "truncate"
    window_stride: int | None = None
    multi_ref: str = "max"
    dtype: str = "float32"
    device: str | None = None
    batch_tokens: int | None = None
    chunk_pairs: int = 8192
    allow_pickle_weights: bool = False
    quantize: str | None = None

    def __post_init__(self) -> None:
        check_config(self)

    def replace(self, **changes: Any) -> ScoreConfig:
        """A copy with some settings changed (unknown names raise TypeError listing the known ones)."""
        unknown = sorted(set(changes) - set(setting_names()))
        if unknown:
            raise TypeError(
                f"unknown setting(s) {', '.join(unknown)}; accepted: {', '.join(setting_names())}"
            )
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> ScoreConfig:
        """Build from keyword arguments, rejecting unknown names with the list of accepted ones."""
        return cls().replace(**kwargs)


def setting_names() -> tuple[str, ...]:
    """The keyword names every entry point accepts, in declaration order."""
    return tuple(f.name for f in dataclasses.fields(ScoreConfig) if not f.name.startswith("_"))


def check_config(config: ScoreConfig) -> None:
    """Raise ValueError/TypeError naming the bad argument."""
    if not isinstance(config.model, str) or not config.model.strip():
        raise TypeError(f"model must be a non-empty string, got {config.model!r}")
    if config.layer is not None and (
        isinstance(config.layer, bool) or not isinstance(config.layer, int) or config.layer < 0
    ):
        raise ValueError(f"layer must be a non-negative integer or None, got {config.layer!r}")
    if not isinstance(config.idf, (bool, IdfTable)):
        raise TypeError(
            f"idf must be False, True (fit on the references) or an IdfTable, got {type(config.idf).__name__}; "
            "build a table with bertscore_plugins.fit_idf(references, model=...)"
        )
    if config.long_text not in LONG_TEXT_POLICIES:
        raise ValueError(f"long_text must be one of {LONG_TEXT_POLICIES}, got {config.long_text!r}")
    if config.multi_ref not in MULTI_REF_RULES:
        raise ValueError(f"multi_ref must be one of {MULTI_REF_RULES}, got {config.multi_ref!r}")
    if config.dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {config.dtype!r}")
    if config.max_length is not None and (not isinstance(config.max_length, int) or config.max_length < 3):
        raise ValueError(f"max_length must be an integer >= 3 or None, got {config.max_length!r}")
    if config.window_stride is not None and (
        not isinstance(config.window_stride, int) or config.window_stride < 1
    ):
        raise ValueError(f"window_stride must be a positive integer or None, got {config.window_stride!r}")
    if config.batch_tokens is not None and (not isinstance(config.batch_tokens, int) or config.batch_tokens < 1):
        raise ValueError(f"batch_tokens must be a positive integer or None, got {config.batch_tokens!r}")
    if not isinstance(config.chunk_pairs, int) or config.chunk_pairs < 1:
        raise ValueError(f"chunk_pairs must be a positive integer, got {config.chunk_pairs!r}")
    if config.quantize not in (None, "int8"):
        raise ValueError(f"quantize must be None or 'int8', got {config.quantize!r}")
    if config.baseline_path is not None and not isinstance(config.baseline_path, str):
        raise TypeError(f"baseline_path must be a string path or None, got {config.baseline_path!r}")
    if config.device is not None and not isinstance(config.device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda:0', got {config.device!r}")

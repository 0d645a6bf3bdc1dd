"""The names a model goes by, without loading anything: the packaged default's, bert_score's layer table,
and the check that refuses a misspelt name before any network call.

Torch-free on purpose: `ScoreConfig` checks a model name when it is built, so `--model qualty` fails in a
fraction of a second, before torch, transformers or the hub are touched.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources
from pathlib import Path

from bertscore_plugins.errors import ModelLoadError

DEFAULT_MODEL_REPO = "sentence-transformers/all-MiniLM-L6-v2"
#: chosen on WMT16 to-English DA (mean Pearson, same protocol as bert_score): layer 4 = 0.6355
DEFAULT_MODEL_LAYER = 4
DEFAULT_MODEL_NAMES = ("default", "all-MiniLM-L6-v2", DEFAULT_MODEL_REPO)


@cache
def _layer_table() -> tuple[tuple[str, int], ...]:
    text = resources.files("bertscore_plugins").joinpath("data/default_layers.json").read_text()
    return (*json.loads(text)["layers"].items(), (DEFAULT_MODEL_REPO, DEFAULT_MODEL_LAYER))


def default_layer_table() -> dict[str, int]:
    """bert_score's default-layer table (140 models) plus the packaged default."""
    return dict(_layer_table())


def refuse_a_misspelt_name(model: str) -> None:
    """A name without an owner that is one typo away from a preset or a known model ("qualty") is a
    mistake, refused before any network call: the hub would retry for 40 s online, and offline answer
    with a connection error that never says "did you mean quality?". Existing folders, real hub ids
    (owner/name, or bert_score's table names such as roberta-large) and the names themselves pass.

    Raises:
        ModelLoadError: naming the closest known name.
    """
    from bertscore_plugins.models.presets import PRESET_NAMES  # torch-free

    known_ids = default_layer_table()
    names = [*PRESET_NAMES, *DEFAULT_MODEL_NAMES, *(name for name in known_ids if "/" not in name)]
    if "/" in model or model in known_ids or model in names or Path(model).expanduser().exists():
        return
    close = difflib.get_close_matches(model, names, n=1, cutoff=0.75)
    if close:
        raise ModelLoadError(
            f"model {model!r} is neither a local folder, a preset ({', '.join(PRESET_NAMES)}) nor a "
            f"known model; did you mean {close[0]!r}? (a Hugging Face hub id is usually owner/name)"
        )

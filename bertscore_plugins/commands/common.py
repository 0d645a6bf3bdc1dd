"""Flags shared by the subcommands that score: the core settings, spelled the same everywhere."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bertscore_plugins.config import (
    DTYPES,
    LONG_TEXT_POLICIES,
    MULTI_REF_RULES,
    QUANTIZE_MODES,
    UPSTREAM_NO_EFFECT,
    UPSTREAM_RENAMES,
    ScoreConfig,
)
from bertscore_plugins.inputs import InputError

#: the file name that means standard input (as in bert-score and most Unix tools)
STDIN = "-"
#: bert-score's short flags for its names in config.UPSTREAM_NO_EFFECT
_UPSTREAM_SHORT_FLAGS = {"batch_size": "-b"}


def add_model_arguments(parser: argparse.ArgumentParser, long_text: str = "truncate") -> None:
    """The core's settings as flags; ``long_text``: this command's default policy for long texts."""
    group = parser.add_argument_group("model and scoring settings (all are in the signature)")
    group.add_argument(
        "-m",
        "--model",
        default="default",
        help="'default' (packaged all-MiniLM-L6-v2, offline), a preset such as 'quality', "
        "a Hugging Face hub id (needs a network), or a local model folder",
    )
    group.add_argument(
        "-l",
        "--layer",
        type=int,
        default=None,
        help="hidden layer to use (0 = embeddings); default: the model's tuned layer, or the "
        "last layer with a warning for unknown models",
    )
    group.add_argument(
        "--idf",
        action="store_true",
        help="weight tokens by idf fitted on the references of this run (bert_score's formula)",
    )
    group.add_argument(
        "--rescale",
        action="store_true",
        help="rescale with a baseline (the shipped one for the model, or --baseline-path)",
    )
    group.add_argument(
        "--baseline-path",
        "--baseline_path",
        default=None,
        help="a baseline file in bert_score's format (LAYER,P,R,F); used with --rescale",
    )
    group.add_argument(
        "--lang",
        default="en",
        help="language of the texts (default: en): picks the baseline and, without --model, "
        "bert_score's model for a language other than English (a download)",
    )
    group.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="tokens per window including special tokens (default: the model's limit)",
    )
    group.add_argument(
        "--long-text",
        choices=LONG_TEXT_POLICIES,
        default=long_text,
        help=f"texts longer than the window: truncate (counted and warned) or overlapping windows "
        f"(default: {long_text})",
    )
    group.add_argument(
        "--multi-ref",
        choices=MULTI_REF_RULES,
        default="max",
        help="several references: per-column max (bert_score) or the best-F1 reference's triple",
    )
    group.add_argument(
        "--dtype",
        choices=DTYPES,
        default="float32",
        help="model precision (float32 is exact; half precision is for GPUs)",
    )
    group.add_argument("--device", default=None, help="cpu, cuda, cuda:N (default: cuda if available)")
    group.add_argument(
        "--batch-tokens",
        type=int,
        default=None,
        help="padded tokens per encoder batch (default 4096 on CPU, 16384 on GPU; memory and "
        "speed only, does not change scores)",
    )
    group.add_argument(
        "--quantize",
        choices=QUANTIZE_MODES,
        default=None,
        help="fast approximate CPU mode: int8 dynamic quantization of linear layers",
    )
    add_upstream_flags(parser)


def add_upstream_flags(parser: argparse.ArgumentParser) -> None:
    """bert-score's flags, from config.py's alias table: its renamed settings work as aliases above
    (--num_layers, --rescale_with_baseline, --baseline_path); the ones that cannot change a score here are
    accepted and ignored; underscore spellings of this CLI's flags are refused with "did you mean"."""
    group = parser.add_argument_group("bert-score flags accepted for compatibility (no effect on scores)")
    for name, why in UPSTREAM_NO_EFFECT.items():
        flags = [
            flag
            for flag in (_UPSTREAM_SHORT_FLAGS.get(name), f"--{name}")
            if flag and flag not in parser._option_string_actions
        ]  # compare's -b is system B
        kind = {"action": "store_true"} if name == "use_fast_tokenizer" else {"type": int}
        kind = kind if "action" in kind else {**kind, "metavar": "N"}
        group.add_argument(*flags, dest=f"upstream_{name}", default=None, help=f"no effect: {why}", **kind)
    by_setting = {action.dest: action for action in parser._actions}
    for upstream, setting in UPSTREAM_RENAMES.items():  # --num_layers = --layer, ...
        flag, ours = f"--{upstream}", by_setting.get(setting)
        if ours is None or flag in parser._option_string_actions:
            continue
        kind = (
            {"action": "store_true"} if isinstance(ours, argparse._StoreTrueAction) else {"type": ours.type}
        )
        # a hidden twin writing the same setting; SUPPRESS keeps the default of our own flag
        parser.add_argument(flag, dest=setting, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kind)
    known = {flag for action in parser._actions for flag in action.option_strings}
    for flag in sorted(
        flag for action in parser._actions for flag in action.option_strings if "-" in flag[2:]
    ):
        underscored = "--" + flag[2:].replace("-", "_")
        if flag.startswith("--") and underscored not in known:
            parser.add_argument(underscored, nargs="?", help=argparse.SUPPRESS, action=_did_you_mean(flag))


def _did_you_mean(flag: str) -> type[argparse.Action]:
    class DidYouMean(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            parser.error(f"unrecognized argument {option_string}; did you mean {flag}?")

    return DidYouMean


def config_from_args(args: argparse.Namespace) -> ScoreConfig:
    settings: dict[str, Any] = {
        "model": args.model,
        "layer": args.layer,
        "idf": args.idf,
        "rescale": args.rescale,
        "baseline_path": args.baseline_path,
        "lang": args.lang,
        "max_length": args.max_length,
        "long_text": args.long_text,
        "multi_ref": args.multi_ref,
        "dtype": args.dtype,
        "device": args.device,
        "batch_tokens": args.batch_tokens,
        "quantize": args.quantize,
    }
    return ScoreConfig(**settings)


def read_lines(path: str, what: str = "input file") -> list[str]:
    """One row per line of a UTF-8 text file, split on "\\n" (and "\\r\\n") only, the last newline optional.

    A form feed, \\x85 or U+2028 inside a line stays in that line's row: the row count is the line count
    whatever the text holds. Raises FileNotFoundError / IsADirectoryError / FileFormatError (invalid
    UTF-8, naming the file and line).
    """
    from bertscore_plugins.files import decode, split_lines
    from bertscore_plugins.files import read_lines as read_file_lines

    if path == STDIN:  # "-": standard input, with the same line rule
        return split_lines(decode(sys.stdin.buffer.read(), "<stdin>"))
    return read_file_lines(path, what)


def _shown(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def read_aligned(first: tuple[str, str], others: list[tuple[str, str]]) -> tuple[list[str], list[list[str]]]:
    """Lines of `first` (flag, path) and of each of `others`, which must have as many lines.

    Raises ValueError naming both files and their line counts when they differ, InputError naming
    `first` when it has no lines.
    """
    rows = read_lines(first[1], f"{first[0]} file")
    if not rows:  # the core would refuse "no rows" without knowing which file was empty
        raise InputError(f"{first[0]} file {_shown(first[1])} is empty: no rows to score")
    columns = [read_lines(path, f"{flag} file") for flag, path in others]
    for (_, path), column in zip(others, columns, strict=True):
        if len(column) != len(rows):
            raise ValueError(f"{path} has {len(column)} lines but {first[1]} has {len(rows)}")
    return rows, columns


def write_rows_and_summary(
    lines: list[str], summary: dict[str, Any], *, rows_to: str, summary_to: str | None
) -> None:
    """Per-row lines to `rows_to` ('-' = stdout), the JSON summary to `summary_to` (None = stderr).

    Files first (they can still fail, atomically), stdout last: an error never leaves half the rows
    printed. Written by files.write_output: a symlink's target, a device in place (check_outputs first)."""
    from bertscore_plugins.files import write_output

    rows_text = "".join(line + "\n" for line in lines)
    summary_text = json.dumps(summary, indent=2)
    if summary_to:
        write_output(summary_to, summary_text + "\n")
    if rows_to != STDIN:
        write_output(rows_to, rows_text)
    else:
        sys.stdout.write(rows_text)
    if not summary_to:
        print(summary_text, file=sys.stderr)


def references_by_row(columns: list[list[str]]) -> list[str] | list[list[str]]:
    """One reference file: its lines; several (-r a b): each row's references as a list, in file order."""
    return [list(group) for group in zip(*columns, strict=True)] if len(columns) > 1 else columns[0]

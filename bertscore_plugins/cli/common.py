"""Flags shared by the subcommands that score: the core settings, spelled the same everywhere."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from bertscore_plugins.core.score_config import UPSTREAM_NO_EFFECT, UPSTREAM_RENAMES, ScoreConfig
from bertscore_plugins.errors import InputError
from bertscore_plugins.settings import add_flags, values_from_args

#: the file name that means standard input (as in bert-score and most Unix tools)
STDIN = "-"
#: bert-score's short flags for its names in config.UPSTREAM_NO_EFFECT
_UPSTREAM_SHORT_FLAGS = {"batch_size": "-b"}


def add_model_arguments(parser: argparse.ArgumentParser, long_text: str = "truncate") -> None:
    """The core's settings as flags, one per `ScoreConfig` field (declared there: default, help, flag);
    ``long_text``: this command's default policy for long texts."""
    group = parser.add_argument_group(
        "model and scoring settings (all that change a score are in the signature)"
    )
    add_flags(group, ScoreConfig, defaults={"long_text": long_text})
    add_upstream_flags(parser)


def add_upstream_flags(parser: argparse.ArgumentParser) -> None:
    """bert-score's flags, from score_config.py's alias table: its renamed settings work as aliases above
    (--num_layers, --rescale_with_baseline, --baseline_path); the ones that cannot change a score here are
    accepted and ignored; underscore spellings of this CLI's flags are refused with "did you mean"."""
    group = parser.add_argument_group("bert-score flags accepted for compatibility (no effect on scores)")
    for name, why in UPSTREAM_NO_EFFECT.items():
        flags = [
            flag
            for flag in (_UPSTREAM_SHORT_FLAGS.get(name), f"--{name}")
            if flag and flag not in parser._option_string_actions
        ]  # compare's -b is system B
        kind: dict[str, Any] = {"action": "store_true"} if name == "use_fast_tokenizer" else {"type": int}
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
    """The `ScoreConfig` the flags of `add_model_arguments` describe."""
    return ScoreConfig(**values_from_args(args, ScoreConfig))


def read_lines(
    path: str, what: str = "input file", column: str | None = None, option: str = "--column NAME"
) -> list[str]:
    """One text per row of an input file (table_files.read_texts): one per line of a plain text file,
    split on "\\n" (and "\\r\\n") only, the last newline optional, or one per row of a CSV, TSV, JSON
    lines or parquet file's `column` (named by `option`; a multi-line cell stays in its row).

    A form feed, \\x85 or U+2028 inside a line stays in that line's row: the row count is the line count
    whatever the text holds. Raises FileNotFoundError / IsADirectoryError / FileFormatError (invalid
    UTF-8, a row that cannot be read, naming the file and line), UsageError for a table (or JSON lines)
    whose column is not named.
    """
    from bertscore_plugins.table_files import read_texts

    if path == STDIN:  # "-": standard input, with the same rules as a plain text file
        return read_texts(path, what, column, option=option, data=sys.stdin.buffer.read(), shown="<stdin>")
    return read_texts(path, what, column, option=option)


def _shown(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def column_of(args: argparse.Namespace, kind: str) -> tuple[str | None, str]:
    """(column, the option that names it, as a refusal shows it) for one input kind (candidates, references, sources): its own
    ``--KIND-column``, else the shared ``--column`` (conventions.add_columns)."""
    if not hasattr(args, f"{kind}_column"):  # a command with one column option for this input
        return getattr(args, "column", None), "--column NAME"
    own = getattr(args, f"{kind}_column")
    if own is not None:
        return own, f"--{kind}-column NAME"
    return getattr(args, "column", None), f"--column NAME (or --{kind}-column NAME)"


def read_inputs(args: argparse.Namespace, kinds: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """`read_aligned` over the input flags of `kinds` (conventions.INPUTS: candidates, references,
    sources), their paths in ``args`` (a list for several -r files), each with its column (`column_of`)."""
    from bertscore_plugins.cli.conventions import INPUTS

    inputs = []
    for kind in kinds:
        short, long, _ = INPUTS[kind]
        paths = getattr(args, kind)
        inputs += [(f"{short}/{long}", path) for path in ([paths] if isinstance(paths, str) else paths)]
    columns = {f"{INPUTS[kind][0]}/{INPUTS[kind][1]}": column_of(args, kind) for kind in kinds}
    return read_aligned(inputs[0], inputs[1:], columns)


def read_aligned(
    first: tuple[str, str],
    others: list[tuple[str, str]],
    columns: dict[str, tuple[str | None, str]] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """Rows of `first` (flag, path) and of each of `others`, which must have as many rows.

    ``columns``: per flag, (column, option) as `column_of` gives them, for tables.
    Raises InputError naming both files and their row counts when they differ, InputError naming
    `first` when it has no rows.
    """
    from bertscore_plugins.table_files import table_kind

    columns = columns or {}

    def read(flag: str, path: str) -> list[str]:
        column, option = columns.get(flag, (None, "--column NAME"))
        return read_lines(path, f"{flag} file", column, option)

    rows = read(*first)
    if not rows:  # the core would refuse "no rows" without knowing which file was empty
        raise InputError(f"{first[0]} file {_shown(first[1])} is empty: no rows to score")
    texts = [read(flag, path) for flag, path in others]
    for (_, path), column in zip(others, texts, strict=True):
        if len(column) != len(rows):
            tables = table_kind(path) != "text" or table_kind(first[1]) != "text"
            unit = "rows" if tables else "lines"
            raise InputError(f"{path} has {len(column)} {unit} but {first[1]} has {len(rows)}")
    return rows, texts


def references_by_row(columns: list[list[str]]) -> list[str] | list[list[str]]:
    """One reference file: its lines; several (-r a b): each row's references as a list, in file order."""
    return [list(group) for group in zip(*columns, strict=True)] if len(columns) > 1 else columns[0]

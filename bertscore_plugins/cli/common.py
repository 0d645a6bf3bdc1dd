"""Flags shared by the subcommands that score: the core settings, spelled the same everywhere."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from bertscore_plugins.cli.conventions import ID_FLAG
from bertscore_plugins.core.score_config import UPSTREAM_NO_EFFECT, UPSTREAM_RENAMES, ScoreConfig
from bertscore_plugins.errors import InputError
from bertscore_plugins.settings import add_flags, values_from_args
from bertscore_plugins.tables import DEFAULT_ID_COLUMN, Table, plain_text_refusal

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


def read_table(path: str, what: str = "input file", input_format: str | None = None) -> Table:
    """The table in an input file (tables.read_table), read once; ``-`` is standard input, whose kind is
    `input_format` (``--input-format``), else one text per line."""
    from bertscore_plugins.tables import read_table as read

    if path == STDIN:
        return read(path, what, input_format=input_format, data=sys.stdin.buffer.read(), shown="<stdin>")
    return read(path, what, input_format=input_format)


def read_lines(
    path: str, what: str = "input file", column: str | None = None, option: str = "--column NAME"
) -> list[str]:
    """One text per row of an input file: one per line of a plain text file, split on "\\n" (and
    "\\r\\n") only, the last newline optional, or one per row of a table's `column` (tables.py).

    A form feed, \\x85 or U+2028 inside a line stays in that line's row: the row count is the line count
    whatever the text holds. Raises FileNotFoundError / IsADirectoryError / FileFormatError (invalid
    UTF-8, a row that cannot be read, naming the file and line), UsageError for a table (or JSON lines)
    whose column is not named.
    """
    table = read_table(path, what)
    return table.texts(None if table.kind == "text" else column, what, option)


def _shown(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def column_of(args: argparse.Namespace, kind: str) -> tuple[str | None, str]:
    """(column, the option that names it, as a refusal shows it) for one input kind (candidates, references,
    sources): its own ``--KIND-column``, else the shared ``--column`` (conventions.add_columns)."""
    if not hasattr(args, f"{kind}_column"):  # a command with one column option for this input
        return getattr(args, "column", None), "--column NAME"
    own = getattr(args, f"{kind}_column")
    if own is not None:
        return own, f"--{kind}-column NAME"
    return getattr(args, "column", None), f"--column NAME (or --{kind}-column NAME)"


class Aligned(NamedTuple):
    """Rows read from aligned input files: the first file's texts, each other file's cells (a text, or
    a list of texts where the flag takes several), and the first file's row ids (None: no id column)."""

    first: list[str]
    others: list[list[Any]]
    ids: list[Any] | None


def read_inputs(args: argparse.Namespace, kinds: Sequence[str], lists: Sequence[str] = ()) -> Aligned:
    """`read_aligned` over the input flags of `kinds` (conventions.INPUTS: candidates, references,
    sources), their paths in ``args`` (a list for several -r files), each with its column (`column_of`);
    a cell of the kinds in `lists` may be a list of texts (a row's references or passages)."""
    from bertscore_plugins.cli.conventions import INPUTS

    inputs = []
    for kind in kinds:
        short, long, _ = INPUTS[kind]
        paths = getattr(args, kind)
        inputs += [(f"{short}/{long}", path) for path in ([paths] if isinstance(paths, str) else paths)]
    columns = {f"{INPUTS[kind][0]}/{INPUTS[kind][1]}": column_of(args, kind) for kind in kinds}
    return read_aligned(
        inputs[0],
        inputs[1:],
        columns,
        input_format=getattr(args, "input_format", None),
        id_column=getattr(args, "id_column", None),
        lists={f"{INPUTS[kind][0]}/{INPUTS[kind][1]}" for kind in lists},
    )


def read_aligned(
    first: tuple[str, str],
    others: list[tuple[str, str]],
    columns: dict[str, tuple[str | None, str]] | None = None,
    *,
    input_format: str | None = None,
    id_column: str | None = None,
    lists: Collection[str] = (),
) -> Aligned:
    """Rows of `first` (flag, path) and of each of `others`, which must have as many rows. Each file is
    read once, however many flags name it (a pipe can be read only once).

    ``columns``: per flag, (column, option) as `column_of` gives them, for tables. ``id_column``: the
    first file's column of row ids (``--id-column``); by default its ``id`` column when it has one.
    Raises UsageError for a column flag that cannot apply (a file read as plain text; the message names
    the flag and ``--input-format``), InputError naming both files and their row counts when they differ,
    InputError naming `first` when it has no rows.
    """
    columns = columns or {}
    tables: dict[str, Table] = {}
    for flag, path in [first, *others]:
        if path not in tables:
            tables[path] = read_table(path, f"{flag} file", input_format)
    named = [flag for flag, path in [first, *others] if tables[path].kind != "text"]

    def read(flag: str, path: str) -> list[Any]:
        table, what = tables[path], f"{flag} file"
        column, option = columns.get(flag, (None, "--column NAME"))
        # a column flag of this input alone, or the shared --column where no input is a table, cannot apply
        if table.kind == "text" and column is not None and (not option.startswith("--column") or not named):
            raise plain_text_refusal(table, what, option)
        column = None if table.kind == "text" else column
        return (
            table.texts_or_lists(column, what, option) if flag in lists else table.texts(column, what, option)
        )

    rows = read(*first)
    if not rows:  # the core would refuse "no rows" without knowing which file was empty
        raise InputError(f"{first[0]} file {_shown(first[1])} is empty: no rows to score")
    texts = [read(flag, path) for flag, path in others]
    for (_, path), column in zip(others, texts, strict=True):
        if len(column) != len(rows):
            tables_given = tables[path].kind != "text" or tables[first[1]].kind != "text"
            unit = "rows" if tables_given else "lines"
            raise InputError(
                f"{_shown(path)} has {len(column)} {unit} but {_shown(first[1])} has {len(rows)}"
            )
    return Aligned(rows, texts, row_ids(tables[first[1]], f"{first[0]} file", id_column))


def row_ids(table: Table, what: str, id_column: str | None) -> list[Any] | None:
    """The ids of `table`'s rows: its `id_column` (``--id-column``, refused naming the flag where it cannot
    apply), else its ``id`` column when it has exactly one, else None (rows are known by number)."""
    from bertscore_plugins.tables import MISSING

    option = f"{ID_FLAG} NAME"
    if table.kind == "text":
        if id_column is not None:
            raise plain_text_refusal(table, what, option)
        return None
    if id_column is None:
        if table.names.count(DEFAULT_ID_COLUMN) != 1:
            return None
        id_column = DEFAULT_ID_COLUMN
    return [None if value is MISSING else value for value in table.column(id_column, what, option)]


def references_by_row(columns: list[list[Any]]) -> list[str] | list[list[str]]:
    """One reference file of texts: its rows; several (-r a b), or a column of lists: each row's
    references as a list, in file order (a list cell adds all of its texts)."""
    if len(columns) == 1 and all(isinstance(cell, str) for cell in columns[0]):
        return columns[0]
    return [
        [text for cell in group for text in ([cell] if isinstance(cell, str) else cell)]
        for group in zip(*columns, strict=True)
    ]

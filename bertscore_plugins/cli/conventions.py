"""The conventions every command follows, in one place.

- ``-o/--output FILE`` is always where the command's result goes; ``-`` (the default) is stdout.
- Inputs are ``-c/--candidates``, ``-r/--references``, ``-s/--sources``; ``-`` is stdin. Each is one text
  per line, or one column of a CSV, TSV, JSON lines, JSON or parquet file (by its suffix, ``.gz`` looked
  through; ``--input-format`` for stdin or a name that says nothing), named with ``--column NAME`` (every
  table input) or ``--candidates-column`` / ``--references-column`` / ``--sources-column`` (one input); a
  table of one column needs no name; ``meta.reference`` reaches into nested records (tables.py).
- ``--id-column NAME`` (default: the first input's ``id`` column, when it has one) is carried into every
  per-row result as ``id``.
- ``--format`` picks the result's form: ``tsv`` (a header line, then one row a line), ``csv``, ``jsonl``
  (one JSON object a row) or ``json`` (one JSON object holding the summary and the rows).
- ``--summary FILE`` writes the JSON summary there; ``--summary -`` to stdout; by default it goes to stderr
  for a person to read (with the one-line warnings): a program reads it from a file or stdout.
- Long work shows progress on stderr: a bar on a terminal, a plain line at a steady pace in a log
  (core/progress.py); ``-q/--quiet`` silences it (``add_progress``).
- A flag that takes one value may be given once: a second ``-o`` is an error naming it, not a silent
  "last one wins".
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import json
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence

from bertscore_plugins.errors import UsageError
from bertscore_plugins.tables import DEFAULT_ID_COLUMN, FORMAT_FLAG, FORMATS

#: the name that means standard input or output
STREAM = "-"
#: the forms of a per-row result
ROW_FORMATS = ("tsv", "csv", "jsonl", "json")
#: the flag naming the column of row ids, carried into the per-row result as ``id``
ID_FLAG = "--id-column"
#: spellings of the input flags, and what each holds
INPUTS = {
    "candidates": ("-c", "--candidates", "one text to score per line"),
    "references": ("-r", "--references", "one reference per line, aligned with the candidates"),
    "sources": ("-s", "--sources", "one source/context per line, aligned with the candidates"),
}
_GIVEN = "_flags_given"
#: characters that would break a TSV row, shown as spaces
_TSV_SAFE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


class _Once:
    """Mixed into an action that sets one value: a second value for the same setting, by the same flag
    or another spelling of it (``-o a -o b``, ``--format text --json``, ``--layer 3 --num_layers 4``), is
    refused with one error naming both spellings, instead of a silent "last one wins"."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given:
            first = given[self.dest]
            also = "" if first == option_string else f" (also as {first})"
            parser.error(f"{option_string} given twice{also}; give it once")
        given[self.dest] = option_string
        super().__call__(parser, namespace, values, option_string)


class StoreOnce(_Once, argparse._StoreAction):
    """argparse's "store", refusing a second value for the same setting."""


#: the actions that set one value, and their once-only forms (made on first use, one per class)
_SINGLE_VALUED = (argparse._StoreAction, argparse._StoreConstAction, argparse.BooleanOptionalAction)
_ONCE_FORMS: dict[type, type] = {argparse._StoreAction: StoreOnce}


def make_single_valued_flags_once(parser: argparse.ArgumentParser) -> None:
    """Every action of `parser` that sets one value refuses a second one, however it was declared (by
    name, by class, in a group, by an integration's own flags): the action's class
    is swapped for its once-only form, so no declaration can forget it."""
    for action in parser._actions:
        kind = type(action)
        if isinstance(action, _Once) or not isinstance(action, _SINGLE_VALUED):
            continue
        if kind not in _ONCE_FORMS:
            _ONCE_FORMS[kind] = type(f"{kind.__name__}Once", (_Once, kind), {})
        action.__class__ = _ONCE_FORMS[kind]


def add_input(
    parser: argparse.ArgumentParser,
    kind: str,
    *,
    many: bool = False,
    aliases: Sequence[str] = (),
    required: bool = True,
) -> None:
    """The input flag for `kind` (candidates, references, sources). ``aliases``: other spellings
    (bert-score's ``--cand``/``--ref``). ``many``: several files (-r a b, or -r repeated)."""
    short, long, what = INPUTS[kind]
    action = argparse._ExtendAction if many else StoreOnce
    kind_args: dict[str, str] = {"nargs": "+"} if many else {}
    helptext = f"file with {what} ('-' = standard input)" + (
        "; several files (-r a b, or -r repeated) = several per line" if many else ""
    )
    parser.add_argument(
        short, long, *aliases, dest=kind, required=required, help=helptext, action=action, **kind_args
    )


def add_columns(parser: argparse.ArgumentParser, kinds: Sequence[str]) -> None:
    """``--column NAME`` for every table input, and ``--KIND-column NAME`` for one of `kinds` (inputs
    of `INPUTS`), read by common.column_of."""
    parser.add_argument(
        "--column",
        default=None,
        action=StoreOnce,
        metavar="NAME",
        help="the column holding the texts in CSV, TSV, JSON lines, JSON and parquet inputs (by the file's "
        "suffix: .csv .tsv .jsonl .json .parquet, also .gz; a.b reaches into nested records); plain text "
        "files stay one text per line",
    )
    parser.add_argument(
        FORMAT_FLAG,
        choices=FORMATS,
        default=None,
        action=StoreOnce,
        help="what standard input (or a file whose name has none of those suffixes) holds "
        "(default: text, one per line)",
    )
    parser.add_argument(
        ID_FLAG,
        default=None,
        action=StoreOnce,
        metavar="NAME",
        help=f"the column of the first input that names its rows, carried into the result as id "
        f"(default: {DEFAULT_ID_COLUMN!r} when that column exists)",
    )
    for kind in kinds:
        parser.add_argument(
            f"--{kind}-column",
            default=None,
            action=StoreOnce,
            metavar="NAME",
            help=f"the column holding the {kind} when it differs from --column",
        )


def add_output(
    parser: argparse.ArgumentParser,
    *,
    formats: Sequence[str] = ROW_FORMATS,
    default_format: str = "tsv",
    summary: str | None = "the JSON summary (means, rows, signature)",
    what: str = "per-row result",
) -> None:
    """``-o/--output`` (default stdout), ``--format`` and, when `summary` says what it holds,
    ``--summary``."""
    parser.add_argument(
        "-o", "--output", default=STREAM, action=StoreOnce, help=f"{what} file ('-' = stdout, the default)"
    )
    parser.add_argument(
        "--format",
        choices=tuple(formats),
        default=None,
        action=StoreOnce,
        help=f"form of the {what} (default: the -o file's suffix when it is one of these, else "
        f"{default_format})",
    )
    parser.set_defaults(_output_format=(default_format, tuple(formats)))
    if summary:
        parser.add_argument(
            "--summary",
            default=None,
            action=StoreOnce,
            help=f"write {summary} here ('-' = stdout; default: stderr, for a person to read)",
        )


def with_ids(
    records: list[dict[str, object]], columns: Sequence[str], ids: Sequence[object] | None
) -> list[str]:
    """Each record given its row's id (``--id-column``) as ``id``, after ``row``; the columns to write.
    No ids (no id column): the records and columns as they are."""
    if ids is None:
        return list(columns)
    for record, row_id in zip(records, ids, strict=True):
        record["id"] = row_id
    at = list(columns).index("row") + 1 if "row" in columns else 0
    return [*columns[:at], "id", *columns[at:]]


def settle_output_format(args: argparse.Namespace) -> None:
    """``--format`` when given, else the ``-o`` file's suffix when it names a form (``-o out.csv`` writes
    CSV: a TSV under a .csv name would read back as one column), else the command's default."""
    spec = getattr(args, "_output_format", None)
    if spec is None or getattr(args, "format", None) is not None:
        return
    default, formats = spec
    output = getattr(args, "output", STREAM) or STREAM
    suffix = "" if output == STREAM else output.rsplit(".", 1)[-1].lower() if "." in output else ""
    args.format = suffix if suffix in formats else default


def add_progress(parser: argparse.ArgumentParser) -> None:
    """``--progress/--no-progress`` and ``-q/--quiet``: read back with :func:`progress_of`."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: a bar on a terminal for long runs; elsewhere, e.g. a log, a plain line "
        "every 30 s, or every BERTSCORE_PROGRESS_SECONDS)",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar or line (warnings and errors still show)"
    )


def progress_of(args: argparse.Namespace) -> bool | None:
    """The core's ``progress`` for the flags: False with --quiet, else --progress/--no-progress (None: auto)."""
    if args.quiet and args.progress:
        raise UsageError("--quiet and --progress contradict each other: give one")
    return False if args.quiet else args.progress


def render_rows(
    records: Sequence[Mapping[str, object]],
    columns: Sequence[str],
    form: str,
    summary: Mapping[str, object] | None = None,
) -> str:
    """`records` (dicts with at least `columns`) as text in `form` (one of ROW_FORMATS).

    tsv and csv have a header line and floats that read back exactly (`exact_float`), lists joined by "; " (tabs and line breaks
    inside a cell become spaces in tsv, csv quotes them); jsonl is one object a line with every key;
    json is one object: the summary's fields and "rows" (the summary's row count is their length).
    """
    if form == "jsonl":
        return "".join(json.dumps(record) + "\n" for record in records)
    if form == "json":  # the summary's fields, then the rows (its row count is their length)
        fields = {key: value for key, value in (summary or {}).items() if key != "rows"}
        return json.dumps({**fields, "rows": records}, indent=2) + "\n"
    table = [list(columns)] + [[_cell(record.get(column)) for column in columns] for record in records]
    if form == "tsv":
        return "".join("\t".join(cell.translate(_TSV_SAFE) for cell in row) + "\n" for row in table)
    if form == "csv":
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(table)
        return buffer.getvalue()
    raise UsageError(f"--format must be one of {', '.join(ROW_FORMATS)}, got {form!r}")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return exact_float(value)
    if isinstance(value, (list, tuple)):
        return "; ".join(str(item) for item in value)
    return str(value)


def exact_float(value: float) -> str:
    """`value` as the shortest text that reads back as the same number: a score computed in float32 as
    its float32's shortest form (9 significant digits at most: 0.91234565, where repr of the float64 is
    0.9123456478118896), anything else as ``repr``. ``pd.read_csv(...).astype("float32")`` gives the
    API's float32 values exactly (6 decimals were up to 5e-7 off)."""
    import numpy as np

    single = np.float32(value)
    if np.isfinite(single) and float(single) == value:
        return np.format_float_positional(single, unique=True, trim="0")
    return repr(value)


def write_result(
    text: str, output: str, summary: Mapping[str, object] | None, summary_to: str | None
) -> None:
    """`text` to `output` ('-' = stdout) and the summary as JSON to `summary_to` ('-' = stdout, None =
    stderr). Files first (they can still fail, atomically), stdout last: an error never leaves half a
    result printed."""
    from bertscore_plugins.files import write_output

    summary_text = json.dumps(summary, indent=2) + "\n" if summary is not None else None
    if summary_text is not None and summary_to not in (None, STREAM):
        write_output(summary_to, summary_text)
    if output != STREAM:
        write_output(output, text)
    else:
        write_lines_to_stdout(text)
    if summary_text is not None and summary_to == STREAM:
        write_lines_to_stdout(summary_text)
    elif summary_text is not None and summary_to is None:
        sys.stderr.write(summary_text)
    sys.stdout.flush()


def write_lines_to_stdout(text: str) -> None:
    """`text` to stdout a line at a time, each flushed: a reader that has had enough (``| head -1``) is
    seen at the next line as a BrokenPipeError (exit 141, cli.main), not hidden by one large write that
    the pipe's buffer swallowed whole."""
    for line in text.splitlines(keepends=True):
        sys.stdout.write(line)
        sys.stdout.flush()


# ----- flag values parsed into their types (argparse names the flag when a parser raises) ---------------


def whole_number_at_least(smallest: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= `smallest`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < smallest:
            raise argparse.ArgumentTypeError(f"must be at least {smallest}, got {value}")
        return value

    return parse


def seconds_between(smallest: float, largest: float) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds in [smallest, largest] (1e300 would overflow a
    sleep; nan would never compare)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not smallest <= value <= largest:  # also refuses nan and inf
            raise argparse.ArgumentTypeError(
                f"must be between {smallest:g} and {largest:g} seconds, got {text}"
            )
        return value

    return parse


def open_fraction() -> Callable[[str], float]:
    """An argparse type: a number strictly between 0 and 1 (a level or a coverage; nan refused)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
        if not 0.0 < value < 1.0:  # also refuses nan and inf
            raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
        return value

    return parse


def sigterm_as_ctrl_c(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """SIGTERM ends the command as Ctrl-C does (a server is stopped by pid, the report is printed).

    The caller's handler is put back afterwards: ``cli.main`` run in-process (a test, a notebook) must
    not leave a handler that turns a later SIGTERM, e.g. a process pool's shutdown of its forked
    workers, into KeyboardInterrupt (that deadlocked a multiprocessing pool in the test suite)."""

    @functools.wraps(command)
    def wrapped(args: argparse.Namespace) -> int:
        if threading.current_thread() is not threading.main_thread():
            return command(args)  # only the main thread may set signal handlers
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            return command(args)
        finally:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)

    return wrapped


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt

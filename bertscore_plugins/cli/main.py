"""`bertscore-plugins` command line: one subcommand per module in bertscore_plugins/cli/.

A user's mistake (a missing or undecodable file, a bad setting, a model that cannot be loaded, an output
folder that does not exist: any `BertScorePluginsError`) ends the command with one line on stderr naming
the file, line or argument, and exit status 2. Anything else is a bug of ours: one "unexpected error"
line asking for a report, exit status 1. Ctrl-C: one line, exit status 130. `--debug` shows the
traceback instead. Warnings are one ``warning: ...`` line each on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import os
import sys
import warnings
from collections.abc import Iterator
from typing import NoReturn

from bertscore_plugins.errors import BertScorePluginsError, UsageError

#: subcommand modules under bertscore_plugins.cli, each with register(subparsers) and run(args)
COMMANDS = ("score", "baseline", "sanity", "phoenix", "compare", "faithfulness", "judge", "disagreement")

EXIT_BUG = 1
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
#: the reader of stdout went away (`| head`): 128 + SIGPIPE, what a shell reports for a Unix tool
EXIT_BROKEN_PIPE = 141


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake raises UsageError (printed as one line by main) instead of usage + exit,
    a flag that takes one value refuses a second one (conventions.make_single_valued_flags_once), and a
    mistyped flag gets "did you mean" with the closest flag of its command."""

    def parse_known_args(self, args=None, namespace=None):
        from bertscore_plugins.cli.conventions import make_single_valued_flags_once

        make_single_valued_flags_once(self)  # a subcommand's parser runs this too, when it is chosen
        return super().parse_known_args(args, namespace)

    def parse_args(self, args=None, namespace=None):
        from bertscore_plugins.cli.conventions import settle_output_format

        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            command = _chosen_command(self, parsed)
            command.error(_unrecognized(command, unknown))
        settle_output_format(parsed)
        return parsed

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _chosen_command(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command the line chose (phoenix evaluate: two levels down)."""
    command = parser
    while True:
        chooser = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
        if chooser is None or getattr(parsed, chooser.dest, None) not in chooser.choices:
            return command
        command = chooser.choices[getattr(parsed, chooser.dest)]


def _unrecognized(command: argparse.ArgumentParser, unknown: list[str]) -> str:
    """What argparse could not place, with the closest flag of the command for each mistyped flag."""
    flags = [flag for action in command._actions for flag in action.option_strings]
    described = []
    for argument in unknown:
        flag = argument.split("=", 1)[0]
        close = difflib.get_close_matches(flag, flags, n=1, cutoff=0.6) if flag.startswith("-") else []
        described.append(f"{argument} (did you mean {close[0]}?)" if close else argument)
    return f"unrecognized argument{'s' if len(unknown) > 1 else ''}: {' '.join(described)}"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bertscore-plugins",
        description="BERTScore with a reproducibility signature. Default model: all-MiniLM-L6-v2 (offline).",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, show the full traceback instead of one line (also: BERTSCORE_DEBUG=1)",
    )
    from bertscore_plugins import __version__

    parser.add_argument("--version", action="version", version=f"bertscore-plugins {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"bertscore_plugins.cli.{name}")
        except ImportError as error:  # an integration whose extra is not installed
            if (error.name or "").startswith("bertscore_plugins"):
                raise  # our own module is missing or broken: a bug to report, not a missing extra
            sub = subparsers.add_parser(name, help=f"(unavailable: {error})")
            sub.set_defaults(func=lambda args, error=error: _unavailable(error))
            continue
        module.register(subparsers)
    return parser


def _unavailable(error: Exception) -> int:
    print(f"this command needs an optional extra that is not installed: {error}", file=sys.stderr)
    return EXIT_USER_ERROR


#: settings whose errors already name their flag, or have none
_NO_FLAG_PREFIX = ("layers",)


def describe(error: BaseException) -> str:
    """One line for a user error: the flag for a setting, the message without line breaks."""
    from bertscore_plugins.errors import SettingError

    message = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, SettingError) and error.setting not in _NO_FLAG_PREFIX:
        flag = "--" + error.setting.replace("_", "-")
        if not message.startswith(flag):
            return f"error: {flag}: {message}"
    return f"error: {message}"


def is_user_error(error: BaseException) -> bool:
    """A project error (raised on purpose), or the operating system refusing a file the user named
    (a full disk, a permission): the user must change something. Anything else is our bug."""
    return isinstance(error, BertScorePluginsError) or (
        isinstance(error, OSError) and getattr(error, "filename", None) is not None
    )


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; returns its exit status.

    0: done; 1: a check failed or an unexpected error (a bug, printed as one line asking for a report);
    2: a user error (one ``error: ...`` line on stderr); 130: interrupted (Ctrl-C). ``--debug`` (or
    ``BERTSCORE_DEBUG=1``) shows the traceback of either kind of error instead.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, so it can be added to a failing command as it stands
    debug = "--debug" in argv or os.environ.get("BERTSCORE_DEBUG", "") not in ("", "0")
    argv = [arg for arg in argv if arg != "--debug"]
    try:
        with one_line_warnings():
            parser = build_parser()
            args = parser.parse_args(argv)
            if not getattr(args, "func", None):
                parser.print_help(sys.stderr)
                return EXIT_USER_ERROR
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stop quietly, as Unix tools do; no error line for a reader that had enough
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as error:
        if debug:
            raise
        if is_user_error(error):
            print(describe(error), file=sys.stderr)
            return EXIT_USER_ERROR
        message = " ".join(str(error).split())
        print(
            f"unexpected error: {type(error).__name__}: {message} (run with --debug; please report)",
            file=sys.stderr,
        )
        return EXIT_BUG


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so Python's flush at exit does not fail on the closed pipe again."""
    # not a real file (a test's capture): nothing to flush
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Warnings printed as ``warning: MESSAGE`` on one stderr line each (no file, line number or source
    line), for the command's duration only: a library's own warnings hook is put back afterwards."""
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print("warning: " + " ".join(str(message).split()), file=sys.stderr)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""`bertscore-plugins` command line: one subcommand per module in bertscore_plugins/commands/.

A user's mistake (a missing or undecodable file, a bad setting, a model that cannot be loaded, an output
folder that does not exist) ends the command with one line on stderr naming the file, line or argument,
and exit status 2; `--debug` shows the traceback instead. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

#: subcommand modules under bertscore_plugins.commands, each with register(subparsers) and run(args)
COMMANDS = ("score", "baseline", "sanity", "phoenix", "compare", "faithfulness")

EXIT_USER_ERROR = 2


class UsageError(ValueError):
    """A command-line mistake (an unknown flag, a bad value, a missing required argument)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake raises UsageError (printed as one line by main) instead of usage + exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


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
            module = importlib.import_module(f"bertscore_plugins.commands.{name}")
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


def user_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean the user must change an input, a setting or a file (not a bug)."""
    # the launcher needs only the standard library, so this import holds without the phoenix extra
    from bertscore_plugins.phoenix.dev_server import PhoenixServerError
    from bertscore_plugins.presets import PresetIntegrityError, PresetNotInstalledError

    return (ValueError, OSError, PresetIntegrityError, PresetNotInstalledError, PhoenixServerError)


def describe(error: BaseException) -> str:
    """One line for a user error: the flag for a setting, the message without line breaks."""
    from bertscore_plugins.config import SettingError

    message = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, SettingError) and error.setting in ("layers",):
        return f"error: {message}"
    if isinstance(error, SettingError):
        return f"error: --{error.setting.replace('_', '-')}: {message}"
    return f"error: {message}"


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; returns its exit status (2 for a user mistake, printed as one stderr line)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, so it can be added to a failing command as it stands
    debug = "--debug" in argv or os.environ.get("BERTSCORE_DEBUG", "") not in ("", "0")
    argv = [arg for arg in argv if arg != "--debug"]
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_USER_ERROR
        return int(args.func(args) or 0)
    except user_errors() as error:
        if debug:
            raise
        print(describe(error), file=sys.stderr)
        return EXIT_USER_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

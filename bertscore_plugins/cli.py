"""`bertscore-plugins` command line: one subcommand per module in bertscore_plugins/commands/."""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand modules under bertscore_plugins.commands, each with register(subparsers) and run(args)
COMMANDS = ("score", "baseline", "sanity", "phoenix", "compare")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bertscore-plugins",
        description="BERTScore with a reproducibility signature. Default model: all-MiniLM-L6-v2 (offline).",
    )
    from bertscore_plugins import __version__

    parser.add_argument("--version", action="version", version=f"bertscore-plugins {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"bertscore_plugins.commands.{name}")
        except ImportError as error:  # an integration whose extra is not installed
            sub = subparsers.add_parser(name, help=f"(unavailable: {error})")
            sub.set_defaults(func=lambda args, error=error: _unavailable(error))
            continue
        module.register(subparsers)
    return parser


def _unavailable(error: Exception) -> int:
    print(f"this command needs an optional extra that is not installed: {error}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

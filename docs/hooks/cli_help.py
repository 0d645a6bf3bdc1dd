"""MkDocs hook: `<!-- cli-help: score -->` in a page becomes that command's `--help`, read from the parser
itself, so the CLI reference can never fall behind the flags (`<!-- cli-help: -->` is the top level,
`<!-- cli-help: phoenix evaluate -->` a nested command)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

# the checkout's own package, whether or not it is installed (mkdocstrings reads it from here too)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

_MARKER = re.compile(r"^<!--\s*cli-help:\s*([\w -]*?)\s*-->$", re.MULTILINE)


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse has no public way to walk its subparsers
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    raise ValueError(f"`bertscore-plugins {name}` is not a command (a stale cli-help marker?)")


def command_help(words: str) -> str:
    from bertscore_plugins.cli.main import build_parser

    parser = build_parser()
    for word in words.split():
        parser = _subcommand(parser, word)
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "110"  # the same wrapping on every machine
    try:
        return parser.format_help()
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, **kwargs) -> str:
    return _MARKER.sub(lambda match: f"```text\n{command_help(match.group(1))}```", markdown)

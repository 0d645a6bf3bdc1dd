"""The `bertscore-plugins` command line: main.py is the entry point, one module per subcommand (each has
register(subparsers) and run(args) -> int), conventions.py and common.py what they share."""

from bertscore_plugins.cli.main import main

__all__ = ["main"]

"""`bertscore-plugins disagreement TABLE`: similarity vs faithfulness on a RAG table, from any folder.

    bertscore-plugins disagreement answers.jsonl --out runs/answers --phoenix-url http://127.0.0.1:6006

From a CSV / TSV / JSONL / JSON / parquet file or a Hugging Face dataset saved to disk, with question,
context, output (the answer) and reference (the gold answer) columns, the recipe scores every row
(BERTScore F1 against the reference, groundedness and the offline faithfulness against the context, an
LLM judge when one is configured) into the one result store (``OUT/results.sqlite``), names where the
signals disagree (``agree``, ``high_sim_unfaithful``, ``low_sim_faithful``), writes the scores table in
the user's words (``OUT/scores.jsonl``: their columns, one flat column per score and part) with
``OUT/summary.json`` (means and label counts), the report (a PNG scatter and a self-contained HTML
page), and logs traces, span annotations, a dataset and an experiment to Phoenix.

Resumable: run the same command again and only what the store lacks is computed (the judge is asked
only for the rows without a verdict); new ``--*-threshold`` values are re-applied to the stored scores
without a model call (``--thresholds-only`` guarantees it). Exit codes: 0 done, 2 bad input or arguments,
3 Phoenix logging incomplete, 4 judge failed on some rows. The modules: :mod:`.rows` (the table source),
:mod:`.recipe` (source -> engine -> store -> sinks), :mod:`.folder`, :mod:`.html_report`, :mod:`.scatter`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bertscore_plugins.cli.disagreement.exits import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from bertscore_plugins.cli.disagreement.exits import EXIT_JUDGE as EXIT_JUDGE
from bertscore_plugins.cli.disagreement.exits import EXIT_OK as EXIT_OK
from bertscore_plugins.cli.disagreement.exits import EXIT_PHOENIX as EXIT_PHOENIX
from bertscore_plugins.cli.disagreement.exits import HTML_NAME as HTML_NAME
from bertscore_plugins.cli.disagreement.exits import PNG_NAME as PNG_NAME
from bertscore_plugins.errors import UsageError

DEFAULT_PROJECT = "bertscore-disagreement"
DEFAULT_PHOENIX_URL = "http://127.0.0.1:6006"
#: the configuration's settings that are the trace evaluation's, not a table's
_TRACE_ONLY = (
    "annotation_identifier",
    "reference_key",
    "reference_dataset",
    "example_id_key",
    "reference_field",
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "disagreement",
        help="similarity vs faithfulness on a RAG table: scores, a report, Phoenix traces and an experiment",
        description=__doc__.split("\n\n")[2].replace("\n", " "),
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
    from bertscore_plugins.settings import add_flags

    _add_table_flags(parser)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N rows")
    parser.add_argument(
        "--model",
        default="default",
        help="encoder: 'default' (packaged all-MiniLM-L6-v2), a Hugging Face id or a local model folder",
    )
    add_flags(parser, EvaluationConfig, skip=_TRACE_ONLY)  # thresholds, judge rows, concurrency
    _add_phoenix_flags(parser)
    parser.add_argument("--top", type=int, default=20, help="disagreements listed in the HTML report")
    parser.add_argument(
        "--thresholds-only",
        action="store_true",
        help="re-apply the thresholds to the scores stored in --out: no model, no judge (an error if a row "
        "has no stored scores)",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line (written every 20 s while scoring when stderr is not a terminal)",
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="discard the scores in --out and score again (otherwise reused)",
    )


def _add_table_flags(parser: argparse.ArgumentParser) -> None:
    """The table read (input, its format, split, columns) and the scores table written (--out, --format)."""
    from bertscore_plugins.tables import FORMAT_FLAG, FORMATS

    parser.add_argument(
        "input",
        help="CSV/TSV/JSONL/JSON/parquet file (also .gz; '-' = standard input), or a folder from datasets' "
        "save_to_disk",
    )
    parser.add_argument(
        FORMAT_FLAG,
        choices=FORMATS[1:],
        default=None,
        help="what standard input (or a file whose name has none of those suffixes) holds",
    )
    parser.add_argument("--out", default=None, help="output folder (default: runs/<input name>)")
    parser.add_argument("--split", default=None, help="split of a saved DatasetDict")
    parser.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default="jsonl",
        dest="table_format",
        help="format of the scores table (default jsonl)",
    )
    for field in ("question", "context", "output", "reference", "id"):
        parser.add_argument(
            f"--{field}-column", default=field, help=f"column holding the {field} (default {field!r})"
        )


def _add_phoenix_flags(parser: argparse.ArgumentParser) -> None:
    """Where the run is logged: the Phoenix server and project, or nowhere."""
    parser.add_argument(
        "--phoenix-url",
        default=os.environ.get("PHOENIX_BASE_URL", DEFAULT_PHOENIX_URL),
        help=f"Phoenix server (default $PHOENIX_BASE_URL or {DEFAULT_PHOENIX_URL})",
    )
    parser.add_argument(
        "--project", default=DEFAULT_PROJECT, help=f"Phoenix project (default {DEFAULT_PROJECT})"
    )
    parser.add_argument("--no-phoenix", action="store_true", help="score and report only; log nothing")


def run(args: argparse.Namespace) -> int:
    """Run the recipe; returns the exit code (see the module docstring)."""
    for flag, value in (
        ("--limit", args.limit),
        ("--top", args.top),
        ("--judge-concurrency", args.judge_concurrency),
    ):
        if value is not None and value < 1:  # head(-1) would silently drop the last row
            raise UsageError(f"{flag} must be at least 1, got {value}")
    if args.out is None:
        args.out = str(Path("runs") / ("stdin" if args.input == "-" else Path(args.input.rstrip("/")).stem))
    args.phoenix_url = args.phoenix_url.rstrip("/")
    from bertscore_plugins.cli.disagreement.recipe import run_recipe

    return run_recipe(args)


def main(argv: list[str] | None = None) -> int:
    """``bertscore-plugins disagreement ARGV`` (the command's errors, exit codes and warnings)."""
    import sys

    from bertscore_plugins.cli.main import main as command

    return command(["disagreement", *(sys.argv[1:] if argv is None else argv)])

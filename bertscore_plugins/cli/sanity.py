"""`bertscore-plugins sanity [settings]`: the checklist to run before trusting a configuration."""

from __future__ import annotations

import argparse

from bertscore_plugins.cli.common import add_model_arguments, config_from_args
from bertscore_plugins.cli.conventions import (
    ROW_FORMATS,
    add_output,
    render_rows,
    write_result,
)
from bertscore_plugins.files import check_outputs


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sanity",
        help="check a configuration: exact copy = 1, empty = 0, paraphrase > off-topic, known blind spots",
        description="Runs the sanity checklist on one configuration (any model, layer, idf, baseline) and "
        "prints a pass/warn/fail table. 'warn' rows are known blind spots of similarity metrics "
        "(wrong date, wrong number, negation, swapped entities): they score high by design. "
        "Exit status 1 if a must-pass check fails.",
    )
    add_output(
        parser,
        formats=("table", *ROW_FORMATS),
        default_format="table",
        summary=None,
        what="report (table: aligned columns for a person)",
    )
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins.analysis.sanity import run_sanity

    check_outputs({"-o/--output": args.output})
    config = config_from_args(args)
    from bertscore_plugins.core.scorer import get_scorer  # torch: loaded only once the flags hold

    report = run_sanity(get_scorer(config))
    if args.format == "table":
        text = report.table() + "\n"
    else:
        rows = [dict(row.__dict__) for row in report.rows]
        columns = list(rows[0]) if rows else []
        summary = {"signature": report.signature, "passed": report.passed}
        text = render_rows(rows, columns, args.format, summary)
    write_result(text, args.output, None, None)
    return 0 if report.passed else 1

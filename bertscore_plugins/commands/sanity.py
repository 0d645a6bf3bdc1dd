"""`bertscore-plugins sanity [settings]`: the checklist to run before trusting a configuration."""

from __future__ import annotations

import argparse
import json
import sys

from bertscore_plugins.commands.common import add_model_arguments, config_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sanity",
        help="check a configuration: exact copy = 1, empty = 0, paraphrase > off-topic, known blind spots",
        description="Runs the sanity checklist on one configuration (any model, layer, idf, baseline) and "
        "prints a pass/warn/fail table. 'warn' rows are known blind spots of similarity metrics "
        "(wrong date, wrong number, negation, swapped entities): they score high by design. "
        "Exit status 1 if a must-pass check fails.",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer
    from bertscore_plugins.sanity import run_sanity

    try:
        scorer = get_scorer(config_from_args(args))
    except (ValueError, FileNotFoundError) as error:  # bad setting, missing model or baseline
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = run_sanity(scorer)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.table())
    return 0 if report.passed else 1

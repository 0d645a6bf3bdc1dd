"""`bertscore-plugins faithfulness -c OUTPUTS -s SOURCES`: offline faithfulness per row, with the facts.

One row per line: row, score (groundedness x fact check), label, and the unsupported facts with what the
source says ("Thursday: context says Tuesday"). Same conventions as `score` (conventions.py): -o/--output
('-' = stdout), --format tsv|csv|jsonl|json, a JSON summary with the signature (--summary).
"""

from __future__ import annotations

import argparse

from bertscore_plugins.commands.common import (
    add_model_arguments,
    config_from_args,
    read_aligned,
)
from bertscore_plugins.commands.conventions import (
    add_input,
    add_output,
    render_rows,
    write_result,
)
from bertscore_plugins.errors import UsageError
from bertscore_plugins.files import check_outputs


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "faithfulness",
        help="offline faithfulness of outputs against their sources: groundedness x fact check",
        description="Checks each line of OUTPUTS against the same line of SOURCES without an LLM: BERTScore "
        "precision against the source (groundedness) combined with a fact check (numbers, dates, "
        "weekdays, names and negations must be carried by the source). Writes row, score, label "
        "and the unsupported facts per line, and a JSON summary with the signature.",
    )
    add_input(parser, "candidates", old=("--outputs",))
    add_input(parser, "sources")
    add_output(parser, summary="the JSON summary (rows, faithful, mean score, signature)", old=("--out",))
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="groundedness at or above which a row with every fact supported is faithful (default 0.8)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal for long runs)",
    )
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import DEFAULT_GROUNDEDNESS_THRESHOLD, FAITHFUL, offline_faithfulness

    # everything that can be checked before scoring is checked first: nothing reaches stdout before an error
    config = config_from_args(args)
    check_outputs(
        {"-o/--output": args.output, "--summary": args.summary},
        {"-c/--candidates": args.candidates, "-s/--sources": args.sources},
    )
    outputs, (sources,) = read_aligned(("-c/--candidates", args.candidates), [("-s/--sources", args.sources)])
    threshold = DEFAULT_GROUNDEDNESS_THRESHOLD if args.threshold is None else args.threshold
    if not 0.0 <= threshold <= 1.0:  # also refuses NaN
        raise UsageError(f"--threshold must be between 0 and 1, got {args.threshold!r}")
    scorer = get_scorer(config)
    rows = offline_faithfulness(outputs, sources, scorer=scorer, threshold=threshold, progress=args.progress)

    columns = ["row", "score", "label", "unsupported_facts"]
    records = [
        {
            "row": index,
            "score": row.score,
            "label": row.label,
            "unsupported_facts": [str(finding) for finding in row.facts.unsupported],
            "groundedness": row.groundedness,
            "fact_score": row.facts.score,
        }
        for index, row in enumerate(rows)
    ]
    summary = {
        "rows": len(rows),
        "faithful": sum(row.label == FAITHFUL for row in rows),
        "score": sum(row.score for row in rows) / len(rows) if rows else None,
        "threshold": threshold,
        "signature": str(scorer.signature),
    }
    write_result(render_rows(records, columns, args.format, summary), args.output, summary, args.summary)
    return 0

"""`bertscore-plugins faithfulness -o OUTPUTS -s SOURCES`: offline faithfulness per row, with the facts.

One row per line: row, score (groundedness x fact check), label, and the unsupported facts with what the
source says ("Thursday: context says Tuesday"). Same line conventions as `score`: TSV with a header
line (or JSONL), per-row output to stdout or --out, a JSON summary with the signature to stderr.
"""

from __future__ import annotations

import argparse
import json

from bertscore_plugins.commands.common import (
    add_model_arguments,
    config_from_args,
    read_aligned,
    write_rows_and_summary,
)
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
    parser.add_argument("-o", "--outputs", required=True, help="file with one generated text per line")
    parser.add_argument(
        "-s",
        "--sources",
        required=True,
        help="file with one source/context per line, aligned with the outputs",
    )
    parser.add_argument("--out", default="-", help="per-row output file (default: stdout)")
    parser.add_argument("--format", choices=["tsv", "jsonl"], default="tsv", help="per-row output format")
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="groundedness at or above which a row with every fact supported is faithful (default 0.8)",
    )
    parser.add_argument(
        "--summary",
        default=None,
        help="write the JSON summary (rows, faithful, mean score, signature) here (default: stderr)",
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
        {"--out": args.out, "--summary": args.summary},
        {"-o/--outputs": args.outputs, "-s/--sources": args.sources},
    )
    outputs, (sources,) = read_aligned(("-o/--outputs", args.outputs), [("-s/--sources", args.sources)])
    threshold = DEFAULT_GROUNDEDNESS_THRESHOLD if args.threshold is None else args.threshold
    if not 0.0 <= threshold <= 1.0:  # also refuses NaN
        raise ValueError(f"--threshold must be between 0 and 1, got {args.threshold!r}")
    scorer = get_scorer(config)
    rows = offline_faithfulness(outputs, sources, scorer=scorer, threshold=threshold, progress=args.progress)

    lines = ["row\tscore\tlabel\tunsupported_facts"] if args.format == "tsv" else []
    for index, row in enumerate(rows):
        unsupported = [str(finding) for finding in row.facts.unsupported]
        if args.format == "tsv":
            cells = "; ".join(unsupported).replace("\t", " ").replace("\n", " ")
            lines.append(f"{index}\t{row.score:.6f}\t{row.label}\t{cells}")
        else:
            lines.append(
                json.dumps(
                    {
                        "row": index,
                        "score": row.score,
                        "label": row.label,
                        "unsupported_facts": unsupported,
                        "groundedness": row.groundedness,
                        "fact_score": row.facts.score,
                    }
                )
            )
    summary = {
        "rows": len(rows),
        "faithful": sum(row.label == FAITHFUL for row in rows),
        "score": sum(row.score for row in rows) / len(rows) if rows else None,
        "threshold": threshold,
        "signature": str(scorer.signature),
    }
    write_rows_and_summary(lines, summary, rows_to=args.out, summary_to=args.summary)
    return 0

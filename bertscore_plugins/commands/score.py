"""`bertscore-plugins score -c CANDS -r REFS [-r REFS2 ...]`: per-row scores and a JSON summary."""

from __future__ import annotations

import argparse
import json

from bertscore_plugins.commands.common import (
    STDIN,
    add_model_arguments,
    config_from_args,
    read_aligned,
    references_by_row,
    write_rows_and_summary,
)
from bertscore_plugins.files import check_outputs


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score candidates against references (files with one text per line)",
        description="Score each line of CANDS against the same line of REFS (several -r files = several "
        "references per line). Writes per-row precision/recall/F1 and a JSON summary with the "
        "signature.",
    )
    parser.add_argument(
        "-c",
        "--candidates",
        "--cand",
        required=True,
        help="file with one candidate per line ('-' = standard input)",
    )
    parser.add_argument(
        "-r",
        "--references",
        "--ref",
        required=True,
        action="extend",
        nargs="+",
        help="file(s) with one reference per line, aligned with the candidates; several files "
        "(-r a.txt b.txt, or -r repeated) = several references per line; '-' = standard input",
    )
    parser.add_argument("-o", "--output", default="-", help="per-row output file (default: stdout)")
    parser.add_argument("--format", choices=["tsv", "jsonl"], default="tsv", help="per-row output format")
    parser.add_argument(
        "--summary",
        default=None,
        help="write the JSON summary (means, rows, signature) here (default: stderr)",
    )
    parser.add_argument("--explain", action="store_true", help="add the worst-matched tokens of each row")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal for long runs)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="bert-score's flag: the same as --progress"
    )
    parser.add_argument(
        "-s",
        "--seg_level",
        action="store_true",
        help="bert-score's flag for per-row scores; accepted: every row is always written",
    )
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer

    if [args.candidates, *args.references].count(STDIN) > 1:
        raise ValueError("only one of -c/--candidates and -r/--references can read standard input ('-')")
    # everything that can be checked before scoring is checked first: nothing reaches stdout before an error
    config = config_from_args(args)
    check_outputs(
        {"-o/--output": args.output, "--summary": args.summary},
        {"-c/--candidates": args.candidates, "-r/--references": args.references},
    )
    candidates, columns = read_aligned(
        ("-c/--candidates", args.candidates), [("-r/--references", path) for path in args.references]
    )
    references = references_by_row(columns)
    scorer = get_scorer(config)
    progress = True if args.verbose and args.progress is None else args.progress  # bert-score's -v
    scores = scorer.score(candidates, references, progress=progress, explain=args.explain)

    lines = []
    if args.format == "tsv":
        lines.append("row\tprecision\trecall\tf1" + ("\tworst_matches" if args.explain else ""))
    for row in range(len(scores)):
        values = (float(scores.precision[row]), float(scores.recall[row]), float(scores.f1[row]))
        explanation = scores.explanations[row].summary() if args.explain else None
        if args.format == "tsv":
            line = f"{row}\t{values[0]:.6f}\t{values[1]:.6f}\t{values[2]:.6f}"
            lines.append(line + (f"\t{explanation}" if args.explain else ""))
        else:
            record = {"row": row, "precision": values[0], "recall": values[1], "f1": values[2]}
            if args.explain:
                record["worst_matches"] = explanation
            lines.append(json.dumps(record))

    summary = {
        "rows": len(scores),
        **scores.means(),
        "rescaled": scores.rescaled,
        "signature": scores.signature,
    }
    write_rows_and_summary(lines, summary, rows_to=args.output, summary_to=args.summary)
    return 0

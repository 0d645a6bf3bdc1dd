"""`bertscore-plugins score -c CANDS -r REFS [-r REFS2 ...]`: per-row scores and a JSON summary."""

from __future__ import annotations

import argparse

from bertscore_plugins.cli.common import (
    STDIN,
    add_model_arguments,
    config_from_args,
    read_inputs,
    references_by_row,
)
from bertscore_plugins.cli.conventions import (
    add_columns,
    add_input,
    add_output,
    add_progress,
    progress_of,
    render_rows,
    with_ids,
    write_result,
)
from bertscore_plugins.errors import UsageError
from bertscore_plugins.files import check_outputs


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score candidates against references (one text per line, or a column of a CSV, TSV, JSON "
        "lines or parquet file)",
        description="Score each line of CANDS against the same line of REFS (several -r files = several "
        "references per line). Writes per-row precision/recall/F1 and a JSON summary with the "
        "signature.",
    )
    add_input(parser, "candidates", aliases=("--cand",))  # bert-score's spelling
    add_input(parser, "references", many=True, aliases=("--ref",))
    add_output(parser)
    parser.add_argument("--explain", action="store_true", help="add the worst-matched tokens of each row")
    add_progress(parser)
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="bert-score's flag: the same as --progress"
    )
    parser.add_argument(
        "-s",
        "--seg_level",
        action="store_true",
        help="bert-score's flag for per-row scores; accepted: every row is always written",
    )
    add_columns(parser, ("candidates", "references"))
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    if [args.candidates, *args.references].count(STDIN) > 1:
        raise UsageError("only one of -c/--candidates and -r/--references can read standard input ('-')")
    # everything that can be checked before scoring is checked first: nothing reaches stdout before an error
    config = config_from_args(args)
    check_outputs(
        {"-o/--output": args.output, "--summary": args.summary},
        {"-c/--candidates": args.candidates, "-r/--references": args.references},
    )
    candidates, reference_columns, ids = read_inputs(
        args, ("candidates", "references"), lists=("references",)
    )
    references = references_by_row(reference_columns)
    from bertscore_plugins.core.scorer import get_scorer  # torch: loaded only once the flags hold

    scorer = get_scorer(config)
    progress = progress_of(args)
    progress = True if args.verbose and progress is None else progress  # bert-score's -v
    scores = scorer.score(candidates, references, progress=progress, explain=args.explain)

    columns = ["row", "precision", "recall", "f1"] + (["worst_matches"] if args.explain else [])
    records = [
        {
            "row": row,
            "precision": float(scores.precision[row]),
            "recall": float(scores.recall[row]),
            "f1": float(scores.f1[row]),
            **({"worst_matches": scores.explanations[row].summary()} if scores.explanations else {}),
        }
        for row in range(len(scores))
    ]
    columns = with_ids(records, columns, ids)
    summary = {
        "rows": len(scores),
        **scores.means(),
        "rescaled": scores.rescaled,
        "signature": scores.signature,
    }
    text = render_rows(records, columns, args.format, summary)
    write_result(text, args.output, summary, args.summary)
    return 0

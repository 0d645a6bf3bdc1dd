"""`bertscore-plugins score -c CANDS -r REFS [-r REFS2 ...]`: per-row scores and a JSON summary."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bertscore_plugins.commands.common import STDIN, add_model_arguments, config_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score candidates against references (files with one text per line)",
        description="Score each line of CANDS against the same line of REFS (several -r files = several "
                    "references per line). Writes per-row precision/recall/F1 and a JSON summary with the "
                    "signature.",
    )
    parser.add_argument("-c", "--candidates", "--cand", required=True,
                        help="file with one candidate per line ('-' = standard input)")
    parser.add_argument("-r", "--references", "--ref", required=True, action="extend", nargs="+",
                        help="file(s) with one reference per line, aligned with the candidates; several files "
                             "(-r a.txt b.txt, or -r repeated) = several references per line; '-' = standard input")
    parser.add_argument("-o", "--output", default="-", help="per-row output file (default: stdout)")
    parser.add_argument("--format", choices=["tsv", "jsonl"], default="tsv", help="per-row output format")
    parser.add_argument("--summary", default=None,
                        help="write the JSON summary (means, rows, signature) here (default: stderr)")
    parser.add_argument("--explain", action="store_true", help="add the worst-matched tokens of each row")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: on a terminal for long runs)")
    parser.add_argument("-v", "--verbose", action="store_true", help="bert-score's flag: the same as --progress")
    parser.add_argument("-s", "--seg_level", action="store_true",
                        help="bert-score's flag for per-row scores; accepted: every row is always written")
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def _read_lines(path: str) -> list[str]:
    if path == STDIN:
        return sys.stdin.buffer.read().decode("utf-8").splitlines()
    return Path(path).read_text(encoding="utf-8").splitlines()


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer

    if [args.candidates, *args.references].count(STDIN) > 1:
        print("error: only one of -c/-r can read standard input ('-')", file=sys.stderr)
        return 2
    candidates = _read_lines(args.candidates)
    columns = [_read_lines(path) for path in args.references]
    for path, column in zip(args.references, columns):
        if len(column) != len(candidates):
            print(f"error: {path} has {len(column)} lines but {args.candidates} has {len(candidates)}",
                  file=sys.stderr)
            return 2
    references = [list(group) for group in zip(*columns)] if len(columns) > 1 else columns[0]
    scorer = get_scorer(config_from_args(args))
    progress = True if args.verbose and args.progress is None else args.progress
    scores = scorer.score(candidates, references, progress=progress, explain=args.explain)

    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")  # noqa: SIM115
    try:
        if args.format == "tsv":
            out.write("row\tprecision\trecall\tf1" + ("\tworst_matches" if args.explain else "") + "\n")
        for row in range(len(scores)):
            values = (float(scores.precision[row]), float(scores.recall[row]), float(scores.f1[row]))
            explanation = scores.explanations[row].summary() if args.explain else None
            if args.format == "tsv":
                line = f"{row}\t{values[0]:.6f}\t{values[1]:.6f}\t{values[2]:.6f}"
                out.write(line + (f"\t{explanation}" if args.explain else "") + "\n")
            else:
                record = {"row": row, "precision": values[0], "recall": values[1], "f1": values[2]}
                if args.explain:
                    record["worst_matches"] = explanation
                out.write(json.dumps(record) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()

    summary = {
        "rows": len(scores),
        "precision": float(scores.precision.mean()) if len(scores) else None,
        "recall": float(scores.recall.mean()) if len(scores) else None,
        "f1": float(scores.f1.mean()) if len(scores) else None,
        "rescaled": scores.rescaled,
        "signature": scores.signature,
    }
    text = json.dumps(summary, indent=2)
    if args.summary:
        Path(args.summary).write_text(text + "\n")
    else:
        print(text, file=sys.stderr)
    return 0

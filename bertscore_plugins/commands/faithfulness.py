"""`bertscore-plugins faithfulness -o OUTPUTS -s SOURCES`: offline faithfulness per row, with the facts.

One row per line: row, score (the offline faithfulness, bertscore_plugins.facts), label, its visible parts
(groundedness, the lexical part, the weakest sentence) and the unsupported facts with what the source says
("Thursday: context says Tuesday"). Non-English rows are counted as not fact-checked. Same line conventions as `score`: TSV with a header
line (or JSONL), per-row output to stdout or --out, a JSON summary with the signature to stderr.
"""

from __future__ import annotations

import argparse
import json

from bertscore_plugins.commands.common import (
    add_model_arguments,
    check_output_path,
    config_from_args,
    read_aligned,
    write_rows_and_summary,
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "faithfulness",
        help="offline faithfulness of outputs against their sources: groundedness, lexical support, fact check",
        description="Checks each line of OUTPUTS against the same line of SOURCES without an LLM: BERTScore "
        "precision against the source (groundedness), the weakest sentence against its best source window, "
        "lexical support (ROUGE-L precision) and a fact check (numbers, dates, weekdays, names and negations "
        "must be carried by the source), combined into one score in [0, 1]. Writes row, score, label, "
        "groundedness, lexical, the weakest sentence and the unsupported facts per line, and a JSON summary "
        "with the signature.",
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
        help="score at or above which a row with every fact supported is faithful (default 0.5)",
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
    add_model_arguments(parser, long_text="window")  # a source is read whole, not its first 512 tokens
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import FAITHFUL, FAITHFULNESS_THRESHOLD, offline_faithfulness

    # everything that can be checked before scoring is checked first: nothing reaches stdout before an error
    config = config_from_args(args)
    check_output_path(args.out, "--out")
    check_output_path(args.summary, "--summary")
    outputs, (sources,) = read_aligned(("-o/--outputs", args.outputs), [("-s/--sources", args.sources)])
    threshold = FAITHFULNESS_THRESHOLD if args.threshold is None else args.threshold
    if not 0.0 <= threshold <= 1.0:  # also refuses NaN
        raise ValueError(f"--threshold must be between 0 and 1, got {args.threshold!r}")
    scorer = get_scorer(config)
    rows = offline_faithfulness(outputs, sources, scorer=scorer, threshold=threshold, progress=args.progress)

    columns = ["row", "score", "label", "groundedness", "lexical", "weakest_sentence", "unsupported_facts"]
    lines = ["\t".join(columns)] if args.format == "tsv" else []
    for index, row in enumerate(rows):
        details = row.to_dict()
        unsupported = details["unsupported_facts"]
        if not row.facts.checked:
            unsupported = [row.facts.explanation]
        if args.format == "tsv":
            cells = [
                str(index),
                f"{row.score:.6f}",
                row.label,
                f"{row.groundedness:.6f}",
                f"{details['lcs']:.6f}",
                details["weakest_sentence_text"],
                "; ".join(unsupported),
            ]
            lines.append("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells))
        else:
            lines.append(json.dumps({"row": index, **details, "fact_checked": row.facts.checked}))
    summary = {
        "rows": len(rows),
        "faithful": sum(row.label == FAITHFUL for row in rows),
        "not_fact_checked": sum(not row.facts.checked for row in rows),
        "score": sum(row.score for row in rows) / len(rows) if rows else None,
        "threshold": threshold,
        "signature": str(scorer.signature),
    }
    write_rows_and_summary(lines, summary, rows_to=args.out, summary_to=args.summary)
    return 0

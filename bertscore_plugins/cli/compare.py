"""`bertscore-plugins compare -a SYS_A.txt -b SYS_B.txt -r REFS.txt`: is B better than A, and how sure?"""

from __future__ import annotations

import argparse
import json

from bertscore_plugins.analysis.stats import DEFAULT_SEED
from bertscore_plugins.cli.common import (
    add_model_arguments,
    column_of,
    config_from_args,
    read_aligned,
    references_by_row,
)
from bertscore_plugins.cli.conventions import (
    add_columns,
    add_output,
    add_progress,
    open_fraction,
    progress_of,
    whole_number_at_least,
    write_result,
)
from bertscore_plugins.files import check_outputs


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare two systems against the same references (paired significance test)",
        description="Scores each line of SYS_A and SYS_B against the same line of REFS, then prints both "
        "corpus-level scores with bootstrap intervals, the difference B - A with its interval and p-value "
        "(paired bootstrap resampling or approximate randomization, seeded), and the rows that moved most. "
        "References are encoded once for both systems.",
    )
    parser.add_argument(
        "-a", "--system-a", required=True, help="file with system A's outputs, one per line (or a --column)"
    )
    parser.add_argument(
        "-b", "--system-b", required=True, help="file with system B's outputs, one per line (or a --column)"
    )
    parser.add_argument(
        "-r",
        "--references",
        required=True,
        action="extend",
        nargs="+",
        help="file with one reference per line; several files (-r a b, or -r repeated) = several "
        "references per line",
    )
    add_columns(parser, ("references",))
    _add_test_arguments(parser)
    parser.add_argument(
        "--cache-dir",
        default=None,
        help="keep reference embeddings on disk here, for later comparisons on the same references",
    )
    add_output(parser, formats=("text", "json"), default_format="text", summary=None, what="report")
    add_progress(parser)
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def _add_test_arguments(parser: argparse.ArgumentParser) -> None:
    """How the two systems are compared: analysis.comparison.ComparisonOptions, checked as parsed."""
    parser.add_argument("--metric", choices=["f1", "precision", "recall"], default="f1")
    parser.add_argument(
        "--method",
        choices=["bootstrap", "randomization"],
        default="bootstrap",
        help="paired bootstrap resampling (default) or approximate randomization",
    )
    parser.add_argument(
        "--resamples",
        type=whole_number_at_least(1),
        default=None,
        help="resamples/trials, a positive whole number (default 1000 for bootstrap, 10000 for randomization)",
    )
    parser.add_argument(
        "--confidence",
        type=open_fraction(),
        default=None,
        help="interval coverage (default 1 - alpha, so the interval excludes 0 exactly when the verdict "
        "says significant)",
    )
    parser.add_argument(
        "--alpha",
        type=open_fraction(),
        default=0.05,
        help="significance level for the verdict (default 0.05)",
    )
    parser.add_argument(
        "--seed",
        type=whole_number_at_least(0),
        default=DEFAULT_SEED,
        help=f"random seed, a whole number >= 0 (default {DEFAULT_SEED})",
    )
    parser.add_argument(
        "--top", type=whole_number_at_least(0), default=5, help="rows that moved most to show (default 5)"
    )


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins.analysis.comparison import ComparisonOptions, compare_systems, format_comparison
    from bertscore_plugins.core.scorer import BERTScorer

    check_outputs(
        {"-o/--output": args.output},
        {"-a/--system-a": args.system_a, "-b/--system-b": args.system_b, "-r/--references": args.references},
    )
    confidence = 1.0 - args.alpha if args.confidence is None else args.confidence
    progress = progress_of(args)
    system_a, (system_b, *columns), ids = read_aligned(
        ("-a/--system-a", args.system_a),
        [("-b/--system-b", args.system_b), *(("-r/--references", path) for path in args.references)],
        {
            "-a/--system-a": column_of(args, "systems"),
            "-b/--system-b": column_of(args, "systems"),
            "-r/--references": column_of(args, "references"),
        },
        input_format=args.input_format,
        id_column=args.id_column,
        lists={"-r/--references"},
    )
    references = references_by_row(columns)
    # a scorer of its own (the loaded model is still shared), so the cache does not outlive this command;
    # both systems share the references: encode them once (and keep them on disk with --cache-dir)
    scorer = BERTScorer(config_from_args(args))
    scorer.enable_reference_cache(disk_dir=args.cache_dir)
    comparison = compare_systems(
        system_a,
        system_b,
        references,
        scorer=scorer,
        options=ComparisonOptions(args.metric, args.method, args.resamples, confidence, args.seed, args.top),
        progress=progress,
    )
    report = comparison.to_dict()
    if ids is not None:
        for moved in report["moved"]:
            moved["id"] = ids[moved["row"]]
    result = json.dumps(report, indent=2) + "\n"
    if args.format == "text":
        result = format_comparison(comparison, args.system_a, args.system_b, alpha=args.alpha, ids=ids) + "\n"
    write_result(result, args.output, None, None)
    return 0

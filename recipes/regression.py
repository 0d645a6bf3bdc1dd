"""Regression check: did the new outputs get worse than the baseline outputs, against fixed references?

    python -m recipes.regression --baseline release_1.2.txt --candidate main.txt --references refs.txt \
        --cache-dir .bertscore-cache --out runs/regression

The everyday use of BERTScore in CI: the references stay fixed while the system changes. This recipe
scores both output files against the references (one line per row), runs a paired significance test on
the difference (seeded, so a re-run prints the same p-value), and writes `regression.json` and
`regression.md` into `--out`: the verdict, both corpus-level scores with intervals, and the rows that
moved most. Reference embeddings are kept in `--cache-dir`, keyed by the signature's embedding settings
(model weights, layer, length policy, dtype, library versions) and the text, so the next run against
the same references does not encode them again, and an upgrade that could move a number encodes them
afresh. When `--out` holds a report made with other settings, the run says which ones changed: its
numbers are not comparable with the new ones.

Exit codes: 0 no significant regression (improved, or no significant change), 1 significant regression
(B worse than A at --alpha by more than --tolerance), 2 bad input or arguments, or files that cannot be
read or written (the model's, the report's), named in one line, 3 an unexpected error (a bug: its
traceback is printed). Only a measured regression exits 1, so a CI gate never reads a broken disk or
model folder as a worse system. A cache folder that cannot be written (read-only, full) is no error: the
reference embeddings stay in memory, with one warning.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

from bertscore_plugins.analysis.stats import DEFAULT_SEED
from bertscore_plugins.cli.common import (
    add_model_arguments,
    column_of,
    config_from_args,
    read_aligned,
    references_by_row,
)
from bertscore_plugins.cli.conventions import add_columns
from bertscore_plugins.core.signature import Signature
from bertscore_plugins.errors import BertScorePluginsError
from bertscore_plugins.files import (
    check_outputs,
    json_too_deep,
    make_output_folder,
    read_text,
    write_output,
)

EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m recipes.regression", description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", required=True, help="outputs of the reference system (A), one per line")
    parser.add_argument("--candidate", required=True, help="outputs of the new system (B), one per line")
    parser.add_argument(
        "--references", required=True, action="append", help="references, one per line; repeat for several"
    )
    add_columns(parser, ("references",))  # a column of a table, as every door reads one (tables.py)
    parser.add_argument("--cache-dir", default=".bertscore-cache", help="reference-embedding cache folder")
    parser.add_argument("--out", default=None, help="folder for regression.json and regression.md")
    parser.add_argument("--metric", choices=["f1", "precision", "recall"], default="f1")
    parser.add_argument("--method", choices=["bootstrap", "randomization"], default="bootstrap")
    parser.add_argument("--resamples", type=int, default=None)
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument(
        "--tolerance", type=float, default=0.0, help="ignore regressions smaller than this (score units)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--top", type=int, default=10, help="rows that moved most to report")
    add_model_arguments(parser)
    return parser.parse_args(argv)


def status_of(difference: float, p_value: float, alpha: float, tolerance: float) -> str:
    """'regression', 'improved' or 'no significant change'."""
    if p_value < alpha and difference < -tolerance:
        return "regression"
    if p_value < alpha and difference > 0:
        return "improved"
    return "no significant change"


def markdown(report: dict, text: str) -> str:
    lines = [
        "# Regression check",
        "",
        f"**{report['status'].upper()}**: {report['verdict']}",
        "",
        f"- baseline (A): `{report['baseline']}`",
        f"- candidate (B): `{report['candidate']}`",
        f"- references: {', '.join(f'`{path}`' for path in report['references'])} ({report['rows']} rows)",
        "- reference cache: {hits} hits, {misses} misses (`{folder}`)".format(**report["reference_cache"]),
        "",
        "```",
        text,
        "```",
    ]
    return "\n".join(lines) + "\n"


def _changed_since_last_report(out: str | None, signature: Signature) -> str:
    """The settings that differ from the report already in `out` ("" when none differ or there is none)."""
    path = Path(out) / "regression.json" if out else None
    if path is None or not path.is_file():
        return ""
    try:
        text = read_text(path, "previous report")
        if json_too_deep(text):
            return ""
        previous = json.loads(text)["signature"]
        return Signature.parse(previous).describe_diff(signature)
    except (ValueError, KeyError, TypeError, OSError):  # an older or foreign report: nothing to compare with
        return ""


def _report_paths(out: str) -> dict[str, Path]:
    return {f"--out {name}": Path(out) / name for name in ("regression.json", "regression.md")}


def _check_out(args: argparse.Namespace) -> None:
    """Before any scoring: --out is (or becomes) a folder that takes both reports, neither an input."""
    folder = Path(args.out)
    make_output_folder(
        folder, "--out", f"--out {folder} is a file; give a folder for regression.json and .md"
    )
    check_outputs(
        _report_paths(args.out),
        {"--baseline": args.baseline, "--candidate": args.candidate, "--references": args.references},
    )


def main(argv: list[str] | None = None) -> int:
    """Run the check; returns the exit code (see the module docstring)."""
    from bertscore_plugins import BERTScorer
    from bertscore_plugins.analysis.comparison import compare_systems, format_comparison

    args = parse_args(argv)
    try:  # the CLI's reader: rows split on "\n" only, invalid UTF-8 named by file and line
        if args.out:
            _check_out(args)
        baseline, (candidate, *columns), ids = read_aligned(
            ("--baseline", args.baseline),
            [("--candidate", args.candidate), *(("--references", path) for path in args.references)],
            {
                "--baseline": column_of(args, "systems"),
                "--candidate": column_of(args, "systems"),
                "--references": column_of(args, "references"),
            },
            input_format=args.input_format,
            id_column=args.id_column,
            lists={"--references"},
        )
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    references = references_by_row(columns)

    try:
        scorer = BERTScorer(config_from_args(args))  # the loaded model is shared; the cache is this run's
        cache = scorer.enable_reference_cache(disk_dir=args.cache_dir)
        comparison = compare_systems(
            baseline,
            candidate,
            references,
            scorer=scorer,
            metric=args.metric,
            method=args.method,
            resamples=args.resamples,
            seed=args.seed,
            top=args.top,
        )
    # InputError and ModelLoadError are ValueErrors and name the row or file; OSError: a file or disk
    except (ValueError, OSError, BertScorePluginsError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT

    changed = _changed_since_last_report(args.out, comparison.signature)
    if changed:
        print(
            f"note: the previous report in {args.out} was made with other settings ({changed}); "
            "its numbers are not comparable with these",
            file=sys.stderr,
        )
    status = status_of(comparison.test.difference, comparison.test.p_value, args.alpha, args.tolerance)
    text = format_comparison(comparison, args.baseline, args.candidate, alpha=args.alpha, ids=ids)
    moved = comparison.to_dict()
    if ids is not None:
        for row in moved["moved"]:
            row["id"] = ids[row["row"]]
    report = {
        "status": status,
        "verdict": comparison.verdict(args.alpha),
        "alpha": args.alpha,
        "tolerance": args.tolerance,
        "baseline": args.baseline,
        "candidate": args.candidate,
        "references": args.references,
        "rows": len(baseline),
        "reference_cache": {"folder": str(args.cache_dir), "hits": cache.hits, "misses": cache.misses},
        "signature": comparison.signature,
        "comparison": moved,
    }
    print(f"{status.upper()}: {text}")
    if args.out:
        try:
            write_report(args.out, report, text)
        except OSError as error:  # a full disk: one line, never exit 1 ("significant regression")
            print(f"error: the report cannot be written into {args.out}: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return EXIT_REGRESSION if status == "regression" else EXIT_OK


def write_report(out: str | Path, report: dict, text: str) -> None:
    """regression.json and regression.md, by the output writer (a full disk leaves no half report)."""
    json_path, markdown_path = _report_paths(out).values()
    write_output(json_path, json.dumps(report, indent=2) + "\n")
    write_output(markdown_path, markdown(report, text))


if __name__ == "__main__":
    try:
        code = main()
    except Exception:  # a bug of ours: keep its traceback, but never exit 1, "significant regression"
        traceback.print_exc()
        code = EXIT_INTERNAL
    sys.exit(code)

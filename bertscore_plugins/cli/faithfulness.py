"""`bertscore-plugins faithfulness -c OUTPUTS -s SOURCES`: offline faithfulness per row, with the facts.

One row per line: row, score (the offline faithfulness, bertscore_plugins.facts), label, its visible parts
(groundedness, the lexical part, the weakest sentence) and the unsupported facts with what the source says
("Thursday: context says Tuesday"). Non-English rows are counted as not fact-checked. Same conventions as
`score` (conventions.py): -o/--output ('-' = stdout), --format tsv|csv|jsonl|json, a JSON summary with the
signature (--summary).
"""

from __future__ import annotations

import argparse

from bertscore_plugins.cli.common import (
    add_model_arguments,
    config_from_args,
    read_inputs,
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
from bertscore_plugins.files import check_outputs
from bertscore_plugins.thresholds import threshold_from_text


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "faithfulness",
        help="offline faithfulness of outputs against their sources: groundedness, lexical support, fact check",
        description="Checks each line of OUTPUTS against the same line of SOURCES without an LLM: BERTScore "
        "precision against the source (groundedness), the weakest sentence against its best source window, "
        "lexical support (ROUGE-L precision), rare words (names, numbers) the source never writes and a fact "
        "check (numbers, dates, weekdays, names and negations "
        "must be carried by the source), combined into one score in [0, 1]. Writes row, score, label, "
        "groundedness, lexical, the weakest sentence, the unsupported facts and the rare words the source never "
        "writes per line, and a JSON summary "
        "with the signature.",
    )
    add_input(parser, "candidates")
    add_input(parser, "sources")
    add_output(parser, summary="the JSON summary (rows, faithful, mean score, signature)")
    parser.add_argument(
        "--threshold",
        type=threshold_from_text,  # the one check (thresholds.check_threshold, in run) refuses what is no threshold
        default=None,
        help="score at or above which a row with every fact supported is faithful (default 0.5)",
    )
    add_progress(parser)
    add_columns(parser, ("candidates", "sources"))
    add_model_arguments(parser, long_text="window")  # a source is read whole, not its first 512 tokens
    parser.set_defaults(func=run)


#: the per-row result's columns, in order
COLUMNS = [
    "row",
    "score",
    "label",
    "groundedness",
    "lexical",
    "weakest_sentence",
    "unsupported_facts",
    "never_in_source",
]


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL, offline_faithfulness
    from bertscore_plugins.faithfulness import signature as offline_signature
    from bertscore_plugins.faithfulness.outcome import ABSTAINED, EMPTY
    from bertscore_plugins.thresholds import FAITHFULNESS_THRESHOLD, check_threshold

    # everything that can be checked before scoring is checked first: nothing reaches stdout before an error
    config = config_from_args(args)
    # named as the setting of every other door ("threshold must be ..."); main.describe adds the flag
    threshold = check_threshold(
        "threshold", FAITHFULNESS_THRESHOLD if args.threshold is None else args.threshold
    )
    check_outputs(
        {"-o/--output": args.output, "--summary": args.summary},
        {"-c/--candidates": args.candidates, "-s/--sources": args.sources},
    )
    outputs, (sources,), ids = read_inputs(args, ("candidates", "sources"), lists=("sources",))
    from bertscore_plugins.core.scorer import get_scorer  # torch: loaded only once the flags hold

    scorer = get_scorer(config)
    rows = offline_faithfulness(
        outputs, sources, scorer=scorer, threshold=threshold, progress=progress_of(args)
    )

    records = []
    for index, row in enumerate(rows):
        details = row.to_dict()
        unsupported = details["unsupported_facts"] if row.facts.checked else [row.facts.explanation]
        records.append(
            {
                **details,
                # no answer to judge (empty, abstained): its outcome is its label and it has no score
                "score": None if row.outcome is not None else details["score"],
                "row": index,
                "lexical": details["lcs"],
                "weakest_sentence": details["weakest_sentence_text"],
                "unsupported_facts": unsupported,
                "never_in_source": details["novel_rare_words"],
                "fact_checked": row.facts.checked,
            }
        )
    scored = [row for row in rows if row.outcome is None]
    summary = {
        "rows": len(rows),
        # each outcome counted apart: an empty answer or a refusal is neither faithful nor unfaithful
        **{
            label: sum(row.label == label for row in rows)
            for label in (FAITHFUL, UNFAITHFUL, EMPTY, ABSTAINED)
        },
        "not_fact_checked": sum(not row.facts.checked for row in rows),
        # the mean over the answers with a score: the empty ones and the refusals have none
        "score": sum(row.score for row in scored) / len(scored) if scored else None,
        "scored_rows": len(scored),
        "threshold": threshold,
        "signature": f"{scorer.signature} {offline_signature()}",
    }
    columns = with_ids(records, COLUMNS, ids)
    write_result(render_rows(records, columns, args.format, summary), args.output, summary, args.summary)
    return 0

"""`bertscore-plugins baseline`: compute a rescaling baseline file with bert_score's protocol.

bert_score's baselines are mean P/R/F per layer over ~500k pairs of unrelated sentences (lines of 1-31
words from a monolingual corpus, shuffled, first half paired with the second). This command does the
same on a corpus you name and records its provenance (file digests, counts, seed) next to the file.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import random
import sys
from pathlib import Path

from bertscore_plugins.cli.common import add_model_arguments, config_from_args
from bertscore_plugins.cli.conventions import (
    ROW_FORMATS,
    STREAM,
    add_output,
    render_rows,
    whole_number_at_least,
    write_result,
)
from bertscore_plugins.core.baseline import baseline_text
from bertscore_plugins.errors import InputError
from bertscore_plugins.files import check_outputs, decode, is_special_file, read_bytes, split_lines


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "baseline",
        help="compute a rescaling baseline (LAYER,P,R,F) from a corpus of unrelated sentences",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus",
        action="append",
        required=True,
        help="a text file (one sentence per line), or FILE.tsv:COL[,COL] to take tab-separated "
        "columns (0-based; read with no quoting). Repeatable",
    )
    parser.add_argument(
        "--pairs",
        type=whole_number_at_least(1),
        default=5000,
        help="sentence pairs to average over (default 5000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    parser.add_argument(
        "--layers",
        type=layer_list,
        default=None,
        help="comma-separated layers (default: every layer of the model, 0 = embeddings)",
    )
    add_output(
        parser,
        formats=("csv", *(form for form in ROW_FORMATS if form != "csv")),
        default_format="csv",
        summary="the provenance record (JSON; default: FILE.provenance.json beside -o FILE)",
        what="baseline (csv = bert_score's LAYER,P,R,F file)",
    )
    add_model_arguments(parser)
    parser.set_defaults(func=run)


def corpus_path(spec: str) -> tuple[str, str]:
    """(file, columns) of one --corpus spec: FILE, or FILE.tsv:COL[,COL]."""
    path, _, columns = (
        spec.partition(":") if spec.count(":") == 1 and not Path(spec).exists() else (spec, "", "")
    )
    return path, columns


def read_corpus(spec: str) -> tuple[list[str], dict]:
    """Sentences from one --corpus spec, and its provenance record."""
    path, columns = corpus_path(spec)
    data = read_bytes(path, "--corpus file")
    lines = split_lines(decode(data, path))
    if columns:
        try:
            wanted = [int(c) for c in columns.split(",")]
        except ValueError:
            wanted = [-1]
        if min(wanted) < 0:
            raise InputError(
                f"--corpus {spec}: columns must be 0-based column numbers (0,2), got {columns!r}"
            )
        rows = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
        sentences = [row[c] for row in rows for c in wanted if len(row) > c]
    else:
        sentences = lines
    record = {
        "file": Path(path).name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "columns": columns or None,
        "sentences": len(sentences),
    }
    return sentences, record


def usable_sentences(sentences: list[str]) -> list[str]:
    """bert_score's filter (1-31 words), stripped and de-duplicated, sorted."""
    return sorted({s.strip() for s in sentences if 1 <= len(s.split()) <= 31})


def sentence_pairs(sentences: list[str], pairs: int, seed: int) -> tuple[list[str], list[str]]:
    """bert_score's filter (1-31 words), de-duplicated, shuffled, first half paired with the second."""
    kept = usable_sentences(sentences)
    random.Random(seed).shuffle(kept)
    half = min(pairs, len(kept) // 2)
    return kept[:half], kept[half : 2 * half]


def layer_list(text: str) -> list[int]:
    """``--layers 0,4,6`` as [0, 4, 6] (argparse names the flag when this raises)."""
    try:
        layers = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated layer numbers such as 0,4,6, got {text!r}"
        ) from None
    if any(layer < 0 for layer in layers):
        raise argparse.ArgumentTypeError(f"layers are 0 (embeddings) or above, got {text!r}")
    return layers


def run(args: argparse.Namespace) -> int:

    provenance_to = args.summary or (
        None
        if args.output == STREAM or is_special_file(args.output)
        else str(Path(args.output).with_suffix(".provenance.json"))
    )
    check_outputs(
        {"-o/--output": args.output, ("--summary" if args.summary else "provenance file"): provenance_to},
        {"--corpus": [corpus_path(spec)[0] for spec in args.corpus]},
    )
    config = config_from_args(args).replace(rescale=False, idf=False, baseline_path=None)
    sentences, sources = [], []
    for spec in args.corpus:
        found, record = read_corpus(spec)
        sentences += found
        sources.append(record)
    candidates, references = sentence_pairs(sentences, args.pairs, args.seed)
    if not candidates:
        raise InputError(
            f"--corpus gives no sentence pairs: {len(sentences)} lines hold {len(usable_sentences(sentences))} "
            "distinct sentence(s) of 1-31 words; a baseline needs at least 2 (thousands for a stable one)"
        )
    from bertscore_plugins.core.scorer import get_scorer  # torch: loaded only once the flags hold

    scorer = get_scorer(config)
    by_layer = scorer.score_layers(candidates, references, layers=args.layers)  # one encoder pass
    rows = []
    for layer, scores in sorted(by_layer.items()):
        means = scores.means()
        rows.append((layer, means["precision"], means["recall"], means["f1"]))
        print(f"layer {layer}: P {rows[-1][1]:.6f} R {rows[-1][2]:.6f} F {rows[-1][3]:.6f}", file=sys.stderr)
    layers = [row[0] for row in rows]
    provenance = {
        "what": "mean BERTScore P/R/F per layer over pairs of unrelated sentences (bert_score's protocol)",
        "model": scorer.model_identity,
        "corpus": sources,
        "filter": "1-31 whitespace words, stripped, de-duplicated",
        "pairs": len(candidates),
        "seed": args.seed,
        "pairing": "sorted unique sentences shuffled with random.Random(seed); first half vs second half",
        "signature": scorer.with_config(layer=layers[-1]).signature,
        "command": "bertscore-plugins baseline " + " ".join(sys.argv[2:]),
    }
    if args.format == "csv":
        text = baseline_text(rows)
    else:
        records = [{"layer": layer, "P": p, "R": r, "F": f} for layer, p, r, f in rows]
        text = render_rows(records, ["layer", "P", "R", "F"], args.format, provenance)
    write_result(text, args.output, provenance if provenance_to else None, provenance_to or None)
    where = "stdout" if args.output == STREAM else args.output
    print(f"wrote {where} ({len(candidates)} pairs, layers {layers[0]}..{layers[-1]})", file=sys.stderr)
    return 0

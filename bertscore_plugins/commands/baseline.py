"""`bertscore-plugins baseline`: compute a rescaling baseline file with bert_score's protocol.

bert_score's baselines are mean P/R/F per layer over ~500k pairs of unrelated sentences (lines of 1-31
words from a monolingual corpus, shuffled, first half paired with the second). This command does the
same on a corpus you name and records its provenance (file digests, counts, seed) next to the file.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import sys
from pathlib import Path

from bertscore_plugins.commands.common import STDIN, add_model_arguments, config_from_args
from bertscore_plugins.config import SettingError
from bertscore_plugins.files import check_outputs, decode, is_special_file, read_bytes, split_lines
from bertscore_plugins.inputs import InputError


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
        "--pairs", type=int, default=5000, help="sentence pairs to average over (default 5000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    parser.add_argument(
        "--layers",
        default=None,
        help="comma-separated layers (default: every layer of the model, 0 = embeddings)",
    )
    parser.add_argument("--out", required=True, help="output baseline file (bert_score format)")
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


def provenance_path(out: str) -> Path | None:
    """Where the provenance record goes: beside a baseline file; nowhere for stdout or a device."""
    return None if out == STDIN or is_special_file(out) else Path(out).with_suffix(".provenance.json")


def run(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer
    from bertscore_plugins.baseline import baseline_text
    from bertscore_plugins.files import write_output

    if args.pairs < 1:
        raise SettingError("pairs", f"must be at least 1, got {args.pairs}")
    provenance_file = provenance_path(args.out)
    check_outputs(
        {"--out": args.out, "provenance file": provenance_file},
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
    scorer = get_scorer(config)
    try:
        layers = [int(x) for x in args.layers.split(",")] if args.layers else None
    except ValueError:
        raise SettingError(
            "layers", f"--layers must be comma-separated layer numbers, got {args.layers!r}"
        ) from None
    by_layer = scorer.score_layers(candidates, references, layers=layers)  # one encoder pass, all layers
    rows = []
    for layer, scores in sorted(by_layer.items()):
        means = scores.means()
        rows.append((layer, means["precision"], means["recall"], means["f1"]))
        print(f"layer {layer}: P {rows[-1][1]:.6f} R {rows[-1][2]:.6f} F {rows[-1][3]:.6f}", file=sys.stderr)
    layers = [row[0] for row in rows]
    write_output(args.out, baseline_text(rows))
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
    if provenance_file is not None:
        write_output(provenance_file, json.dumps(provenance, indent=2) + "\n")
    print(f"wrote {args.out} ({len(candidates)} pairs, layers {layers[0]}..{layers[-1]})", file=sys.stderr)
    return 0

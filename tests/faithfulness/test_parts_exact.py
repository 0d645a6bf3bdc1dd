"""The signal's sentence and lexical parts are the numbers the fitted combination was trained on: the faster
way of reading long texts (passages skipped by a bound, compared all at once, the similarity matrix
reduced in place) must give exactly what comparing every output sentence with every source window gives.
Each part is compared, for equality, with a plain reference kept here: a textbook LCS table over every
passage, and the sentence windows as first written (a gathered copy of the matrix, then reductions)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.extract import extract
from bertscore_plugins.facts.text import TextFacts, stem
from bertscore_plugins.faithfulness import parts, passages, subsequence
from bertscore_plugins.faithfulness.parts import LEXICAL_WINDOW_SENTENCES, lexical_sequence_parts
from bertscore_plugins.faithfulness.passages import WINDOW_SENTENCES, sentence_windows

# exhaustive comparisons with textbook tables over every passage: the whole suite's, not the quick tier's
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["the", "clinic", "on", "elm", "street", "opened", "did", "not", "open", "before", "after", "train"]
WORDS += ["was", "free", "parking", "patients"]
EXTRA = ["9 am", "8:15", "20", "twelve", "UNK", "Dr. Olsen", "March", "April", "isn't", "—", "(a)"]


# --- the references ------------------------------------------------------------------------------------


def reference_lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def reference_lexical_parts(out: TextFacts, ctx: TextFacts, carried: frozenset[int]) -> tuple[float, float]:
    def stems(facts: TextFacts) -> list[tuple[int, int, str]]:
        return [
            (k, w.sentence, stem(w.lower))
            for k, w in enumerate(facts.words)
            if w.text[:1].isalnum() and w.lower not in lx.PLACEHOLDERS
        ]

    a, b = stems(out), stems(ctx)
    if not a or not b:
        return (0.0, 0.0) if a else (1.0, 1.0)

    def matched(tokens: list[tuple[int, int, str]], source: list[str]) -> int:
        rest = [token for k, _, token in tokens if k not in carried]
        return reference_lcs(rest, source) + len(tokens) - len(rest)

    whole = matched(a, [token for _, _, token in b]) / len(a)
    by_sentence: dict[int, list[str]] = {}
    for _, sentence, token in b:
        by_sentence.setdefault(sentence, []).append(token)
    ordered = [by_sentence[key] for key in sorted(by_sentence)]
    span = min(LEXICAL_WINDOW_SENTENCES, len(ordered))
    windows = [
        [t for sentence in ordered[i : i + span] for t in sentence] for i in range(len(ordered) - span + 1)
    ]
    sentences: dict[int, list[tuple[int, int, str]]] = {}
    for token in a:
        sentences.setdefault(token[1], []).append(token)
    weakest = [
        max(matched(tokens, window) for window in windows) / len(tokens)
        for tokens in sentences.values()
        if len(tokens) >= 3
    ]
    return whole, min(weakest, default=whole)


def reference_sentence_windows(out: TextFacts, ctx: TextFacts, explanation) -> tuple | None:
    matrix = passages.similarity_matrix(explanation)
    out_sentence = passages._sentence_of(explanation.candidate_spans, out)
    ctx_sentence = passages._sentence_of(explanation.reference_spans, ctx)
    kept = np.flatnonzero(ctx_sentence >= 0)
    kept = kept[np.argsort(ctx_sentence[kept], kind="stable")]
    in_sentence = np.flatnonzero(out_sentence >= 0)
    if len(kept) == 0 or len(in_sentence) == 0:
        return None
    labels = ctx_sentence[kept]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    per_sentence = np.maximum.reduceat(matrix[:, kept], starts, axis=1)
    span = min(WINDOW_SENTENCES, per_sentence.shape[1])
    count = per_sentence.shape[1] - span + 1
    windows = np.stack([per_sentence[:, i : count + i] for i in range(span)]).max(axis=0)
    rows = in_sentence[np.argsort(out_sentence[in_sentence], kind="stable")]
    out_labels = out_sentence[rows]
    out_starts = np.flatnonzero(np.r_[True, out_labels[1:] != out_labels[:-1]])
    counts = np.diff(np.r_[out_starts, len(out_labels)])[:, None]
    window_means = np.add.reduceat(windows[rows], out_starts, axis=0) / counts
    sentence_means = np.add.reduceat(per_sentence[rows], out_starts, axis=0) / counts
    source = labels[starts]
    return (
        [int(s) for s in out_labels[out_starts]],
        window_means.max(axis=1),
        [[int(s) for s in source[b : b + span]] for b in window_means.argmax(axis=1)],
        [int(source[c]) for c in sentence_means.argmax(axis=1)],
    )


# --- texts ---------------------------------------------------------------------------------------------


def random_sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS if rng.random() < 0.85 else EXTRA) for _ in range(rng.randint(1, 14))]
    return " ".join(words).capitalize() + rng.choice([".", ".", "!", "?", ";"])


def random_pair(rng: random.Random) -> tuple[str, str]:
    """A source and an output that copies, mutates and reorders some of its sentences: many passages
    come close to the best, which is where skipping and comparing all at once could go wrong."""
    source = [random_sentence(rng) for _ in range(rng.randint(0, 24))]
    output = []
    for _ in range(rng.randint(0, 8)):
        if source and rng.random() < 0.6:
            words = rng.choice(source).split()
            for _ in range(rng.randint(0, 3)):
                words[rng.randrange(len(words))] = rng.choice(WORDS + EXTRA)
            output.append(" ".join(words))
        else:
            output.append(random_sentence(rng))
    return " ".join(output), " ".join(source)


def demo_pairs() -> list[tuple[str, str]]:
    records = [
        json.loads(line) for line in (ROOT / "recipes" / "demo_data.jsonl").read_text().splitlines() if line
    ]
    examples = ROOT / "bertscore_plugins" / "examples"
    candidates = (examples / "demo_candidates.txt").read_text().splitlines()
    references = (examples / "demo_references.txt").read_text().splitlines()
    pairs = [(r["output"], r["context"]) for r in records]
    pairs += [(r["reference"], r["context"]) for r in records if r.get("reference")]
    pairs += [(records[k]["output"], records[(k + 1) % len(records)]["context"]) for k in range(len(records))]
    pairs += list(zip(candidates, references, strict=False))
    pairs += [tuple(line.split("\t")[:2]) for line in (examples / "pairs.tsv").read_text().splitlines()[1:]]
    whole = " ".join(r["context"] for r in records)  # a long source: every output against all contexts
    return pairs + [(r["output"], whole) for r in records]


def carried_words(out: TextFacts, rng: random.Random) -> frozenset[int]:
    return frozenset(k for k in range(len(out.words)) if rng.random() < 0.15)


def read(text: str) -> TextFacts:
    return extract(text.strip())


# --- the lexical parts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one_by_one", "dense_share"),
    [
        (8, 1 / 16),
        (0, 1 / 16),
        (1, 2.0),
        (10**6, 0.0),
    ],
)
def test_lexical_parts_equal_an_lcs_table_over_every_passage(monkeypatch, one_by_one, dense_share):
    """Whether passages are compared one by one in the order of their bound, all at once, or each in
    turn, and whatever words get dense counts: the same two numbers as the textbook table."""
    monkeypatch.setattr(subsequence, "ONE_BY_ONE", one_by_one)
    monkeypatch.setattr(subsequence, "DENSE_SHARE", dense_share)
    rng = random.Random(20261205 + one_by_one)
    pairs = [random_pair(rng) for _ in range(150)] + demo_pairs()
    for output, context in pairs:
        out, ctx = read(output), read(context + " ")  # a fresh source: its passages read anew
        for carried in (frozenset(), carried_words(out, rng)):
            found = lexical_sequence_parts(out, ctx, carried)
            assert found == reference_lexical_parts(out, ctx, carried), (output, context, sorted(carried))


def test_a_sentence_against_many_near_identical_passages_gets_its_best_one():
    """A long source whose passages all say nearly the same thing as the output (the benchmark's texts
    that conflict everywhere): most passages come within one word of the best, so the all-at-once pass
    decides; each passage's LCS there equals its own."""
    source = " ".join(
        f"On {k % 28 + 1} April the clinic on Oak Street opened before 8 am and saw {k + 7} patients. "
        f"Parking was not free for patients and the train was on time after {k % 50 + 7} minutes."
        for k in range(60)
    )
    output = " ".join(
        f"On {k % 28 + 1} March the clinic on Elm Street did not open before 9 am and saw {k + 3} patients."
        for k in range(20)
    )
    out, ctx = read(output), read(source)
    assert lexical_sequence_parts(out, ctx) == reference_lexical_parts(out, ctx, frozenset())
    laid = parts._passages(ctx)
    words = [token for _, sentence, token in parts._stems(out) if sentence == 0]
    every = [subsequence.lcs_length(words, *masks) for masks in laid.masks]
    assert laid.lcs_with_all(words).tolist() == every
    assert laid.best_lcs(words) == max(every) and (laid.bound(words) >= np.array(every)).all()


def test_lcs_of_no_shared_word_or_no_word_is_zero():
    laid = subsequence.Passages.of([["a", "b"], ["b", "c", "c"]])
    assert laid.best_lcs(["x", "y"]) == 0 and laid.best_lcs([]) == 0
    assert laid.lcs_with_all(["c", "b", "c"]).tolist() == [1, 2]


# --- the sentence windows -------------------------------------------------------------------------------


def token_spans(facts: TextFacts, rng: random.Random, shuffle: bool) -> list[tuple[int, int]]:
    """Model-like token spans over a text's words: some words in two pieces, some tokens between words
    (they start no word), and, when ``shuffle``, the source's tokens out of order (the reduction must not
    assume one run of columns per sentence)."""
    spans = []
    for w in facts.words:
        if w.end - w.start >= 2 and rng.random() < 0.3:
            middle = rng.randint(w.start + 1, w.end - 1)
            spans += [(w.start, middle), (middle, w.end)]
        else:
            spans.append((w.start, w.end))
        if w.end < len(facts.text) and facts.text[w.end].isspace() and rng.random() < 0.1:
            spans.append((w.end, w.end + 1))
    if shuffle and spans:
        for _ in range(max(1, len(spans) // 10)):
            i, j = rng.randrange(len(spans)), rng.randrange(len(spans))
            spans[i], spans[j] = spans[j], spans[i]
    return spans


@pytest.mark.parametrize("row_block", [1024, 5, 1])
def test_sentence_windows_equal_the_gathered_reduction(monkeypatch, row_block):
    """Scores, best windows and closest source sentences are the same as reducing a gathered copy of the
    matrix, for any block of output rows, with ties (values rounded) and tokens that start no word."""
    monkeypatch.setattr(passages, "ROW_BLOCK", row_block)
    rng = random.Random(row_block)
    generator = np.random.default_rng(row_block)
    pairs = [random_pair(rng) for _ in range(120)] + demo_pairs()
    for n, (output, context) in enumerate(pairs):
        out, ctx = read(output), read(context)
        candidate, reference = token_spans(out, rng, False), token_spans(ctx, rng, n % 3 == 0)
        matrix = generator.random((len(candidate), len(reference)), dtype=np.float32)
        if n % 2:
            matrix = np.round(matrix, 1)
        explanation = SimpleNamespace(
            similarity=torch.from_numpy(matrix), candidate_spans=candidate, reference_spans=reference
        )
        if not candidate or not reference:
            assert sentence_windows(out, ctx, explanation) is None
            continue
        expected = reference_sentence_windows(out, ctx, explanation)
        found = sentence_windows(out, ctx, explanation)
        if expected is None:
            assert found is None
            continue
        assert found.sentences == expected[0]
        assert found.scores.dtype == expected[1].dtype and np.array_equal(found.scores, expected[1])
        assert found.windows == expected[2] and found.closest == expected[3]

"""The parts of the offline faithfulness signal that read the alignment and the words, sentence by sentence.

Faithfulness fails locally: one invented clause in an otherwise copied summary barely moves the mean
similarity (groundedness), so the parts look at the weakest place as well as the average:

- ``weakest_sentence``: each output sentence against its best source window (``WINDOW_SENTENCES``
  consecutive source sentences), the mean of its tokens' best similarity there; the lowest sentence.
- ``weakest_lexical``: each output sentence (of three words or more) against its best passage of
  ``LEXICAL_WINDOW_SENTENCES`` consecutive source sentences by ROUGE-L precision (the longest common word
  subsequence over its length); the lowest sentence. Against a passage, not the whole source: a sentence
  that stitches a name from one paragraph to an event from another is how extractive summaries go wrong,
  and in a long article every word is written somewhere; only a local comparison sees the stitch. Found
  exactly without comparing every sentence with every passage (subsequence.py).
- ``lcs``: ROUGE-L precision of the whole output against the whole source.
- ``lexical``: the share of output content words (stemmed) that the source writes. Summaries that copy
  are faithful more often; a similar embedding is not the same word (it scores best on XSum-style
  summaries, whose invented facts are words the article never uses).
- ``novel_rare``: the output's rare words that the source never writes, in any form: a word with digits,
  or one the model's tokenizer splits into pieces (names, places, technical words; a common word is one
  piece). An invented name or number is the commonest unfaithful summary on the development sets, and it
  needs no capital letter to be seen ("torquay", "20,000" in lower-cased output). A fact the source
  carries in other words ("12" for "twelve") is not novel.

Every part is in [0, 1], higher = more faithful; the two flags, ``novel_rare_word`` here and the fact
check's ``unsupported_fact``, are 1 when found. Placeholders for unknown words ("UNK") are gaps, not
words: no part counts them. Also measured and left out (no gain on the development sets once these are
in): the share of poorly matched content tokens, the share of novel word pairs, the share of capitalised
names the source writes, the output's length; the weakest sentence against the whole source (the
passage ranks better on every set) or against passages of 1, 3 or 5 sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.text import TextFacts, Word, stem
from bertscore_plugins.faithfulness.passages import sentence_windows, similarity_matrix
from bertscore_plugins.faithfulness.subsequence import Passages, bit_masks, lcs_length

if TYPE_CHECKING:
    from bertscore_plugins.core.explain import Explanation

#: source sentences in one passage for the lexical weakest sentence (benchmarks/QUALITY.md section 7)
LEXICAL_WINDOW_SENTENCES = 2


@dataclass(frozen=True)
class Parts:
    """The signal's parts of one row (see the module docstring)."""

    weakest_sentence: float
    weakest_sentence_text: str
    lexical: float
    lcs: float
    weakest_lexical: float
    novel_rare: tuple[str, ...] = ()
    #: the source's passages the output reads from: (start, end) character spans of the source sentences
    #: in each output sentence's best window, merged, in source order (what a judge is shown of a long
    #: source: the passages chosen by the alignment)
    passages: tuple[tuple[int, int], ...] = ()


def _content(word: Word) -> bool:
    return word.text[:1].isalnum() and word.lower not in lx.STOPWORDS and word.lower not in lx.PLACEHOLDERS


def alignment_parts(
    out: TextFacts, ctx: TextFacts, explanation: Explanation | None
) -> tuple[float, int, tuple[tuple[int, int], ...]]:
    """(weakest sentence score, its sentence index, the source passages read from) from the core's
    similarity matrix: each output sentence against its best source window (passages.py), the lowest."""
    windows = sentence_windows(out, ctx, explanation)
    if windows is None:
        matrix = similarity_matrix(explanation)
        return (1.0, -1, ()) if matrix is None else (float(matrix.max(axis=1).mean()), -1, ())
    lowest = int(windows.scores.argmin())
    chosen = sorted({sentence for window in windows.windows for sentence in window})
    return float(windows.scores[lowest]), windows.sentences[lowest], _sentence_spans(ctx, chosen)


def _sentence_spans(facts: TextFacts, sentences: list[int]) -> tuple[tuple[int, int], ...]:
    """Character spans of these sentences of ``facts.text``, adjacent ones merged."""
    spans: list[tuple[int, int]] = []
    for sentence in sentences:
        words = facts.sentence_words(sentence)
        if not words:
            continue
        start, end = facts.words[words[0]].start, facts.words[words[-1]].end
        if spans and facts.text[spans[-1][1] : start].strip() == "":
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return tuple(spans)


def lexical_support(out: TextFacts, ctx: TextFacts, carried: frozenset[int] = frozenset()) -> float:
    """The share of the output's content words (stemmed) that the source writes, or that state a fact the
    source carries (``carried``: "just over 500 metres" for "503 m"); 1.0 without any content word."""
    content = [k for k, w in enumerate(out.words) if _content(w)]
    if not content:
        return 1.0
    source_stems = ctx.derived("stem_set", lambda f: {stem(w.lower) for w in f.words})
    return sum(k in carried or stem(out.words[k].lower) in source_stems for k in content) / len(content)


def _stems(facts: TextFacts) -> list[tuple[int, int, str]]:
    """(word index, sentence, stem) of each word (placeholders left out)."""
    stems: list[tuple[int, int, str]] = facts.derived(
        "stems",
        lambda f: [
            (k, w.sentence, stem(w.lower))
            for k, w in enumerate(f.words)
            if w.text[:1].isalnum() and w.lower not in lx.PLACEHOLDERS
        ],
    )
    return stems


def _masks(facts: TextFacts) -> tuple[dict[str, int], int]:
    """The whole source's bit masks."""
    masks: tuple[dict[str, int], int] = facts.derived(
        "lcs_masks", lambda f: bit_masks([token for _, _, token in _stems(f)])
    )
    return masks


def _passages(facts: TextFacts) -> Passages:
    """The source's passages of ``LEXICAL_WINDOW_SENTENCES`` consecutive sentences, once per source."""

    def build(f: TextFacts) -> Passages:
        sentences: dict[int, list[str]] = {}
        for _, sentence, token in _stems(f):
            sentences.setdefault(sentence, []).append(token)
        ordered = [sentences[key] for key in sorted(sentences)]
        span = min(LEXICAL_WINDOW_SENTENCES, len(ordered))
        return Passages.of(
            [
                [token for sentence in ordered[i : i + span] for token in sentence]
                for i in range(len(ordered) - span + 1)
            ]
        )

    passages: Passages = facts.derived("lexical_passages", build)
    return passages


def lexical_sequence_parts(
    out: TextFacts, ctx: TextFacts, carried: frozenset[int] = frozenset()
) -> tuple[float, float]:
    """(ROUGE-L precision of the whole output against the whole source, that of its weakest sentence of
    three words or more against its best source passage), on stemmed words. A word that states a fact the
    source carries (``carried``) counts as matched wherever it stands: the source wrote the fact its way."""
    a, (masks, length) = _stems(out), _masks(ctx)
    if not a or not length:
        return (0.0, 0.0) if a else (1.0, 1.0)

    def rest(tokens: list[tuple[int, int, str]]) -> list[str]:
        return [token for k, _, token in tokens if k not in carried]

    whole_rest = rest(a)
    whole = (lcs_length(whole_rest, masks, length) + len(a) - len(whole_rest)) / len(a)
    sentences: dict[int, list[tuple[int, int, str]]] = {}
    for token in a:
        sentences.setdefault(token[1], []).append(token)
    passages = _passages(ctx)
    weakest = []
    for tokens in sentences.values():
        if len(tokens) >= 3:
            sentence_rest = rest(tokens)
            matched = passages.best_lcs(sentence_rest) + len(tokens) - len(sentence_rest)
            weakest.append(matched / len(tokens))
    return whole, min(weakest, default=whole)


def sentence_text(facts: TextFacts, sentence: int, limit: int = 120) -> str:
    words = [w for w in facts.words if w.sentence == sentence]
    if not words:
        return ""
    text = facts.text[words[0].start : words[-1].end].strip()
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def novel_rare_words(
    out: TextFacts, ctx: TextFacts, explanation: Explanation | None, carried: frozenset[int] = frozenset()
) -> tuple[str, ...]:
    """The output's content words that the source never writes (as they are or stemmed) and that are rare:
    written with digits, or split by the model's tokenizer into two pieces or more (without an
    alignment, only the digits are seen)."""
    spans = getattr(explanation, "candidate_spans", None) or []
    indexes = out.word_indexes(spans)
    pieces = np.bincount(indexes[indexes >= 0], minlength=len(out.words)) if spans else None
    found = []
    for k, w in enumerate(out.words):
        if k in carried or not _content(w) or w.lower in ctx.forms or stem(w.lower) in ctx.forms:
            continue
        if any(c.isdigit() for c in w.text) or (pieces is not None and pieces[k] >= 2):
            found.append(w.text)
    return tuple(dict.fromkeys(found))


def parts(
    out: TextFacts, ctx: TextFacts, explanation: Explanation | None, carried: frozenset[int] = frozenset()
) -> Parts:
    """The row's parts; ``carried``: the output's words that state a fact the source carries (the fact
    check's ``supported_words``), which the lexical parts count as the source's."""
    weakest, index, passages = alignment_parts(out, ctx, explanation)
    text = sentence_text(out, index) if index >= 0 else ""
    lcs, weakest_lexical = lexical_sequence_parts(out, ctx, carried)
    novel = novel_rare_words(out, ctx, explanation, carried)
    return Parts(weakest, text, lexical_support(out, ctx, carried), lcs, weakest_lexical, novel, passages)

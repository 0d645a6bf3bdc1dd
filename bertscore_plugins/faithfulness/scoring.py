"""The offline signal from the core's alignment: a row, many rows, the fact check alone, the signature.

Every part reads one alignment (the core's ``Explanation`` of output against source, from a scorer that
reads sources whole): the fact check (``bertscore_plugins.facts``), the sentence and lexical parts
(parts.py), optionally the entailment read (sentence_entailment.py). :func:`evaluate_pair` turns one
aligned row into an :class:`~.result.OfflineFaithfulness`; :func:`offline_faithfulness` does it for many
rows, one core call per ``CHUNK_ROWS`` rows; :func:`read_batch` is the evaluation engine's one call per batch
(the rows read as every other door reads them, one core call, every row's result and the core's own).

    >>> row = offline_faithfulness(["Discharged on Thursday."], ["He was discharged on Tuesday."])[0]
    >>> row.label, row.facts.explanation                                  # doctest: +SKIP
    ('unfaithful', 'Thursday: context says Tuesday')
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.facts.extract import extract
from bertscore_plugins.facts.findings import FactCheck
from bertscore_plugins.facts.support import check_extracted, check_pair
from bertscore_plugins.faithfulness import combination, sentence_entailment
from bertscore_plugins.faithfulness.outcome import answer_outcome
from bertscore_plugins.faithfulness.parts import parts
from bertscore_plugins.faithfulness.reading import Context, as_read, checked_rows, plain_text
from bertscore_plugins.faithfulness.result import OfflineFaithfulness
from bertscore_plugins.faithfulness.sentence_entailment import SentenceEntailment
from bertscore_plugins.thresholds import FAITHFULNESS_THRESHOLD, check_threshold

if TYPE_CHECKING:
    from bertscore_plugins.core.explain import Explanation
    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.core.scorer_protocol import Scorer
    from bertscore_plugins.core.scores import Scores

#: rows scored per core call: each call's alignments (a similarity matrix per row) are read and dropped
#: before the next, so memory stays flat however many rows there are (benchmarks/speed/facts_cost.py --memory)
CHUNK_ROWS = 128
_Row = TypeVar("_Row")


def evaluate_pair(
    output: str,
    context: str,
    explanation: Explanation | None = None,
    groundedness: float | None = None,
    threshold: float = FAITHFULNESS_THRESHOLD,
    entailment: SentenceEntailment | None = None,
) -> OfflineFaithfulness:
    """One row: (output text, context text, the core's Explanation of the pair, its precision) -> signal.

    Each text is read into words once; the fact check and the sentence and lexical parts share them.
    ``entailment``: the row's entailment part (sentence_entailment.py), when it was read: it names a
    contradiction in the explanation; it does not enter the score (see :func:`offline_faithfulness`).
    Without an explanation the alignment parts fall back to neutral values (groundedness must then be given)
    and markup is read as the text it shows (with one, the texts are the ones the alignment was made on).
    Raises ``SettingError`` for a threshold outside [0, 1].
    """
    return aligned_row(
        output, context, explanation, groundedness, check_threshold("threshold", threshold), entailment
    )


def aligned_row(
    output: str,
    context: str,
    explanation: Explanation | None,
    groundedness: float | None,
    threshold: float,
    entailment: SentenceEntailment | None = None,
) -> OfflineFaithfulness:
    """:func:`evaluate_pair` with the threshold already checked (the batch reader's per-row step)."""
    if explanation is not None and getattr(explanation, "candidate_spans", None):
        output, context = explanation.candidate_text, explanation.reference_text
    else:
        output, context = plain_text(output), plain_text(context)
    out, ctx = extract(output.strip()), extract(context.strip())
    facts = check_extracted(out, ctx, explanation)
    if groundedness is None:
        if explanation is None or explanation.similarity.numel() == 0:
            raise ArgumentError("evaluate_pair needs the pair's groundedness or its explanation")
        groundedness = float(explanation.similarity.max(dim=1).values.mean())
    signal_parts = parts(out, ctx, explanation, facts.supported_words)
    outcome = answer_outcome(output)
    return OfflineFaithfulness(float(groundedness), facts, threshold, signal_parts, entailment, outcome)


def entailment_of_rows(rows: Sequence[tuple[str, str, Explanation | None]]) -> list[SentenceEntailment]:
    """The entailment part of many (output, context, explanation) rows, the model reading their sentences
    together (texts as the alignment was made on them, as in :func:`evaluate_pair`)."""
    found = []
    for output, context, explanation in rows:
        if explanation is not None and getattr(explanation, "candidate_spans", None):
            output, context = explanation.candidate_text, explanation.reference_text
        out, ctx = extract(output.strip()), extract(context.strip())
        found.append(sentence_entailment.passages(out, ctx, explanation))
    return sentence_entailment.read(found)


def check_facts(
    outputs: Sequence[str],
    contexts: Sequence[str | Sequence[str]],
    scorer: Scorer | ScoreConfig | None = None,
    explanations: Sequence[Explanation | None] | None = None,
) -> list[FactCheck]:
    """The fact check of each output against its context, guided by the core's alignment.

    Args:
        outputs: one generated text per row.
        contexts: the source of each row (a text, or a list of passages joined with blank lines).
        scorer: the core ``BERTScorer`` whose alignment guides the check (default: the default model
            reading long sources whole, ``get_scorer(long_text="window")``).
        explanations: the rows' ``Explanation`` objects when already computed
            (``scorer.score(outputs, contexts, explain=True)``); then no model runs here.

    Returns:
        One ``FactCheck`` per row, in input order.

    Raises:
        InputError: not sequences of texts, or different lengths (the message names the row).
    """
    outputs, joined = checked_rows(outputs, contexts)
    if explanations is None:
        return [
            check_pair(output, context, explanation)
            for output, context, _, explanation in aligned_chunks(outputs, joined, scorer, False)
        ]
    if len(explanations) != len(outputs):
        raise ArgumentError(f"{len(explanations)} explanations for {len(outputs)} rows")
    return [
        check_pair(output, context, explanation)
        for output, context, explanation in zip(outputs, joined, explanations, strict=True)
    ]


def offline_faithfulness(
    outputs: Sequence[str],
    contexts: Sequence[str | Sequence[str]],
    scorer: Scorer | ScoreConfig | None = None,
    threshold: float = FAITHFULNESS_THRESHOLD,
    progress: bool | None = None,
    read_entailment: bool = False,
) -> list[OfflineFaithfulness]:
    """The offline faithfulness of each row from the core's alignment (every part reads it), one core
    call per ``CHUNK_ROWS`` rows.

    ``read_entailment``: also read each output sentence against its best source passage with the shipped
    entailment model (sentence_entailment.py; one model call per 64 rows), so the explanation names a
    sentence the model reads as contradicted. Off by default and never part of the score: on the
    development sets its parts rank faithful summaries at chance (ROC-AUC 0.46 to 0.56, benchmarks/QUALITY.md
    section 7), so the score stays what the fact check and the alignment can show.

    Returns one :class:`~.result.OfflineFaithfulness` per row, in input order. Raises ``InputError`` on bad
    rows, ``SettingError`` for a threshold outside [0, 1] (before any model runs).
    """
    threshold = check_threshold("threshold", threshold)
    outputs, joined = checked_rows(outputs, contexts)
    results = []
    chunks = aligned_chunks(outputs, joined, scorer, progress)
    for rows in _in_groups(chunks, sentence_entailment.ROWS_PER_CALL):
        entailments = (
            entailment_of_rows([(output, context, explanation) for output, context, _, explanation in rows])
            if read_entailment
            else [None] * len(rows)
        )
        results += [
            aligned_row(output, context, explanation, precision, threshold, entailment)
            for (output, context, precision, explanation), entailment in zip(rows, entailments, strict=True)
        ]
    return results


@dataclass(frozen=True)
class ReadBatch:
    """``scores``: the core's ``Scores`` of the call (explain=True); ``rows``: each row's offline
    faithfulness, in the order given."""

    scores: Scores
    rows: list[OfflineFaithfulness]


def read_batch(
    scorer: Scorer | ScoreConfig | None,
    pairs: Sequence[tuple[str, Context]],
    threshold: float,
    progress: bool | None = None,
) -> ReadBatch:
    """Every (output, context) row of a batch through the offline signal, with ONE core call.

    ``context`` may be a list of passages. Rows must already be checked (``evaluation.signals.
    pair_problem``). Raises ``SettingError`` for a threshold outside [0, 1] (before any model runs).
    """
    threshold = check_threshold("threshold", threshold)
    scorer = offline_scorer(scorer)
    rows = [as_read(output, context) for output, context in pairs]
    outputs, contexts = [output for output, _ in rows], [context for _, context in rows]
    # progress only when given: a scorer standing in for the core may not take it
    scores = (
        scorer.score(outputs, contexts, explain=True)
        if progress is None
        else scorer.score(outputs, contexts, progress=progress, explain=True)
    )
    assert scores.explanations is not None  # asked for (explain=True)
    found = [
        aligned_row(output, context, explanation, float(precision), threshold)
        for (output, context), precision, explanation in zip(
            rows, scores.precision, scores.explanations, strict=True
        )
    ]
    return ReadBatch(scores, found)


def signature(read_entailment: bool = False) -> str:
    """What the offline signal's numbers depend on beyond the core's signature: the combination's weights
    (weights.json's sha256, short), and the entailment adapter's when it was read, e.g.
    ``offline-faithfulness:weights=1a2b3c4d5e6f`` or ``...|entailment=3645de146177``."""
    found = f"offline-faithfulness:weights={combination.weights_identity()}"
    return found + (f"|entailment={sentence_entailment.identity()}" if read_entailment else "")


def _in_groups(rows: Iterator[_Row], size: int) -> Iterator[list[_Row]]:
    group: list[_Row] = []
    for row in rows:
        group.append(row)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def aligned_chunks(
    outputs: list[str], contexts: list[str], scorer: Scorer | ScoreConfig | None, progress: bool | None
) -> Iterator[tuple[str, str, float, Explanation | None]]:
    """(output, context, precision, explanation) per row, scored ``CHUNK_ROWS`` rows at a time: a chunk's
    alignments are dropped once read, so memory does not grow with the rows."""
    from bertscore_plugins.core.progress import progress_bar

    scorer = offline_scorer(scorer)
    bar = progress_bar(len(outputs), progress, sum(map(len, outputs)) + sum(map(len, contexts)))
    # idf fitted on the call's own references must see all of them: one call then
    size = len(outputs) if getattr(getattr(scorer, "config", None), "idf", False) is True else CHUNK_ROWS
    try:
        for start in range(0, len(outputs), max(1, size)):
            chunk = slice(start, start + max(1, size))
            result = scorer.score(outputs[chunk], contexts[chunk], progress=False, explain=True)
            assert result.explanations is not None  # asked for (explain=True)
            rows = zip(outputs[chunk], contexts[chunk], result.precision, result.explanations, strict=True)
            for output, context, precision, explanation in rows:
                yield output, context, float(precision), explanation
            if bar is not None:
                bar.update(len(result.explanations))
            del result, rows
    finally:
        if bar is not None:
            bar.close()


def offline_scorer(scorer: Scorer | ScoreConfig | None) -> Scorer:
    """The core scorer, reading sources whole (overlapping windows), as the combination was fitted: a
    truncated source leaves its end unable to support anything (a sentence copied word for word from the
    end of a long source scored 0.32 with a truncating scorer). A scorer set to truncate is used with
    long_text="window" (the same model)."""
    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.core.scorer import BERTScorer, resolve_scorer

    if scorer is None:
        return resolve_scorer(None, {"long_text": "window"})
    if isinstance(scorer, (BERTScorer, ScoreConfig)):
        config = scorer if isinstance(scorer, ScoreConfig) else scorer.config
        if config.long_text != "window":
            return resolve_scorer(scorer, {"long_text": "window"})
    return resolve_scorer(scorer, {})

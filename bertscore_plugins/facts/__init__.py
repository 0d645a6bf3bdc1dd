"""Offline faithfulness that sees facts: the wrong date, number, negation and name, without an LLM.

Groundedness (BERTScore precision against the context) shares BERTScore's blind spot: "Thursday"
aligned to "Tuesday" at 0.85 barely moves an average. The fact check reuses the same alignment but
asks whether the context *carries* each fact of the output (extract.py finds them, support.py judges
them), and the offline faithfulness signal combines the two.

    >>> from bertscore_plugins.facts import offline_faithfulness
    >>> row = offline_faithfulness(["Discharged on Thursday."], ["He was discharged on Tuesday."])[0]
    >>> row.label, row.facts.explanation                                  # doctest: +SKIP
    ('unfaithful', 'Thursday: context says Tuesday')
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bertscore_plugins.errors import ArgumentError, SettingError
from bertscore_plugins.facts import sentence_entailment, signal
from bertscore_plugins.facts.extract import Fact, extract
from bertscore_plugins.facts.markup import plain_text
from bertscore_plugins.facts.parts import Parts, parts
from bertscore_plugins.facts.sentence_entailment import SentenceEntailment
from bertscore_plugins.facts.support import (
    NOT_CHECKED,
    SUPPORTED,
    UNSUPPORTED,
    FactCheck,
    Finding,
    check_explanation,
    check_extracted,
    check_pair,
)

#: BERTScore precision against the context at or above which an output counts as grounded (packaged
#: MiniLM, layer 4, unrescaled); the Phoenix GroundednessEvaluator's default.
DEFAULT_GROUNDEDNESS_THRESHOLD = 0.8
#: the offline faithfulness score at or above which a row (with every fact carried) is "faithful": the
#: boundary between the halves of signal.score, so at the default a row is faithful when it is vouched for
FAITHFULNESS_THRESHOLD = 0.5
CONTEXT_SEPARATOR = "\n\n"
"""Joins a list of context passages into one text, so every passage can support the output."""
FAITHFUL, UNFAITHFUL = "faithful", "unfaithful"
"""The labels of the offline signal, the same words Phoenix's faithfulness judge uses."""
#: rows scored per core call: each call's alignments (a similarity matrix per row) are read and dropped
#: before the next, so memory stays flat however many rows there are (benchmarks/facts_cost.py --memory)
CHUNK_ROWS = 128


def check_threshold(value: Any, name: str = "threshold") -> float:
    """The offline faithfulness cut: a finite number from 0 to 1 (the score's range); SettingError naming
    ``name`` otherwise (NaN, 5, -1, a string or a bool)."""
    from bertscore_plugins.core.config import finite_number

    expected = "a finite number from 0 to 1 (the offline faithfulness score's range)"
    number = finite_number(name, value, expected, at_most=1.0)
    if number < 0.0:
        raise SettingError(name, f"{name} must be {expected}, got {value!r}")
    return number


@dataclass(frozen=True)
class OfflineFaithfulness:
    """The offline faithfulness of one row: its parts and the score they make together.

    ``score`` in [0, 1]: the logistic combination (signal.py, weights.json) of groundedness (BERTScore
    precision against the context), the weakest output sentence against its best source window, ROUGE-L
    precision of the output against the source and of its weakest sentence against its best passage, the
    share of content words the source writes, whether it writes a rare word the source never writes and
    whether the fact check found an unsupported fact; in the upper half of [0, 1] when the row is vouched
    for (facts checked and all carried, no such rare word, weakest sentence >= signal.SENTENCE_SUPPORT),
    in the lower half otherwise. ``label`` "faithful" when ``score >= threshold``, the facts were checked
    and none is unsupported, else "unfaithful".
    """

    groundedness: float
    facts: FactCheck
    threshold: float = FAITHFULNESS_THRESHOLD
    parts: Parts | None = None
    entailment: SentenceEntailment | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", check_threshold(self.threshold))

    @property
    def features(self) -> dict[str, float]:
        """The combination's inputs (signal.FEATURES), each in [0, 1]."""
        parts = self.parts or Parts(1.0, "", 1.0, 1.0, 1.0)
        groundedness = max(0.0, min(1.0, self.groundedness))
        lcs, weakest_lexical = parts.lcs, parts.weakest_lexical
        if parts.lexical >= 1.0 and not self.facts.unsupported:
            # Every content word is the source's and every fact is supported: word order alone is no
            # evidence against the output ("X is Dr. Olsen" for "Dr. Olsen is X" had ROUGE-L 0.5), so the
            # order-sensitive parts are floored by their embedding twins, which still see a recombination.
            # Measured on the development sets: AUC within 0.004 of the unfloored parts, every set still
            # above groundedness and ROUGE-L precision (benchmarks/QUALITY.md section 7).
            lcs, weakest_lexical = max(lcs, groundedness), max(weakest_lexical, parts.weakest_sentence)
        return {
            "groundedness": groundedness,
            "weakest_sentence": parts.weakest_sentence,
            "lcs": lcs,
            "weakest_lexical": weakest_lexical,
            "lexical": parts.lexical,
            "novel_rare_word": 1.0 if parts.novel_rare else 0.0,
            "unsupported_fact": 1.0 if self.facts.unsupported else 0.0,
        }

    @property
    def score(self) -> float:
        # facts that could not be checked (not English) are not vouched for
        return signal.score(self.features, checked=self.facts.checked)

    @property
    def label(self) -> str:
        vouched = self.facts.checked and not self.facts.unsupported
        return FAITHFUL if self.score >= self.threshold and vouched else UNFAITHFUL

    @property
    def weakest_sentence(self) -> str:
        return self.parts.weakest_sentence_text if self.parts else ""

    @property
    def novel_rare_words(self) -> tuple[str, ...]:
        """The output's rare words (names, numbers) that the context never writes."""
        return self.parts.novel_rare if self.parts else ()

    @property
    def explanation(self) -> str:
        parts = self.features
        head = (
            f"score {self.score:.3f} (groundedness {self.groundedness:.3f}, lexical {parts['lcs']:.2f}, "
            f"weakest sentence {parts['weakest_sentence']:.3f}"
        )
        if self.weakest_sentence:
            head += f": '{self.weakest_sentence}'"
        head += ")"
        if self.novel_rare_words:
            head += "; never in the context: " + ", ".join(self.novel_rare_words)
        if self.contradicted:
            head += f"; {self.contradicted}"
        return f"{head}; facts: {self.facts.explanation}"

    @property
    def contradicted(self) -> str:
        """The output sentence the entailment model reads as contradicted, and the source sentence
        ("'the train left on time' contradicts 'delayed by 20 minutes'"), or ""."""
        return self.entailment.contradicted if self.entailment else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "label": self.label,
            "explanation": self.explanation,
            "groundedness": self.groundedness,
            **{name: value for name, value in self.features.items() if name != "groundedness"},
            "weakest_sentence_text": self.weakest_sentence,
            "fact_score": self.facts.score,
            "fact_label": self.facts.label,
            "fact_checked": self.facts.checked,
            "unsupported_facts": [str(finding) for finding in self.facts.unsupported],
            "novel_rare_words": list(self.novel_rare_words),
            "contradicted": self.contradicted,
        }


def evaluate_pair(
    output: str,
    context: str,
    explanation: Any = None,
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
    threshold = check_threshold(threshold)
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
    return OfflineFaithfulness(float(groundedness), facts, threshold, signal_parts, entailment)


def entailment_of_rows(rows: Sequence[tuple[str, str, Any]]) -> list[SentenceEntailment]:
    """The entailment part of many (output, context, explanation) rows, the model reading their sentences
    together (texts as the alignment was made on them, as in :func:`evaluate_pair`)."""
    found = []
    for output, context, explanation in rows:
        if explanation is not None and getattr(explanation, "candidate_spans", None):
            output, context = explanation.candidate_text, explanation.reference_text
        out, ctx = extract(output.strip()), extract(context.strip())
        found.append(sentence_entailment.passages(out, ctx, explanation))
    return sentence_entailment.read(found)


def _checked(outputs: Any, contexts: Any) -> tuple[list[str], list[str]]:
    """The core's input layer (bertscore_plugins.inputs), in this API's words: a dict, a set, a DataFrame,
    a single string, a None or NaN row are refused naming the argument and the row; a context that is a
    list of passages is joined with blank lines. This is where the offline signal reads its texts, so
    markup (HTML, markdown links and emphasis) is taken away here: the answer is what a reader sees."""
    from bertscore_plugins.inputs import InputError, check_pairs

    try:
        outputs, groups = check_pairs(outputs, contexts)
    except InputError as error:
        message = str(error).replace("candidates", "outputs").replace("references", "contexts")
        message = message.replace(
            "each candidate needs at least one reference", "each output needs a context"
        )
        raise InputError(message) from None
    pairs = [
        as_read(output, CONTEXT_SEPARATOR.join(group)) for output, group in zip(outputs, groups, strict=True)
    ]
    return [output for output, _ in pairs], [context for _, context in pairs]


def as_read(output: str, context: str) -> tuple[str, str]:
    """(output, context) as the offline signal reads them, whichever way a row comes (this API, the batch
    engine, a Phoenix evaluator): the text a reader sees, markup taken away (a context's passages already
    joined)."""
    return plain_text(output), plain_text(context)


def check_facts(
    outputs: Sequence[str],
    contexts: Sequence[str | Sequence[str]],
    scorer: Any = None,
    explanations: Sequence[Any] | None = None,
) -> list[FactCheck]:
    """The fact check of each output against its context.

    Args:
        outputs: one generated text per row.
        contexts: the source of each row (a text, or a list of passages joined with blank lines).
        scorer: the core ``BERTScorer`` whose alignment guides the check (default: the default model
            reading long sources whole, ``get_scorer(long_text="window")``).
        explanations: the rows' ``Explanation`` objects when already computed
            (``scorer.score(outputs, contexts, explain=True)``); then no model runs here.

    Returns:
        One :class:`FactCheck` per row, in input order.

    Raises:
        InputError: not sequences of texts, or different lengths (the message names the row).
    """
    outputs, joined = _checked(outputs, contexts)
    if explanations is None:
        return [
            check_pair(output, context, explanation)
            for output, context, _, explanation in _aligned(outputs, joined, scorer, False)
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
    scorer: Any = None,
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

    Returns one :class:`OfflineFaithfulness` per row, in input order. Raises ``InputError`` on bad rows,
    ``SettingError`` for a threshold outside [0, 1] (before any model runs).
    """
    threshold = check_threshold(threshold)
    outputs, joined = _checked(outputs, contexts)
    results = []
    for rows in _in_groups(_aligned(outputs, joined, scorer, progress), sentence_entailment.ROWS_PER_CALL):
        entailments = (
            entailment_of_rows([(output, context, explanation) for output, context, _, explanation in rows])
            if read_entailment
            else [None] * len(rows)
        )
        results += [
            evaluate_pair(output, context, explanation, precision, threshold, entailment)
            for (output, context, precision, explanation), entailment in zip(rows, entailments, strict=True)
        ]
    return results


def signature(read_entailment: bool = False) -> str:
    """What the offline signal's numbers depend on beyond the core's signature: the combination's weights
    (weights.json's sha256, short), and the entailment adapter's when it was read, e.g.
    ``offline-faithfulness:weights=1a2b3c4d5e6f`` or ``...|entailment=3645de146177``."""
    found = f"offline-faithfulness:weights={signal.weights_identity()}"
    return found + (f"|entailment={sentence_entailment.identity()}" if read_entailment else "")


def _in_groups(rows: Iterator[Any], size: int) -> Iterator[list[Any]]:
    group: list[Any] = []
    for row in rows:
        group.append(row)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def _aligned(
    outputs: list[str], contexts: list[str], scorer: Any, progress: bool | None
) -> Iterator[tuple[str, str, float, Any]]:
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
            rows = zip(outputs[chunk], contexts[chunk], result.precision, result.explanations, strict=True)
            for output, context, precision, explanation in rows:
                yield output, context, float(precision), explanation
            if bar is not None:
                bar.update(len(result.explanations))
            del result, rows
    finally:
        if bar is not None:
            bar.close()


def offline_scorer(scorer: Any) -> Any:
    """The core scorer, reading sources whole (overlapping windows), as the combination was fitted: a
    truncated source leaves its end unable to support anything (a sentence copied word for word from the
    end of a long source scored 0.32 with a truncating scorer). A scorer set to truncate is used with
    long_text="window" (the same model)."""
    from bertscore_plugins.core.config import ScoreConfig
    from bertscore_plugins.core.scorer import BERTScorer, resolve_scorer

    if scorer is None:
        return resolve_scorer(None, {"long_text": "window"})
    if isinstance(scorer, (BERTScorer, ScoreConfig)):
        config = scorer if isinstance(scorer, ScoreConfig) else scorer.config
        if config.long_text != "window":
            return resolve_scorer(scorer, {"long_text": "window"})
    return resolve_scorer(scorer, {})


__all__ = [
    "CONTEXT_SEPARATOR",
    "DEFAULT_GROUNDEDNESS_THRESHOLD",
    "FAITHFUL",
    "FAITHFULNESS_THRESHOLD",
    "NOT_CHECKED",
    "SUPPORTED",
    "UNFAITHFUL",
    "UNSUPPORTED",
    "Fact",
    "FactCheck",
    "Finding",
    "OfflineFaithfulness",
    "Parts",
    "as_read",
    "check_explanation",
    "check_facts",
    "check_pair",
    "check_threshold",
    "evaluate_pair",
    "extract",
    "offline_faithfulness",
    "offline_scorer",
    "signature",
]

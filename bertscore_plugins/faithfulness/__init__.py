"""Offline faithfulness: is the output supported by its source, without an LLM? The signal's one home.

Read in this order: ``reading`` (how a row is read: passages joined, markup taken away), ``parts`` and
``passages`` (what the alignment and the words say, sentence by sentence), ``combination`` (the fitted
weights, weights.json), ``outcome`` (an empty or refusing answer: its own label, never faithful or
unfaithful), ``result`` (:class:`OfflineFaithfulness`: one row's score, label, explanation),
``scoring`` (rows -> the core's alignment -> results: the public API, and ``read_batch``, the
evaluation engine's one call per batch) and the opt-in entailment read (``sentence_entailment``, ``entailment_model``).
The fact check itself (numbers, dates, names, negations) is English text analysis in
``bertscore_plugins.facts``, which knows nothing of scorers or models.

    >>> from bertscore_plugins.faithfulness import offline_faithfulness
    >>> row = offline_faithfulness(["Discharged on Thursday."], ["He was discharged on Tuesday."])[0]
    >>> row.label, row.facts.explanation                                  # doctest: +SKIP
    ('unfaithful', 'Thursday: context says Tuesday')
"""

from bertscore_plugins.faithfulness.reading import (
    CONTEXT_SEPARATOR,
    as_read,
    context_problem,
    join_context,
    plain_text,
)
from bertscore_plugins.faithfulness.result import FAITHFUL, UNFAITHFUL, OfflineFaithfulness
from bertscore_plugins.faithfulness.scoring import (
    CHUNK_ROWS,
    ReadBatch,
    check_facts,
    entailment_of_rows,
    evaluate_pair,
    offline_faithfulness,
    offline_scorer,
    read_batch,
    signature,
)

__all__ = [
    "CHUNK_ROWS",
    "CONTEXT_SEPARATOR",
    "FAITHFUL",
    "UNFAITHFUL",
    "OfflineFaithfulness",
    "ReadBatch",
    "as_read",
    "check_facts",
    "context_problem",
    "entailment_of_rows",
    "evaluate_pair",
    "join_context",
    "offline_faithfulness",
    "offline_scorer",
    "plain_text",
    "read_batch",
    "signature",
]

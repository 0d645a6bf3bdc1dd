"""The evaluation engine: one batch of RAG rows through every signal, with no Phoenix import.

Read in this order: ``names`` (every name written), ``cells`` (a signal's result for a row, as plain
dicts), ``signals`` (similarity, groundedness and offline faithfulness from the core's scorer and the fact
check), ``judge`` (the judge as an interface: rows in, verdicts out; triage), ``disagreement`` (the
quadrants), ``config`` (:class:`~.config.EvaluationConfig`, validated and signed), ``batch``
(:func:`~.batch.evaluate_batch`, the one pipeline over plain :class:`~.batch.BatchRow` values) and
``dataframe`` (the DataFrame adapter; the only module that touches pandas). Phoenix's evaluators, its
judge and the span source are in ``bertscore_plugins.integrations.phoenix``, built on this.
"""

"""The evaluation engine: one batch of RAG rows through every signal, with no Phoenix import.

Read in this order: ``names`` (every name written), ``cells`` (a signal's result for a row, a typed
value), ``signals`` (similarity, groundedness and offline faithfulness from the core's scorer and the fact
check), ``judge`` (the judge as an interface: rows in, verdicts out; triage), ``disagreement`` (the
quadrants), ``evaluation_config`` (:class:`~.evaluation_config.EvaluationConfig`, validated and signed),
``batch`` (:func:`~.batch.evaluate_batch`, the engine over plain :class:`~.batch.BatchRow` values),
``store`` (the one resumable result store), ``pipeline`` (rows from any source -> the engine -> the
store: resume, judge retry), ``labels`` (new thresholds on stored cells), ``score_table`` (the flat
scores table) and ``dataframe`` (the DataFrame adapter; the only module that touches pandas). Each name
is imported from the module that defines it. Phoenix's evaluators, its judge adapter and the span source
are in ``bertscore_plugins.integrations.phoenix``, built on this.
"""

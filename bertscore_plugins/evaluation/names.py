"""The names this package writes into Phoenix: annotations, result columns, labels, metadata keys.

One home for each: evaluators, the disagreement step, annotation configs, filters, the trace evaluation
and the recipes take their defaults from here, so a filter printed by one always matches what another
logged. Result columns are ``f"{name}_score"`` and ``f"{name}_execution_details"`` (the shape
``phoenix.evals.evaluate_dataframe`` writes).
"""

from __future__ import annotations

# -- annotation names (also the prefixes of the result columns) --------------------------------------
SIMILARITY = "bertscore"
"""BERTScore F1 of the output against a reference."""
GROUNDEDNESS = "groundedness"
"""BERTScore precision of the output against its context."""
FAITHFULNESS = "faithfulness"
"""Phoenix's FaithfulnessEvaluator (LLM judge); the name Phoenix itself gives it."""
DISAGREEMENT = "sim_faith_disagreement"
"""Where similarity and faithfulness disagree."""
OFFLINE_FAITHFULNESS = "offline_faithfulness"
"""Offline faithfulness: groundedness, lexical support and the fact check combined (no LLM)."""

# -- labels ------------------------------------------------------------------------------------------
SIMILAR, DISSIMILAR = "similar", "dissimilar"
GROUNDED, UNGROUNDED = "grounded", "ungrounded"
AGREE = "agree"
HIGH_SIM_UNFAITHFUL = "high_sim_unfaithful"
LOW_SIM_FAITHFUL = "low_sim_faithful"
DISAGREEMENT_LABELS = (AGREE, HIGH_SIM_UNFAITHFUL, LOW_SIM_FAITHFUL)

# -- where our annotations are kept apart ----------------------------------------------------------
ANNOTATION_IDENTIFIER = "bertscore-plugins"
"""The identifier our span annotations carry, the same for every configuration (which one made an
annotation is in its metadata, ``CONFIGURATION_KEY``): Phoenix keeps one annotation per (span, name,
identifier), so a span shows one current verdict per signal, the latest configuration's; its own
evaluators log with an empty identifier, so theirs and ours never replace each other."""

# -- metadata ----------------------------------------------------------------------------------------
CONFIGURATION_KEY = "bertscore_configuration"
"""Annotation metadata key holding the evaluation configuration's signature (trace evaluation)."""


def column(name: str, part: str) -> str:
    """The flat table's column of ``part`` of annotation ``name`` ("bertscore_f1", "bertscore_label"); the one
    home of the ``<name>_<part>`` rule, which the result columns below follow too."""
    return f"{name}_{part}"


def score_column(name: str) -> str:
    """The result column of annotation ``name`` (a ``Score.to_dict()`` dict per row)."""
    return column(name, "score")


def details_column(name: str) -> str:
    """The execution-details column of annotation ``name``."""
    return column(name, "execution_details")

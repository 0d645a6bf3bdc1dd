"""Results onto a Phoenix project's spans: annotation configs, span annotations, filters and links.

Everything goes through :mod:`.gateway` (the server is never imported). Names come from
:mod:`bertscore_plugins.evaluation.names`, so filters, sorting and experiment comparisons work across
runs. Datasets and experiments are in :mod:`.experiments`.

One current annotation per signal. Phoenix keeps one span annotation per (span, name, identifier) and
replaces it when the same three are written again (an upsert on every field: label, score,
explanation, metadata; checked on server 20.26.1). Every configuration of ours writes under the same
identifier, ``annotation_identifier`` (default ``"bertscore-plugins"``), and puts its configuration id
in the metadata (``bertscore_configuration``). So after several configurations of ``phoenix evaluate``
(no judge; a judge; ``--judge-rows unsettled``) have evaluated a span, the span shows one annotation
per signal name, the one the last configuration wrote, with that configuration's id in its metadata;
the older ones are replaced, not kept. A signal the last configuration did not compute (the judge's
``faithfulness`` after a run without a judge) keeps the annotation of the configuration that did, and
its metadata names that one. Re-running an earlier configuration makes its results current again (they
are re-sent from the local result store, not recomputed). The filter strings of
:func:`disagreement_filters` therefore select the current verdict. To keep two configurations side by
side instead, give one of them another ``annotation_identifier``. Phoenix's own evaluators log with an
empty identifier, so theirs and ours never replace each other. Re-logging the same rows after an
outage is safe for the same reason: it replaces, never duplicates.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd
from phoenix.evals.utils import to_annotation_dataframe

from bertscore_plugins.evaluation.names import (
    AGREE,
    ANNOTATION_IDENTIFIER,
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    HIGH_SIM_UNFAITHFUL,
    LOW_SIM_FAITHFUL,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
    score_column,
)
from bertscore_plugins.faithfulness.outcome import ABSTAINED, EMPTY
from bertscore_plugins.faithfulness.result import FAITHFUL, UNFAITHFUL
from bertscore_plugins.integrations.phoenix import gateway
from bertscore_plugins.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    from bertscore_plugins.integrations.phoenix.gateway import PhoenixClient

logger = logging.getLogger(__name__)


# -- annotation configs ------------------------------------------------------------------------------


def annotation_configs(
    *,
    similarity: str = SIMILARITY,
    groundedness: str = GROUNDEDNESS,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    offline_faithfulness: str = OFFLINE_FAITHFULNESS,
) -> list[JSONObject]:
    """The annotation configs that tell the Phoenix UI each result's type, labels and direction."""
    return [
        {
            "name": similarity,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "BERTScore F1 of the output against the reference (similarity, not truth)",
        },
        {
            "name": groundedness,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "BERTScore precision of the output against the context (support by the source)",
        },
        {
            "name": offline_faithfulness,
            "type": "CONTINUOUS",
            "optimization_direction": "MAXIMIZE",
            "description": "Offline faithfulness: groundedness, lexical support and the fact check combined",
        },
        {
            "name": faithfulness,
            "type": "CATEGORICAL",
            "optimization_direction": "MAXIMIZE",
            "description": "Phoenix FaithfulnessEvaluator (LLM judge): is the output supported by the context?",
            "values": [
                {"label": FAITHFUL, "score": 1},
                {"label": UNFAITHFUL, "score": 0},
                # no answer to judge: no score, so Phoenix's score statistics leave it out
                {"label": EMPTY},
                {"label": ABSTAINED},
            ],
        },
        {
            "name": disagreement,
            "type": "CATEGORICAL",
            "optimization_direction": "MINIMIZE",
            "description": "Similarity vs faithfulness: the rows where they disagree are the ones to read",
            "values": [
                {"label": AGREE, "score": 0},
                {"label": HIGH_SIM_UNFAITHFUL, "score": 1},
                {"label": LOW_SIM_FAITHFUL, "score": 1},
                {"label": EMPTY},
                {"label": ABSTAINED},
            ],
        },
    ]


def ensure_annotation_configs(
    client: PhoenixClient,
    configs: Sequence[Mapping[str, JSONValue]] | None = None,
    *,
    project: str | None = None,
) -> dict[str, str]:
    """Create the annotation configs that do not exist yet; returns ``{name: config id}``.

    Idempotent: an existing config with the same name is kept as it is. With ``project`` (name or id)
    each config is also attached to that project so its spans table shows them.
    """
    configs = list(configs) if configs is not None else annotation_configs()
    existing = gateway.annotation_config_ids(client)
    ids = {
        str(config["name"]): existing.get(str(config["name"]))
        or gateway.create_annotation_config(client, config)
        for config in configs
    }
    if project is not None:
        for name, config_id in ids.items():
            refused = gateway.attach_annotation_config(client, project, config_id)
            if refused is not None:
                logger.warning("could not attach %r to project %r: %s", name, project, refused)
    return ids


# -- span annotations --------------------------------------------------------------------------------


def span_annotation_dataframe(
    results: pd.DataFrame,
    score_names: Sequence[str] | None = None,
    identifier: str | None = ANNOTATION_IDENTIFIER,
) -> pd.DataFrame:
    """``to_annotation_dataframe`` of the rows that have a result (failed rows are left out), each with
    ``identifier`` (Phoenix keeps one annotation per name, span and identifier: its own evaluators log
    with an empty one, so ours never overwrite theirs)."""
    names = list(score_names) if score_names is not None else None
    if names is not None:
        present = [n for n in names if score_column(n) in results.columns]
        if missing := sorted(set(names) - set(present)):
            logger.info("no result columns for %s; not logging them", missing)
        names = present
    annotations = to_annotation_dataframe(dataframe=results, score_names=names)
    usable = annotations["score"].notna() | annotations["label"].notna()
    annotations = annotations[usable].reset_index(drop=True)
    # a cell with no score (no answer to judge: empty, abstained) is sent with none, never as NaN
    annotations["score"] = annotations["score"].astype(object).where(annotations["score"].notna(), None)
    if identifier:
        annotations["identifier"] = identifier
    return annotations


def log_span_annotations(
    client: PhoenixClient,
    results: pd.DataFrame,
    score_names: Sequence[str] | None = None,
    identifier: str | None = ANNOTATION_IDENTIFIER,
) -> int:
    """Log result cells as span annotations; returns how many were written.

    ``results`` must carry span ids in its index or a column whose name contains ``span_id`` (as
    ``get_input_output_context`` / ``get_spans_dataframe`` return them). ``score_names`` defaults to
    every ``*_score`` column. Rows whose evaluator failed are skipped (nothing to log). Annotations carry
    ``identifier`` (this project's, by default; None: Phoenix's empty one).
    """
    annotations = span_annotation_dataframe(results, score_names, identifier)
    if annotations.empty:
        return 0
    gateway.log_span_annotation_frame(client, annotations)
    return len(annotations)


# -- filters and links -------------------------------------------------------------------------------


def disagreement_filters(
    *,
    similarity: str = SIMILARITY,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    similarity_threshold: float | None = None,
    identifier: str | None = None,
) -> dict[str, dict[str, str]]:
    """Ready-made filter strings: ``{"spans": {...}, "experiments": {...}}``, each opening with the
    unfaithful rows (``faithfulness`` names the signal: the judge or the offline faithfulness).

    Paste a ``spans`` filter into a project's spans filter bar (or ``SpanQuery().where(...)``) and an
    ``experiments`` filter into the experiment compare page's filter (GraphQL ``filterCondition``).
    A span holds one current annotation of ours per name (see the module docstring), so a ``spans``
    filter selects by that one. With ``identifier`` (ours: ``"bertscore-plugins"``) each span filter
    also requires the annotation to carry it, for a project where other annotators (people, Phoenix's
    own evaluators, an older version of this package) wrote annotations of the same names.
    """

    def either(prefix: str) -> str:
        return f"({prefix}.label == '{HIGH_SIM_UNFAITHFUL}' or {prefix}.label == '{LOW_SIM_FAITHFUL}')"

    def ours(name: str, condition: str) -> str:
        if identifier is None:
            return condition
        return f"{condition} and annotations['{name}'].identifier == {identifier!r}"

    span_prefix = f"annotations['{disagreement}']"
    spans = {
        # first: what is unfaithful, whatever the similarity (the disagreement quadrants hide the rows
        # that are wrong AND unlike the reference)
        UNFAITHFUL: ours(faithfulness, f"annotations['{faithfulness}'].label == '{UNFAITHFUL}'"),
        "disagreements": ours(disagreement, either(span_prefix)),
        HIGH_SIM_UNFAITHFUL: ours(disagreement, f"{span_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'"),
        LOW_SIM_FAITHFUL: ours(disagreement, f"{span_prefix}.label == '{LOW_SIM_FAITHFUL}'"),
    }
    exp_prefix = f"experiments[0].evals['{disagreement}']"
    experiments = {
        UNFAITHFUL: f"experiments[0].evals['{faithfulness}'].label == '{UNFAITHFUL}'",
        "disagreements": either(exp_prefix),
        HIGH_SIM_UNFAITHFUL: f"{exp_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'",
        LOW_SIM_FAITHFUL: f"{exp_prefix}.label == '{LOW_SIM_FAITHFUL}'",
    }
    if similarity_threshold is not None and math.isfinite(similarity_threshold):
        spans["similar_but_unfaithful"] = ours(
            faithfulness,
            ours(
                similarity,
                f"annotations['{similarity}'].score >= {similarity_threshold:g} "
                f"and annotations['{faithfulness}'].label == '{UNFAITHFUL}'",
            ),
        )
    return {"spans": spans, "experiments": experiments}


def project_url(base_url: str, project: str) -> str:
    """The spans page of a project (``project`` = its id, see :func:`project_id`)."""
    return f"{base_url.rstrip('/')}/projects/{project}"

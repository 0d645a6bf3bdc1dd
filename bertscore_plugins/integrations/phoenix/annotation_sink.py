"""Results onto a Phoenix project's spans: annotation configs, span annotations, filters and links.

Everything goes over HTTP with ``phoenix.client`` (the server is never imported). Names come from
:mod:`.names`, so filters, sorting and experiment comparisons work across runs; re-logging the same
rows overwrites (Phoenix keeps one annotation per name, span and identifier), which makes logging safe
to repeat after an outage. Datasets and experiments are in :mod:`.experiments`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import pandas as pd
from phoenix.evals.utils import to_annotation_dataframe

from bertscore_plugins.errors import PhoenixServerError
from bertscore_plugins.evaluation.names import (
    AGREE,
    ANNOTATION_IDENTIFIER,
    DISAGREEMENT,
    FAITHFUL,
    FAITHFULNESS,
    GROUNDEDNESS,
    HIGH_SIM_UNFAITHFUL,
    LOW_SIM_FAITHFUL,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
    UNFAITHFUL,
)

logger = logging.getLogger(__name__)


# -- annotation configs ------------------------------------------------------------------------------


def annotation_configs(
    *,
    similarity: str = SIMILARITY,
    groundedness: str = GROUNDEDNESS,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    offline_faithfulness: str = OFFLINE_FAITHFULNESS,
) -> list[dict[str, Any]]:
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
            "values": [{"label": FAITHFUL, "score": 1}, {"label": UNFAITHFUL, "score": 0}],
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
            ],
        },
    ]


def _http(client: Any) -> Any:
    # phoenix.client has no wrapper for annotation configs (REST only); reuse its configured httpx client.
    return client._client


def ensure_annotation_configs(
    client: Any,
    configs: Sequence[Mapping[str, Any]] | None = None,
    *,
    project: str | None = None,
) -> dict[str, str]:
    """Create the annotation configs that do not exist yet; returns ``{name: config id}``.

    Idempotent: an existing config with the same name is kept as it is. With ``project`` (name or id)
    each config is also attached to that project so its spans table shows them.
    """
    http = _http(client)
    configs = list(configs) if configs is not None else annotation_configs()
    reply = http.get("v1/annotation_configs", params={"limit": 1000})
    reply.raise_for_status()
    existing = {item["name"]: item["id"] for item in reply.json().get("data", [])}
    ids: dict[str, str] = {}
    for config in configs:
        name = config["name"]
        if name in existing:
            ids[name] = existing[name]
            continue
        created = http.post("v1/annotation_configs", json=dict(config))
        if created.status_code >= 400:
            raise PhoenixServerError(
                f"creating annotation config {name!r} failed: {created.status_code} {created.text}"
            )
        ids[name] = created.json()["data"]["id"]
    if project is not None:
        for name, config_id in ids.items():
            attached = http.put(
                f"v1/projects/{quote(project, safe='')}/annotation_configs/{quote(config_id, safe='')}"
            )
            if attached.status_code >= 400:
                logger.warning("could not attach %r to project %r: %s", name, project, attached.text)
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
        present = [n for n in names if f"{n}_score" in results.columns]
        if missing := sorted(set(names) - set(present)):
            logger.info("no result columns for %s; not logging them", missing)
        names = present
    annotations = to_annotation_dataframe(dataframe=results, score_names=names)
    usable = annotations["score"].notna() | annotations["label"].notna()
    annotations = annotations[usable].reset_index(drop=True)
    if identifier:
        annotations["identifier"] = identifier
    return annotations


def log_span_annotations(
    client: Any,
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
    client.spans.log_span_annotations_dataframe(dataframe=annotations, sync=True)
    return len(annotations)


# -- filters and links -------------------------------------------------------------------------------


def disagreement_filters(
    *,
    similarity: str = SIMILARITY,
    faithfulness: str = FAITHFULNESS,
    disagreement: str = DISAGREEMENT,
    similarity_threshold: float | None = None,
) -> dict[str, dict[str, str]]:
    """Ready-made filter strings: ``{"spans": {...}, "experiments": {...}}``, each opening with the
    unfaithful rows (``faithfulness`` names the signal: the judge or the offline faithfulness).

    Paste a ``spans`` filter into a project's spans filter bar (or ``SpanQuery().where(...)``) and an
    ``experiments`` filter into the experiment compare page's filter (GraphQL ``filterCondition``).
    """

    def either(prefix: str) -> str:
        return f"({prefix}.label == '{HIGH_SIM_UNFAITHFUL}' or {prefix}.label == '{LOW_SIM_FAITHFUL}')"

    span_prefix = f"annotations['{disagreement}']"
    spans = {
        # first: what is unfaithful, whatever the similarity (the disagreement quadrants hide the rows
        # that are wrong AND unlike the reference)
        UNFAITHFUL: f"annotations['{faithfulness}'].label == '{UNFAITHFUL}'",
        "disagreements": either(span_prefix),
        HIGH_SIM_UNFAITHFUL: f"{span_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'",
        LOW_SIM_FAITHFUL: f"{span_prefix}.label == '{LOW_SIM_FAITHFUL}'",
    }
    exp_prefix = f"experiments[0].evals['{disagreement}']"
    experiments = {
        UNFAITHFUL: f"experiments[0].evals['{faithfulness}'].label == '{UNFAITHFUL}'",
        "disagreements": either(exp_prefix),
        HIGH_SIM_UNFAITHFUL: f"{exp_prefix}.label == '{HIGH_SIM_UNFAITHFUL}'",
        LOW_SIM_FAITHFUL: f"{exp_prefix}.label == '{LOW_SIM_FAITHFUL}'",
    }
    if similarity_threshold is not None and math.isfinite(similarity_threshold):
        spans["similar_but_unfaithful"] = (
            f"annotations['{similarity}'].score >= {similarity_threshold:g} "
            f"and annotations['{faithfulness}'].label == '{UNFAITHFUL}'"
        )
    return {"spans": spans, "experiments": experiments}


def project_id(client: Any, project_name: str) -> str:
    """The id Phoenix's UI uses in project URLs."""
    return client.projects.get(project_name=project_name)["id"]


def project_url(base_url: str, project: str) -> str:
    """The spans page of a project (``project`` = its id, see :func:`project_id`)."""
    return f"{base_url.rstrip('/')}/projects/{project}"

"""Phoenix spans as batch rows, and batch results as span annotations: the span adapter of the pipeline.

A span becomes a :class:`~.batch.BatchRow` (its ``key`` the span id, its id in the result store)
wanting the signals it has the fields for (groundedness and the offline faithfulness need a context,
similarity a reference, the judge a question and a context); the cells stored from an earlier run ride
along as ``known``, and the pipeline computes only what the store lacks. Stored cells become ``SpanAnnotationData`` dicts carrying our
identifier and, in their metadata, the configuration's id (one identifier for every configuration: the
last one's annotation is the current one, see :mod:`.annotation_sink`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import CONFIGURATION_KEY
from bertscore_plugins.evaluation.store import StoredResult
from bertscore_plugins.integrations.phoenix.span_source import SpanFields, extract_fields, reference_value

if TYPE_CHECKING:  # the batch pulls in the core; the CLI's flags do not need it
    from phoenix.client.__generated__.v1 import SpanAnnotationData

    from bertscore_plugins.evaluation.batch import BatchRow


@dataclass(frozen=True)
class Annotating:
    """Where results go: the configuration, its id (in each annotation's metadata) and our identifier."""

    config: EvaluationConfig
    configuration: str

    @property
    def identifier(self) -> str:
        """Phoenix keeps one annotation per (name, span, identifier): ours differs from Phoenix's own
        evaluators' (empty) and is the same for all our configurations, so the last one replaces the
        earlier ones' (which configuration wrote it is in the metadata, :func:`written_by`)."""
        return self.config.annotation_identifier

    def is_mine(self, annotation: Mapping[str, object]) -> bool:
        """Whether Phoenix's current annotation is this configuration's (our identifier, our id)."""
        return (
            annotation.get("identifier") == self.identifier and written_by(annotation) == self.configuration
        )


def written_by(annotation: Mapping[str, object]) -> str | None:
    """The configuration id in an annotation's metadata (None: not written by a trace evaluation)."""
    metadata = annotation.get("metadata")
    return metadata.get(CONFIGURATION_KEY) if isinstance(metadata, Mapping) else None


def span_row(
    span: Mapping[str, object],
    documents: list[str],
    reference: Any,
    mine: Mapping[str, StoredResult],
    config: EvaluationConfig,
    skipped: Counter,
) -> BatchRow | None:
    """The batch row of one span, or None (nothing to do; a first-time skip is counted by reason)."""
    from bertscore_plugins.evaluation.batch import BatchRow

    value, not_a_reference = reference_value(reference)
    fields = extract_fields(span, documents, value)
    if fields.output is None:
        skipped[f"span: output {fields.output_problem}" if fields.output_problem else "span: no output"] += 1
        return None
    reasons = _missing(fields, config, not_a_reference)
    available = set(config.names) - set(reasons) - {config.disagreement_name}
    if {config.similarity_name, config.faithfulness_name} <= available:
        available.add(config.disagreement_name)
    if not mine:  # a retry does not count its skips again
        for name, reason in reasons.items():
            skipped[f"{name}: {reason}"] += 1
    # what the span can have; the pipeline computes only what the store lacks (and the disagreement again
    # when a signal it reads changed, e.g. the judge answering after an outage)
    wants = available
    if not wants:
        if not mine:
            skipped["span: nothing to evaluate (no context and no reference)"] += 1
        return None
    return BatchRow(
        fields.span_id,
        output=fields.output,
        context=list(fields.context) if fields.context else None,
        reference=list(fields.reference) if isinstance(fields.reference, tuple) else fields.reference,
        input=fields.input,
        wants=frozenset(wants),
        known={name: r.cell for name, r in mine.items() if r.cell is not None},
        named=f"span {fields.span_id}",  # warnings and failures name the span a trace user finds, not a position
    )


def _missing(fields: SpanFields, config: EvaluationConfig, not_a_reference: str | None) -> dict[str, str]:
    """``{signal: why the span cannot have it}``."""
    missing: dict[str, str] = {}
    if fields.context is None:
        missing.update(dict.fromkeys((config.groundedness_name, config.offline_name), "no context"))
    if fields.reference is None:
        missing[config.similarity_name] = (
            f"reference {not_a_reference}" if not_a_reference else "no reference"
        )
    if config.judge is not None and (fields.context is None or fields.input is None):
        missing[config.judge.name] = "no context" if fields.context is None else "no input"
    return missing


def annotation(span_id: str, cell: Cell, annotating: Annotating) -> SpanAnnotationData:
    """A ``SpanAnnotationData`` dict from a cell (one of the three edges where a cell becomes a dict)."""
    metadata = cell.metadata.to_dict()
    if cell.direction:
        metadata["direction"] = cell.direction
    metadata[CONFIGURATION_KEY] = annotating.configuration
    parts = {"label": cell.label, "score": cell.score, "explanation": cell.explanation}
    result = {key: value for key, value in parts.items() if value is not None}
    plain = {
        "name": cell.name,
        "span_id": span_id,
        "annotator_kind": "LLM" if cell.kind == "llm" else "CODE",
        "identifier": annotating.identifier,
        "result": result,
        "metadata": metadata,
    }
    sent: SpanAnnotationData = json.loads(
        json.dumps(plain, default=str)
    )  # plain values, as the server stores them
    return sent

"""What the recipe prints: the summary (counts per quadrant, means, thresholds, files, URLs, filters), the
judge's failure and the Phoenix outage with the way on, the judge triage."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from bertscore_plugins.evaluation.names import DISAGREEMENT, DISAGREEMENT_LABELS, FAITHFULNESS, column
from bertscore_plugins.evaluation.score_table import no_score_rows
from bertscore_plugins.faithfulness.outcome import OUTCOMES

if TYPE_CHECKING:
    from bertscore_plugins.cli.disagreement.folder import OutputFolder, RunState
    from bertscore_plugins.evaluation.pipeline import StoredRun

#: the rows' disagreement labels, in the order printed
SHOWN = (*DISAGREEMENT_LABELS, *OUTCOMES, "not scored")
#: the means printed (all are in summary.json), over the rows with a score: an empty or abstained row has none
MEANS = ("bertscore_f1", "groundedness_precision", "offline_faithfulness_score", "faithfulness_score")


@dataclass(frozen=True)
class Paths:
    table: Path
    store: Path
    png: Path
    html: Path


def summary(flat: pd.DataFrame, state: RunState, paths: Paths, urls: dict[str, str]) -> None:
    labels = flat.get(column(DISAGREEMENT, "label"), pd.Series([None] * len(flat)))
    counts = Counter(label if isinstance(label, str) else "not scored" for label in labels)
    t = state.thresholds
    lines = [
        "",
        f"Similarity vs {state.faithfulness_signal} on {len(flat)} rows",
        f"  thresholds: similarity >= {_threshold(t.get('similarity'))}, {state.faithfulness_signal} >= "
        f"{_threshold(t.get('faithfulness'))} ({t.get('source')})",
    ]
    # every row once: its quadrant, its outcome (an empty answer, a refusal: no answer to judge) or not scored
    for label in (*DISAGREEMENT_LABELS, *OUTCOMES, "not scored", *sorted(set(counts) - set(SHOWN))):
        if counts.get(label) or label in DISAGREEMENT_LABELS:
            lines.append(f"  {label:<22}{counts.get(label, 0):>6}")
    means = [f"{c} {flat[c].mean():.3f}" for c in MEANS if c in flat and flat[c].notna().any()]
    if means:
        lines.append("  means: " + ", ".join(means) + _left_out(flat))
    lines += [f"Scores:  {paths.table}", f"Report:  {paths.html}", f"         {paths.png}"]
    if urls:
        lines.append(f"Phoenix: {urls.get('project', '')}")
        if urls.get("experiment"):
            lines.append(f"         {urls['experiment']}")
    lines.append("Filters:")
    lines += [f"  {name}:\n    {text}" for name, text in filters(state).items()]
    print("\n".join(lines), flush=True)


def judge_failure(
    found: StoredRun, rows: pd.DataFrame, keys: list[str], state: RunState, paths: Paths
) -> str:
    failed = state.judge_failed_rows
    reasons = [found.failures.get(key, {}).get(FAITHFULNESS) or "" for key in keys]
    reasons = [reason for reason in reasons if reason]
    first = (reasons or ["no detail"])[0]
    return (
        f"error: the faithfulness judge failed on {len(failed)} of {len(rows)} rows "
        f"(rows {', '.join(failed[:10])}{' ...' if len(failed) > 10 else ''}; first error: {first[:300]}).\n"
        f"Nothing is lost: every BERTScore score is saved in {paths.store}. Check the judge "
        "(BERTSCORE_JUDGE_* settings, server up) and run the same command again: it asks the judge for "
        "those rows only, then logs everything to Phoenix."
    )


def nothing_lost(rows: int, folder: OutputFolder, url: str) -> str:
    return (
        f"Nothing is lost: all {rows} scored rows are in {folder.store_path} and {folder.state_path} records "
        f"what was logged.\nWhen the server at {url} is back, run the same command again: it logs the rest "
        "without scoring again."
    )


def triage(found: Mapping[str, int | str]) -> str:
    return (
        f"Judge triage: {found['judged']} of {found['rows']} rows sent to the judge; {found['saved']} calls "
        "saved (the offline signals settled those rows)"
    )


def filters(state: RunState) -> dict[str, str]:
    """The integration's ready-made filter strings for this run, flattened to {"spans / name": text}."""
    from bertscore_plugins.integrations.phoenix.annotation_sink import disagreement_filters

    judged = state.faithfulness_signal == FAITHFULNESS
    found = disagreement_filters(
        faithfulness=state.faithfulness_signal,
        similarity_threshold=state.thresholds.get("similarity") if judged else None,
    )
    flat: dict[str, str] = {}
    for group, entries in found.items():
        if isinstance(entries, dict):
            flat.update({f"{group} / {name}": str(text) for name, text in entries.items()})
        else:
            flat[group] = str(entries)
    return flat


def _left_out(flat: pd.DataFrame) -> str:
    """What the means leave out: the rows that are no answer to judge have no score on any signal."""
    found = no_score_rows(flat.to_dict(orient="records"))
    if not sum(found.values()):
        return ""
    each = ", ".join(f"{outcome} {rows}" for outcome, rows in found.items() if rows)
    return f" (left out, no score: {each})"


def _threshold(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)

"""The recipe's HTML report: a self-contained page (inline CSS, the scatter of :mod:`.scatter` as a data
URI, no script, no external resource) listing the unfaithful rows and the rows where similarity and
faithfulness disagree, each answer's tokens shaded by how well they matched the reference (the token
matches the similarity cell kept from the one scoring pass: the report scores nothing).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bertscore_plugins.cli.disagreement.folder import write_run_file
from bertscore_plugins.evaluation.cells import BertScoreMetadata, Cell, FactCheckMetadata, VerdictMetadata
from bertscore_plugins.evaluation.names import FAITHFULNESS, OFFLINE_FAITHFULNESS
from bertscore_plugins.faithfulness.outcome import OUTCOMES

OFFLINE = OFFLINE_FAITHFULNESS  # the offline signal (its cell holds the fact check)
JUDGE = FAITHFULNESS  # the LLM judge's signal, when one ran
OUTLINE_BELOW = 0.95  # tokens matched better than this are not worth outlining
SIGNAL_TEXT = {
    "faithfulness": "the LLM faithfulness judge: p(yes) of its one-word answer",
    "groundedness": "BERTScore precision of the answer against its context",
    "offline_faithfulness": "offline faithfulness: BERTScore precision against the context, lexical support "
    "and every number, date, name and negation carried by it, combined",
}
QUADRANT_TEXT = {
    "high_sim_unfaithful": "looks like the reference, not supported by the context",
    "low_sim_faithful": "supported by the context, worded or scoped unlike the reference",
}


@dataclass(frozen=True)
class Names:
    """The signals the report reads: similarity, the faithfulness signal of the quadrants, the disagreement."""

    similarity: str
    faithfulness: str
    disagreement: str


@dataclass(frozen=True)
class ReportRow:
    """One table row as the report sees it (plain values pulled out of its typed cells)."""

    row_id: str
    case: str | None
    question: str
    context: str
    output: str
    reference: str
    similarity: float | None
    faithfulness: float | None
    label: str
    similarity_explanation: str
    judge_explanation: str
    matches: list[tuple[str, str, float]]
    fact_check: str = ""  # the offline fact check's verdict ("Thursday: context says Tuesday")
    unsupported: tuple[str, ...] = ()  # the facts the context does not carry
    offline: float | None = None  # the offline faithfulness score (groundedness x fact check)
    offline_label: str = ""  # the offline signal's label ("faithful" / "unfaithful")
    judge: float | None = None  # the LLM judge's p(yes), when one ran
    judge_label: str = ""
    judge_asked: bool = False  # the judge answered this row (not settled offline by triage)
    outcome: str | None = None  # "empty" / "abstained": no answer to judge (faithfulness/outcome.py)


def report_rows(
    fields: Sequence[Mapping[str, object]], cells: Sequence[Mapping[str, Cell]], names: Names
) -> list[ReportRow]:
    """The report's values of each row: its fields (``row_id``, ``input``, ``context``, ``output``,
    ``reference``, ``case``) and its cells by signal name (the token matches out of the similarity cell)."""
    rows = []
    for record, found in zip(fields, cells, strict=True):
        sim_cell, faith_cell = found.get(names.similarity), found.get(names.faithfulness)
        dis_cell, offline, judge = found.get(names.disagreement), found.get(OFFLINE), found.get(JUDGE)
        sim_meta = sim_cell.metadata if sim_cell is not None else None
        label = dis_cell.label if dis_cell is not None and dis_cell.label else "not scored"
        rows.append(
            ReportRow(
                row_id=str(record.get("row_id", "")),
                case=_text(record.get("case")) or None,
                question=_text(record.get("input")),
                context=_text(record.get("context")),
                output=_text(record.get("output")),
                reference=_text(record.get("reference")),
                similarity=sim_cell.score if sim_cell is not None else None,
                faithfulness=faith_cell.score if faith_cell is not None else None,
                label=label,
                similarity_explanation=(sim_cell.explanation if sim_cell is not None else None) or "",
                judge_explanation=(faith_cell.explanation if faith_cell is not None else None) or "",
                matches=[
                    (m.token, m.matched_token, m.similarity)
                    for m in (sim_meta.token_matches or () if isinstance(sim_meta, BertScoreMetadata) else ())
                ],
                fact_check=_fact_check(offline),
                unsupported=_unsupported(offline),
                offline=offline.score if offline is not None else None,
                offline_label=(offline.label if offline is not None else None) or "",
                outcome=label if label in OUTCOMES else None,
                judge=judge.score if judge is not None else None,
                judge_label=(judge.label if judge is not None else None) or "",
                judge_asked=_asked(judge),
            )
        )
    return rows


def _asked(judge: Cell | None) -> bool:
    """Whether the judge read the row (not settled offline, not an answer with no claim to judge)."""
    if judge is None:
        return False
    return not isinstance(judge.metadata, VerdictMetadata) or judge.metadata.asked


def _fact_check(cell: Cell | None) -> str:
    """The offline fact check's verdict from an offline-faithfulness cell ("" when absent)."""
    if cell is None or not isinstance(cell.metadata, FactCheckMetadata):
        return ""
    meta = cell.metadata
    if meta.unsupported_facts:
        return "unsupported: " + "; ".join(meta.unsupported_facts)
    facts = meta.parts.get("facts")
    return f"all {len(facts)} facts supported" if isinstance(facts, list) and facts else "no checkable facts"


def _unsupported(cell: Cell | None) -> tuple[str, ...]:
    if cell is None or not isinstance(cell.metadata, FactCheckMetadata):
        return ()
    return cell.metadata.unsupported_facts


def unfaithful_rows(rows: list[ReportRow], thresholds: dict[str, Any]) -> list[ReportRow]:
    """Every row with an unsupported fact or below the faithfulness threshold, whatever its similarity (an
    answer that is no answer to judge, empty or abstained, is listed on its own: :func:`outcome_rows`); worst
    first: lowest faithfulness, then lowest offline score (a judge scores 0 or 1), then most facts wrong."""
    threshold = thresholds.get("faithfulness")
    unfaithful = [
        row
        for row in rows
        if row.outcome is None
        and (
            row.unsupported
            or (row.faithfulness is not None and threshold is not None and row.faithfulness < threshold)
        )
    ]
    return sorted(
        unfaithful,
        key=lambda r: (
            r.faithfulness if r.faithfulness is not None else 1.0,
            r.offline if r.offline is not None else 1.0,
            -len(r.unsupported),
        ),
    )


def outcome_rows(rows: list[ReportRow]) -> list[ReportRow]:
    """The rows that are no answer to judge (empty, abstained), in table order."""
    return [row for row in rows if row.outcome is not None]


def _text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return "\n\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def top_disagreements(rows: list[ReportRow], thresholds: dict[str, float], limit: int) -> list[ReportRow]:
    """The disagreeing rows, clearest first: high_sim_unfaithful before low_sim_faithful, then by how far
    each row sits past the two thresholds."""
    t_sim, t_faith = thresholds["similarity"], thresholds["faithfulness"]

    def key(row: ReportRow) -> tuple[int, float]:
        distance = abs((row.similarity or 0.0) - t_sim) + abs((row.faithfulness or 0.0) - t_faith)
        return (0 if row.label == "high_sim_unfaithful" else 1, -distance)

    disagreeing = [r for r in rows if r.label in QUADRANT_TEXT]
    return sorted(disagreeing, key=key)[:limit]


def highlighted_output(row: ReportRow, worst: int = 3) -> str:
    """The answer as HTML, each matched token shaded by its similarity to its best reference token
    (darker = worse) with a tooltip ``token -> match 0.71``; the ``worst`` weakest tokens are outlined."""
    text = row.output
    if not row.matches:
        return html.escape(text)
    sims = [s for _, _, s in row.matches]
    low, high = min(sims), max(sims)
    weakest = {
        i
        for i in sorted(range(len(row.matches)), key=lambda i: sims[i])[:worst]
        if sims[i] < OUTLINE_BELOW and _is_word(row.matches[i][0])
    }
    pieces, cursor = [], 0
    for i, (token, matched, sim) in enumerate(row.matches):
        at = text.find(token, cursor) if token else -1
        if at < 0:  # token text not found verbatim (e.g. normalised by the tokenizer): leave it unshaded
            continue
        pieces.append(html.escape(text[cursor:at]))
        badness = 0.0 if high == low else (high - sim) / (high - low)
        css = f"background: rgba(196, 78, 82, {0.08 + 0.6 * badness:.2f})"
        cls = ' class="worst"' if i in weakest else ""
        tip = html.escape(f"{token} -> {matched} {sim:.2f}", quote=True)
        pieces.append(f'<span style="{css}"{cls} title="{tip}">{html.escape(token)}</span>')
        cursor = at + len(token)
    pieces.append(html.escape(text[cursor:]))
    return "".join(pieces)


_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table.counts td, table.counts th { padding: 2px 10px; text-align: left; }
.row { border: 1px solid #ddd; border-radius: 6px; padding: 0.8em 1em; margin: 1em 0; }
.row.high_sim_unfaithful { border-left: 6px solid #c44e52; } .row.low_sim_faithful { border-left: 6px solid #dd8452; }
.meta { color: #555; font-size: 0.9em; } .label { font-weight: 600; }
.answer { font-size: 1.08em; padding: 0.4em 0; }
.answer span { border-radius: 3px; padding: 0 1px; }
.answer span.worst { outline: 2px solid #8b1e22; }
.worst-list code { background: #f6f6f6; padding: 1px 5px; border-radius: 3px; margin-right: 6px; }
dt { font-weight: 600; margin-top: 0.4em; } dd { margin-left: 1.2em; }
table.unfaithful { border-collapse: collapse; margin: 0.5em 0 1.5em; width: 100%; }
table.unfaithful td, table.unfaithful th { border-bottom: 1px solid #e4e4e4; padding: 4px 8px; text-align: left;
       vertical-align: top; }
table.unfaithful td:first-child { white-space: nowrap; }
table.unfaithful td.facts { color: #8b1e22; font-weight: 600; }
code.filter { display: block; background: #f6f6f6; padding: 4px 8px; margin: 4px 0; white-space: pre-wrap; }
"""


@dataclass(frozen=True)
class Page:
    """What the page says besides the rows: its title, the faithfulness signal, the summary lines, the
    Phoenix filter strings and the scatter (a PNG, inlined)."""

    title: str
    faithfulness_name: str
    summary_lines: list[str]
    filters: dict[str, str]
    png: Path


def write_html(
    rows: list[ReportRow], top: list[ReportRow], thresholds: dict[str, Any], path: Path, page: Page
) -> Path:
    """Write the self-contained HTML report."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.label] = counts.get(row.label, 0) + 1
    name = page.faithfulness_name
    image = base64.b64encode(page.png.read_bytes()).decode("ascii")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(page.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(page.title)}</h1>",
        (
            "<p>Similarity (BERTScore F1 of the answer against the reference) and "
            f"{html.escape(name)} ({html.escape(SIGNAL_TEXT.get(name, ''))}): "
            "first, every row that is unfaithful whatever its similarity; then the rows where the two "
            "signals disagree. Hover a token for its best match in the reference; outlined tokens matched "
            "worst.</p>"
        ),
        *_unfaithful_section(unfaithful_rows(rows, thresholds), name),
        *_outcome_section(outcome_rows(rows)),
        *(_judge_offline_section(rows) if any(row.judge_asked for row in rows) else []),
        "<table class='counts'><tr><th>quadrant</th><th>rows</th></tr>",
        *(f"<tr><td>{html.escape(label)}</td><td>{n}</td></tr>" for label, n in sorted(counts.items())),
        "</table>",
        "<p class='meta'>" + "<br>".join(html.escape(line) for line in page.summary_lines) + "</p>",
        f"<img alt='similarity vs {html.escape(name)} scatter' width='800' src='data:image/png;base64,{image}'>",
    ]
    if page.filters:
        parts.append("<h2>Phoenix filters</h2>")
        parts += [
            f"<div>{html.escape(label)}<code class='filter'>{html.escape(text)}</code></div>"
            for label, text in page.filters.items()
        ]
    parts.append(f"<h2>Top {len(top)} disagreements</h2>")
    if not top:
        parts.append("<p>No row disagrees at these thresholds.</p>")
    for row in top:
        parts += _disagreement(row, name)
    parts.append(f"<p class='meta'>Thresholds: {html.escape(str(thresholds))}</p></body></html>")
    write_run_file(path, "\n".join(parts))
    return path


def _disagreement(row: ReportRow, faithfulness_name: str) -> list[str]:
    """One listed disagreement: its scores, the question, the shaded answer, the reference, the context."""
    worst = sorted((m for m in row.matches if _is_word(m[0])), key=lambda m: m[2])[:3]
    parts = [
        f"<div class='row {html.escape(row.label)}'>",
        f"<div class='meta'>row <b>{html.escape(row.row_id)}</b>"
        + (f" &middot; case <b>{html.escape(row.case)}</b>" if row.case else "")
        + f" &middot; <span class='label'>{html.escape(row.label)}</span>: "
        f"{html.escape(QUADRANT_TEXT.get(row.label, ''))} &middot; similarity {_num(row.similarity)}"
        f" &middot; {html.escape(faithfulness_name)} {_num(row.faithfulness)}</div>",
        f"<dl><dt>Question</dt><dd>{html.escape(row.question)}</dd>",
        f"<dt>Answer (shaded by match to the reference)</dt><dd class='answer'>{highlighted_output(row)}</dd>",
        f"<dt>Reference</dt><dd>{html.escape(row.reference)}</dd>",
        "<dt>Worst-matched tokens</dt><dd class='worst-list'>"
        + ("".join(f"<code>{html.escape(f'{t} -> {m} {s:.2f}')}</code>" for t, m, s in worst) or "none")
        + "</dd>",
        f"<dt>Context</dt><dd>{html.escape(row.context)}</dd>",
    ]
    if row.judge_explanation:
        parts.append(
            f"<dt>{html.escape(faithfulness_name)} explanation</dt><dd>{html.escape(row.judge_explanation)}</dd>"
        )
    if row.fact_check and faithfulness_name != OFFLINE:
        parts.append(f"<dt>fact check (offline)</dt><dd class='facts'>{html.escape(row.fact_check)}</dd>")
    parts.append("</dl></div>")
    return parts


def _unfaithful_section(rows: list[ReportRow], faithfulness_name: str) -> list[str]:
    """The report's first section: what is unfaithful, whatever the similarity, worst first."""
    parts = [
        f"<h2 id='unfaithful'>Unfaithful, whatever the similarity ({len(rows)})</h2>",
        "<p>Answers with a fact the context does not carry, or below the faithfulness threshold, worst first. "
        "Similarity to the reference does not clear them: a wrong day scores as well as the right one.</p>",
    ]
    if not rows:
        parts.append("<p>No row is unfaithful at this threshold.</p>")
        return parts
    judged = any(row.judge is not None for row in rows)
    parts.append(
        "<table class='unfaithful'><tr><th>row</th><th>answer</th><th>unsupported facts</th>"
        f"<th>{html.escape(faithfulness_name)}</th>"
        + ("<th>offline faithfulness</th>" if faithfulness_name != OFFLINE else "")
        + ("<th>judge p(yes)</th>" if judged and faithfulness_name != JUDGE else "")
        + "<th>similarity</th><th>quadrant</th></tr>"
    )
    for row in rows:
        facts = "; ".join(row.unsupported) or "none named (below the threshold)"
        parts.append(
            f"<tr class='{html.escape(row.label)}'><td>{html.escape(row.row_id)}</td>"
            f"<td>{html.escape(row.output)}</td><td class='facts'>{html.escape(facts)}</td>"
            f"<td>{_num(row.faithfulness)}</td>"
            + (f"<td>{_num(row.offline)}</td>" if faithfulness_name != OFFLINE else "")
            + (f"<td>{_num(row.judge)}</td>" if judged and faithfulness_name != JUDGE else "")
            + f"<td>{_num(row.similarity)}</td><td>{html.escape(row.label)}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _outcome_section(rows: list[ReportRow]) -> list[str]:
    """The answers that are no answer to judge: empty ones and refusals, each its own outcome on every signal."""
    if not rows:
        return []
    counts = ", ".join(f"{label} {sum(row.outcome == label for row in rows)}" for label in OUTCOMES)
    parts = [
        f"<h2 id='no-answer'>No answer to judge ({len(rows)}: {counts})</h2>",
        "<p>Empty answers (no word to read) and refusals (the answer declines to answer): neither faithful nor "
        "unfaithful, on every signal, with no score on any (so no mean counts them); they are in no quadrant.</p>",
        "<table class='unfaithful outcomes'><tr><th>row</th><th>answer</th><th>outcome</th></tr>",
    ]
    for row in rows:
        parts.append(
            f"<tr class='{html.escape(row.label)}'><td>{html.escape(row.row_id)}</td>"
            f"<td>{html.escape(row.output)}</td><td>{html.escape(row.outcome or '')}</td></tr>"
        )
    parts.append("</table>")
    return parts


def judge_offline_disagreements(rows: list[ReportRow]) -> list[ReportRow]:
    """The rows the judge answered whose label differs from the offline signal's, most confident judge
    first (its p(yes) furthest from 0.5)."""
    found = [r for r in rows if r.judge_asked and r.offline_label and r.judge_label != r.offline_label]
    return sorted(found, key=lambda r: -abs((r.judge if r.judge is not None else 0.5) - 0.5))


def _judge_offline_section(rows: list[ReportRow]) -> list[str]:
    """Where the judge and the offline signal disagree: the rows a person should read first."""
    asked = [r for r in rows if r.judge_asked]
    found = judge_offline_disagreements(rows)
    parts = [
        f"<h2 id='judge-offline'>Judge and offline signal disagree ({len(found)} of {len(asked)} judged rows)</h2>",
        "<p>Rows the LLM judge answered with another label than the offline faithfulness (rows settled "
        "offline were not asked). Neither is the truth: read the answer against its context.</p>",
    ]
    if not found:
        parts.append("<p>The judge agrees with the offline signal on every row it answered.</p>")
        return parts
    parts.append(
        "<table class='judge-offline'><tr><th>row</th><th>answer</th><th>judge p(yes)</th><th>judge</th>"
        "<th>offline score</th><th>offline</th><th>fact check</th></tr>"
    )
    for row in found:
        parts.append(
            f"<tr><td>{html.escape(row.row_id)}</td><td>{html.escape(row.output)}</td>"
            f"<td>{_num(row.judge)}</td><td>{html.escape(row.judge_label)}</td>"
            f"<td>{_num(row.offline)}</td><td>{html.escape(row.offline_label)}</td>"
            f"<td class='facts'>{html.escape(row.fact_check)}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"

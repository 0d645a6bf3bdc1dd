"""An answer that is no answer to judge (``empty``: nothing to read; ``abstained``: it declines to answer) is
that on every signal and in every sink of the recipe: the HTML report, scores.jsonl, the printed summary and
the span annotations on a real Phoenix server agree on every row's outcome, and the printed counts add up to
the rows."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins.cli import disagreement
from bertscore_plugins.faithfulness.outcome import answer_outcome
from bertscore_plugins.integrations.phoenix import table_traces
from tests.support.projects import unique_project, wait_for_roots

pytestmark = [pytest.mark.slow, pytest.mark.model]

DEMO = Path(__file__).resolve().parents[2] / "recipes" / "demo_data.jsonl"
#: the answers put in place of the demo's: three with nothing to read, four refusals (other wordings than
#: faithfulness/outcome.py's own examples)
NO_ANSWERS = {
    "demo-02": "",
    "demo-05": "   ",
    "demo-09": "🙂 …",
    "demo-11": "I don't know.",
    "demo-14": "Sorry, the documents don't mention that.",
    "demo-17": "Unfortunately, I cannot determine this from the provided context.",
    "demo-20": "Not specified in the text.",
}
ROWS = 22
SIGNALS = ("bertscore", "groundedness", "offline_faithfulness", "sim_faith_disagreement")
QUADRANTS = ("agree", "high_sim_unfaithful", "low_sim_faithful")


def _table(path: Path) -> dict[str, str | None]:
    """The first ``ROWS`` demo rows with the answers above, written to ``path``; {row id: its outcome}."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()][:ROWS]
    for row in rows:
        row["output"] = NO_ANSWERS.get(row["id"], row["output"])
    pd.DataFrame(rows).to_json(path, orient="records", lines=True, force_ascii=False)
    return {row["id"]: answer_outcome(row["output"]) for row in rows}


def test_every_sink_says_the_same_outcome_for_every_row(phoenix_server, tmp_path, monkeypatch, capsys):
    from phoenix.client import Client

    for name in ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    expected = _table(tmp_path / "answers.jsonl")
    assert sorted(o for o in expected.values() if o) == ["abstained"] * 4 + ["empty"] * 3
    project, out = unique_project("outcomes"), tmp_path / "out"
    argv = [str(tmp_path / "answers.jsonl"), "--out", str(out), "--phoenix-url", phoenix_server.base_url]
    assert disagreement.main([*argv, "--project", project]) == disagreement.EXIT_OK
    printed = capsys.readouterr().out

    # scores.jsonl: the outcome is the label of every signal, and the quadrant label of every other row
    table = pd.read_json(out / "scores.jsonl", lines=True, dtype=False)
    for record in table.to_dict(orient="records"):
        outcome = expected[record["id"]]
        labels = {signal: record[f"{signal}_label"] for signal in SIGNALS}
        if outcome:
            assert set(labels.values()) == {outcome}, record["id"]
        else:
            assert outcome not in labels.values() and labels["sim_faith_disagreement"] in QUADRANTS

    # the printed summary: one line per label, the counts add up to the rows
    counts = dict(
        re.findall(
            r"^  (agree|high_sim_unfaithful|low_sim_faithful|empty|abstained|not scored)\s+(\d+)$",
            printed,
            re.M,
        )
    )
    assert int(counts["empty"]) == 3 and int(counts["abstained"]) == 4
    assert sum(int(n) for n in counts.values()) == ROWS
    assert f"on {ROWS} rows" in printed

    # the HTML report: the no-answer rows in their own section with their outcome, in no other list
    page = (out / "report" / "disagreements.html").read_text(encoding="utf-8")
    section = page[page.index("id='no-answer'") :].split("</table>")[0]
    listed = dict(
        re.findall(r"<tr class='[a-z_]+'><td>([^<]+)</td><td>[^<]*</td><td>([a-z]+)</td></tr>", section)
    )
    assert listed == {row: outcome for row, outcome in expected.items() if outcome}
    unfaithful = page[page.index("id='unfaithful'") : page.index("id='no-answer'")]
    assert not any(f"<td>{html.escape(row)}</td>" in unfaithful for row in listed)
    assert "No answer to judge (7: empty 3, abstained 4)" in page

    # the span annotations on the server: the same label per signal and row
    state = json.loads((out / "state.json").read_text())
    spans = table_traces.with_span_ids(table.assign(row_id=table["id"]), f"{state['run_key']}/{project}")
    client = Client(base_url=phoenix_server.base_url)
    wait_for_roots(client, project, ROWS)
    annotations = client.spans.get_span_annotations(
        span_ids=list(spans["span_id"]), project_identifier=project, include_annotation_names=list(SIGNALS)
    )
    by_span = {(a["span_id"], a["name"]): a["result"]["label"] for a in annotations}
    for row_id, span_id in zip(spans["row_id"], spans["span_id"], strict=True):
        for signal in SIGNALS:
            label = by_span[(span_id, signal)]
            assert (label == expected[row_id]) if expected[row_id] else label not in ("empty", "abstained")

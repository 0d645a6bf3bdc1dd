"""An answer that is no answer to judge (``empty``: nothing to read; ``abstained``: it declines to answer) is
that on every signal and in every sink of the recipe: the HTML report, scores.jsonl, the printed summary and
the span annotations on a real Phoenix server agree on every row's outcome, and the printed counts add up to
the rows. Such a row has no score on any signal, in any sink (the store, scores.jsonl, the annotations, the
evaluations DataFrame), so every mean leaves it out and says so."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins.cli import disagreement
from bertscore_plugins.faithfulness.outcome import answer_outcome
from bertscore_plugins.integrations.phoenix import table_traces
from tests.support.projects import unique_project, wait_for_roots
from tests.support.recipe_runs import DEMO, no_judge

pytestmark = [pytest.mark.slow, pytest.mark.model]

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
#: the means the recipe prints, each over the rows with a score
MEANS = ("bertscore_f1", "groundedness_precision", "offline_faithfulness_score")


def _numbers(record: dict[str, object]) -> dict[str, object]:
    """The signals' numeric columns of a flat row (the user's own columns left out)."""
    return {
        column: value
        for column, value in record.items()
        if column.startswith(SIGNALS) and isinstance(value, (int, float)) and not isinstance(value, bool)
    }


def _table(path: Path) -> dict[str, str | None]:
    """The first ``ROWS`` demo rows with the answers above, written to ``path``; {row id: its outcome}."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()][:ROWS]
    for row in rows:
        row["output"] = NO_ANSWERS.get(row["id"], row["output"])
    pd.DataFrame(rows).to_json(path, orient="records", lines=True, force_ascii=False)
    return {row["id"]: answer_outcome(row["output"]) for row in rows}


def test_every_sink_says_the_same_outcome_for_every_row(phoenix_server, tmp_path, monkeypatch, capsys):
    from phoenix.client import Client

    no_judge(monkeypatch)
    expected = _table(tmp_path / "answers.jsonl")
    assert sorted(o for o in expected.values() if o) == ["abstained"] * 4 + ["empty"] * 3
    project, out = unique_project("outcomes"), tmp_path / "out"
    argv = [str(tmp_path / "answers.jsonl"), "--out", str(out), "--phoenix-url", phoenix_server.base_url]
    assert disagreement.main([*argv, "--project", project]) == disagreement.EXIT_OK
    printed = capsys.readouterr().out

    # scores.jsonl: the outcome is the label of every signal, with no number on any (null, never NaN or 0);
    # every other row has its quadrant and its scores
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert not any("NaN" in line for line in lines)
    for record in map(json.loads, lines):
        outcome = expected[record["id"]]
        labels = {signal: record[f"{signal}_label"] for signal in SIGNALS}
        if outcome:
            assert set(labels.values()) == {outcome}, record["id"]
            assert _numbers(record) == {}, record["id"]
            assert all(record.get(column) is None for column in MEANS), record["id"]
        else:
            assert outcome not in labels.values() and labels["sim_faith_disagreement"] in QUADRANTS
            assert all(isinstance(record[column], float) for column in MEANS), record["id"]
    table = pd.read_json(out / "scores.jsonl", lines=True, dtype=False)

    # the store: an outcome's cell has no score on any signal, every other cell has one
    with sqlite3.connect(out / "results.sqlite") as store:
        stored = [json.loads(cell) for (cell,) in store.execute("SELECT cell FROM results")]
    no_answer = [cell for cell in stored if cell.get("label") in ("empty", "abstained")]
    assert len(no_answer) == 7 * len(SIGNALS) and not any("score" in cell for cell in no_answer)
    assert all(isinstance(cell.get("score"), float) for cell in stored if cell not in no_answer)

    # the means (printed, summary.json) are over the 15 rows with a score, and say what they leave out
    answered = table[[expected[row_id] is None for row_id in table["id"]]]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["no_score"] == {"empty": 3, "abstained": 4}
    for column in MEANS:
        assert summary["means"][column] == pytest.approx(answered[column].astype(float).mean(), abs=1e-9)
    [means] = [line for line in printed.splitlines() if line.startswith("  means: ")]
    assert means.endswith("(left out, no score: empty 3, abstained 4)")
    for column in MEANS:
        assert f"{column} {answered[column].astype(float).mean():.3f}" in means

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
    by_span = {(a["span_id"], a["name"]): a["result"] for a in annotations}
    for row_id, span_id in zip(spans["row_id"], spans["span_id"], strict=True):
        for signal in SIGNALS:
            result = by_span[(span_id, signal)]
            if expected[row_id]:  # its outcome, and no score for Phoenix's statistics to average
                assert result["label"] == expected[row_id] and result.get("score") is None, (row_id, signal)
            else:
                assert result["label"] not in ("empty", "abstained") and isinstance(result["score"], float)


def test_the_evaluations_dataframe_gives_an_outcome_row_no_score_on_any_signal(tmp_path):
    from bertscore_plugins.evaluation.dataframe import evaluate_rows
    from bertscore_plugins.evaluation.names import score_column

    expected = _table(tmp_path / "answers.jsonl")
    frame = pd.read_json(tmp_path / "answers.jsonl", lines=True, dtype=False).rename(
        columns={"question": "input"}
    )
    found = evaluate_rows(frame.set_index("id"), thresholds="quantile")
    for row_id, row in found.iterrows():
        for signal in SIGNALS:
            cell = row[score_column(signal)]
            if expected[row_id]:
                assert cell["label"] == expected[row_id] and "score" not in cell, (row_id, signal)
            else:
                assert isinstance(cell["score"], float), (row_id, signal)
    # the thresholds set from the data are quantiles of the answered rows' scores only
    answered = [expected[row_id] is None for row_id in found.index]
    similarity = [cell["score"] for cell in found[score_column("bertscore")][answered]]
    [threshold] = {cell["metadata"]["similarity_threshold"] for cell in found[score_column(SIGNALS[3])]}
    assert threshold == pytest.approx(float(pd.Series(similarity).median()), abs=1e-12)

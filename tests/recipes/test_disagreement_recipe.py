"""The disagreement recipe (``bertscore-plugins disagreement``, recipes/disagreement.py) and recipes/demo.py:
input reading, the output folder, the report, the judge and Phoenix outages, the demo rows' quadrants, and
the HTML report and the Phoenix pages rendering in headless Chromium.

The slow tests start Phoenix servers (the session one from conftest, plus their own where a server must
die) and the stub judge, all on 127.0.0.1, and stop them by pid.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins.cli import disagreement
from bertscore_plugins.cli.disagreement import html_report as report
from bertscore_plugins.cli.disagreement.rows import normalise_rows, read_table
from bertscore_plugins.errors import InputTableError
from bertscore_plugins.evaluation.dataframe import Columns
from bertscore_plugins.integrations.phoenix import table_traces as phoenix_logging
from tests.support.browser import Browser
from tests.support.recipe_runs import DEMO, REPO, ScoringCalls, demo_rows, no_judge, scored, use_judge

JUDGE_CHECKED_CASES = ("wrong_day", "wrong_number", "negation")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the demo data ----------------------------------------------------------------------------------


def test_demo_data_has_every_case_and_enough_rows():
    rows = demo_rows()
    assert len(rows) >= 40
    assert {"question", "context", "output", "reference", "case", "careful_judge", "id"} <= set(rows[0])
    cases = {row["case"] for row in rows}
    assert cases == {
        "faithful_paraphrase",
        "wrong_day",
        "wrong_number",
        "wrong_name",
        "negation",
        "off_topic",
        "verbose_padding",
        "truncated",
        "reference_copy",
        "unsupported_addition",
        "bad_reference",
    }
    assert all(row["output"] == row["reference"] for row in rows if row["case"] == "reference_copy")
    assert len({row["id"] for row in rows}) == len(rows)


def test_the_stub_judge_agrees_with_the_verdicts_written_into_the_demo_data():
    from tests.support.stub_judge import careful_judge

    verdicts = {
        row["id"]: careful_judge(row["question"], row["context"], row["output"])[0] for row in demo_rows()
    }
    assert verdicts == {row["id"]: row["careful_judge"] for row in demo_rows()}


# -- reading the input ------------------------------------------------------------------------------


def user_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "key": ["a", "b"],
            "q": ["Q1?", "Q2?"],
            "ctx": ["C1.", "C2."],
            "answer": ["A1.", "A2."],
            "gold": ["G1.", "G2."],
            "extra": [1, 2],
        }
    )


USER_COLUMNS = Columns(input="q", context="ctx", output="answer", reference="gold")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet", "dataset"])
def test_reads_each_format_and_renames_the_columns(tmp_path, suffix):
    table = user_table()
    path = tmp_path / f"input{suffix}"
    if suffix == ".csv":
        table.to_csv(path, index=False)
    elif suffix == ".jsonl":
        table.to_json(path, orient="records", lines=True)
    elif suffix == ".parquet":
        table.to_parquet(path)
    else:
        from datasets import Dataset

        Dataset.from_pandas(table).save_to_disk(str(path))
    rows = normalise_rows(read_table(path), USER_COLUMNS, "key")
    assert list(rows["input"]) == ["Q1?", "Q2?"]
    assert list(rows["context"]) == ["C1.", "C2."]
    assert list(rows["output"]) == ["A1.", "A2."]
    assert list(rows["reference"]) == ["G1.", "G2."]
    assert list(rows["row_id"]) == ["a", "b"]
    assert "extra" in rows.columns


def test_bad_input_names_the_row_as_the_user_counts_it_and_the_problem(tmp_path):
    table = user_table()
    table.loc[1, "answer"] = None
    with pytest.raises(InputTableError, match=r"^data row 2 \(id 'b'\): column 'answer' is missing a value"):
        normalise_rows(table, USER_COLUMNS, "key")
    table = user_table().astype(object)
    table.loc[0, "gold"] = 3.5
    with pytest.raises(
        InputTableError, match=r"^data row 1 \(id 'a'\): column 'gold' must be text, got float"
    ):
        normalise_rows(table, USER_COLUMNS, "key")
    with pytest.raises(InputTableError, match=r"^data row 2: column 'answer' is missing a value"):
        normalise_rows(
            user_table().drop(columns="key").assign(answer=["A1.", float("nan")]), USER_COLUMNS, "key"
        )
    with pytest.raises(InputTableError, match=r"no column 'question' \(for input\)"):
        normalise_rows(user_table(), Columns(input="question"))
    with pytest.raises(InputTableError, match=r"data row 2: id 'a' appears twice"):
        normalise_rows(user_table().assign(key=["a", "a"]), USER_COLUMNS, "key")
    with pytest.raises(InputTableError, match=r"unknown file type '\.xlsx'"):
        (tmp_path / "x.xlsx").write_text("")
        read_table(tmp_path / "x.xlsx")
    code = disagreement.main(
        [str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "out"), "--no-phoenix"]
    )
    assert code == disagreement.EXIT_BAD_INPUT


@pytest.mark.parametrize(
    ("name", "data", "row"),
    [
        ("in.csv", "question,context,output,reference\nQ?,C.,A.,R.\nQ2?,C2.,,R2.\n", "data row 2"),
        ("in.csv", "question,context,output,reference\nQ?,,A.,R.\n", "data row 1"),
        ("in.jsonl", '{"question": "Q?", "context": "C.", "output": "A.", "reference": "R."}\n'
         '{"question": "Q?", "context": "C.", "output": null, "reference": "R."}\n', "data row 2"),
        ("in.jsonl", '{"id": "q-1", "question": "Q?", "context": "C.", "output": "A.", "reference": "R."}\n'
         '{"id": "q-7", "question": "Q?", "context": "C.", "reference": "R."}\n', "data row 2 (id 'q-7')"),
    ],
)  # fmt: skip
def test_a_missing_answer_or_context_cell_stops_the_run_naming_the_row(tmp_path, capsys, name, data, row):
    path = tmp_path / name
    path.write_text(data)
    assert disagreement.main([str(path), "--out", str(tmp_path / "out"), "--no-phoenix"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {row}: column ") and "is missing a value" in err
    assert not (tmp_path / "out" / "results.sqlite").exists()  # stopped before any scoring


@pytest.mark.slow
def test_the_installed_command_runs_the_recipe_from_a_users_own_folder(tmp_path):
    """``bertscore-plugins disagreement`` from a new folder outside the repository (the installed package,
    nothing from the checkout on the path): it reads the user's table and writes the report there."""
    folder = tmp_path / "my-project"
    folder.mkdir()
    shutil.copy(DEMO, folder / "answers.jsonl")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BERTSCORE_JUDGE_", "PYTHON"))}
    command = Path(sys.executable).with_name("bertscore-plugins")
    in_checkout = (REPO / "runs" / "answers").exists()
    done = subprocess.run(
        [str(command), "disagreement", "answers.jsonl", "--no-phoenix", "--limit", "3"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = folder / "runs" / "answers"  # the default --out, under the user's folder
    page = (out / "report" / disagreement.HTML_NAME).read_text(encoding="utf-8")
    assert "Similarity vs offline_faithfulness: answers.jsonl" in page
    assert (out / "report" / disagreement.PNG_NAME).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((out / "scores.jsonl").read_text().splitlines()) == 3
    assert f"Report:  {Path('runs') / 'answers' / 'report' / disagreement.HTML_NAME}" in done.stdout
    assert (REPO / "runs" / "answers").exists() == in_checkout  # nothing written into the checkout
    # the recipe's modules come from the package: the repository's recipes/ is not importable here
    probe = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u; print(u.find_spec('recipes'))"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert probe.stdout.strip() == "None"


# -- the scores table: the user's words -------------------------------------------------------------


@pytest.mark.parametrize("table_format", ["jsonl", "parquet"])
def test_the_scores_table_keeps_the_users_columns_with_flat_score_columns(
    tmp_path, monkeypatch, table_format
):
    no_judge(monkeypatch)
    path = tmp_path / "mine.jsonl"
    user_table().assign(
        q=["When does the museum open?", "When was the patient discharged?"],
        ctx=["The museum opens at nine.", "The patient was discharged on Tuesday after the scan."],
        answer=["It opens at nine.", "The patient was discharged on Thursday."],
        gold=["At nine.", "On Tuesday."],
    ).to_json(path, orient="records", lines=True)
    out = tmp_path / "out"
    argv = [str(path), "--out", str(out), "--no-phoenix", "--format", table_format, "--question-column", "q",
            "--context-column", "ctx", "--output-column", "answer", "--reference-column", "gold", "--id-column", "key"]  # fmt: skip
    assert disagreement.main(argv) == 0
    table = (
        pd.read_json(out / "scores.jsonl", lines=True)
        if table_format == "jsonl"
        else pd.read_parquet(out / "scores.parquet")
    )
    assert list(table.columns[:6]) == ["key", "q", "ctx", "answer", "gold", "extra"]  # theirs, in their order
    assert not {"input", "output", "context", "reference", "row_id"} & set(table.columns)
    for column in ("bertscore_f1", "bertscore_precision", "bertscore_recall", "groundedness_precision",
                   "offline_faithfulness_score", "offline_faithfulness_lexical", "sim_faith_disagreement_score"):  # fmt: skip
        assert table[column].map(lambda v: pd.api.types.is_number(v) and 0.0 <= v <= 1.0).all(), column
    for column in (
        "bertscore_label",
        "groundedness_label",
        "offline_faithfulness_label",
        "sim_faith_disagreement_label",
    ):
        assert table[column].map(lambda v: isinstance(v, str)).all(), column
    assert not table.map(lambda v: isinstance(v, (dict, list))).any().any()  # nothing nested
    assert table["offline_faithfulness_label"][1] == "unfaithful"  # Thursday, where the context says Tuesday
    assert "Thursday: context says Tuesday" in table["offline_faithfulness_unsupported_facts"][1]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rows"] == 2
    assert summary["means"]["bertscore_f1"] == pytest.approx(table["bertscore_f1"].mean())
    assert summary["means"]["offline_faithfulness_score"] == pytest.approx(
        table["offline_faithfulness_score"].mean()
    )
    assert sum(summary["labels"]["sim_faith_disagreement_label"].values()) == 2


def test_new_thresholds_are_applied_to_the_stored_scores_without_a_model_call(tmp_path, monkeypatch, capsys):
    no_judge(monkeypatch)
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "6"]
    assert disagreement.main(args) == disagreement.EXIT_OK
    first = pd.read_json(out / "scores.jsonl", lines=True)
    capsys.readouterr()

    calls = ScoringCalls(monkeypatch)
    relabel = [*args, "--thresholds-only", "--similarity-threshold", "0.7", "--offline-threshold", "0.3"]
    assert disagreement.main(relabel) == disagreement.EXIT_OK
    assert calls.calls == []  # no model loaded, no core call, no judge: the store is read
    table = pd.read_json(out / "scores.jsonl", lines=True)
    assert list(table["bertscore_f1"]) == list(first["bertscore_f1"])  # the same scores
    assert list(table["bertscore_label"]) == [
        "similar" if f >= 0.7 else "dissimilar" for f in table["bertscore_f1"]
    ]
    assert list(table["bertscore_label"]) != list(first["bertscore_label"])  # the cut moved labels
    offline = table["offline_faithfulness_score"]
    vouched = table["offline_faithfulness_unsupported_facts"].fillna("") == ""
    expected = ["faithful" if s >= 0.3 and v else "unfaithful" for s, v in zip(offline, vouched, strict=True)]
    assert list(table["offline_faithfulness_label"]) == expected
    state = json.loads((out / "state.json").read_text())
    assert state["thresholds"] == {"similarity": 0.7, "faithfulness": 0.3, "source": "fixed"}
    sim, faith = table["bertscore_f1"] >= 0.7, offline >= 0.3
    quadrant = [
        "high_sim_unfaithful" if s and not f else "low_sim_faithful" if f and not s else "agree"
        for s, f in zip(sim, faith, strict=True)
    ]
    assert list(table["sim_faith_disagreement_label"]) == quadrant
    assert "thresholds: similarity >= 0.700, offline_faithfulness >= 0.300" in capsys.readouterr().out

    # a row the store has no scores for: an error naming it, still no model call
    more = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "7", "--thresholds-only"]
    assert disagreement.main(more) == disagreement.EXIT_BAD_INPUT
    assert (
        "1 of 7 rows have no stored scores under this configuration (rows demo-07#" in capsys.readouterr().err
    )
    assert calls.calls == []


# -- Phoenix traces (no server) ---------------------------------------------------------------------


def test_span_ids_are_stable_per_run_and_project_and_distinct_per_row():
    first = phoenix_logging.row_span_ids("run/project", "row-1")
    assert first == phoenix_logging.row_span_ids("run/project", "row-1")
    assert first != phoenix_logging.row_span_ids("run/other-project", "row-1")
    assert len({phoenix_logging.row_span_ids("run/project", str(i))[1] for i in range(500)}) == 500
    trace_id, span_id, retriever_id = first
    assert (len(trace_id), len(span_id), len(retriever_id)) == (32, 16, 16)


def test_each_row_becomes_a_chain_span_with_a_retriever_child():
    rows = pd.DataFrame(
        {
            "row_id": ["r1"],
            "input": ["When?"],
            "context": [["Passage one.", "Passage two."]],
            "output": ["On Tuesday."],
            "reference": ["Tuesday."],
            "case": ["wrong_day"],
        }
    )
    rows = phoenix_logging.with_span_ids(rows, "run/p")
    spans = phoenix_logging.build_spans(rows, "p")
    by_kind = {span.attributes["openinference.span.kind"]: span for span in spans}
    root, retriever = by_kind["CHAIN"], by_kind["RETRIEVER"]
    assert format(root.context.span_id, "016x") == rows["span_id"][0]
    assert format(root.context.trace_id, "032x") == rows["trace_id"][0]
    assert format(retriever.context.span_id, "016x") == rows["retriever_span_id"][0]
    assert retriever.parent.span_id == root.context.span_id
    assert root.attributes["input.value"] == "When?" and root.attributes["output.value"] == "On Tuesday."
    assert json.loads(root.attributes["metadata"]) == {
        "row_id": "r1",
        "reference": "Tuesday.",
        "case": "wrong_day",
    }
    assert retriever.attributes["retrieval.documents.1.document.content"] == "Passage two."
    assert root.resource.attributes["openinference.project.name"] == "p"


# -- the report -------------------------------------------------------------------------------------


def test_highlighting_shades_matched_tokens_escapes_html_and_outlines_the_worst():
    row = report.ReportRow(
        row_id="1",
        case=None,
        question="",
        context="",
        output="Due <Thursday> & Friday.",
        reference="",
        similarity=0.9,
        faithfulness=0.0,
        label="high_sim_unfaithful",
        similarity_explanation="",
        judge_explanation="",
        matches=[
            ("Due", "Due", 0.99),
            ("Thursday", "Tuesday", 0.71),
            ("&", "&", 0.98),
            ("Friday", "Friday", 0.97),
            (".", ".", 0.99),
        ],
    )
    marked = report.highlighted_output(row)
    assert "&lt;" in marked and "<Thursday>" not in marked
    assert re.search(r'class="worst" title="Thursday -&gt; Tuesday 0.71">Thursday</span>', marked)
    assert 'class="worst" title="Due' not in marked  # matched at 0.99: not worth outlining
    assert marked.count("<span") == 5


# -- the recipe, without a Phoenix server -----------------------------------------------------------


@pytest.fixture(scope="module")
def judged_demo(tmp_path_factory):
    """The whole demo data scored once with the careful stub judge (no Phoenix): (folder, stdout, code)."""
    from tests.support.stub_judge import StubJudge

    out = tmp_path_factory.mktemp("judged-demo") / "out"
    patch = pytest.MonkeyPatch()
    try:
        with StubJudge() as judge:
            use_judge(patch, judge)
            import contextlib
            import io

            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                code = disagreement.main([str(DEMO), "--out", str(out), "--no-phoenix"])
    finally:
        patch.undo()
    return out, buffer.getvalue(), code


@pytest.mark.slow
def test_wrong_day_number_and_negation_rows_are_high_sim_unfaithful(judged_demo):
    out, stdout, code = judged_demo
    assert code == disagreement.EXIT_OK
    table = scored(out)
    cases = dict(zip(table["row_id"], table["case"], strict=True))
    labels = {
        row_id: cell["label"]
        for row_id, cell in zip(table["row_id"], table["sim_faith_disagreement_score"], strict=True)
    }
    checked = [row_id for row_id, case in cases.items() if case in JUDGE_CHECKED_CASES]
    assert len(checked) == 13
    assert {row_id: labels[row_id] for row_id in checked} == {
        row_id: "high_sim_unfaithful" for row_id in checked
    }
    # The other quadrant holds what it should: answers a careful judge accepts but worded unlike the reference.
    for case in ("bad_reference", "verbose_padding", "truncated", "faithful_paraphrase"):
        assert {labels[r] for r, c in cases.items() if c == case} == {"low_sim_faithful"}, case
    assert {labels[r] for r, c in cases.items() if c in ("off_topic", "reference_copy")} == {"agree"}

    # The similarity explanation names the token that differs from the reference, with its match.
    for record in table.to_dict(orient="records"):
        if record["case"] not in JUDGE_CHECKED_CASES:
            continue
        output_words = set(re.findall(r"\w+", record["output"]))
        changed = output_words - set(re.findall(r"\w+", record["reference"]))
        worst = record["bertscore_score"]["explanation"].split("worst:", 1)[1]
        assert any(re.search(rf"\b{re.escape(word)} -> \w+ 0\.\d\d", worst) for word in changed), (
            record,
            worst,
        )
        assert record["faithfulness_score"]["label"] == "unfaithful"
    day = table[table["row_id"] == "demo-07"].iloc[0]
    assert "Thursday -> Tuesday" in day["bertscore_score"]["explanation"]

    # The printed summary: counts per quadrant and the filter strings.
    counts = pd.Series(labels).value_counts().to_dict()
    for label, count in counts.items():
        assert re.search(rf"^  {label}\s+{count}$", stdout, re.MULTILINE), stdout
    assert "annotations['sim_faith_disagreement'].label == 'high_sim_unfaithful'" in stdout


@pytest.mark.slow
def test_the_report_is_self_contained_and_lists_the_top_disagreements(judged_demo):
    out, _, _ = judged_demo
    page = (out / "report" / disagreement.HTML_NAME).read_text(encoding="utf-8")
    png = (out / "report" / disagreement.PNG_NAME).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "data:image/png;base64," in page
    for external in ("<script", "<link", 'src="http', "src='http", "url(", "@import"):
        assert external not in page
    listed = re.findall(r"row <b>(demo-\d\d)</b>", page)
    assert len(listed) == 20 and len(set(listed)) == 20
    assert listed[0] in {row["id"] for row in demo_rows() if row["careful_judge"] == "unfaithful"}
    assert 'title="Thursday -&gt; Tuesday 0.' in page
    state = json.loads((out / "state.json").read_text())
    assert state["faithfulness_signal"] == "faithfulness"
    assert state["thresholds"] == {"similarity": 0.9, "faithfulness": 0.5, "source": "fixed"}


@pytest.mark.slow
def test_judge_outage_keeps_the_scores_and_the_rerun_asks_the_judge_only_for_failed_rows(
    tmp_path, monkeypatch, make_stub_judge, capsys
):
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "8"]
    failing = make_stub_judge(fail_when=["Thursday", "Friday."])  # demo-07 and demo-08 answers
    use_judge(monkeypatch, failing)
    assert disagreement.main(args) == disagreement.EXIT_JUDGE
    err = capsys.readouterr().err
    assert "the faithfulness judge failed on 2 of 8 rows (rows demo-07, demo-08" in err
    assert "Nothing is lost" in err
    table_path = out / "scores.jsonl"
    table = scored(out)
    assert table["bertscore_score"].notna().all()  # every BERTScore result is on disk
    assert json.loads((out / "state.json").read_text())["judge_failed_rows"] == ["demo-07", "demo-08"]

    failing.fail_when, asked = (), len(failing.log.bodies)  # the outage is over: the same judge answers
    calls = ScoringCalls(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert calls.calls == ["verdicts"]  # no model, no BERTScore: only the judge, for the 2 rows
    assert len(failing.log.bodies) - asked == 2
    table = scored(out)
    labels = {
        r: c["label"] for r, c in zip(table["row_id"], table["sim_faith_disagreement_score"], strict=True)
    }
    assert labels["demo-07"] == labels["demo-08"] == "high_sim_unfaithful"
    assert json.loads(table_path.with_name("state.json").read_text())["judge_failed_rows"] == []


def _verdicts_in_store(out: Path) -> set[str]:
    """The row ids the result store holds a judge's verdict for."""
    with sqlite3.connect(out / "results.sqlite") as db:
        found = db.execute(
            "SELECT row_id FROM results WHERE name = 'faithfulness' AND cell IS NOT NULL"
        ).fetchall()
    db.close()
    return {key.split("#")[0] for (key,) in found}


@pytest.mark.slow
def test_a_run_killed_while_the_judge_answers_resumes_asking_only_the_rows_without_a_verdict(
    tmp_path, monkeypatch, make_stub_judge
):
    import time

    from tests.support.stub_judge import careful_judge

    def slow_careful(query, context, response):
        time.sleep(0.4)  # long enough for the kill to land while a chunk of requests is in flight
        return careful_judge(query, context, response)

    rows, out = 8, tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", str(rows), "--judge-concurrency", "2"]
    slow = make_stub_judge(rule=slow_careful)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "BERTSCORE_JUDGE_BASE_URL": slow.base_url,
        "BERTSCORE_JUDGE_MODEL": "stub-judge",
        "BERTSCORE_JUDGE_API_KEY": "sk-stub",
    }
    command = subprocess.Popen(  # a real process, killed as the OOM killer or a closed laptop would
        [sys.executable, "-m", "bertscore_plugins.cli", "disagreement", *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while len(slow.log.bodies) < 5 and command.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the third chunk of two rows is with the judge
        os.kill(command.pid, signal.SIGKILL)
    finally:
        command.wait(timeout=60)
    assert command.returncode == -signal.SIGKILL, command.stderr.read()[-2000:]
    answered = _verdicts_in_store(out)
    assert 2 <= len(answered) < rows  # each chunk's verdicts were saved as they arrived

    use_judge(monkeypatch, slow)  # the same judge (a judge at another address is another judge's verdicts)
    time.sleep(1.0)  # the requests the killed process had sent are read (and logged) by now
    slow.rule, asked = careful_judge, len(slow.log.bodies)
    calls = ScoringCalls(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert len(slow.log.bodies) - asked == rows - len(answered)  # only the rows without a verdict
    assert "score" not in calls.calls and "load_model" not in calls.calls  # no BERTScore again
    assert _verdicts_in_store(out) == {f"demo-{i:02d}" for i in range(1, rows + 1)}


@pytest.mark.slow
def test_without_a_judge_it_says_how_to_set_one_up_and_uses_groundedness(tmp_path, monkeypatch, capsys):
    no_judge(monkeypatch)
    out = tmp_path / "out"
    assert disagreement.main([str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "6"]) == 0
    stdout = capsys.readouterr().out
    assert "No LLM judge configured" in stdout and "BERTSCORE_JUDGE_MODEL" in stdout
    # the offline signal: groundedness combined with the fact check
    assert "Similarity vs offline_faithfulness on 6 rows" in stdout
    table = scored(out)
    assert "faithfulness_score" not in table.columns
    meta = table["sim_faith_disagreement_score"][0]["metadata"]
    assert meta["faithfulness_signal"] == "offline_faithfulness"
    assert meta["faithfulness"] == table["offline_faithfulness_score"][0]["score"]
    offline_meta = table["offline_faithfulness_score"][0]["metadata"]
    assert offline_meta["groundedness"] == table["groundedness_score"][0]["score"]

    # No server at the URL: a clear message, exit 3, nothing scored again (the scores are on disk).
    from tests.support.stub_judge import free_port

    calls = ScoringCalls(monkeypatch)
    url = f"http://127.0.0.1:{free_port()}"
    code = disagreement.main([str(DEMO), "--out", str(out), "--limit", "6", "--phoenix-url", url])
    assert code == disagreement.EXIT_PHOENIX and calls.calls == []
    assert f"no Phoenix server answers at {url}" in capsys.readouterr().err

    # Same folder, more rows: only the new row is scored (rows are kept by their id and texts).
    code = disagreement.main([str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "7"])
    assert code == disagreement.EXIT_OK
    assert "Scoring 1 of 7 rows" in capsys.readouterr().out
    assert len(scored(out)) == 7


# -- the recipe with Phoenix ------------------------------------------------------------------------


@pytest.mark.slow
def test_killing_phoenix_mid_logging_loses_nothing_and_the_rerun_finishes_without_scoring(
    tmp_path, monkeypatch, stub_judge, capsys
):
    from phoenix.client import Client

    from bertscore_plugins.integrations.phoenix import annotation_sink as integration
    from bertscore_plugins.tools.phoenix_server import PhoenixServer

    use_judge(monkeypatch, stub_judge)
    workdir, out, project = tmp_path / "phoenix", tmp_path / "out", "kill-test"
    rows = 4  # the kill point is a step (traces sent, annotations not), not a row count
    first = PhoenixServer(workdir=workdir).start()
    second = None
    try:
        real_log = integration.log_span_annotations

        def kill_then_log(client, results, *args, **kwargs):
            # The traces are on the server; the server dies before the annotations go in.
            os.kill(first.pid, signal.SIGKILL)
            first.process.wait(timeout=30)
            return real_log(client, results, *args, **kwargs)

        monkeypatch.setattr(integration, "log_span_annotations", kill_then_log)
        args = [str(DEMO), "--out", str(out), "--limit", str(rows), "--project", project]
        code = disagreement.main([*args, "--phoenix-url", first.base_url])
        captured = capsys.readouterr()
        assert code == disagreement.EXIT_PHOENIX
        assert (
            "Phoenix logging stopped at step 'span annotations': the server stopped answering" in captured.err
        )
        assert f"Nothing is lost: all {rows} scored rows are in" in captured.err
        assert "run the same command again" in captured.err
        state = json.loads((out / "state.json").read_text())
        assert set(state["logged"]) == {"traces", "annotation_configs"}
        table_path = out / "scores.jsonl"
        found = scored(out)
        assert len(found) == rows and found["sim_faith_disagreement_score"].notna().all()
        digest_before = sha256(table_path)
        first.stop()  # reaped already; removes the PID files

        monkeypatch.setattr(integration, "log_span_annotations", real_log)
        second = PhoenixServer(workdir=workdir).start()  # the same database, a new port
        judge_requests_before = len(stub_judge.log.bodies)
        calls = ScoringCalls(monkeypatch)
        code = disagreement.main([*args, "--phoenix-url", second.base_url])
        captured = capsys.readouterr()
        assert code == disagreement.EXIT_OK, captured.err
        assert calls.calls == []  # no model loaded, nothing scored again, the judge not asked again
        assert len(stub_judge.log.bodies) == judge_requests_before
        assert sha256(table_path) == digest_before
        assert f"traces: 0 sent, {rows} already on the server" in captured.out  # they survived the kill

        state = json.loads((out / "state.json").read_text())
        assert {"traces", "annotation_configs", "span_annotations", "dataset", "experiment"} <= set(
            state["logged"]
        )
        client = Client(base_url=second.base_url)
        spans = phoenix_logging.with_span_ids(found, f"{state['run_key']}/{project}")
        annotations = client.spans.get_span_annotations_dataframe(
            span_ids=list(spans["span_id"]), project_identifier=project
        )
        per_name = annotations.groupby("annotation_name").size().to_dict()
        assert per_name == {
            "bertscore": rows,
            "faithfulness": rows,
            "groundedness": rows,
            "offline_faithfulness": rows,
            "sim_faith_disagreement": rows,
        }
        experiment = client.experiments.get_experiment(experiment_id=state["logged"]["experiment"]["id"])
        assert len(experiment["task_runs"]) == rows
    finally:
        first.stop()
        if second is not None:
            second.stop()


# The demo's first 8 rows hold both disagreements: demo-01..06 low_sim_faithful, demo-07/08
# high_sim_unfaithful (the whole demo data is checked in `judged_demo`, without Phoenix).
LOGGED_ROWS = 8


@pytest.fixture(scope="module")
def logged_demo(phoenix_server, tmp_path_factory):
    """The demo's first rows scored with the careful stub judge, then that folder logged to the session's
    Phoenix server (no rescoring): (folder, server)."""
    from tests.support.stub_judge import StubJudge

    out = tmp_path_factory.mktemp("logged-demo") / "out"
    args = [str(DEMO), "--out", str(out), "--limit", str(LOGGED_ROWS)]
    patch = pytest.MonkeyPatch()
    try:
        # one judge at one address for both runs: its address is part of what keys its verdicts in the store
        with StubJudge() as judge:
            use_judge(patch, judge)
            assert disagreement.main([*args, "--no-phoenix"]) == disagreement.EXIT_OK
            asked = len(judge.log.bodies)
            code = disagreement.main(
                [*args, "--phoenix-url", phoenix_server.base_url, "--project", "recipe-demo"]
            )
            assert len(judge.log.bodies) == asked  # loaded from disk: the judge is not asked again
    finally:
        patch.undo()
    assert code == disagreement.EXIT_OK
    return out, phoenix_server


@pytest.mark.slow
def test_the_span_filters_return_exactly_the_disagreeing_rows(logged_demo):
    from phoenix.client import Client
    from phoenix.client.types.spans import SpanQuery

    out, server = logged_demo
    state = json.loads((out / "state.json").read_text())
    table = phoenix_logging.with_span_ids(scored(out), f"{state['run_key']}/recipe-demo")
    client = Client(base_url=server.base_url)
    for label in ("high_sim_unfaithful", "low_sim_faithful"):
        expected = {
            s
            for s, c in zip(table["span_id"], table["sim_faith_disagreement_score"], strict=True)
            if c["label"] == label
        }
        assert expected, label  # both disagreements are among the logged rows
        query = SpanQuery().where(f"annotations['sim_faith_disagreement'].label == '{label}'")
        found = client.spans.get_spans_dataframe(query=query, project_identifier="recipe-demo", limit=1000)
        assert set(found.index) == expected, label
    assert state["logged"]["urls"]["project"].startswith(f"{server.base_url}/projects/")


def assert_rendered(png: Path) -> None:
    """Not a blank page: many distinct colours (text, charts, highlights)."""
    import matplotlib.image
    import numpy as np

    pixels = matplotlib.image.imread(str(png))[..., :3].reshape(-1, 3)
    assert pixels.shape[0] == 1280 * 900
    assert len(np.unique((pixels * 255).astype(np.uint8), axis=0)) > 100


@pytest.mark.slow
def test_the_report_and_the_phoenix_pages_render_in_headless_chromium(logged_demo, tmp_path):
    out, _ = logged_demo
    state = json.loads((out / "state.json").read_text())
    # page: (url, texts it shows once its data is in: the single-page app fetches it after loading)
    pages = {
        "report": ((out / "report" / disagreement.HTML_NAME).resolve().as_uri(), ()),
        "project": (state["logged"]["urls"]["project"], ("rag_answer", "sim_faith_disagreement")),
        "experiment": (state["logged"]["urls"]["experiment"], ("sim_faith_disagreement",)),
    }
    with Browser(tmp_path / "profile") as browser:  # one browser for the three pages
        for name, (url, shows) in pages.items():
            browser.open(url, wait_for=shows)
            png = tmp_path / f"{name}.png"
            browser.screenshot(png)
            assert_rendered(png)
            if name == "project":
                dom = browser.dom()
    # The spans page really shows this run's traces and annotations (not an empty or error page).
    assert "recipe-demo" in dom and "rag_answer" in dom and "sim_faith_disagreement" in dom
    keep = os.environ.get("BERTSCORE_SCREENSHOT_DIR")
    if keep:  # e.g. to look at them: BERTSCORE_SCREENSHOT_DIR=/tmp/shots pytest -m slow ...
        shutil.copytree(tmp_path, keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("profile"))


@pytest.mark.slow
def test_demo_once_runs_end_to_end_with_the_local_judge(tmp_path):
    """`make demo`: Phoenix and the real local judge (no BERTSCORE_JUDGE_* set), both stopped after."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("BERTSCORE_JUDGE_")}
    env["DEMO_ONCE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    # The demo's first 8 rows (its extra arguments go to the recipe): they hold high_sim_unfaithful rows
    # (demo-07, demo-08); the whole demo data goes through the recipe in `judged_demo`.
    command = [sys.executable, "-m", "recipes.demo", "--out", str(tmp_path / "demo"), "--port", "0"]
    done = subprocess.run(
        [*command, "--limit", "8"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LLM judge: the local gemma-3-270m-q4_k_m at http://127.0.0.1:" in done.stdout
    assert "Asking the judge about 8 rows" in done.stdout
    # per span: similarity, groundedness, offline faithfulness, the judge's verdict, the disagreement
    assert "span annotations: 40 on the server" in done.stdout
    assert "Where to look:" in done.stdout
    assert re.search(r"Phoenix: +http://127\.0\.0\.1:\d+/projects/", done.stdout)
    assert "high_sim_unfaithful" in done.stdout  # the quadrants read the offline signal beside the judge
    report_html = (tmp_path / "demo" / "recipe" / "report" / disagreement.HTML_NAME).read_text(
        encoding="utf-8"
    )
    assert "Judge and offline signal disagree (" in report_html and "judge p(yes)" in report_html
    assert (tmp_path / "demo" / "recipe" / "report" / disagreement.PNG_NAME).exists()
    assert not list((tmp_path / "demo" / "judge").glob("*.pid"))  # the judge stopped and cleaned up
    assert not list((tmp_path / "demo" / "phoenix").glob("*.pid"))  # the server stopped and cleaned up

"""The evaluation pipeline without a server: its configuration, the shape of the wing's code, judge triage
through the recipe, the report's unfaithful section, and project names the CLI refuses."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bertscore_plugins.integrations.phoenix as phoenix_package
from bertscore_plugins import ScoreConfig
from bertscore_plugins.cli import disagreement
from bertscore_plugins.errors import SettingError
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from tests.support.browser import screenshot
from tests.support.recipe_runs import DEMO, scored

REPO = Path(__file__).resolve().parents[2]
WING = Path(phoenix_package.__file__).parent
PACKAGE = WING.parents[1]


# -- the configuration --------------------------------------------------------------------------------


def test_the_signature_changes_with_what_changes_a_result_and_only_with_that():
    base = EvaluationConfig()
    assert base.signature == EvaluationConfig().signature
    for change in (
        {"similarity_threshold": 0.85},
        {"judge_rows": "unsettled"},
        {"annotation_identifier": "team-a"},
        {"reference_key": "metadata.gold"},
        {"score": ScoreConfig(layer=3)},
    ):
        assert base.replace(**change).signature != base.signature, change
    assert base.replace(judge_concurrency=16, judge_max_retries=0).signature == base.signature
    assert base.configuration_id("sig-a") != base.configuration_id("sig-b")  # the model's digest counts


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("similarity_threshold", float("nan")),
        ("groundedness_threshold", 3),
        ("faithfulness_threshold", "0.5"),
        ("judge_rows", "some"),
        ("judge_concurrency", 0),
        ("judge_max_retries", True),
        ("annotation_identifier", "two\nlines"),
        ("thresholds_from_data", "yes"),
    ],
)
def test_a_bad_setting_is_refused_once_by_name(setting, value):
    with pytest.raises(SettingError) as refused:
        EvaluationConfig(**{setting: value})
    assert refused.value.setting == setting


def test_the_configuration_is_frozen_and_takes_the_core_settings_by_name():
    config = EvaluationConfig.from_kwargs(model="default", layer=3, judge_rows="unsettled")
    assert (config.score.layer, config.judge_rows, config.effective_faithfulness_threshold) == (
        3,
        "unsettled",
        0.5,
    )
    with pytest.raises(AttributeError):
        config.judge_rows = "all"
    with pytest.raises(TypeError, match=r"unknown argument.*similarity_treshold.*similarity_threshold"):
        EvaluationConfig.from_kwargs(similarity_treshold=0.5)
    with pytest.raises(SettingError, match="not both"):
        EvaluationConfig(reference_key="metadata.a", reference_dataset="gold")


def test_the_judge_is_anything_with_a_name_a_model_and_verdicts_and_an_llm_is_refused_with_the_way_on():
    from bertscore_plugins.evaluation.judge import Verdict

    class Stub:
        name, model = "faithfulness", "stub/one"

        def verdicts(self, rows, *, concurrency, max_retries):
            return [Verdict({"name": self.name, "score": 1.0, "label": "faithful"}) for _ in rows]

    config = EvaluationConfig(judge=Stub())
    assert (config.faithfulness_name, config.effective_faithfulness_threshold, config.judge_model) == (
        "faithfulness",
        0.5,
        "stub/one",
    )
    assert "|judge=stub/one score:" in config.signature
    llm = type("LLM", (), {"provider": "openai", "model": "gpt"})()
    with pytest.raises(SettingError, match=r"faithfulness_judge\(llm\)") as refused:
        EvaluationConfig(judge=llm)
    assert refused.value.setting == "judge"


def test_phoenix_s_judge_plugs_into_the_engine_and_records_its_model():
    from bertscore_plugins.evaluation.judge import is_judge
    from bertscore_plugins.integrations.phoenix import faithfulness_evaluator, faithfulness_judge
    from bertscore_plugins.integrations.phoenix.phoenix_judge import as_judge

    llm = type("LLM", (), {"provider": "openai", "model": "gpt-4o-mini"})()
    for judge in (faithfulness_judge(llm), faithfulness_judge(faithfulness_evaluator(llm)), as_judge(llm)):
        assert is_judge(judge) and (judge.name, judge.model) == ("faithfulness", "openai/gpt-4o-mini")
    assert EvaluationConfig(judge=as_judge(llm)).judge_model == "openai/gpt-4o-mini"
    assert as_judge(None) is None


# -- the shape of the wing's code ---------------------------------------------------------------------


def _functions():
    for path in sorted(WING.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path.name, node


def test_no_function_in_the_phoenix_wing_is_over_60_lines():
    long = [
        f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})"
        for name, node in _functions()
        if node.end_lineno - node.lineno + 1 > 60
    ]
    assert long == []


def test_private_helpers_of_the_pipeline_take_the_config_not_parameter_lists():
    # a helper taking a dozen settings one by one is a sign the configuration object is missing
    crowded = []
    for name, node in _functions():
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        taken = [a.arg for a in arguments if a.arg not in ("self", "cls")]
        if node.name.startswith("_") and not node.name.startswith("__") and len(taken) > 6:
            crowded.append(f"{name}:{node.lineno} {node.name} ({len(taken)})")
    assert crowded == []


#: the row path (a table's rows through the engine and the store) and the span path (a project's spans through
#: the same), relative to the package, as ``duplicates`` names them
ROW_PATH = ("evaluation/batch.py", "evaluation/pipeline.py", "evaluation/dataframe.py")
SPAN_PATH = (
    "integrations/phoenix/trace_evaluation.py",
    "integrations/phoenix/trace_pass.py",
    "integrations/phoenix/span_rows.py",
)


def test_duplicates_finds_no_repeated_scoring_logic_between_the_row_and_span_paths():
    # the files it compares exist where they are named: a file that moved fails here, not silently
    missing = [path for path in ROW_PATH + SPAN_PATH if not (PACKAGE / path).is_file()]
    assert ROW_PATH and SPAN_PATH and missing == []
    tool = shutil.which("duplicates")
    if tool is None:
        pytest.skip("the `duplicates` tool is not installed here")
    done = subprocess.run(
        [tool, "--repo", str(PACKAGE), "--most", "200", "--seconds", "120"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    read = re.search(r"\((\d+) files? read\)", done.stdout)
    assert read is not None and int(read.group(1)) >= len(ROW_PATH + SPAN_PATH), done.stdout
    assert "incomplete:" not in done.stdout
    pairs = [
        line
        for line in done.stdout.splitlines()
        if re.match(r"D\d+ ", line)
        and any(f" {p}:" in f" {line}" for p in ROW_PATH)
        and any(f" {p}:" in f" {line}" for p in SPAN_PATH)
    ]
    assert pairs == [], done.stdout


# -- the command line --------------------------------------------------------------------------------


@pytest.mark.parametrize("project", ["..", "team/clinic-rag"])
def test_a_project_name_rest_paths_cannot_carry_is_one_line_naming_it(project):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "bertscore_plugins.cli", "phoenix", "evaluate", "--project", project,
         "--base-url", "http://127.0.0.1:9", "--no-judge"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: --project: project {project!r} cannot be addressed")


# -- the recipe: judge triage and the report ----------------------------------------------------------


def _recipe(args: list[str]) -> tuple[int, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = disagreement.main(args)
    return code, buffer.getvalue()


def test_the_recipe_with_a_judge_and_judge_rows_unsettled_asks_the_judge_less_and_says_so(
    tmp_path, monkeypatch, make_stub_judge
):
    judge = make_stub_judge()
    monkeypatch.setenv("BERTSCORE_JUDGE_BASE_URL", judge.base_url)
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", "stub-judge")
    monkeypatch.setenv("BERTSCORE_JUDGE_API_KEY", "sk-stub")
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "12", "--judge-rows", "unsettled"]
    code, stdout = _recipe(args)
    assert code == disagreement.EXIT_OK
    calls = len(judge.log.bodies)
    assert 0 < calls < 12
    assert f"Judge triage: {calls} of 12 rows sent to the judge; {12 - calls} calls saved" in stdout
    state = json.loads((out / "state.json").read_text())
    assert state["judge_calls"] == {"rows": 12, "judged": calls, "saved": 12 - calls, "mode": "unsettled"}
    table = scored(out).to_dict(orient="records")
    settled = [
        row for row in table if (row["faithfulness_score"]["metadata"] or {}).get("source") == "offline"
    ]
    assert len(settled) == 12 - calls and all(row["sim_faith_disagreement_score"] for row in table)


@pytest.mark.slow
def test_the_report_opens_with_every_unfaithful_row_worst_first(tmp_path, monkeypatch):
    for name in ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    code, _ = _recipe([str(DEMO), "--out", str(out), "--no-phoenix"])
    assert code == disagreement.EXIT_OK
    table = scored(out).to_dict(orient="records")
    offline = {row["row_id"]: row["offline_faithfulness_score"] for row in table}
    unfaithful = {r for r, cell in offline.items() if cell["label"] == "unfaithful"}
    assert len(unfaithful) >= 17
    page = (out / "report" / disagreement.HTML_NAME).read_text(encoding="utf-8")
    first = page.index("<h2 id='unfaithful'>")
    assert first < page.index("<table class='counts'>") and first < page.index("<img")
    section = page[first : page.index("</table>", first)]
    listed = re.findall(r"<tr class='\w+'><td>(demo-\d\d)</td>", section)
    assert set(listed) == unfaithful and len(listed) == len(unfaithful)
    scores = [offline[row_id]["score"] for row_id in listed]
    assert scores == sorted(scores)  # worst first
    assert "Thursday: context says Tuesday" in section
    assert "annotations[&#x27;offline_faithfulness&#x27;].label == &#x27;unfaithful&#x27;" in page
    shot = tmp_path / "report.png"
    screenshot(
        (out / "report" / disagreement.HTML_NAME).as_uri(), shot, tmp_path / "profile", window=(1280, 1400)
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get("BERTSCORE_SCREENSHOT_DIR"):
        shutil.copy(shot, Path(os.environ["BERTSCORE_SCREENSHOT_DIR"]) / "report_unfaithful_first.png")


def test_annotations_logged_from_a_dataframe_carry_this_projects_identifier():
    import pandas as pd

    from bertscore_plugins.evaluation.names import ANNOTATION_IDENTIFIER
    from bertscore_plugins.integrations.phoenix.annotation_sink import span_annotation_dataframe

    cell = {"name": "bertscore", "score": 0.9, "label": "similar", "kind": "code", "direction": "maximize"}
    results = pd.DataFrame(
        {"bertscore_score": [cell, None]}, index=pd.Index(["a1", "b2"], name="context.span_id")
    )
    annotations = span_annotation_dataframe(results)
    assert list(annotations["identifier"]) == [ANNOTATION_IDENTIFIER]  # the failed row is left out
    assert "identifier" not in span_annotation_dataframe(results, identifier=None).columns


# -- one pipeline: the recipe and trace evaluation share the engine call, the store and the judge retry ----


def _imported_names(path: Path) -> set[str]:
    """Every ``module.name`` a source file imports (functions' own imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_the_recipe_and_trace_evaluation_go_through_the_one_pipeline_and_store():
    package = REPO / "bertscore_plugins"
    recipe = _imported_names(package / "cli" / "disagreement" / "recipe.py")
    traces = _imported_names(package / "integrations" / "phoenix" / "trace_pass.py")
    for imported in (recipe, traces):
        assert "bertscore_plugins.evaluation.pipeline.evaluate_stored" in imported
        assert "bertscore_plugins.evaluation.batch.evaluate_batch" not in imported  # the pipeline calls it
        assert "sqlite3" not in imported  # the store is evaluation.store's
    assert "bertscore_plugins.evaluation.store.ResultStore" in recipe
    assert "bertscore_plugins.evaluation.store.ResultStore" in traces
    # the judge retry and the resume rule have one home: no other module asks a judge or reads a store
    callers = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if "bertscore_plugins.evaluation.batch.evaluate_batch" in _imported_names(path)
    }
    assert callers <= {
        "evaluation/pipeline.py",
        "evaluation/dataframe.py",
        "integrations/phoenix/evaluators.py",
    }


def test_a_dataframe_through_the_store_is_computed_once_and_read_back_the_second_time(tmp_path, monkeypatch):
    import pandas as pd

    import bertscore_plugins
    from bertscore_plugins.evaluation.dataframe import evaluate_rows

    frame = pd.DataFrame(
        {
            "output": ["Discharged on Thursday.", "The museum opens at nine."],
            "context": ["The patient was discharged on Tuesday.", "The museum opens at nine every day."],
            "reference": ["Discharged on Tuesday.", "It opens at nine."],
        },
        index=pd.Index(["q-1", "q-2"]),
    )
    store = tmp_path / "results.sqlite"
    first = evaluate_rows(frame, store=store)
    direct = evaluate_rows(frame)  # the same engine without a store: the same cells
    for name in ("bertscore", "groundedness", "offline_faithfulness", "sim_faith_disagreement"):
        column = f"{name}_score"
        assert [c["score"] for c in first[column]] == pytest.approx([c["score"] for c in direct[column]])
        assert [c["label"] for c in first[column]] == [c["label"] for c in direct[column]]
    assert first["offline_faithfulness_score"]["q-1"]["label"] == "unfaithful"  # Thursday, not Tuesday

    calls: list[str] = []
    original = bertscore_plugins.BERTScorer.score
    monkeypatch.setattr(
        bertscore_plugins.BERTScorer,
        "score",
        lambda self, *a, **k: calls.append("score") or original(self, *a, **k),
    )
    again = evaluate_rows(frame, store=store)
    assert calls == []  # read back from the store: no core call
    assert list(again["bertscore_score"]) == list(first["bertscore_score"])
    edited = evaluate_rows(
        frame.assign(output=["Discharged on Tuesday.", "The museum opens at nine."]), store=store
    )
    assert calls == [
        "score",
        "score",
    ]  # the edited row only: similarity, then groundedness and the fact check
    assert edited["offline_faithfulness_score"]["q-1"]["label"] == "faithful"

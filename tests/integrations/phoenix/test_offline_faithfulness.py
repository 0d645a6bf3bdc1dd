"""The offline faithfulness signal (groundedness x fact check) in Phoenix, the demo, the CLI, sanity,
and judge triage with the loopback stub judge."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.names import OFFLINE_FAITHFULNESS

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "recipes" / "demo_data.jsonl"
FACT_CASES = ("wrong_day", "wrong_number", "negation", "wrong_name")
# measured: final labels with triage equal those of the judge on 43 of the 44 demo rows; the one settled
# otherwise is a faithful paraphrase with a rare word ("blinks", for the manual's "flashing") the
# source never writes: the rule fitted on the development sets takes that as evidence (QUALITY.md section 8)
AGREEMENT = 43 / 44


@pytest.fixture(scope="module")
def demo_rows() -> pd.DataFrame:
    rows = pd.read_json(DEMO, lines=True, dtype=False)
    return rows.rename(columns={"question": "input"})


@pytest.fixture(scope="module")
def offline_demo(demo_rows):
    from bertscore_plugins.integrations.phoenix import evaluate_rows

    return evaluate_rows(demo_rows)


@pytest.mark.slow
def test_offline_demo_flags_every_fact_error_and_at_most_one_faithful_row(offline_demo, demo_rows):
    labels = [cell["label"] for cell in offline_demo["sim_faith_disagreement_score"]]
    offline = list(offline_demo["offline_faithfulness_score"])
    fact_rows = [i for i, case in enumerate(demo_rows["case"]) if case in FACT_CASES]
    assert len(fact_rows) == 17
    assert all(offline[i]["label"] == "unfaithful" for i in fact_rows)
    assert all(labels[i] == "high_sim_unfaithful" for i in fact_rows)
    faithful_flagged = [
        demo_rows["id"][i]
        for i, judge in enumerate(demo_rows["careful_judge"])
        if judge == "faithful" and labels[i] == "high_sim_unfaithful"
    ]
    assert len(faithful_flagged) <= 1, faithful_flagged
    by_id = dict(zip(demo_rows["id"], offline, strict=True))
    assert by_id["demo-07"]["explanation"].endswith("Thursday: context says Tuesday")
    assert by_id["demo-11"]["metadata"]["unsupported_facts"] == ["48 rooms: context says 84 rooms"]
    assert by_id["demo-16"]["metadata"]["unsupported_facts"] == ["Clara: context says Maren"]
    assert by_id["demo-23"]["metadata"]["unsupported_facts"] == ["rejected: context says approved"]
    # the groundedness column is still there, from the same core call
    assert [c["score"] for c in offline_demo["groundedness_score"]] == [
        c["metadata"]["groundedness"] for c in offline
    ]


@pytest.mark.slow
def test_the_evaluator_one_row_at_a_time_equals_the_batch_path(offline_demo, demo_rows):
    from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator

    evaluator = OfflineFaithfulnessEvaluator()
    for i in (6, 19, 34):
        score = evaluator.evaluate({"output": demo_rows["output"][i], "context": demo_rows["context"][i]})[0]
        batch = offline_demo["offline_faithfulness_score"][i]
        assert (score.label, score.explanation) == (batch["label"], batch["explanation"])
        assert score.score == pytest.approx(batch["score"], abs=1e-6)


@pytest.mark.slow
def test_judge_triage_asks_only_unsettled_rows_and_keeps_the_final_labels(demo_rows, make_stub_judge):
    from bertscore_plugins.integrations.phoenix import evaluate_rows

    every_row = make_stub_judge()
    judged_all = evaluate_rows(demo_rows, llm=every_row.llm())
    triaged_judge = make_stub_judge()
    triaged = evaluate_rows(demo_rows, llm=triaged_judge.llm(), judge_rows="unsettled")

    triage = triaged.attrs["judge_triage"]
    assert len(every_row.log.bodies) == 44
    assert triage == {
        "rows": 44,
        "judged": len(triaged_judge.log.bodies),
        "saved": 44 - triage["judged"],
        "mode": "unsettled",
    }
    final_all = [c["label"] for c in judged_all["faithfulness_score"]]
    final_triaged = [c["label"] for c in triaged["faithfulness_score"]]
    agreement = sum(a == b for a, b in zip(final_all, final_triaged, strict=True)) / len(final_all)
    print(f"judge triage on the demo: {triage}, agreement with judging every row {agreement:.3f}")
    assert triage["saved"] == 16  # 28 of 44 rows still go to the judge (padding and paraphrases among them)
    assert agreement == pytest.approx(AGREEMENT)
    settled = [c for c in triaged["faithfulness_score"] if c["metadata"].get("source") == "offline"]
    assert len(settled) == triage["saved"]
    assert settled[0]["explanation"].startswith("settled offline, judge not asked:")


def test_faithfulness_command_prints_one_row_per_line(tmp_path, capsys):
    # the command's main in this process: as its own process it runs in the fresh-interpreter entry points
    # (tests/integrations) and the README's and docs/faithfulness.md's shell blocks (tests/docs)
    from bertscore_plugins.cli.main import main

    outputs = tmp_path / "outputs.txt"
    sources = tmp_path / "sources.txt"
    outputs.write_text(
        "The patient was discharged on Thursday.\nThe Caldera Hotel opened in 2019 with 84 rooms.\n"
        "The drug didn't reduce the risk.\n",
        encoding="utf-8",
    )
    sources.write_text(
        "Mr. Okafor was discharged on Tuesday.\nThe Caldera Hotel opened in 2019 with eighty-four "
        "rooms.\nThe drug reduced the risk of heart attack.\n",
        encoding="utf-8",
    )
    assert main(["faithfulness", "-c", str(outputs), "-s", str(sources)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == (
        "row\tscore\tlabel\tgroundedness\tlexical\tweakest_sentence\tunsupported_facts\tnever_in_source"
    )
    rows = [line.split("\t") for line in lines[1:]]
    assert [(r[0], r[2]) for r in rows] == [("0", "unfaithful"), ("1", "faithful"), ("2", "unfaithful")]
    assert all(0.0 <= float(r[3]) <= 1.0 and 0.0 <= float(r[4]) <= 1.0 for r in rows)
    assert rows[0][5] == "The patient was discharged on Thursday."  # one sentence: the weakest
    assert rows[0][6] == "Thursday: context says Tuesday"
    assert rows[1][6] == ""
    assert rows[2][6].startswith("didn't reduce the risk: context says")
    assert [r[7] for r in rows] == ["", "", ""]
    summary = json.loads(err[err.index("{") :])
    assert summary["rows"] == 3 and summary["faithful"] == 1 and "layer:4" in summary["signature"]


def test_sanity_shows_the_fact_check_catching_each_blind_spot():
    from bertscore_plugins import run_sanity

    statuses = run_sanity().statuses()
    for name in ("wrong date", "wrong number", "negation", "swapped entities"):
        assert statuses[f"blind spot: {name}"] == "warn"
        assert statuses[f"fact check: {name}"] == "pass"


@pytest.mark.slow
def test_triage_makes_no_call_when_every_row_is_settled(demo_rows, make_stub_judge):
    from bertscore_plugins.integrations.phoenix import evaluate_rows

    judge = make_stub_judge()
    wrong_facts = demo_rows[demo_rows["id"].isin(["demo-07", "demo-11"])].reset_index(drop=True)
    result = evaluate_rows(wrong_facts, llm=judge.llm(), judge_rows="unsettled")
    assert judge.log.bodies == []
    assert result.attrs["judge_triage"] == {"rows": 2, "judged": 0, "saved": 2, "mode": "unsettled"}
    assert [c["label"] for c in result["faithfulness_score"]] == ["unfaithful", "unfaithful"]
    assert [c["label"] for c in result["sim_faith_disagreement_score"]] == ["high_sim_unfaithful"] * 2


def test_the_benchmark_statistics_on_hand_computed_values():
    import numpy as np

    from benchmarks.quality.quality_facts import ranks, roc_auc, spearman

    assert ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])) == pytest.approx(1.0)
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(-1.0)
    # positives 0.9 and 0.4 against negatives 0.5 and 0.1: 3 of 4 pairs ordered right
    assert roc_auc(np.array([0.9, 0.4, 0.5, 0.1]), np.array([True, True, False, False])) == pytest.approx(
        0.75
    )


@pytest.mark.slow
def test_the_cost_benchmark_runs_on_the_demo_rows(fresh_python):
    done = subprocess.run(
        [
            *fresh_python.argv,
            str(ROOT / "benchmarks" / "speed" / "facts_cost.py"),
            "--demo",
            "--repeats",
            "1",
            "--no-write",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=fresh_python.env(),
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["rows"] == "recipes/demo_data.jsonl (44 rows)"
    assert set(result["best_seconds"]) == {
        "groundedness",
        "groundedness+alignment",
        "offline faithfulness",
        "parts on the alignment",
    }
    assert 0.0 < result["parts_over_groundedness"] < 1.0  # the parts cost less than the model call


def _offline_cell(
    score: float, fact_label: str = "supported", checked: bool = True, novel: float = 0.0
) -> Cell:
    from bertscore_plugins.evaluation.cells import BertScoreMetadata, FactCheckMetadata

    grounded = BertScoreMetadata(precision=score, recall=score, threshold=0.5, signature="s")
    metadata = FactCheckMetadata(grounded, None, checked, fact_label, (), novel)
    return Cell(OFFLINE_FAITHFULNESS, score, None, None, metadata)


def test_triage_never_settles_a_row_whose_facts_were_not_checked():
    from bertscore_plugins.evaluation.judge import settled_label

    assert settled_label(_offline_cell(0.95)) == "faithful"
    assert settled_label(_offline_cell(0.95, "not checked", checked=False)) is None  # the judge must see it
    assert settled_label(_offline_cell(0.02, "not checked", checked=False)) is None


@pytest.mark.parametrize(
    ("cell", "settled"),
    [
        (_offline_cell(0.877), "faithful"),  # at the fitted cut
        (_offline_cell(0.876), None),
        (_offline_cell(0.95, "unsupported"), None),  # a high score with an unsupported fact: ask the judge
        (_offline_cell(0.131, "unsupported"), "unfaithful"),  # a low score with evidence against it
        (_offline_cell(0.05, novel=1.0), "unfaithful"),  # ... a rare word the source never writes
        (_offline_cell(0.02), None),  # a low score alone (polite padding, a paraphrase): ask the judge
        (_offline_cell(0.132, "unsupported"), None),
        (_offline_cell(0.40, "unsupported"), None),  # an unsupported fact alone settles nothing
        (Cell.from_dict({"score": float("nan"), "metadata": {"fact_checked": True}}), None),
        (None, None),
        (Cell.from_dict({"score": 0.99}), None),  # no fact check in the cell: not the offline signal's
    ],
)
def test_triage_settles_by_the_cuts_fitted_on_the_development_sets(cell, settled):
    from bertscore_plugins.evaluation.judge import settled_label

    assert settled_label(cell) == settled


def test_the_triage_cuts_are_the_ones_the_benchmark_fitted():
    from bertscore_plugins.evaluation.judge import SETTLED_FAITHFUL, SETTLED_UNFAITHFUL

    fitted = json.loads((ROOT / "benchmarks" / "results" / "triage.json").read_text(encoding="utf-8"))
    assert (
        round(fitted["shipped rule"]["low"], 3),
        round(fitted["shipped rule"]["high"], 3),
    ) == (SETTLED_UNFAITHFUL, SETTLED_FAITHFUL)


# the same rows through every path: the facts API, the batch engine's DataFrame, the Phoenix evaluator
# one row at a time and its batch over a DataFrame
_PLAIN_CONTEXT = "Parking at the clinic is free for patients. The clinic opens at 8 am on weekdays."
_FILLER = " ".join(f"The council reviewed item {k} of the plan for the new library." for k in range(120))
_LAST = "The final report was signed by the director, Maria Olsen, on the evening of 3 June 2021."
SAME_ROWS = [
    ("The clinic opens at 8 am on weekdays.", _PLAIN_CONTEXT),
    ("<p>The <b>clinic</b> opens at 8 am on weekdays.</p>", _PLAIN_CONTEXT),
    ("[The clinic](https://example.org/clinic) opens at *8 am* on weekdays.", _PLAIN_CONTEXT),
    ("The clinic opens at 9 am on weekdays.", f"<div>{_PLAIN_CONTEXT}</div>"),
    (_LAST, f"{_FILLER} {_LAST}"),  # copied from the end of a source longer than the model reads at once
]


@pytest.mark.model
def test_a_row_gets_the_same_offline_cell_on_every_path():
    """Markup is read as the text it shows and long sources whole, whichever way a row comes: a faithful
    answer written as HTML or with a markdown link, or copied from a long source's end, stays faithful."""
    from bertscore_plugins.faithfulness import offline_faithfulness
    from bertscore_plugins.integrations.phoenix import (
        OfflineFaithfulnessEvaluator,
        batch_evaluate_dataframe,
        evaluate_rows,
    )

    outputs, contexts = [row[0] for row in SAME_ROWS], [row[1] for row in SAME_ROWS]
    api = offline_faithfulness(outputs, contexts)
    frame = pd.DataFrame({"output": outputs, "context": contexts, "reference": outputs})
    engine = list(evaluate_rows(frame)["offline_faithfulness_score"])
    evaluator = OfflineFaithfulnessEvaluator()
    one_by_one = [
        evaluator.evaluate({"output": o, "context": c})[0] for o, c in zip(outputs, contexts, strict=True)
    ]
    batched = list(batch_evaluate_dataframe(frame, evaluator)[f"{evaluator.name}_score"])
    assert [row.label for row in api] == ["faithful"] * 3 + ["unfaithful", "faithful"]
    for k, row in enumerate(api):
        assert engine[k]["score"] == pytest.approx(row.score, abs=1e-6)
        assert one_by_one[k].score == pytest.approx(row.score, abs=1e-6)
        assert batched[k]["score"] == pytest.approx(row.score, abs=1e-6)
        assert engine[k]["label"] == one_by_one[k].label == batched[k]["label"] == row.label
    assert "9 am: context says 8 am" in engine[3]["explanation"]


@pytest.mark.parametrize("cut", [float("nan"), 5, -1, "0.5", True])
def test_offline_thresholds_outside_the_score_range_are_refused_on_every_path(cut):
    from bertscore_plugins.errors import SettingError
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
    from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator

    with pytest.raises(SettingError, match="offline_threshold"):
        EvaluationConfig(offline_threshold=cut)
    with pytest.raises(SettingError, match="threshold"):
        OfflineFaithfulnessEvaluator(threshold=cut)

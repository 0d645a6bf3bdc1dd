"""Which faithfulness decides the disagreement when a judge runs, and what a failing judge leaves behind.

A judge measured near chance (it says so: ``near_chance``) never decides the disagreement by default; its
verdict stays in its own column and the run says so once. ``disagreement_reads="judge"`` is the one setting
that lets a judge decide. A row the judge gave no verdict for is read with the offline faithfulness, the
reason in the explanation: a judge's failure never blanks the disagreement. The real engine and model, a
judge that says "faithful" to everything (as the packaged local judge said of the README's Thursday row).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from bertscore_plugins.errors import BertScorePluginsWarning
from bertscore_plugins.evaluation.dataframe import evaluate_rows
from bertscore_plugins.evaluation.judge import Verdict, failed_verdict

pytestmark = [pytest.mark.model]

THURSDAY = pd.DataFrame(
    {
        "input": ["When was the patient discharged?"],
        "output": ["The patient was discharged on Thursday."],
        "context": ["The patient was admitted on Monday and discharged on Tuesday."],
        "reference": ["The patient was discharged on Tuesday."],
    }
)


class SaysFaithful:
    """A judge that calls every answer faithful; ``near_chance`` as it declares it."""

    name, model = "faithfulness", "test/says-faithful"

    def __init__(self, near_chance: bool) -> None:
        self.near_chance = near_chance
        self.measured_auc = 0.49 if near_chance else None

    def verdicts(self, rows, *, concurrency, max_retries):
        return [Verdict({"name": self.name, "score": 1.0, "label": "faithful"}) for _ in rows]


class Down:
    """A judge whose endpoint is down: every row fails, naming why."""

    name, model = "faithfulness", "test/down"

    def verdicts(self, rows, *, concurrency, max_retries):
        return [failed_verdict("ConnectError: connection refused") for _ in rows]


def disagreement(frame: pd.DataFrame) -> dict:
    return frame["sim_faith_disagreement_score"].iloc[0]


def test_a_judge_near_chance_keeps_its_verdict_but_the_offline_signal_decides_and_says_so_once():
    judge = SaysFaithful(near_chance=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = evaluate_rows(THURSDAY, judge=judge)
        evaluate_rows(THURSDAY, judge=judge)  # the same run's next batch: not said again
    assert frame["faithfulness_score"].iloc[0]["label"] == "faithful"  # the judge's verdict, kept
    cell = disagreement(frame)
    assert cell["label"] == "high_sim_unfaithful"
    assert cell["metadata"]["faithfulness_signal"] == "offline_faithfulness"
    said = [
        w
        for w in caught
        if issubclass(w.category, BertScorePluginsWarning) and "near chance" in str(w.message)
    ]
    assert (
        len(said) == 1
        and "0.49" in str(said[0].message)
        and "disagreement_reads='judge'" in str(said[0].message)
    )


def test_one_setting_lets_a_judge_decide_and_a_judge_that_says_nothing_of_its_quality_decides_by_default():
    chosen = evaluate_rows(THURSDAY, judge=SaysFaithful(near_chance=True), disagreement_reads="judge")
    provider = evaluate_rows(THURSDAY, judge=SaysFaithful(near_chance=False))
    for frame in (chosen, provider):
        cell = disagreement(frame)
        assert cell["label"] == "agree" and cell["metadata"]["faithfulness_signal"] == "faithfulness"


def test_a_judge_that_fails_leaves_the_disagreement_to_the_offline_signal_with_the_reason():
    frame = evaluate_rows(THURSDAY, judge=Down(), exit_on_error=False)
    assert frame["faithfulness_score"].iloc[0] is None
    assert frame["faithfulness_execution_details"].iloc[0]["status"] == "FAILED"
    cell = disagreement(frame)
    assert cell["label"] == "high_sim_unfaithful"
    assert "the judge gave no verdict (ConnectError: connection refused)" in cell["explanation"]
    assert cell["metadata"]["judge_failed"] == "ConnectError: connection refused"
    assert frame["sim_faith_disagreement_execution_details"].iloc[0]["status"] == "COMPLETED"
    assert frame["offline_faithfulness_score"].iloc[0]["label"] == "unfaithful"  # the other cells stay

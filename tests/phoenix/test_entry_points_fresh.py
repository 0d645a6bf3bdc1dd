"""Every public entry point of the evaluation engine and the Phoenix evaluators, each as the FIRST call of a
fresh interpreter, returning the right values.

Within one test process the suite's import order hides a missing import (a module reached as an attribute
of the package works only once something else imported it): ``score_dataframe`` as the first call raised
``AttributeError: module 'bertscore_plugins' has no attribute 'inputs'``. So each case runs alone in a new
``python -c`` and prints what it got as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]

#: a wrong day: looks like the reference, the context says otherwise
WRONG_DAY = {
    "input": "When was the patient discharged?",
    "output": "The patient was discharged on Thursday.",
    "context": "The patient was admitted on Saturday and was discharged on Tuesday after surgery.",
    "reference": "The patient was discharged on Tuesday.",
}
FAKE_LLM = """
class FakeLLM:  # duck-typed Phoenix LLM, as in Phoenix's own tests
    provider, model = "fake", "fake-judge"
    def generate_classification(self, prompt, labels, include_explanation=True, method=None, **kwargs):
        text = prompt[0]["content"] if isinstance(prompt, list) else str(prompt)
        return {"label": "unfaithful" if "Thursday" in text else "faithful", "explanation": "fake"}
    async def async_generate_classification(self, *args, **kwargs):
        return self.generate_classification(*args, **kwargs)
"""

CASES = {
    # the README's call, word for word (the old name still works, with a warning)
    "score_dataframe as first call": """
        import pandas as pd
        from bertscore_plugins.phoenix import BERTScoreEvaluator, score_dataframe
        frame = score_dataframe(pd.DataFrame({'output': ['a'], 'reference': ['b']}), BERTScoreEvaluator())
        cell = frame["bertscore_score"][0]
        out = {"label": cell["label"], "score": cell["score"]}
    """,
    "batch_evaluate_dataframe": """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import GroundednessEvaluator, batch_evaluate_dataframe
        frame = pd.DataFrame({"output": [ROW["output"], "x"], "context": [ROW["context"], None]})
        scored = batch_evaluate_dataframe(frame, GroundednessEvaluator(), exit_on_error=False)
        cell, details = scored["groundedness_score"][0], scored["groundedness_execution_details"][1]
        out = {"label": cell["label"], "status": details["status"], "problem": details["exceptions"][0]}
    """,
    "BERTScoreEvaluator.evaluate": """
        from bertscore_plugins.integrations.phoenix import BERTScoreEvaluator
        [score] = BERTScoreEvaluator().evaluate({"output": ROW["reference"], "reference": ROW["reference"]})
        out = {"label": score.label, "score": score.score}
    """,
    "OfflineFaithfulnessEvaluator.evaluate": """
        from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator
        [score] = OfflineFaithfulnessEvaluator().evaluate({"output": ROW["output"], "context": ROW["context"]})
        out = {"label": score.label, "explanation": score.explanation}
    """,
    "score_offline": """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator
        from bertscore_plugins.integrations.phoenix.offline_faithfulness import (
            OfflineFaithfulnessEvaluator, score_offline)
        frame = pd.DataFrame({"output": [ROW["output"]], "context": [[ROW["context"]]]})
        scored = score_offline(frame, OfflineFaithfulnessEvaluator(), GroundednessEvaluator())
        out = {"label": scored["offline_faithfulness_score"][0]["label"],
               "grounded": scored["groundedness_score"][0]["label"]}
    """,
    "evaluate_rows without a judge": """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import evaluate_rows
        scored = evaluate_rows(pd.DataFrame([ROW]))
        out = {"label": scored["sim_faith_disagreement_score"][0]["label"]}
    """,
    "evaluate_rows with Phoenix's judge on a Phoenix LLM": FAKE_LLM
    + textwrap.dedent(
        """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import evaluate_rows
        scored = evaluate_rows(pd.DataFrame([ROW]), llm=FakeLLM())
        out = {"label": scored["sim_faith_disagreement_score"][0]["label"],
               "judge": scored["faithfulness_score"][0]["label"]}
        """
    ),
    "the engine's evaluate_rows": """
        import pandas as pd
        from bertscore_plugins.evaluation.dataframe import evaluate_rows
        scored = evaluate_rows(pd.DataFrame([{"answer": ROW["output"], **ROW}]), output_column="answer")
        out = {"label": scored["offline_faithfulness_score"][0]["label"]}
    """,
    "evaluate_batch with a judge of our own": """
        from bertscore_plugins.evaluation.batch import BatchRow, evaluate_batch
        from bertscore_plugins.evaluation.config import EvaluationConfig
        from bertscore_plugins.evaluation.judge import Verdict
        class Always:
            name, model = "faithfulness", "stub/always"
            def verdicts(self, rows, *, concurrency, max_retries):
                return [Verdict({"name": self.name, "score": 0.0, "label": "unfaithful"}) for _ in rows]
        result = evaluate_batch([BatchRow("r0", **ROW)], EvaluationConfig(judge=Always()))
        out = {"label": result.cells["sim_faith_disagreement"][0]["label"],
               "judge": result.cells["faithfulness"][0]["label"], "triage": result.triage["judged"]}
    """,
    "run_judge": FAKE_LLM
    + textwrap.dedent(
        """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import run_judge
        judged = run_judge(pd.DataFrame([ROW]), llm=FakeLLM())
        out = {"label": judged["faithfulness_score"][0]["label"]}
        """
    ),
    "add_disagreement and DisagreementEvaluator": """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import DisagreementEvaluator, Thresholds, add_disagreement
        cells = {"bertscore_score": [{"name": "bertscore", "score": 0.95}],
                 "faithfulness_score": [{"name": "faithfulness", "score": 0.0}]}
        added = add_disagreement(pd.DataFrame(cells), Thresholds(0.9))
        out = {"label": added["sim_faith_disagreement_score"][0]["label"],
               "evaluator": DisagreementEvaluator.__name__}
    """,
}
EXPECTED = {
    "score_dataframe as first call": lambda out: out["label"] == "dissimilar" and 0 < out["score"] < 0.9,
    "batch_evaluate_dataframe": lambda out: (
        (out["label"], out["status"]) == ("grounded", "FAILED")
        and out["problem"].startswith("row 1: ValidationError: ")
    ),
    "BERTScoreEvaluator.evaluate": lambda out: out["label"] == "similar" and out["score"] > 0.999,
    "OfflineFaithfulnessEvaluator.evaluate": lambda out: (
        out["label"] == "unfaithful" and "Thursday" in out["explanation"]
    ),
    "score_offline": lambda out: out == {"label": "unfaithful", "grounded": "grounded"},
    "evaluate_rows without a judge": lambda out: out == {"label": "high_sim_unfaithful"},
    "evaluate_rows with Phoenix's judge on a Phoenix LLM": lambda out: (
        out == {"label": "high_sim_unfaithful", "judge": "unfaithful"}
    ),
    "the engine's evaluate_rows": lambda out: out == {"label": "unfaithful"},
    "evaluate_batch with a judge of our own": lambda out: (
        out == {"label": "high_sim_unfaithful", "judge": "unfaithful", "triage": 1}
    ),
    "run_judge": lambda out: out == {"label": "unfaithful"},
    "add_disagreement and DisagreementEvaluator": lambda out: (
        out == {"label": "high_sim_unfaithful", "evaluator": "DisagreementEvaluator"}
    ),
}


def _run_fresh(snippet: str) -> dict:
    code = f"import json\nROW = {WRONG_DAY!r}\n{textwrap.dedent(snippet)}\nprint('OUT=' + json.dumps(out))"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    env = {k: v for k, v in env.items() if not k.startswith("BERTSCORE_JUDGE_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith("OUT=")]
    return json.loads(line[len("OUT=") :])


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_entry_point_as_the_first_call_of_a_fresh_interpreter_gives_the_right_values(case):
    out = _run_fresh(CASES[case])
    assert EXPECTED[case](out), out

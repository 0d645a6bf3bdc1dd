"""Recipe output folders under damage and interruption: damaged state files are named with the way on,
similarity and groundedness are on disk before the judge starts, and re-runs never duplicate experiments."""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import pytest

from recipes import disagreement
from recipes.run_state import RESCORE_HINT, DamagedRunFolder, OutputFolder, RunState
from tests.phoenix.test_disagreement_recipe import DEMO, ScoringCalls, no_judge, use_judge


def _arguments(out) -> list[str]:
    return [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "4"]


@pytest.fixture(scope="module")
def scored_once(tmp_path_factory):
    """The 4 demo rows scored without a judge once per module; tests damage copies of the folder."""
    out = tmp_path_factory.mktemp("scored-once") / "out"
    with pytest.MonkeyPatch.context() as patch:
        no_judge(patch)
        with contextlib.redirect_stdout(io.StringIO()):
            assert disagreement.main(_arguments(out)) == disagreement.EXIT_OK
    return out


@pytest.fixture()
def scored(scored_once, tmp_path, monkeypatch):
    """A folder scored without a judge (4 demo rows), the test's own copy: (folder, arguments)."""
    no_judge(monkeypatch)
    out = tmp_path / "out"
    shutil.copytree(scored_once, out)
    return out, _arguments(out)


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    return err[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda text: text[: len(text) // 2], "not valid JSON: "),
        (lambda text: "", "not valid JSON: Expecting value"),
        (lambda text: "[1, 2]\n", "expected a JSON object, got list"),
        (lambda text: text.replace('"rows": 4', '"rows": "4"'), "rows is str, expected int"),
        (lambda text: text.replace('"version": 1', '"version": 9'), "state file version 9 is not 1"),
    ],
)
def test_a_damaged_state_file_is_named_with_the_way_on(scored, capsys, damage, problem):
    out, args = scored
    state = out / "state.json"
    state.write_text(damage(state.read_text()))
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    error = _error(capsys)
    assert error.startswith(f"error: {state}") and f"is damaged ({problem}" in error
    assert error.endswith(f"; {RESCORE_HINT}")
    # the way on: --rescore scores again into the same folder and leaves a good state
    assert disagreement.main([*args, "--rescore"]) == disagreement.EXIT_OK
    assert OutputFolder(out).load_state().rows == 4


def test_a_truncated_scores_table_names_file_and_line(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    lines = table.read_text().splitlines(keepends=True)
    table.write_text("".join(lines[:2]) + lines[2][: len(lines[2]) // 2])
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    error = _error(capsys)
    assert error.startswith(f"error: {table}:3 is damaged (not valid JSON: ")
    assert error.endswith(RESCORE_HINT)
    assert disagreement.main([*args, "--rescore"]) == disagreement.EXIT_OK
    assert len(OutputFolder(out).load_table("jsonl", rows=4)) == 4


def test_a_table_with_missing_rows_is_named(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    table.write_text("".join(table.read_text().splitlines(keepends=True)[:3]))
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    assert (
        _error(capsys)
        == f"error: {table} is damaged (it holds 3 rows, the state file says 4); {RESCORE_HINT}"
    )


def test_invalid_utf8_in_the_table_is_named(scored):
    out, _ = scored
    table = out / "scores.jsonl"
    table.write_bytes(table.read_bytes().replace(b"{", b"\xff{", 1))
    with pytest.raises(DamagedRunFolder, match=f"^{table} is damaged \\({table}:1: is not valid UTF-8"):
        OutputFolder(out).load_table("jsonl", rows=4)


def test_state_writes_leave_no_temporary_files(scored):
    out, _ = scored
    assert sorted(p.name for p in out.iterdir()) == ["report", "scores.jsonl", "state.json"]
    RunState.from_json(json.loads((out / "state.json").read_text()))  # a valid state


@pytest.mark.slow
def test_similarity_and_groundedness_are_on_disk_before_the_judge_starts(
    tmp_path, monkeypatch, capsys, make_stub_judge
):
    import bertscore_plugins.phoenix as integration

    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "5"]
    use_judge(monkeypatch, make_stub_judge())
    seen: dict = {}

    def killed_judge(*_, **__):
        # what a kill -9 during a long judge run would find in the folder
        folder = OutputFolder(out)
        seen["state"] = folder.load_state()
        seen["table"] = folder.load_table("jsonl", rows=5)
        raise KeyboardInterrupt

    monkeypatch.setattr(integration, "run_judge", killed_judge)
    with pytest.raises(KeyboardInterrupt):
        disagreement.main(args)
    table, state = seen["table"], seen["state"]
    assert table["bertscore_score"].map(lambda cell: isinstance(cell["score"], float)).all()
    assert table["groundedness_score"].map(lambda cell: isinstance(cell["score"], float)).all()
    assert state.judge_failed_rows == list(table["row_id"]) and state.faithfulness_signal == "faithfulness"
    monkeypatch.undo()

    # the re-run asks the judge and scores nothing again: the pipeline is not run, and the one core call
    # left is the token-match explanation of the report's top rows (known only once the judge answered)
    use_judge(monkeypatch, make_stub_judge())
    calls = ScoringCalls(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert calls.calls in (["run_judge"], ["run_judge", "score"])
    final = OutputFolder(out)
    for column in ("bertscore_score", "groundedness_score"):
        assert list(final.load_table("jsonl", rows=5)[column]) == list(table[column])
    assert final.load_state().judge_failed_rows == []
    labels = final.load_table("jsonl", rows=5)["faithfulness_score"].map(lambda cell: cell["label"])
    assert set(labels) <= {"faithful", "unfaithful"} and len(labels) == 5


def test_a_rerun_after_an_interrupted_experiment_step_leaves_exactly_one_experiment(
    tmp_path, monkeypatch, capsys, phoenix_server, fresh_project
):
    from phoenix.client import Client

    import bertscore_plugins.phoenix as integration

    no_judge(monkeypatch)
    out = tmp_path / "out"
    args = [
        str(DEMO),
        "--out",
        str(out),
        "--limit",
        "3",
        "--phoenix-url",
        phoenix_server.base_url,
        "--project",
        fresh_project,
    ]
    original = integration.log_experiment

    def made_then_killed(*a, **k):
        original(*a, **k)  # the server has the experiment; the state file will not hear of it
        raise ConnectionResetError("killed after the experiment was created")

    monkeypatch.setattr(integration, "log_experiment", made_then_killed)
    assert disagreement.main(args) == disagreement.EXIT_PHOENIX
    state = OutputFolder(out).load_state()
    assert "experiment" not in state.logged and "dataset" in state.logged
    client = Client(base_url=phoenix_server.base_url)
    dataset_id = state.logged["dataset"]["id"]
    assert len(client.experiments.list(dataset_id=dataset_id)) == 1

    monkeypatch.setattr(integration, "log_experiment", original)
    assert disagreement.main(args) == disagreement.EXIT_OK
    experiments = client.experiments.list(dataset_id=dataset_id)
    assert [experiment["id"] for experiment in experiments] == [
        OutputFolder(out).load_state().logged["experiment"]["id"]
    ]
    assert experiments[0]["metadata"]["run_key"] == state.run_key
    # and a third run changes nothing
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert len(client.experiments.list(dataset_id=dataset_id)) == 1


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "in.jsonl",
            b'{"output": "a"}\n{"output": "b"\n',
            "{path}:2: not valid JSON (Expecting ',' delimiter)",
        ),
        ("in.jsonl", b'{"output": "a"}\n[1]\n', "{path}:2: expected a JSON object per line, got list"),
        (
            "in.jsonl",
            b'{"output": "a"}\n{"output": "\xff"}\n',
            "{path}:2: is not valid UTF-8 (byte 0xff at offset 28)",
        ),
        (
            "in.csv",
            b"output,reference\nok,fine\n\xfe,x\n",
            "{path}:3: is not valid UTF-8 (byte 0xfe at offset 25)",
        ),
        ("in.json", b'[{"output": "a"},\n {"output": }]', "{path}:2: not valid JSON (Expecting value)"),
        ("in.parquet", b"PAR1 not really", "{path}: not a readable parquet file ("),
    ],
)
def test_a_damaged_input_table_is_named_by_file_and_line(tmp_path, capsys, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    assert (
        disagreement.main([str(path), "--out", str(tmp_path / "out"), "--no-phoenix"])
        == disagreement.EXIT_BAD_INPUT
    )
    assert _error(capsys).startswith("error: " + message.format(path=path))

"""Recipe output folders under damage and interruption: damaged state files are named with the way on,
similarity and groundedness are in the store before the judge starts, a damaged scores table or store row
is rebuilt from the store, and re-runs never duplicate experiments."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3

import pytest

from bertscore_plugins.cli import disagreement
from bertscore_plugins.cli.disagreement.folder import RESCORE_HINT, OutputFolder, RunState
from tests.support.recipe_runs import DEMO, ScoringCalls, no_judge, use_judge
from tests.support.recipe_runs import scored as scored_table


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
        (lambda text: text.replace('"version": 2', '"version": 9'), "state file version 9 is not 2"),
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


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated mid-line
        lambda text: "".join(text.splitlines(keepends=True)[:3]),  # a row short
        lambda text: "\xff" + text,  # not UTF-8 any more (written as latin-1 below)
    ],
    ids=["truncated", "a-row-short", "not-utf8"],
)
def test_a_damaged_scores_table_is_written_again_from_the_store_without_scoring(scored, monkeypatch, damage):
    out, args = scored
    table = out / "scores.jsonl"
    before = table.read_bytes()
    table.write_bytes(damage(before.decode()).encode("latin-1", errors="replace"))
    calls = ScoringCalls(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert calls.calls == []  # the table is an export of the store: nothing is scored again
    assert table.read_bytes() == before


def test_a_damaged_row_of_the_store_is_named_and_scored_again(scored, capsys):
    out, args = scored
    before = scored_cells(out)
    with sqlite3.connect(out / "results.sqlite") as db:
        (key,) = db.execute("SELECT row_id FROM results WHERE name = 'bertscore' ORDER BY row_id").fetchone()
        db.execute("UPDATE results SET cell = ? WHERE row_id = ? AND name = 'bertscore'", ("{", key))
    db.close()
    assert disagreement.main(args) == disagreement.EXIT_OK
    err = capsys.readouterr().err
    assert f"row {key!r} 'bertscore': cell is not valid JSON" in err and "are computed again" in err
    assert scored_cells(out) == before  # the same score, computed again


def scored_cells(out) -> dict:
    table = scored_table(out)
    return {
        row: cell["score"]
        for row, cell in zip(table["row_id"], table["bertscore_score"], strict=True)
        if cell
    }


def test_state_writes_leave_no_temporary_files(scored):
    out, _ = scored
    assert sorted(p.name for p in out.iterdir()) == [
        "report", "results.sqlite", "scores.jsonl", "state.json", "summary.json"
    ]  # fmt: skip
    RunState.from_json(json.loads((out / "state.json").read_text()))  # a valid state


@pytest.mark.slow
def test_similarity_and_groundedness_are_on_disk_before_the_judge_starts(
    tmp_path, monkeypatch, capsys, make_stub_judge
):
    from bertscore_plugins.judge.yes_no import YesNoJudge

    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "5"]
    use_judge(monkeypatch, make_stub_judge())
    seen: dict = {}

    def killed_judge(*_, **__):
        # what a kill -9 during a long judge run would find in the store
        with sqlite3.connect(out / "results.sqlite") as db:
            seen["cells"] = db.execute(
                "SELECT row_id, name, cell FROM results ORDER BY row_id, name"
            ).fetchall()
        db.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(YesNoJudge, "verdicts", killed_judge)
    assert disagreement.main(args) == 130  # interrupted
    names = {}
    for _key, name, cell in seen["cells"]:
        names.setdefault(name, []).append(json.loads(cell)["score"])
    assert set(names) == {"bertscore", "groundedness", "offline_faithfulness"}  # no verdict yet
    assert all(len(scores) == 5 and all(isinstance(s, float) for s in scores) for scores in names.values())
    monkeypatch.undo()

    # the re-run asks the judge and scores nothing again: no model, no core call (the report's token
    # matches are in the similarity cells from the one scoring pass)
    use_judge(monkeypatch, make_stub_judge())
    calls = ScoringCalls(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert set(calls.calls) == {"verdicts"}
    final = scored_table(out)
    stored = {(key.split("#")[0], name): json.loads(cell) for key, name, cell in seen["cells"]}
    for name in ("bertscore", "groundedness"):
        assert [stored[(row, name)] for row in final["row_id"]] == list(final[f"{name}_score"])
    assert OutputFolder(out).load_state().judge_failed_rows == []
    labels = final["faithfulness_score"].map(lambda cell: cell["label"])
    assert set(labels) <= {"faithful", "unfaithful"} and len(labels) == 5


@pytest.mark.slow
def test_a_rerun_after_an_interrupted_experiment_step_leaves_exactly_one_experiment(
    tmp_path, monkeypatch, capsys, phoenix_server, fresh_project
):
    from phoenix.client import Client

    from bertscore_plugins.integrations.phoenix import experiments as integration

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
            "{path}:2: is not JSON (Expecting ',' delimiter)",
        ),
        ("in.jsonl", b'{"output": "a"}\n[1]\n', "{path}:2: holds a JSON list, not an object"),
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
        ("in.json", b'[{"output": "a"},\n {"output": }]', "{path}:2: is not JSON (Expecting value)"),
        ("in.parquet", b"PAR1 not really", "{path}: is not a readable parquet file ("),
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


def _damaged(capsys, args, path, line: int | None, problem: str) -> None:
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    where = f"{path}:{line}" if line is not None else str(path)
    assert _error(capsys) == f"error: {where} is damaged ({problem}); {RESCORE_HINT}"


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda text: "[" * 5000 + "]" * 5000, "JSON nested deeper than 100 levels"),
        (lambda text: text.replace('"rows": 4', '"rows": true'), "rows is bool, expected int"),
        (lambda text: text.replace('"rows": 4', '"rows": -4'), "rows is -4, expected a count (0 or more)"),
        (
            lambda text: text.replace('"judge_failed_rows": []', '"judge_failed_rows": [1]'),
            "judge_failed_rows holds something other than row ids (text)",
        ),
        (
            lambda text: text.replace(
                '"faithfulness_signal": "offline_faithfulness"', '"faithfulness_signal": "x"'
            ),
            "faithfulness_signal 'x' is not a signal this recipe writes",
        ),
        (
            lambda text: text.replace('"logged": {}', '"logged": {"traces": [1]}'),
            "logged.traces is not an object of texts and numbers",
        ),
        (
            lambda text: text.replace('"similarity": 0.9', '"similarity": NaN'),
            "thresholds.similarity is nan, expected a finite number",
        ),
    ],
)
def test_a_state_file_with_wrong_values_or_deep_nesting_is_named(scored, capsys, damage, problem):
    out, args = scored
    state = out / "state.json"
    state.write_text(damage(state.read_text()))
    _damaged(capsys, args, state, None, problem)


def test_a_folder_in_place_of_the_state_file_is_named_before_any_work(scored, capsys):
    out, args = scored
    state = out / "state.json"
    state.unlink()
    state.mkdir()
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    assert _error(capsys) == (
        f"error: --out: state file {state} is a folder, not a file; move it away or use another --out"
    )
    assert disagreement.main([*args, "--rescore"]) == disagreement.EXIT_BAD_INPUT  # not after scoring
    capsys.readouterr()


def test_an_input_inside_the_output_folder_is_never_overwritten(scored, capsys):
    out, _ = scored
    table = out / "scores.jsonl"
    before = table.read_bytes()
    argv = [str(table), "--out", str(out), "--no-phoenix", "--rescore"]  # the user's columns are kept
    assert disagreement.main(argv) == disagreement.EXIT_BAD_INPUT
    assert _error(capsys) == (
        f"error: jsonl table {table} is the input file {table}: writing it would destroy the input; "
        "choose another output file"
    )
    assert table.read_bytes() == before


@pytest.mark.parametrize("flag", ["--limit", "--top"])
def test_a_count_below_one_is_refused(tmp_path, capsys, flag):
    assert disagreement.main([str(DEMO), "--out", str(tmp_path / "out"), "--no-phoenix", flag, "-1"]) == 2
    assert _error(capsys) == f"error: {flag} must be at least 1, got -1"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("in.jsonl", b""),
        ("in.jsonl", b"\n\n"),
        ("in.csv", b"question,context,output,reference\n"),
        ("in.json", b"[]"),
    ],
)
def test_an_input_table_without_rows_is_named(tmp_path, capsys, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    assert (
        disagreement.main([str(path), "--out", str(tmp_path / "out"), "--no-phoenix"])
        == disagreement.EXIT_BAD_INPUT
    )
    assert _error(capsys) == f"error: {path}: the table has no rows"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("leave_free", "unwritten", "kept"),
    [
        # nothing fits: the result store is the first write. (A later write failing on this 64 KiB disk
        # cannot be staged any more: SQLite's store with its WAL and shared-memory files takes most of it.
        # Each file is still written atomically by write_run_file, and the store commits per transaction.)
        (0, "results.sqlite", ()),
    ],
)
def test_an_output_folder_on_a_full_disk_is_one_error_naming_the_file_and_exit_2(
    tmp_path, capsys, monkeypatch, leave_free, unwritten, kept
):
    from tests.support.full_disk import full_file_system

    no_judge(monkeypatch)
    with full_file_system(tmp_path / "full", leave_free=leave_free) as disk:
        out = disk / "out"
        assert disagreement.main(_arguments(out)) == disagreement.EXIT_BAD_INPUT
        error = _error(capsys)
        assert str(out / unwritten) in error and (
            "No space left on device" in error or "disk is full" in error
        )
        assert sorted(p.name for p in out.iterdir() if p.is_file()) == sorted(kept)  # no temporary left
        assert not list(out.rglob(".*.tmp"))
        if kept:  # what was saved before the disk filled is whole: a re-run elsewhere need not rescore it
            assert OutputFolder(out).load_state().rows == 4


@pytest.mark.slow
def test_the_recipe_command_on_a_full_disk_exits_2_without_a_traceback(tmp_path, fresh_python):
    import subprocess
    from pathlib import Path

    from tests.support.full_disk import full_file_system

    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in fresh_python.env().items() if not k.startswith("BERTSCORE_JUDGE_")}
    with full_file_system(tmp_path / "full") as disk:
        done = subprocess.run(
            [*fresh_python.argv, "-m", "bertscore_plugins.cli", "disagreement", *_arguments(disk / "out")],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "results.sqlite" in done.stderr.strip().splitlines()[-1]


def test_the_cores_warnings_name_the_data_row_as_the_user_counts_it_not_the_store_key(tmp_path, capsys):
    from bertscore_plugins.cli.main import main

    context = "The clinic opens at 8 am on weekdays."
    rows = [
        {"question": "When?", "context": context, "output": "It opens at 8 am.", "reference": context},
        {"question": "When?", "context": context, "output": "", "reference": context},
    ]
    table = tmp_path / "answers.jsonl"
    table.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["disagreement", str(table), "--out", str(tmp_path / "run"), "--no-phoenix"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "empty candidate" in line]
    assert warned and all("candidate rows data row 2;" in line and "#" not in line for line in warned)

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
    from bertscore_plugins.integrations.llm_judge.yes_no_judge import YesNoJudge

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

    monkeypatch.setattr(YesNoJudge, "verdicts", killed_judge)
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
    assert calls.calls in (["verdicts"], ["verdicts", "score"])
    final = OutputFolder(out)
    for column in ("bertscore_score", "groundedness_score"):
        assert list(final.load_table("jsonl", rows=5)[column]) == list(table[column])
    assert final.load_state().judge_failed_rows == []
    labels = final.load_table("jsonl", rows=5)["faithfulness_score"].map(lambda cell: cell["label"])
    assert set(labels) <= {"faithful", "unfaithful"} and len(labels) == 5


@pytest.mark.slow
def test_a_rerun_after_an_interrupted_experiment_step_leaves_exactly_one_experiment(
    tmp_path, monkeypatch, capsys, phoenix_server, fresh_project
):
    from phoenix.client import Client

    import bertscore_plugins.integrations.phoenix as integration

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


# ------------------------------------------------------------------------------ tables read back, checked


def _lines(table) -> list[str]:
    return table.read_text().splitlines(keepends=True)


def _damaged(capsys, args, path, line: int | None, problem: str) -> None:
    assert disagreement.main(args) == disagreement.EXIT_BAD_INPUT
    where = f"{path}:{line}" if line is not None else str(path)
    assert _error(capsys) == f"error: {where} is damaged ({problem}); {RESCORE_HINT}"


def _edit_line(table, number: int, edit) -> None:
    lines = _lines(table)
    record = json.loads(lines[number - 1])
    edit(record)
    lines[number - 1] = json.dumps(record) + "\n"
    table.write_text("".join(lines))


def test_a_row_replaced_by_a_copy_of_another_is_refused(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    lines = _lines(table)
    table.write_text("".join([lines[0], lines[0], *lines[2:]]))
    first_id = json.loads(lines[0])["row_id"]
    _damaged(capsys, args, table, 2, f"row_id {first_id!r} appears twice (also at line 1)")


def test_rows_out_of_the_input_order_are_refused(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    lines = _lines(table)
    table.write_text("".join([lines[1], lines[0], *lines[2:]]))
    ids = [json.loads(line)["row_id"] for line in lines]
    _damaged(capsys, args, table, 1, f"row_id {ids[1]!r} is not the input's row 0 ({ids[0]!r})")


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda r: r["bertscore_score"].update(score=float("nan")),
            "bertscore_score score is float nan, expected a finite number",
        ),
        (
            lambda r: r["bertscore_score"].update(score="0.9"),
            "bertscore_score score is str '0.9', expected a finite number",
        ),
        (
            lambda r: r["bertscore_score"].update(score=True),
            "bertscore_score score is bool True, expected a finite number",
        ),
        (lambda r: r.update(bertscore_score=0.9), "bertscore_score is float 0.9, expected a score object"),
        (
            lambda r: r["sim_faith_disagreement_score"].update(label=3),
            "sim_faith_disagreement_score label is int 3, expected text",
        ),
        (lambda r: r.update(output=["a", "b"]), "output is list ['a', 'b'], expected text"),
        (lambda r: r.update(context=7), "context is int 7, expected text or a list of texts"),
        (
            lambda r: r.update(similarity_matches=[["a", "b", "x"]]),
            "similarity_matches is not a list of [token, matched token, similarity]",
        ),
        (lambda r: r.update(row_id=3), "row_id is int, expected text"),
    ],
)
def test_a_cell_of_the_wrong_type_or_a_nan_score_is_refused(scored, capsys, edit, problem):
    out, args = scored
    table = out / "scores.jsonl"
    _edit_line(table, 3, edit)
    _damaged(capsys, args, table, 3, problem)
    assert disagreement.main([*args, "--rescore"]) == disagreement.EXIT_OK  # the way on


def test_a_missing_cell_is_refused(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    _edit_line(table, 2, lambda record: record.pop("groundedness_score"))
    _damaged(capsys, args, table, 2, "groundedness_score is float nan, expected a score object")


def test_the_users_own_columns_are_not_checked(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    _edit_line(table, 1, lambda record: record.update(case={"a": [1, None]}, human_score="high"))
    assert disagreement.main(args) == disagreement.EXIT_OK


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


def test_a_deeply_nested_table_line_is_named(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    lines = _lines(table)
    lines[1] = '{"row_id": ' + "[" * 3000 + "]" * 3000 + "}\n"
    table.write_text("".join(lines))
    _damaged(capsys, args, table, 2, "JSON nested deeper than 100 levels")


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
    argv = [str(table), "--out", str(out), "--no-phoenix", "--rescore", "--question-column", "input"]
    assert disagreement.main(argv) == disagreement.EXIT_BAD_INPUT
    assert _error(capsys) == (
        f"error: jsonl table {table} is the input file {table}: writing it would destroy the input; "
        "choose another output file"
    )
    assert table.read_bytes() == before


@pytest.mark.parametrize("flag", ["--limit", "--top"])
def test_a_count_below_one_is_refused(tmp_path, capsys, flag):
    with pytest.raises(SystemExit) as caught:
        disagreement.main([str(DEMO), "--out", str(tmp_path / "out"), "--no-phoenix", flag, "-1"])
    assert caught.value.code == 2
    assert f"{flag} must be at least 1, got -1" in capsys.readouterr().err


def test_a_result_column_missing_from_the_table_is_named(scored, capsys):
    out, args = scored
    table = out / "scores.jsonl"
    lines = [json.loads(line) for line in _lines(table)]
    for record in lines:
        record.pop("sim_faith_disagreement_score")
    table.write_text("".join(json.dumps(record) + "\n" for record in lines))
    _damaged(capsys, args, table, None, "it has no column 'sim_faith_disagreement_score'")


def test_failed_judge_rows_the_table_lacks_are_named(scored, capsys):
    out, args = scored
    state = out / "state.json"
    state.write_text(state.read_text().replace('"judge_failed_rows": []', '"judge_failed_rows": ["nope"]'))
    _damaged(capsys, args, state, None, "judge_failed_rows names rows the table lacks (['nope'])")


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


def test_a_parquet_table_is_checked_the_same_way(tmp_path, monkeypatch, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    no_judge(monkeypatch)
    out = tmp_path / "out"
    args = [str(DEMO), "--out", str(out), "--no-phoenix", "--limit", "3", "--format", "parquet"]
    assert disagreement.main(args) == disagreement.EXIT_OK
    capsys.readouterr()
    path = out / "scores.parquet"
    arrow = pq.read_table(path)
    first_id = arrow.column("row_id")[0].as_py()
    copied = pa.concat_tables([arrow.slice(0, 1), arrow.slice(0, 1), arrow.slice(2)])
    pq.write_table(copied.replace_schema_metadata(arrow.schema.metadata), path)
    _damaged(capsys, args, path, None, f"row 1: row_id {first_id!r} appears twice (also at row 0)")

    scores = [json.loads(cell) for cell in arrow.column("bertscore_score").to_pylist()]
    scores[2]["score"] = float("nan")
    column = pa.array([json.dumps(cell) for cell in scores])
    damaged = arrow.set_column(arrow.schema.get_field_index("bertscore_score"), "bertscore_score", column)
    pq.write_table(damaged.replace_schema_metadata(arrow.schema.metadata), path)
    _damaged(capsys, args, path, None, "row 2: bertscore_score score is float nan, expected a finite number")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("leave_free", "unwritten", "kept"),
    [
        (0, "scores.jsonl", ()),  # nothing fits: the scored table is the first write
        (40_000, "report/similarity_vs_faithfulness.png", ("scores.jsonl", "state.json")),  # the report
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
        assert error == (
            f"error: --out: {out / unwritten} cannot be written (No space left on device); "
            "free some space or use another --out"
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
            [*fresh_python.argv, "-m", "recipes.disagreement", *_arguments(disk / "out")],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: --out: ")

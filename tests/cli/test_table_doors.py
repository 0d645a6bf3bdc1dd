"""Every door that reads a table (``score``, ``score --explain``, ``faithfulness``, ``compare``, the regression
and disagreement recipes) reads it as pandas does and gives the API's numbers on the texts pandas reads: a
BOM+CRLF CSV with quoted commas, line breaks and a trailing blank line, a TSV cell that starts with a quote,
a JSON array, JSON lines, gzip, standard input with ``--input-format``, a dictionary-encoded parquet column,
a named pipe, a dotted name into nested records, a list column of references. A column flag that cannot
apply and a column name the header holds twice are refused naming the flag; no case scores raw lines."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bertscore_plugins.cli.main import main
from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.core.scorer import get_scorer

IDS = ["q-1", "q-2", "q-3"]
ANSWERS = ["The cat, it sat on the mat.", "Paris is the capital\nof France.", '"Quoted" title, then text']
REFERENCES = ["A cat was sitting on the mat.", "France's capital is Paris.", "A quoted title and some text"]
SECOND = ["The cat sat.", "Paris, France.", "Some text."]  # a second reference per row, for list columns
CONTEXTS = ["The cat sat on the mat all day.", "Paris is the capital of France.", "The title is quoted."]


def api_scores(candidates: list[str], references: list) -> dict[str, np.ndarray]:
    scores = get_scorer(ScoreConfig()).score(candidates, references)
    return {
        name: np.asarray(getattr(scores, name), dtype=np.float32) for name in ("precision", "recall", "f1")
    }


def rows_of(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _csv_text(delimiter: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(["id", "answer", "reference"])
    writer.writerows(zip(IDS, ANSWERS, REFERENCES, strict=True))
    return buffer.getvalue() + "\r\n"  # pandas reads past a trailing blank line


def _records(nested: bool = False, lists: bool = False) -> list[dict]:
    records = []
    for row_id, answer, reference, second in zip(IDS, ANSWERS, REFERENCES, SECOND, strict=True):
        gold: object = [reference, second] if lists else reference
        records.append(
            {"id": row_id, "answer": answer, "meta": {"reference": gold}}
            if nested
            else {"id": row_id, "answer": answer, "reference": gold}
        )
    return records


def write_case(folder: Path, case: str) -> tuple[Path, list[str], list, str]:
    """(file, the candidates and references pandas reads from it, the references' column): each case's file
    written as a user's tool writes it."""
    if case in ("csv", "csv.gz", "tsv"):
        path = folder / f"rows.{case}"
        text = ("\ufeff" if case != "tsv" else "") + _csv_text("\t" if case == "tsv" else ",")
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data) if case.endswith(".gz") else data)
        frame = pd.read_csv(path, sep="\t" if case == "tsv" else ",", dtype=str, keep_default_na=False)
        return path, list(frame["answer"]), list(frame["reference"]), "reference"
    if case in ("json", "jsonl", "jsonl.gz"):
        path = folder / f"rows.{case}"
        records = _records(nested=case == "json", lists=case.startswith("jsonl"))
        text = json.dumps(records) if case == "json" else "".join(json.dumps(r) + "\n" for r in records)
        path.write_bytes(gzip.compress(text.encode()) if case.endswith(".gz") else text.encode())
        frame = pd.json_normalize(records)  # pandas' own meaning of a dotted name
        column = "meta.reference" if case == "json" else "reference"
        return path, list(frame["answer"]), list(frame[column]), column
    if case == "parquet":  # a pandas categorical column: dictionary-encoded in parquet
        path = folder / "rows.parquet"
        frame = pd.DataFrame({"id": IDS, "answer": pd.Categorical(ANSWERS), "reference": REFERENCES})
        frame.to_parquet(path)
        read = pd.read_parquet(path)
        return path, [str(a) for a in read["answer"]], list(read["reference"]), "reference"
    raise AssertionError(case)


CASES = ["csv", "csv.gz", "tsv", "json", "jsonl", "jsonl.gz", "parquet"]


@pytest.mark.parametrize("case", CASES)
def test_score_gives_the_api_numbers_on_the_texts_pandas_reads_with_the_ids(tmp_path, capsys, case):
    path, candidates, references, column = write_case(tmp_path, case)
    flags = ["--candidates-column", "answer", "--references-column", column, "--format", "jsonl"]
    assert main(["score", "-c", str(path), "-r", str(path), *flags, "--summary", "/dev/null"]) == 0
    rows = rows_of(capsys.readouterr().out)
    expected = api_scores(candidates, references)
    assert [row["id"] for row in rows] == IDS  # the default id column, carried through
    for name, values in expected.items():
        assert np.array_equal(np.asarray([row[name] for row in rows], dtype=np.float32), values), name
    assert isinstance(references[0], list) == case.startswith("jsonl")  # several references per row


def test_standard_input_is_read_by_the_format_flag_and_a_column_flag_without_it_is_refused(
    tmp_path, capsys, monkeypatch
):
    path, candidates, references, _ = write_case(tmp_path, "csv")
    refs = tmp_path / "refs.txt"
    refs.write_text("".join(r.replace("\n", " ") + "\n" for r in references), encoding="utf-8")

    def with_stdin(*flags: str) -> int:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
        return main(
            ["score", "-c", "-", "-r", str(refs), *flags, "--format", "jsonl", "--summary", "/dev/null"]
        )

    assert with_stdin("--candidates-column", "answer") == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # the raw CSV lines were not scored
    assert captured.err == (
        "error: --candidates-column names a column, but -c/--candidates file <stdin> is read as plain text "
        "(one text per line); say what it holds with --input-format {csv,tsv,jsonl,json,parquet} or leave "
        "--candidates-column out\n"
    )
    assert with_stdin("--input-format", "csv", "--candidates-column", "answer") == 0
    rows = rows_of(capsys.readouterr().out)
    expected = api_scores(candidates, [r.replace("\n", " ") for r in references])
    assert [row["f1"] for row in rows] == [float(v) for v in expected["f1"]]
    assert [row["id"] for row in rows] == IDS


@pytest.mark.parametrize(
    ("content", "name", "flags", "wanted"),
    [
        # a column named twice: ambiguous, not its first one scored
        (
            "answer,answer\na,b\n",
            "dup.csv",
            ["--column", "answer"],
            "has 2 columns named 'answer' (columns 1, 2)",
        ),
        # a JSON array without a column: named, never its raw lines scored
        (
            '[{"answer": "a"},\n {"answer": "b"}]',
            "rows.json",
            [],
            "is a JSON table: name the column to score with",
        ),
        # a column of a plain text file: the flag cannot apply
        ("a\nb\n", "rows.txt", ["--candidates-column", "answer"], "--candidates-column names a column, but"),
        # ids of a plain text file
        ("a\nb\n", "rows.txt", ["--id-column", "id"], "--id-column names a column, but"),
        # an id column that is not there
        ("answer\na\nb\n", "rows.csv", ["--id-column", "key"], "has no column 'key' (columns: answer)"),
        # a nested path that is not there
        (
            '[{"answer": "a", "meta": {}}]',
            "rows.json",
            ["--column", "meta.gold"],
            "has no field 'meta.gold' in data row 1",
        ),
    ],
)
def test_a_column_flag_that_cannot_apply_is_refused_naming_it(tmp_path, capsys, content, name, flags, wanted):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    refs = tmp_path / "refs.txt"
    refs.write_text("x\ny\n", encoding="utf-8")
    assert main(["score", "-c", str(path), "-r", str(refs), *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and wanted in captured.err and captured.err.count("\n") == 1


@pytest.mark.slow  # the CLI in a subprocess: a model load in a fresh interpreter
def test_a_named_pipe_is_read_once_and_scores(tmp_path):
    """The file is opened once: a parquet table given through a named pipe scores (it hung when the path
    was read once to check it and opened again)."""
    path, candidates, references, _ = write_case(tmp_path, "parquet")
    pipe = tmp_path / "rows-pipe.parquet"
    os.mkfifo(pipe)
    data = path.read_bytes()

    def feed() -> None:
        with open(pipe, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps({"reference": r}) + "\n" for r in references), encoding="utf-8")
    command = [sys.executable, "-m", "bertscore_plugins.cli", "score", "-c", str(pipe), "-r", str(refs)]
    flags = ["--candidates-column", "answer", "--references-column", "reference", "--format", "jsonl"]
    done = subprocess.run(
        [*command, *flags, "--summary", "/dev/null"], capture_output=True, text=True, timeout=300, check=False
    )
    writer.join(timeout=5)
    assert done.returncode == 0, done.stderr
    rows = rows_of(done.stdout)
    assert [row["f1"] for row in rows] == [float(v) for v in api_scores(candidates, references)["f1"]]
    assert [row["id"] for row in rows] == IDS


def test_score_to_a_csv_file_carries_the_ids_and_pandas_reads_the_api_float32_values_exactly(tmp_path):
    path, candidates, references, _ = write_case(tmp_path, "csv")
    out = tmp_path / "out.csv"
    flags = ["--candidates-column", "answer", "--references-column", "reference", "--summary", "/dev/null"]
    assert main(["score", "-c", str(path), "-r", str(path), "--id-column", "id", "-o", str(out), *flags]) == 0
    table = pd.read_csv(out)  # the format follows the file's suffix
    expected = api_scores(candidates, references)
    assert list(table["id"]) == IDS
    for name, values in expected.items():
        assert table[name].to_numpy(np.float32).tolist() == values.tolist(), name
    tsv = tmp_path / "out.tsv"
    assert main(["score", "-c", str(path), "-r", str(path), "-o", str(tsv), *flags]) == 0
    assert pd.read_csv(tsv, sep="\t")["f1"].to_numpy(np.float32).tolist() == expected["f1"].tolist()


def test_explain_reads_a_json_array_with_a_dotted_reference(tmp_path, capsys):
    path, candidates, references, column = write_case(tmp_path, "json")
    flags = ["--candidates-column", "answer", "--references-column", column, "--format", "jsonl", "--explain"]
    assert main(["score", "-c", str(path), "-r", str(path), *flags, "--summary", "/dev/null"]) == 0
    rows = rows_of(capsys.readouterr().out)
    assert [row["f1"] for row in rows] == [float(v) for v in api_scores(candidates, references)["f1"]]
    assert all(row["worst_matches"] for row in rows) and [row["id"] for row in rows] == IDS


@pytest.mark.parametrize("case", ["tsv", "json", "jsonl.gz"])
def test_faithfulness_gives_the_api_numbers_with_the_ids(tmp_path, capsys, case):
    from bertscore_plugins.faithfulness import offline_faithfulness

    path, candidates, _, _ = write_case(tmp_path, case)
    sources = tmp_path / "sources.jsonl"
    # a list of passages per row, as the API takes them
    sources.write_text(
        "".join(json.dumps({"ctx": [c, "More text."]}) + "\n" for c in CONTEXTS), encoding="utf-8"
    )
    flags = ["--candidates-column", "answer", "--sources-column", "ctx", "--format", "jsonl"]
    assert main(["faithfulness", "-c", str(path), "-s", str(sources), *flags, "--summary", "/dev/null"]) == 0
    rows = rows_of(capsys.readouterr().out)
    expected = offline_faithfulness(
        candidates, [[c, "More text."] for c in CONTEXTS], scorer=get_scorer(ScoreConfig(long_text="window"))
    )
    assert [row["score"] for row in rows] == [row.score for row in expected]
    assert [row["id"] for row in rows] == IDS


@pytest.mark.parametrize("case", ["csv", "json", "parquet"])
def test_compare_reads_both_systems_from_tables_and_names_moved_rows_by_id(tmp_path, capsys, case):
    path, candidates, references, column = write_case(tmp_path, case)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({"answer": r}) + "\n" for r in REFERENCES), encoding="utf-8")
    flags = ["--column", "answer", "--references-column", column, "--format", "json", "--top", "3"]
    assert main(["compare", "-a", str(path), "-b", str(other), "-r", str(path), *flags]) == 0
    report = json.loads(capsys.readouterr().out)
    a = api_scores(candidates, references)["f1"]
    moved = {row["row"]: row for row in report["moved"]}
    assert {row["id"] for row in moved.values()} <= set(IDS) and moved
    for row, found in moved.items():
        assert found["score_a"] == pytest.approx(float(a[row]), abs=1e-6)
        assert found["id"] == IDS[row]


def test_the_regression_recipe_reads_a_table_column(tmp_path, capsys):
    from recipes import regression

    path = write_case(tmp_path, "tsv")[0]
    common = [
        "--references",
        str(path),
        "--references-column",
        "reference",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    code = regression.main(["--baseline", str(path), "--candidate", str(path), "--column", "answer", *common])
    assert code == 0, capsys.readouterr().err
    assert "no row moved" in capsys.readouterr().out


@pytest.mark.parametrize("case", CASES)
def test_the_disagreement_recipe_reads_each_case_as_pandas_does(tmp_path, case):
    from bertscore_plugins.cli.disagreement.rows import read_table

    path, candidates, references, column = write_case(tmp_path, case)
    table = read_table(path, wanted={"answer": "--output-column", column: "--reference-column"})
    assert list(table["answer"]) == candidates
    assert [list(r) if isinstance(r, (list, np.ndarray)) else r for r in table[column]] == references
    assert list(table["id"]) == IDS


def test_the_disagreement_recipe_refuses_a_duplicated_column_it_reads(tmp_path):
    from bertscore_plugins.cli.disagreement.rows import InputTableError, read_table

    path = tmp_path / "dup.csv"
    path.write_text("question,output,output\nq,a,b\n", encoding="utf-8")
    with pytest.raises(InputTableError, match=r"has 2 columns named 'output'.*--output-column output"):
        read_table(path, wanted={"output": "--output-column"})
    assert list(read_table(path, wanted={"question": "--question-column"}).columns) == [
        "question",
        "output",
        "output.1",
    ]


def test_the_disagreement_recipe_runs_on_standard_input_with_a_dotted_column(tmp_path, monkeypatch, capsys):
    from bertscore_plugins.cli import disagreement

    for name in ("BERTSCORE_JUDGE_MODEL", "BERTSCORE_JUDGE_BASE_URL", "BERTSCORE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    records = [
        {"id": i, "question": "q?", "context": c, "output": a, "gold": {"answer": [r, s]}}
        for i, c, a, r, s in zip(IDS, CONTEXTS, ANSWERS, REFERENCES, SECOND, strict=True)
    ]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(records).encode())))
    out = tmp_path / "out"
    argv = [
        "-",
        "--input-format",
        "json",
        "--reference-column",
        "gold.answer",
        "--out",
        str(out),
        "--no-phoenix",
    ]
    assert disagreement.main(argv) == 0, capsys.readouterr().err
    table = pd.read_json(out / "scores.jsonl", lines=True)
    assert list(table["id"]) == IDS
    expected = api_scores(ANSWERS, [[r, s] for r, s in zip(REFERENCES, SECOND, strict=True)])["f1"]
    assert table["bertscore_f1"].to_numpy(np.float32).tolist() == pytest.approx(expected.tolist(), abs=1e-6)

"""Input files as users have them: a column of a CSV, TSV, JSON lines or parquet file scores as the same
texts in a plain file would; JSON lines given as plain text are refused naming the option; a multi-line
cell stays in its row; a bad row is one line naming the file and the line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bertscore_plugins.cli.main import main
from bertscore_plugins.errors import FileFormatError
from bertscore_plugins.tables import read_texts

ANSWERS = ["The cat sat on the mat.", "Paris is the capital of France.", "He left on Thursday."]
REFERENCES = [
    "A cat was sitting on the mat.",
    "France's capital is Paris.",
    "He left the hospital on Tuesday.",
]
CONTEXT = "The clinic opened at 9 am.\nParking was free.\n\nThe train, sadly, was late."


def _score(capsys, *flags: str) -> list[list[str]]:
    assert main(["score", *flags, "--summary", "/dev/null"]) == 0
    return [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]


@pytest.fixture
def plain(tmp_path: Path) -> tuple[str, str]:
    answers, refs = tmp_path / "answers.txt", tmp_path / "refs.txt"
    answers.write_text("".join(text + "\n" for text in ANSWERS), encoding="utf-8")
    refs.write_text("".join(text + "\n" for text in REFERENCES), encoding="utf-8")
    return str(answers), str(refs)


def test_a_json_lines_column_scores_as_the_plain_texts(tmp_path, capsys, plain):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(json.dumps({"question": f"q{k}", "output": text}) + "\n" for k, text in enumerate(ANSWERS)),
        encoding="utf-8",
    )
    from_plain = _score(capsys, "-c", plain[0], "-r", plain[1])
    assert _score(capsys, "-c", str(answers), "--column", "output", "-r", plain[1]) == from_plain
    assert len(from_plain) == 3


def test_json_lines_without_a_column_are_refused_naming_the_option(tmp_path, capsys, plain):
    for name in ("answers.jsonl", "answers.txt"):  # by its suffix, or by what a plain text file holds
        answers = tmp_path / name
        answers.write_text("".join(json.dumps({"output": text}) + "\n" for text in ANSWERS), encoding="utf-8")
        assert main(["score", "-c", str(answers), "-r", plain[1]]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
        assert f"-c/--candidates file {answers}" in captured.err
        assert "--column NAME (or --candidates-column NAME)" in captured.err
        assert "output" in captured.err  # the fields there are


def test_csv_tsv_and_parquet_columns_score_as_the_plain_texts(tmp_path, capsys, plain):
    from_plain = _score(capsys, "-c", plain[0], "-r", plain[1])
    for suffix, delimiter in ((".csv", ","), (".tsv", "\t")):
        table = tmp_path / f"rows{suffix}"
        with open(table, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, delimiter=delimiter)
            writer.writerow(["question", "answer", "reference"])
            writer.writerows(
                [f"q{k}", a, r] for k, (a, r) in enumerate(zip(ANSWERS, REFERENCES, strict=True))
            )
        flags = ["--candidates-column", "answer", "--references-column", "reference"]
        assert _score(capsys, "-c", str(table), "-r", str(table), *flags) == from_plain
    parquet = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"answer": ANSWERS, "n": [1, 2, 3]}), parquet)
    assert _score(capsys, "-c", str(parquet), "--column", "answer", "-r", plain[1]) == from_plain


def test_a_multi_line_cell_stays_in_its_row(tmp_path):
    table = tmp_path / "rag.csv"
    with open(table, "w", newline="", encoding="utf-8") as out:
        csv.writer(out).writerows([["answer", "context"], ["It opened at 9.", CONTEXT], ["Late.", "x"]])
    assert read_texts(table, "-s/--sources file", "context") == [CONTEXT, "x"]
    lines = tmp_path / "rag.jsonl"
    lines.write_text(json.dumps({"context": CONTEXT}) + "\n\n" + json.dumps({"context": "x"}) + "\n")
    assert read_texts(lines, "-s/--sources file", "context") == [CONTEXT, "x"]


def test_a_table_of_one_column_needs_no_name_and_a_table_of_several_lists_them(tmp_path, capsys, plain):
    one = tmp_path / "one.csv"
    one.write_text("answer\n" + "".join(text + "\n" for text in ANSWERS), encoding="utf-8")
    assert read_texts(one) == ANSWERS
    several = tmp_path / "several.csv"
    several.write_text("answer,id\nyes,1\n", encoding="utf-8")
    assert main(["score", "-c", str(several), "-r", plain[1]]) == 2
    assert capsys.readouterr().err == (
        f"error: -c/--candidates file {several} is a CSV table: name the column to score with "
        "--column NAME (or --candidates-column NAME) (columns: answer, id)\n"
    )
    assert main(["score", "-c", str(several), "--column", "answr", "-r", plain[1]]) == 2
    assert capsys.readouterr().err == (
        f"error: -c/--candidates file {several} has no column 'answr' (columns: answer, id)\n"
    )


@pytest.mark.parametrize(
    ("name", "content", "line", "problem"),
    [
        ("bad.jsonl", '{"output": "a"}\n{"output": null}\n', 2, "output is missing (null)"),
        ("bad.jsonl", '{"output": "a"}\n{"output": 3}\n', 2, "output is int 3, not text"),
        ("bad.jsonl", '{"output": "a"}\n{"answer": "b"}\n', 2, "has no field 'output' (fields: answer)"),
        ("bad.jsonl", '{"output": "a"}\nnot json\n', 2, "is not JSON (Expecting value)"),
        ("bad.csv", 'output,id\na,1\n"b\nc",2,3\n', 3, "has 3 cells; the header has 2 columns"),
    ],
)
def test_a_bad_row_is_refused_naming_the_file_and_line(tmp_path, name, content, line, problem):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(FileFormatError) as raised:
        read_texts(path, "-c/--candidates file", "output")
    assert str(raised.value) == f"{path}:{line}: {problem}"


def test_a_missing_parquet_cell_names_the_row(tmp_path):
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"output": ["a", None]}), path)
    with pytest.raises(FileFormatError, match=r"rows.parquet: output is missing \(null\) in data row 2$"):
        read_texts(path, "-c/--candidates file", "output")


def test_the_faithfulness_command_reads_a_column_of_sources(tmp_path, capsys):
    table = tmp_path / "rag.jsonl"
    rows = [
        {"answer": "The clinic opened at 9 am.", "context": CONTEXT},
        {"answer": "Parking was free.", "context": CONTEXT},
    ]
    table.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    flags = ["--candidates-column", "answer", "--sources-column", "context", "--summary", "/dev/null"]
    assert main(["faithfulness", "-c", str(table), "-s", str(table), *flags]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3  # the header and one line per row: the context's line breaks stay in its row
    assert [line.split("\t")[2] for line in out[1:]] == ["faithful", "faithful"]


def test_compare_reads_both_systems_from_one_column_and_names_the_option_it_has(tmp_path, capsys, plain):
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"output": text}) + "\n" for text in ANSWERS), encoding="utf-8")
    assert main(["compare", "-a", str(answers), "-b", plain[0], "-r", plain[1]]) == 2
    assert capsys.readouterr().err == (
        f"error: -a/--system-a file {answers} is JSON lines: name the column to score with --column NAME "
        "(columns: output)\n"
    )
    assert main(["compare", "-a", str(answers), "-b", plain[0], "-r", plain[1], "--column", "output"]) == 0
    assert "no row moved" in capsys.readouterr().out  # the same texts, read from a table and from lines

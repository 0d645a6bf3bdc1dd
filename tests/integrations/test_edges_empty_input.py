"""No rows is one clear error naming the argument or the file, in the API and in every command; idf
weights that would overflow a text's total are refused (they made identical texts score 0)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import bertscore_plugins
from bertscore_plugins import IdfTable, ScoreConfig, get_scorer
from bertscore_plugins.cli.main import main
from bertscore_plugins.errors import BertScorePluginsError, InputError
from tests.support.cli import one_error_line

pytestmark = pytest.mark.model

NO_ROWS = (
    "candidates and references are empty: no rows to score (pass at least one candidate and its reference)"
)


@pytest.mark.parametrize("empty", [[], (), "generator"])
def test_scoring_no_rows_is_a_named_input_error(empty):
    with pytest.raises(InputError, match=f"^{re.escape(NO_ROWS)}$") as caught:
        bertscore_plugins.score(iter([]) if empty == "generator" else empty, [])
    assert isinstance(caught.value, BertScorePluginsError) and isinstance(caught.value, ValueError)
    scorer = get_scorer(ScoreConfig())
    with pytest.raises(InputError, match=f"^{re.escape(NO_ROWS)}$"):
        scorer.score_layers([], [], layers=[1])
    with pytest.raises(InputError, match="differ in length: 0 candidates, 1 references"):
        scorer.score([], ["a reference"])  # a mismatch is still named as one


def test_one_row_still_scores():
    assert float(bertscore_plugins.score(["a cat"], ["a cat"]).f1[0]) == pytest.approx(1.0, abs=1e-6)


def test_an_empty_file_is_named_in_every_command(tmp_path, capsys):
    empty, lines = tmp_path / "empty.txt", tmp_path / "lines.txt"
    empty.write_text("")
    lines.write_text("a cat\n")
    error = one_error_line(capsys, ["score", "-c", str(empty), "-r", str(empty)])
    assert error == f"error: -c/--candidates file {empty} is empty: no rows to score"
    error = one_error_line(capsys, ["faithfulness", "-c", str(empty), "-s", str(empty)])
    assert error == f"error: -c/--candidates file {empty} is empty: no rows to score"
    error = one_error_line(capsys, ["compare", "-a", str(empty), "-b", str(empty), "-r", str(empty)])
    assert error == f"error: -a/--system-a file {empty} is empty: no rows to score"
    error = one_error_line(capsys, ["score", "-c", str(lines), "-r", str(empty)])
    assert error == f"error: {empty} has 0 lines but {lines} has 1"
    error = one_error_line(capsys, ["baseline", "--corpus", str(empty), "-o", str(tmp_path / "b.csv")])
    assert error == (
        "error: --corpus gives no sentence pairs: 0 lines hold 0 distinct sentence(s) of 1-31 words; "
        "a baseline needs at least 2 (thousands for a stable one)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt", "lines.txt"]


def test_lines_that_dedupe_to_no_pair_are_named(tmp_path, capsys):
    corpus = tmp_path / "same.txt"
    corpus.write_text("the same line\nthe same line\nthe same line\n")
    error = one_error_line(capsys, ["baseline", "--corpus", str(corpus), "-o", str(tmp_path / "b.csv")])
    assert error == (
        "error: --corpus gives no sentence pairs: 3 lines hold 1 distinct sentence(s) of 1-31 words; "
        "a baseline needs at least 2 (thousands for a stable one)"
    )
    assert not (tmp_path / "b.csv").exists()


@pytest.mark.parametrize("pairs", ["0", "-3"])
def test_zero_pairs_is_named_by_its_flag(tmp_path, capsys, pairs):
    corpus = tmp_path / "c.txt"
    corpus.write_text("one cat\ntwo dogs\n")
    error = one_error_line(
        capsys, ["baseline", "--corpus", str(corpus), "-o", str(tmp_path / "b.csv"), "--pairs", pairs]
    )
    assert error.startswith("error: ") and f"argument --pairs: must be at least 1, got {pairs}" in error


def test_a_baseline_from_two_sentences_is_written_with_its_provenance(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("one cat sat\ntwo dogs ran\n")
    out = tmp_path / "b.csv"
    assert main(["baseline", "--corpus", str(corpus), "-o", str(out), "--layers", "1"]) == 0
    assert out.read_text().splitlines()[0] == "LAYER,P,R,F" and len(out.read_text().splitlines()) == 2
    assert Path(tmp_path / "b.provenance.json").is_file()


# ------------------------------------------------------------------------------ idf weights


@pytest.mark.parametrize("weight", [1e38, 1e31, 10**400])
def test_idf_weights_that_would_overflow_are_refused(weight):
    with pytest.raises(ValueError, match=r"^IdfTable weight of token id 7 is ") as caught:
        IdfTable({5: 1.0, 7: weight}, 1.0)
    assert "above 1e+30: a text's total weight would overflow" in str(caught.value)
    assert isinstance(caught.value, BertScorePluginsError)
    with pytest.raises(ValueError, match=r"^IdfTable unseen_weight is "):
        IdfTable({}, weight)


def test_the_largest_allowed_weights_still_score_identical_texts_one():
    scorer = get_scorer(ScoreConfig())
    text = "the patient was discharged on tuesday after a long stay " * 20  # many tokens
    ids = scorer.tokenizer.encode([text], truncate=True)[0].ids
    table = IdfTable(dict.fromkeys(ids, 1e30), 1e30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = get_scorer(ScoreConfig(idf=table)).score([text], [text])
    assert float(scores.f1[0]) == pytest.approx(1.0, abs=1e-5)


# ------------------------------------------------------------------------------ inputs that are no file


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_given_as_input_is_named_not_read_forever(tmp_path, capsys, device):
    references = tmp_path / "r.txt"
    references.write_text("a cat\n")
    error = one_error_line(capsys, ["score", "-c", device, "-r", str(references)])
    assert error == f"error: -c/--candidates file {device} is a device, not a file"


def test_a_pipe_is_read_as_a_file(tmp_path, capsys):
    import os
    import threading

    references = tmp_path / "r.txt"
    references.write_text("a cat\n")
    fifo = tmp_path / "c.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("a cat\n"))
    writer.start()
    assert main(["score", "-c", str(fifo), "-r", str(references)]) == 0
    writer.join(timeout=60)
    # the float32 F1 written so that it reads back exactly (an identical pair: the float32 below 1.0)
    assert capsys.readouterr().out.splitlines()[1].split("\t")[3] == "0.99999994"


@pytest.mark.parametrize(
    ("spec", "problem"),
    [(":a", "'a'"), (":-1", "'-1'"), (":0,x", "'0,x'")],
    ids=["word", "negative", "mixed"],
)
def test_bad_corpus_columns_are_named(tmp_path, capsys, spec, problem):
    corpus = tmp_path / "c.tsv"
    corpus.write_text("one cat\ttwo dogs\n")
    error = one_error_line(capsys, ["baseline", "--corpus", f"{corpus}{spec}", "-o", str(tmp_path / "b.csv")])
    assert (
        error
        == f"error: --corpus {corpus}{spec}: columns must be 0-based column numbers (0,2), got {problem}"
    )


def test_fitting_idf_on_no_references_is_named():
    with pytest.raises(InputError, match=r"^references are empty: there is nothing to fit idf on$"):
        bertscore_plugins.fit_idf([])

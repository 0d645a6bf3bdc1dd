"""The command line as bert-score users type it: stdin with '-', --version, bert-score's flags."""

from __future__ import annotations

import io
import json
import sys

import pytest

from bertscore_plugins import __version__, get_scorer
from bertscore_plugins.cli.main import main

CANDIDATES = ["A cat sat on a mat.", "Hi there, how are you?"]
REFERENCES = ["The cat sat on the mat.", "Hello there, how are you doing?"]
SECOND = ["A cat was sitting on the mat.", "Hello, how are you?"]


class _Stdin:
    def __init__(self, text: str) -> None:
        self.buffer = io.BytesIO(text.encode("utf-8"))


def _rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.strip().splitlines()[1:]]


def test_candidates_from_stdin_and_bert_scores_flags(tmp_path, monkeypatch, capsys):
    refs, refs2 = tmp_path / "refs.txt", tmp_path / "refs2.txt"
    refs.write_text("\n".join(REFERENCES) + "\n")
    refs2.write_text("\n".join(SECOND) + "\n")
    monkeypatch.setattr(sys, "stdin", _Stdin("\n".join(CANDIDATES) + "\n"))
    # bert-score's spelling: several files after one -r, -l/--num_layers, -b, --nthreads, -s, --lang
    assert (
        main(
            [
                "score",
                "-c",
                "-",
                "-r",
                str(refs),
                str(refs2),
                "--num_layers",
                "3",
                "-b",
                "8",
                "--nthreads",
                "2",
                "-s",
                "--lang",
                "en",
                "--use_fast_tokenizer",
                "--summary",
                str(tmp_path / "s.json"),
            ]
        )
        == 0
    )
    rows = _rows(capsys.readouterr().out)
    expected = get_scorer(layer=3).score(
        CANDIDATES, [list(pair) for pair in zip(REFERENCES, SECOND, strict=True)]
    )
    assert [float(row[3]) for row in rows] == pytest.approx(expected.f1.tolist(), abs=1e-6)
    assert json.loads((tmp_path / "s.json").read_text())["signature"] == str(expected.signature)


def test_references_from_stdin_with_rescale_with_baseline(tmp_path, monkeypatch, capsys):
    cands = tmp_path / "cands.txt"
    cands.write_text("\n".join(CANDIDATES) + "\n")
    monkeypatch.setattr(sys, "stdin", _Stdin("\n".join(REFERENCES) + "\n"))
    assert (
        main(["score", "--cand", str(cands), "--ref", "-", "--rescale_with_baseline", "-m", "default"]) == 0
    )
    rows = _rows(capsys.readouterr().out)
    expected = get_scorer(rescale=True).score(CANDIDATES, REFERENCES)
    assert [float(row[3]) for row in rows] == pytest.approx(expected.f1.tolist(), abs=1e-6)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"bertscore-plugins {__version__}"


def test_did_you_mean_names_our_flag():
    from bertscore_plugins.cli.main import build_parser

    parser = build_parser()
    messages = []
    score_parser = parser._subparsers._group_actions[0].choices["score"]
    score_parser.error = lambda message: messages.append(message) or (_ for _ in ()).throw(SystemExit(2))
    with pytest.raises(SystemExit):
        score_parser.parse_args(["-c", "x", "-r", "y", "--multi_ref", "max"])
    assert messages == ["unrecognized argument --multi_ref; did you mean --multi-ref?"]


def test_flag_choices_come_from_the_config_constants():
    from bertscore_plugins.cli.main import build_parser
    from bertscore_plugins.core.score_config import (
        DTYPES,
        LONG_TEXT_POLICIES,
        MULTI_REF_RULES,
        QUANTIZE_MODES,
    )

    score_parser = build_parser()._subparsers._group_actions[0].choices["score"]
    choices = {action.dest: tuple(action.choices) for action in score_parser._actions if action.choices}
    assert choices["long_text"] == LONG_TEXT_POLICIES and choices["multi_ref"] == MULTI_REF_RULES
    assert choices["dtype"] == DTYPES and choices["quantize"] == QUANTIZE_MODES

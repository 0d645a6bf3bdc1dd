"""Runs keyed on the signature: a library or model change re-encodes or is refused, with the difference."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bertscore_plugins.core.signature as signature_module
from bertscore_plugins import BERTScorer, Scores
from bertscore_plugins.analysis.comparison import compare_systems
from bertscore_plugins.core.signature import SignatureMismatch

REPO = Path(__file__).resolve().parents[2]
CANDIDATES = ["The patient left on Tuesday.", "Sales rose in the third quarter.", "A cat sat on the mat."]
REFERENCES = [
    "The patient was discharged on Tuesday.",
    "Third-quarter sales went up.",
    "The cat is on the mat.",
]


def _upgrade_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    real = signature_module._version
    monkeypatch.setattr(
        signature_module, "_version", lambda name: "99.0.0" if name == "transformers" else real(name)
    )


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


class _TwoSignatures(BERTScorer):
    """Scores whose signature differs between the first and the second call (no model)."""

    def __init__(self) -> None:  # no model: only the comparison's guard is under test
        self.calls = 0

    def score(self, candidates, references, progress=None, explain=False) -> Scores:
        self.calls += 1
        values = np.full(len(candidates), 0.5 + 0.1 * self.calls, dtype=np.float32)
        layer = 4 if self.calls == 1 else 5
        signature = signature_module.Signature(f"bertscore_plugins:1|model:m|layer:{layer}|idf:off")
        return Scores(values, values, values, signature, rescaled=False)


def test_comparing_scores_made_with_different_settings_is_refused_with_the_difference():
    with pytest.raises(SignatureMismatch, match=r"system A's and system B's scores .* layer 4 -> 5"):
        compare_systems(CANDIDATES, CANDIDATES, REFERENCES, _TwoSignatures())


@pytest.mark.slow
@pytest.mark.model
def test_a_library_upgrade_re_encodes_cached_references(tmp_path, monkeypatch, capsys):
    from recipes import regression

    refs = _write(tmp_path / "refs.txt", REFERENCES)
    system = _write(tmp_path / "system.txt", CANDIDATES)
    common = [
        "--baseline",
        system,
        "--candidate",
        system,
        "--references",
        refs,
        "--cache-dir",
        str(tmp_path / "cache"),
        "--out",
        str(tmp_path / "out"),
    ]

    def run() -> dict:
        assert regression.main(common) == regression.EXIT_OK
        return json.loads((tmp_path / "out" / "regression.json").read_text())

    first, again = run(), run()
    assert first["reference_cache"]["misses"] == len(REFERENCES) and again["reference_cache"]["misses"] == 0
    assert again["signature"] == first["signature"] and "note:" not in capsys.readouterr().err

    _upgrade_transformers(monkeypatch)
    upgraded = run()
    assert upgraded["reference_cache"]["misses"] == len(REFERENCES)  # encoded afresh (then reused for B)
    old_version = signature_module.Signature(first["signature"]).fields["transformers"]
    assert f"other settings (transformers {old_version} -> 99.0.0)" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.model
def test_resuming_a_run_made_with_another_library_is_refused_with_the_difference(
    tmp_path, monkeypatch, capsys
):
    from recipes import disagreement

    for name in (
        "BERTSCORE_JUDGE_BASE_URL",
        "BERTSCORE_JUDGE_MODEL",
        "BERTSCORE_JUDGE_API_KEY",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    args = [
        str(REPO / "recipes" / "demo_data.jsonl"),
        "--out",
        str(tmp_path / "out"),
        "--no-phoenix",
        "--limit",
        "4",
    ]
    assert disagreement.main(args) == disagreement.EXIT_OK
    assert disagreement.main(args) == disagreement.EXIT_OK  # same settings: resumed
    capsys.readouterr()

    _upgrade_transformers(monkeypatch)
    assert disagreement.main(args) == disagreement.EXIT_OK  # scored again, under the new scorer's id
    said = capsys.readouterr().out
    assert "were made by another scorer" in said and "Scoring 4 of 4 rows" in said
    assert "-> 99.0.0" in said and "transformers" in said
    assert disagreement.main([*args, "--rescore"]) == disagreement.EXIT_OK

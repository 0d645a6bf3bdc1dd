"""A type checker reads the public API: a misspelt keyword or name in code calling it as the README does is
an error before anything runs. `make lint` runs mypy over the package and readme_usage.py (clean); here a
copy of that file with mistakes in it is checked the same way ([tool.mypy] in pyproject.toml), with the
third-party libraries skipped (tests/support/type_check.py says why)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.type_check import errors_in

pytest.importorskip("mypy", reason="mypy comes with the test extra")

USAGE = Path(__file__).with_name("readme_usage.py")

pytestmark = pytest.mark.slow  # a mypy run (see the docstring)

#: (what the README writes, the mistake, the line of the file mypy names: the call's or the import's first,
#: what mypy says of it)
MISTAKES = [
    (
        'BERTScoreTransform(candidate_column="prediction",',
        'BERTScoreTransform(candidate_colum="prediction",',
        "transform = BERTScoreTransform(",
        'Unexpected keyword argument "candidate_colum" for "BERTScoreTransform"',
    ),
    (
        "actors=1, cpus_per_actor=1,",
        "actors=1, cpus_per_actr=1,",
        "job = RayJob(",
        'Unexpected keyword argument "cpus_per_actr" for "RayJob"',
    ),
    # a setting, taken by every entry point as a keyword (core/score_settings.py)
    (
        "BERTScorer(layer=4, rescale=True)",
        "BERTScorer(layer=4, rescal=True)",
        "scorer = BERTScorer(",
        'Unexpected keyword argument "rescal" for "BERTScorer"',
    ),
    # a setting's value outside its choices
    (
        'plain = score_dataframe(df, "output", "reference")',
        'plain = score_dataframe(df, "output", "reference", long_text="wrap")',
        "plain = score_dataframe(",
        'Argument "long_text" to "score_dataframe" has incompatible type',
    ),
    # a name the front door does not export (imported and used: reported where it is imported)
    (
        "ScoreConfig",
        "ScoreConfg",
        "from bertscore_plugins import",
        'Module "bertscore_plugins" has no attribute "ScoreConfg"',
    ),
]


def test_misspelt_keywords_and_names_in_the_readme_calls_are_reported(tmp_path: Path):
    text = USAGE.read_text(encoding="utf-8")
    for written, mistake, _, _ in MISTAKES:
        assert written in text, written
        text = text.replace(written, mistake)
    copy = tmp_path / "usage_with_mistakes.py"
    copy.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    expected = [
        f"{next(n for n, line in enumerate(lines, 1) if line.startswith(where))}: {said}"
        for _, _, where, said in MISTAKES
    ]
    errors = errors_in(copy)
    # each mistake is reported where it is first written, and nothing else of the file is an error
    assert len(errors) == len(expected), errors
    for wanted in expected:
        assert any(error.startswith(wanted) for error in errors), (wanted, errors)

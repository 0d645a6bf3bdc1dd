"""A type checker reads the public API: a misspelt keyword or name in code calling it as the README does is
an error before anything runs. `make lint` runs mypy over the package and readme_usage.py (clean); here a
copy of that file with mistakes in it is checked the same way ([tool.mypy] in pyproject.toml).

mypy runs in the repository with its default cache (.mypy_cache, which `make lint` fills): about 3 s warm,
about 40 CPU seconds the first time on a machine (it reads torch's and transformers' annotations)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy comes with the test extra")

REPO = Path(__file__).resolve().parents[2]
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


def _errors_in(path: Path) -> list[str]:
    """mypy's errors in `path` (the package's own are `make lint`'s business), as 'line: message'."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    # by the file's name: mypy replays an unchanged module's errors from its cache with the path it had then
    found = re.findall(rf"^\S*/{re.escape(path.name)}:(\d+): error: (.*)$", done.stdout, re.MULTILINE)
    return [f"{line}: {message}" for line, message in found] or [done.stdout]


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
    errors = _errors_in(copy)
    # each mistake is reported where it is first written, and nothing else of the file is an error
    assert len(errors) == len(expected), errors
    for wanted in expected:
        assert any(error.startswith(wanted) for error in errors), (wanted, errors)

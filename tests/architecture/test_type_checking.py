"""A type checker reads the public API: a misspelt keyword or name in code calling it as the README does is
an error before anything runs. `make lint` runs mypy over the package and readme_usage.py (clean); here a
copy of that file with mistakes in it is checked the same way ([tool.mypy] in pyproject.toml).

mypy runs in the repository with [tool.mypy] of pyproject.toml (its one home), plus one thing: the third-party
libraries the package and the file import are skipped (their names are Any), with a cache of its own. What is
checked here is this package's own signatures; reading torch's, transformers' and numpy's annotations was
~76 of the ~82 CPU seconds a cold run took (6.5 s without them), paid by every fresh clone's `make test`.
`make lint` still type-checks the package and readme_usage.py against those libraries' annotations."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy comes with the test extra")

try:
    import tomllib
except ImportError:  # Python 3.10: mypy's own TOML reader
    import tomli as tomllib

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


#: third-party names kept followed: their types are the checked signatures' own (Literal, Self, ...)
TYPING_HELPERS = {"typing_extensions"}


def third_party_imports(paths: list[Path]) -> set[str]:
    """The top-level names of the libraries the files import (not the standard library, not this package)."""
    names = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"__future__", "bertscore_plugins"} - TYPING_HELPERS


def _config_skipping_libraries(folder: Path) -> Path:
    """pyproject's [tool.mypy] and its overrides, plus the package's libraries skipped (see the docstring)."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    overrides = settings.pop("overrides", [])
    libraries = third_party_imports([*(REPO / "bertscore_plugins").rglob("*.py"), USAGE])
    skipped = sorted(name for library in libraries for name in (library, f"{library}.*"))
    overrides.append({"module": skipped, "follow_imports": "skip", "follow_imports_for_stubs": True})
    lines = ["[tool.mypy]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    for override in overrides:
        lines += [
            "[[tool.mypy.overrides]]",
            *(f"{key} = {json.dumps(value)}" for key, value in override.items()),
        ]
    config = folder / "mypy.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _errors_in(path: Path) -> list[str]:
    """mypy's errors in `path` (the package's own are `make lint`'s business), as 'line: message'."""
    config = _config_skipping_libraries(path.parent)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--config-file", str(config)),
            *("--cache-dir", str(path.parent / "mypy-cache")),
            *("--no-error-summary", "--hide-error-context", str(path)),
        ],
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

"""mypy run on one file the way the tests need it: with [tool.mypy] of pyproject.toml (its one home), plus one
thing: the third-party libraries the package imports are skipped (their names are Any), with a cache of its
own. What is checked is this package's own signatures; reading torch's, transformers' and numpy's
annotations was ~76 of the ~82 CPU seconds a cold run took (6.5 s without them). `make lint` still
type-checks the package against those libraries' annotations (its own environment)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: mypy's own TOML reader
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
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


def config_skipping_libraries(checked: Path) -> Path:
    """pyproject's [tool.mypy] and its overrides, plus the libraries of the package and of ``checked`` skipped,
    written beside ``checked``."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    overrides = settings.pop("overrides", [])
    libraries = third_party_imports([*(REPO / "bertscore_plugins").rglob("*.py"), checked])
    skipped = sorted(name for library in libraries for name in (library, f"{library}.*"))
    overrides.append({"module": skipped, "follow_imports": "skip", "follow_imports_for_stubs": True})
    lines = ["[tool.mypy]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    for override in overrides:
        lines += [
            "[[tool.mypy.overrides]]",
            *(f"{key} = {json.dumps(value)}" for key, value in override.items()),
        ]
    config = checked.parent / "mypy.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def errors_in(path: Path) -> list[str]:
    """mypy's errors in `path` (the package's own are `make lint`'s business), as 'line: message'."""
    config = config_skipping_libraries(path)
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

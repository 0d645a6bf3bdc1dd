"""Every module path a docstring, comment or message of the package names exists: ``evaluation.store``,
``bertscore_plugins.core.scorer.resolve_scorer``, ``recipes.demo``. A module that moved leaves no reader (nor a
user following an error message) looking for its old home. Read from the source (tokens: strings and comments
only, f-string fields left out), nothing is imported."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bertscore_plugins"
TIERS = "core|models|facts|faithfulness|analysis|evaluation|integrations|tools|judge|cli"
NAMED = re.compile(rf"(?<![\w./])(?:bertscore_plugins\.)?((?:{TIERS}|recipes)(?:\.[A-Za-z_]\w*)+)")
FIELD = re.compile(r"\{[^{}]*\}")  # an f-string's field is code, not a name written for a reader


def _defines(source: str, name: str) -> bool:
    """``name`` is defined, assigned or imported at a module's top level, is a method or attribute of it, or is
    in a package's table of lazily imported names (``"evaluate_rows",``)."""
    return bool(
        re.search(
            rf"^\s*(?:async\s+)?(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]|^(?:from|import)\b[^\n]*\b{name}\b"
            rf"|^\s+{name}\b|^\s*\(?\s*{name},|[\"']{name}[\"'],",
            source,
            re.M,
        )
    )


def _problem(dotted: str) -> str | None:
    """Why ``dotted`` names nothing (the longest prefix that is a module, then a name it defines), or None."""
    parts = dotted.split(".")
    top = ROOT if parts[0] == "recipes" else PACKAGE
    for n in range(len(parts), 0, -1):
        base = top.joinpath(*parts[:n])
        for module in (base.with_suffix(".py"), base / "__init__.py"):
            if module.exists():
                rest = parts[n:]
                if not rest or _defines(module.read_text(encoding="utf-8"), rest[0]):
                    return None
                return f"{module.relative_to(ROOT)} defines no {rest[0]!r}"
    return "no such module"


def _named(path: Path) -> list[tuple[int, str]]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            found += [(token.start[0], m.group(1)) for m in NAMED.finditer(FIELD.sub("", token.string))]
    return found


def test_every_module_path_named_in_the_package_exists():
    missing = [
        f"{path.relative_to(ROOT)}:{line} {dotted}: {problem}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "metric_card" not in path.parts
        for line, dotted in _named(path)
        if (problem := _problem(dotted))
    ]
    assert missing == []


def test_a_module_that_does_not_exist_is_found():
    assert "defines no 'result_store'" in (_problem("integrations.phoenix.result_store") or "")
    assert _problem("evaluation.store.ResultStore") is None and _problem("recipes.demo") is None
    assert "defines no 'missing_name'" in (_problem("evaluation.cells.missing_name") or "")

"""Shape rules for the core's code (no model)."""

from __future__ import annotations

import ast
from pathlib import Path

import bertscore_plugins

PACKAGE = Path(bertscore_plugins.__file__).parent


def test_no_core_function_takes_more_than_six_positional_parameters():
    # a function with a dozen positional parameters is a sign that a value is missing; settings go
    # after a `*` as keywords
    crowded = []
    for path in sorted(PACKAGE.glob("*.py")):  # the core: the package's top-level modules
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if path.name == "compat.py" and (not node.name.startswith("_") or node.name == "__init__"):
                    continue  # bert_score's own signatures, kept positional so migrating is one import
                positional = [
                    a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")
                ]
                if len(positional) > 6:
                    crowded.append(f"{path.name}:{node.lineno} {node.name} ({len(positional)})")
    assert crowded == []


def test_the_package_trusts_its_own_modules():
    # no `except ImportError` around imports of bertscore_plugins' own modules (a missing module is a
    # broken install, to be reported as such, not papered over)
    guarded = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Try) and any(
                isinstance(handler.type, ast.Name)
                and handler.type.id in ("ImportError", "ModuleNotFoundError")
                for handler in node.handlers
            ):
                for statement in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                    if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith(
                        "bertscore_plugins"
                    ):
                        guarded.append(f"{path.relative_to(PACKAGE)}:{statement.lineno}")
    assert guarded == []

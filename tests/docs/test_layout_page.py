"""The layout on the contributing page names every package module and folder, and nothing that does not
exist: a module added, moved or removed without a line there fails here (no model, no network)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.blocks import REPO, code_blocks

PAGE = REPO / "docs" / "contributing.md"
_ENTRY = re.compile(r"^( *)(\S+)")
INDENT = 2


def listed_paths() -> list[Path]:
    """The entries of the page's Layout block, as repository paths (nesting by two-space indentation)."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    heading = lines.index("## Layout") + 1
    block = next(b for b in code_blocks(PAGE) if b.line > heading and b.language == "text")
    parents: list[str] = []
    paths = []
    for line in block.code.splitlines():
        indent, name = _ENTRY.match(line).groups()
        depth = len(indent) // INDENT
        assert len(indent) % INDENT == 0 and depth <= len(parents), f"misindented layout line: {line!r}"
        parents = parents[:depth]
        paths.append(REPO.joinpath(*parents, name))
        if name.endswith("/"):
            parents.append(name.rstrip("/"))
    return paths


def package_entries() -> set[Path]:
    """Every module and subpackage of bertscore_plugins and every test folder (caches aside)."""
    package = REPO / "bertscore_plugins"
    modules = {
        path
        for path in package.rglob("*.py")
        if path.name not in ("__main__.py",) and "metric_card" not in path.relative_to(package).parts
    }
    modules = {p for p in modules if p.name != "__init__.py" or p.parent == package}
    folders = {p.parent for p in package.rglob("__init__.py")} - {package}
    test_folders = {p for p in (REPO / "tests").rglob("*") if p.is_dir() and p.name != "__pycache__"}
    return modules | folders | test_folders


def test_everything_the_layout_names_exists():
    missing = [str(path.relative_to(REPO)) for path in listed_paths() if not path.exists()]
    assert not missing, f"docs/contributing.md's Layout names what does not exist: {missing}"


def test_the_layout_names_every_module_package_and_test_folder():
    listed = {path.resolve() for path in listed_paths()}
    unlisted = sorted(str(p.relative_to(REPO)) for p in package_entries() if p.resolve() not in listed)
    assert not unlisted, f"add a line for each to the Layout of docs/contributing.md: {unlisted}"

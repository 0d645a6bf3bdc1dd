"""README's Layout section names files and folders that exist (no model, no network)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _layout_block() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Layout\n", 1)[1]
    return section.split("```\n")[1].splitlines()


def test_every_file_and_folder_the_layout_names_exists():
    top = REPO
    missing = []
    for line in _layout_block():
        line = re.sub(r"`[^`]*`", "", line)  # commands in backticks are not paths
        if not line.startswith(" "):
            top = REPO / line.split()[0]  # bertscore_plugins/, tests/, recipes/, ...
            assert top.is_dir(), line
            continue
        # indented lines name things somewhere inside the last top-level folder (modules by bare name)
        for name in re.findall(r"\b([a-z_]+(?:/[a-z_]+)*(?:\.py|/))", line):
            if not (top / name).exists() and not any(top.rglob(name.rstrip("/"))):
                missing.append(f"{top.name}/ {name}")
    assert not missing, f"README's Layout names what does not exist: {missing}"


def test_the_layout_lists_every_package_module():
    listed = " ".join(_layout_block())
    package = REPO / "bertscore_plugins"
    modules = [p.name for p in package.glob("*.py") if not p.name.startswith("_")]
    folders = [p.name + "/" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    unlisted = [name for name in modules + folders if name not in listed]
    assert not unlisted, f"modules missing from README's Layout: {unlisted}"

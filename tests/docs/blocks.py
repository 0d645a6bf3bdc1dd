"""The code blocks of the README and the documentation pages, with the marker that may precede each.

A block runs in the tests unless the line before its fence (blank lines aside) is a marker saying what it
needs that a test machine does not have: ``<!-- needs: network -->``, ``<!-- needs: a Phoenix server -->``.
Only ``python`` and ``bash`` blocks are run; a ``text`` block is output or a synopsis, never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUN_LANGUAGES = ("python", "bash")
_FENCE = re.compile(r"^(```+)([\w-]*)\s*$")
_NEEDS = re.compile(r"^<!--\s*needs:\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    needs: str | None  # what the block needs that the tests lack (None: the tests run it)

    @property
    def where(self) -> str:
        path = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        return f"{path}:{self.line}"


def documentation_files() -> list[Path]:
    """README.md and every page under docs/."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def code_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, language = opening.groups()
        end = next(
            (i for i in range(index + 1, len(lines)) if lines[i].strip() == fence),
            len(lines),
        )
        previous = next((lines[i].strip() for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = _NEEDS.match(previous)
        code = "\n".join(lines[index + 1 : end]) + "\n"
        blocks.append(Block(path, index + 1, language, code, marker.group(1) if marker else None))
        index = end + 1
    return blocks


def all_blocks() -> list[Block]:
    return [block for path in documentation_files() for block in code_blocks(path)]

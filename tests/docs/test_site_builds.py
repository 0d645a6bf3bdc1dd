"""The documentation site builds with `mkdocs build --strict`: every page in the nav, no broken link or
anchor, the API reference read from the docstrings, the CLI reference written from the parser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import REPO
from tests.docs.workspace import make_workspace

pytest.importorskip("mkdocs", reason="the documentation tools are in the test extra")
pytest.importorskip("mkdocstrings")

COMMANDS = [
    "score",
    "faithfulness",
    "compare",
    "sanity",
    "baseline",
    "phoenix serve",
    "phoenix evaluate",
    "disagreement",
]


def build(config: Path, site: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def copy_of_the_site_sources(folder: Path) -> Path:
    """mkdocs.yml and docs/ copied, the package linked: a copy to break on purpose."""
    shutil.copy(REPO / "mkdocs.yml", folder / "mkdocs.yml")
    shutil.copytree(REPO / "docs", folder / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bertscore_plugins").symlink_to(REPO / "bertscore_plugins", target_is_directory=True)
    return folder / "mkdocs.yml"


@pytest.mark.slow
def test_the_site_builds_strictly_with_every_page_and_every_command(tmp_path):
    site = tmp_path / "site"
    done = build(REPO / "mkdocs.yml", site, make_workspace(tmp_path))
    assert done.returncode == 0, done.stderr[-4000:]
    pages = sorted(p.relative_to(REPO / "docs") for p in (REPO / "docs").glob("*.md"))
    for page in pages:
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert built.is_file(), page
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"usage: bertscore-plugins {command}" in cli, command
    assert "cli-help" not in cli  # every marker was replaced
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("BERTScorer", "score_ray_dataset", "BERTScoreTransform", "evaluate_project", "check_facts"):
        assert 'id="bertscore_plugins.' in api and name in api, name


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage, named",
    [
        (
            "[the missing page](missing.md) and [a missing section](behaviour.md#no-such-section)",
            ["missing.md", "no-such-section"],
        ),
        ("<!-- cli-help: no-such-command -->", ["no-such-command"]),
    ],
    ids=["broken link and anchor", "stale CLI marker"],
)
def test_a_broken_link_or_marker_fails_the_build(tmp_path, damage, named):
    (tmp_path / "copy").mkdir()
    config = copy_of_the_site_sources(tmp_path / "copy")
    index = tmp_path / "copy" / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + f"\n{damage}\n", encoding="utf-8")
    done = build(config, tmp_path / "site", make_workspace(tmp_path))
    assert done.returncode != 0
    for name in named:
        assert name in done.stderr, done.stderr[-3000:]

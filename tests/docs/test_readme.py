"""The README is the five-minute front page: short, the two set-up commands, an install path with
extras, one example per entry point, and links that resolve (no model, no network)."""

from __future__ import annotations

import re

from tests.docs.blocks import REPO, code_blocks

README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = code_blocks(README)


def runnable(fragment: str) -> list:
    return [b for b in BLOCKS if fragment in b.code and b.needs is None and b.language in ("python", "bash")]


def test_the_readme_is_short():
    assert len(TEXT.splitlines()) <= 200


def test_the_two_setup_commands_and_an_install_with_extras():
    assert any("make demo" in b.code and "make test" in b.code for b in BLOCKS if b.language == "bash")
    install = next(b.code for b in BLOCKS if "pip install" in b.code)
    extras = re.search(r"pip install \"\.\[([\w,]+)\]\"", install)
    assert extras and {"evaluate", "phoenix", "ray"} <= set(extras.group(1).split(","))


def test_one_example_per_entry_point_and_each_is_run_by_the_tests():
    # the ray block is run by tests/integrations/test_readme_ray_snippet.py, the others by tests/docs
    for fragment in (
        "from bertscore_plugins import BERTScorer, score",
        "from bertscore_plugins.integrations.compat import score",
        "evaluate.load(metric_card_path())",
        "ds.map(transform",
        "transform = transform.fit_idf(",
        "from bertscore_plugins.integrations.hf_datasets import score_dataframe",
        "batch_evaluate_dataframe(df, BERTScoreEvaluator())",
        "bertscore-plugins score",
        "bertscore-plugins judge serve",
    ):
        assert runnable(fragment), f"no README block the tests run holds {fragment!r}"
    assert "score_ray_dataset" in TEXT and "python -m recipes.disagreement" in TEXT
    assert "HF_HUB_OFFLINE=1" in TEXT


def test_the_traces_section_starts_phoenix_first():
    section = TEXT.split("## Your application's traces", 1)[1].split("\n## ", 1)[0]
    assert section.index("phoenix serve") < section.index("phoenix evaluate")


def test_every_link_resolves_and_every_documentation_page_is_linked():
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXT)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert [t for t in local if not (REPO / t).exists()] == []
    pages = {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md") if p.name != "index.md"}
    assert pages <= set(local), sorted(pages - set(local))


def test_the_readme_installs_the_torch_the_makefile_installs():
    """One install story: the README's torch line is the Makefile's (the version the tests run on)."""
    makefile = re.findall(r"pip install -q (torch\S*)", (REPO / "Makefile").read_text(encoding="utf-8"))
    readme = re.findall(r"^pip install (torch\S*)", README.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert makefile == ["torch==2.13.0"] and readme == makefile

"""The metric card: one copy (in the package), loader-safe scripts wherever `evaluate.load` is pointed, a
complete card whose examples are real."""

from __future__ import annotations

import doctest
import re
import runpy
import sys
import types
from pathlib import Path

import pytest
import tomllib

from bertscore_plugins import get_scorer
from tests.support.extras import extra

evaluate = extra("evaluate", "the evaluate extra is not installed")
yaml = extra("yaml")
hf_evaluate = extra("bertscore_plugins.integrations.hf_evaluate")

REPO = Path(__file__).resolve().parents[2]
CHECKOUT_FOLDER = REPO / "metric_card"  # evaluate.load("./metric_card") from a clone: the loading script only
CARD = REPO / "bertscore_plugins" / "metric_card"  # the card itself, shipped with the package
SHIPPED_FILES = ["README.md", "app.py", "bert_score_plugins.py", "metric_card.py", "requirements.txt"]
LOADING_SCRIPTS = [
    CHECKOUT_FOLDER / "metric_card.py",
    CARD / "metric_card.py",
    CARD / "bert_score_plugins.py",
]


def card_files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.is_file() and path.suffix != ".pyc")


def test_the_card_exists_once_in_the_package():
    assert Path(hf_evaluate.metric_card_path()) == CARD
    assert card_files(CARD) == SHIPPED_FILES
    # the clone's folder holds only what evaluate runs: no second card, requirements or widget to keep equal
    assert card_files(CHECKOUT_FOLDER) == ["metric_card.py"]
    assert not [p for p in CHECKOUT_FOLDER.iterdir() if p.is_dir() and p.name != "__pycache__"]
    cards = [p for p in REPO.rglob("README.md") if "# Metric Card for" in p.read_text(encoding="utf-8")]
    assert [p for p in cards if ".venv" not in p.parts and "build" not in p.parts] == [CARD / "README.md"]


def test_package_data_ships_every_card_file():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["bertscore_plugins"]
    package = REPO / "bertscore_plugins"
    shipped = {path for pattern in patterns for path in package.glob(pattern)}  # setuptools' glob rules
    for name in SHIPPED_FILES:
        assert package / "metric_card" / name in shipped, name


@pytest.mark.parametrize("script", LOADING_SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_loading_script_follows_evaluate_rules_and_finds_the_packages_metric(script):
    from evaluate.loading import get_imports
    from evaluate.naming import camelcase_to_snakecase

    # evaluate.load(folder) runs <folder>/<folder name>.py; a Space runs <space name>.py (the module's name)
    module_name = camelcase_to_snakecase(hf_evaluate.BERTScorePlugins.__name__)
    assert module_name == "bert_score_plugins"
    assert script.stem in (script.parent.name, module_name)
    # evaluate checks library imports and turns the rest of an import line into a pip hint
    imports = get_imports(str(script))
    assert imports == [("library", "bertscore_plugins", "bertscore_plugins", None)], imports
    # the first EvaluationModule subclass in the script wins: import our class only
    namespace = runpy.run_path(str(script))
    classes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, evaluate.Metric)]
    assert classes == [hf_evaluate.BERTScorePlugins]


def test_space_requirements_are_the_packages_own_pypi_requirements():
    # a Space installs requirements.txt only; bertscore-plugins is not on PyPI, so `make space` ships its
    # source beside the card and the requirements are its dependencies and the [evaluate] extra
    lines = [
        line
        for line in (CARD / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert lines == project["dependencies"] + project["optional-dependencies"]["evaluate"]
    assert not any(line.startswith("bertscore-plugins") for line in lines)


def read_card() -> tuple[dict, str]:
    text = (CARD / "README.md").read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, flags=re.DOTALL)
    assert match, "the card must start with a YAML header"
    return yaml.safe_load(match.group(1)), text[match.end() :]


def test_card_header_and_sections():
    header, body = read_card()
    for key in ("title", "sdk", "sdk_version", "app_file", "description"):
        assert header.get(key), key
    assert header["app_file"] == "app.py" and set(header["tags"]) >= {"evaluate", "metric"}
    headings = re.findall(r"^#{1,4} (.+)$", body, flags=re.MULTILINE)
    expected = [
        "Metric Description",
        "How to Use",
        "Inputs",
        "Output Values",
        "Values measured on public data",
        "Examples",
        "Limitations and Bias",
        "Citation",
        "Further References",
    ]
    positions = [headings.index(name) for name in expected]
    assert positions == sorted(positions), headings
    assert "[-1, 1]" in body and "unbounded below" in body
    assert "@inproceedings{bert-score" in body
    assert "VALUE_" not in body, "fill the measured values (python benchmarks/quality/metric_card_values.py)"


@pytest.mark.filterwarnings("ignore:.*empty candidate")
def test_card_examples_print_the_real_outputs():
    """Runs every `>>>` example of the card (they use the installed copy, offline) and compares output."""
    _, body = read_card()
    test = doctest.DocTestParser().get_doctest(body, {}, "metric_card/README.md", str(CARD), 0)
    assert len(test.examples) >= 15
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_gradio_app_builds_the_widget(monkeypatch):
    """app.py with a stand-in gradio (not installed here): the widget's function scores like the core."""
    import pandas as pd

    built: dict = {}

    class Interface:
        def __init__(self, **kwargs):
            built.update(kwargs)

        def launch(self):
            built["launched"] = True

    fake = types.ModuleType("gradio")
    fake.Interface = Interface
    fake.inputs = types.SimpleNamespace(Dataframe=lambda **kwargs: ("dataframe", kwargs))
    fake.outputs = types.SimpleNamespace(Textbox=lambda **kwargs: ("textbox", kwargs))
    monkeypatch.setitem(sys.modules, "gradio", fake)
    monkeypatch.setattr(sys, "path", [str(CARD), *sys.path])  # the widget reads sys.path[0]/README.md
    runpy.run_path(str(CARD / "app.py"), run_name="__main__")

    assert built["launched"] and built["title"] == "Metric: bert_score_plugins"
    assert "# Metric Card for BERTScore" in built["article"]
    table = pd.DataFrame({"predictions": ['"A cat sat."'], "references": ['["The cat sat.", "A dog sat."]']})
    result = built["fn"](table)
    expected = get_scorer().score(["A cat sat."], [["The cat sat.", "A dog sat."]])
    assert result["f1"] == expected.f1.tolist()

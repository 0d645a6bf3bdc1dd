"""The package's public names are a decision, not an accident: pinned here, each with one import path, each
visible to a type checker, each warning filterable by one base class."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

import bertscore_plugins
import bertscore_plugins.integrations.phoenix as phoenix_package
from bertscore_plugins.errors import BertScorePluginsError, BertScorePluginsWarning

PACKAGE = Path(bertscore_plugins.__file__).parent

PUBLIC = [
    "BERTScorer",
    "DEFAULT_MODEL",
    "EmptyTextWarning",
    "Explanation",
    "IdfFallbackWarning",
    "IdfTable",
    "ScoreConfig",
    "Scores",
    "Signature",
    "TokenMatch",
    "TruncationWarning",
    "UnknownTokenWarning",
    "bootstrap_interval",
    "compare_systems",
    "corpus_intervals",
    "fit_idf",
    "get_scorer",
    "paired_test",
    "run_sanity",
    "score",
    "setting_names",
]
#: the packages whose names are imported on first use: their TYPE_CHECKING imports are what a checker reads
LAZY_FRONT_DOORS = [bertscore_plugins, phoenix_package]


def test_the_public_names_are_exactly_these():
    assert bertscore_plugins.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_resolves_from_the_module_that_defines_it(name):
    value = getattr(bertscore_plugins, name)
    home = importlib.import_module(bertscore_plugins._MODULE_OF[name])
    assert getattr(home, name) is value
    if isinstance(value, type) or callable(value):
        assert value.__module__ == home.__name__, (
            f"{name} is defined in {value.__module__}, not {home.__name__}"
        )


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'scroe'"):
        bertscore_plugins.scroe  # noqa: B018


def _checker_imports(package) -> dict[str, str]:
    """name -> module, from the package's ``if TYPE_CHECKING:`` block (read from the source, as a checker does)."""
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    [block] = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
    ]
    found = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom), ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name}: `X as X` marks it re-exported"
            found[alias.name] = node.module
    return found


@pytest.mark.parametrize("package", LAZY_FRONT_DOORS, ids=lambda package: package.__name__)
def test_a_type_checker_reads_every_lazy_name_from_the_module_it_is_loaded_from(package):
    assert _checker_imports(package) == package._MODULE_OF
    assert sorted(package.__all__) == sorted(package._MODULE_OF)


@pytest.mark.parametrize("package", LAZY_FRONT_DOORS, ids=lambda package: package.__name__)
def test_a_front_door_exports_only_names_of_its_own_package(package):
    # the Phoenix package does not hand out the evaluation engine's names (EvaluationConfig, Thresholds, ...):
    # those are imported from bertscore_plugins.evaluation, their one path
    prefix = package.__name__ + "."
    assert [name for name, module in package._MODULE_OF.items() if not module.startswith(prefix)] == []


def _exported_names() -> dict[str, list[str]]:
    """name -> every module of the package whose ``__all__`` lists it."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        if "metric_card" in path.parts:  # loading scripts evaluate runs, not package modules
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "__all__" for t in node.targets
            ):
                try:
                    names = ast.literal_eval(node.value)
                except ValueError:  # computed (the lazy front doors): read it from the module
                    names = importlib.import_module(module).__all__
                for name in names:
                    found[name].append(module)
    return found


def test_each_public_name_has_one_import_path():
    exported = _exported_names()
    assert {"BERTScorer", "InputError", "offline_faithfulness", "evaluate_project"} <= set(exported)
    assert {name: modules for name, modules in exported.items() if len(modules) > 1} == {}


def test_importing_the_package_loads_no_torch_and_no_submodule():
    # the names are imported on first use: `import bertscore_plugins` (and a bad flag refused by the command
    # line) does not pay for torch and transformers
    code = "import sys, bertscore_plugins; print(sorted(m for m in sys.modules if 'torch' in m or m.startswith('bertscore_plugins.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def _warning_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(bertscore_plugins.__path__, "bertscore_plugins."):
        if ".metric_card" in info.name or info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Warning) and value.__module__ == info.name
        ]
    return found


def test_every_warning_class_of_the_package_derives_from_one_base():
    classes = _warning_classes()
    assert len(classes) >= 9  # empty text, truncation, idf, unknown tokens, cache x2, store, layer, digest
    assert [cls.__name__ for cls in classes if not issubclass(cls, BertScorePluginsWarning)] == []
    assert issubclass(BertScorePluginsWarning, UserWarning)
    assert not issubclass(BertScorePluginsWarning, BertScorePluginsError)


def test_one_filter_silences_the_package_warnings_and_no_other():
    from bertscore_plugins.core.row_warnings import EmptyTextWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=BertScorePluginsWarning)
        warnings.warn("empty", EmptyTextWarning, stacklevel=1)
        warnings.warn("someone else's", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["someone else's"]

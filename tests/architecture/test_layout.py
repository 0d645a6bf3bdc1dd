"""The folders are the architecture: tiers import only the tiers below them, no cycles, small modules.

Read from the source with ``ast`` (nothing is imported), so a lazy import inside a function counts the same
as one at the top of a module: it is still a dependency a reader has to follow.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "bertscore_plugins"
#: bottom to top; each tier may import the shared modules at the top level (errors, settings, files,
#: inputs, thresholds) and the tiers before it, never one after it. facts/ is English text analysis and
#: sits below the scorer: the offline signal that runs the scorer is faithfulness/. judge/ (the LLM judge, its
#: server and launcher) sits above tools/, whose loopback helpers its launcher uses
TIERS = (
    "facts", "models", "core", "faithfulness", "analysis", "evaluation", "integrations", "tools", "judge", "cli",
)  # fmt: skip
#: the package's front door re-exports the public names of several tiers
FRONT_DOOR = {"bertscore_plugins"}
#: modules that must not import Phoenix (or OpenInference): the engine runs without it
PHOENIX_FREE = ("models", "core", "facts", "faithfulness", "analysis", "evaluation")
#: what the fact check must never import: it reads texts and an alignment, it never scores or loads a model
SCORER_AND_MODELS = (
    "torch",
    "transformers",
    "safetensors",
    "bertscore_plugins.core",
    "bertscore_plugins.models",
)
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 8
#: bert_score's own signatures, kept for drop-in use
UPSTREAM_SIGNATURES = {"bertscore_plugins.integrations.compat"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "metric_card" not in path.parts  # loading scripts that evaluate runs, not package code
    }


MODULES = _modules()


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module's syntax tree, parsed once per process (the rules below each read them all)."""
    return tuple(ast.walk(ast.parse(path.read_text())))


@functools.cache
def _imports(path: Path) -> list[tuple[str, int]]:
    """Every module this file imports (absolute names), with the line."""
    found = []
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if node.module == "bertscore_plugins" and alias.name == "__version__":
                    continue  # the one version, read from the package
                child = f"{node.module}.{alias.name}"
                found.append((child if child in MODULES else node.module, node.lineno))
    return found


def _tier(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in TIERS:
        return TIERS.index(parts[1])
    return None  # a shared top-level module (errors, settings, files, inputs)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        for target, _ in _imports(path):
            if target in MODULES and target != module:
                graph[module].add(target)
    return graph


def test_each_tier_imports_only_the_shared_modules_and_the_tiers_below_it():
    wrong = []
    for module, path in MODULES.items():
        if module in FRONT_DOOR:
            continue
        own = _tier(module)
        for target, line in _imports(path):
            if not target.startswith("bertscore_plugins") or target in FRONT_DOOR:
                if target == "bertscore_plugins" and module not in FRONT_DOOR:
                    wrong.append(f"{module}:{line} imports the package front door")
                continue
            theirs = _tier(target)
            if theirs is None:
                continue
            if own is None or theirs > own:
                wrong.append(f"{module}:{line} imports {target}")
    assert wrong == []


def test_the_package_has_no_import_cycle():
    graph = _graph()
    cycles, state = [], {}

    def visit(module: str, stack: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                cycles.append(" -> ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[module] = "done"

    for module in sorted(MODULES):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("tier", PHOENIX_FREE)
def test_the_engine_tiers_never_import_phoenix(tier):
    wrong = [
        f"{module}:{line} imports {target}"
        for module, path in MODULES.items()
        if _tier(module) == TIERS.index(tier)
        for target, line in _imports(path)
        if target.split(".")[0] in {"phoenix", "openinference"}
    ]
    assert wrong == []


def test_the_fact_check_imports_no_scorer_and_no_model():
    wrong = [
        f"{module}:{line} imports {target}"
        for module, path in MODULES.items()
        if module == "bertscore_plugins.facts" or module.startswith("bertscore_plugins.facts.")
        for target, line in _imports(path)
        if any(target == name or target.startswith(name + ".") for name in SCORER_AND_MODELS)
        or target.startswith("bertscore_plugins.faithfulness")
    ]
    assert wrong == []


def test_one_module_defines_the_offline_faithfulness_result():
    defined = [
        module
        for module, path in MODULES.items()
        for node in _nodes(path)
        if isinstance(node, ast.ClassDef) and node.name == "OfflineFaithfulness"
    ]
    assert defined == ["bertscore_plugins.faithfulness.result"]


def test_no_two_tiers_have_a_module_of_the_same_name():
    """One name, one meaning: no config.py in two tiers meaning two configurations. A tier's own
    sub-folders may mirror it (facts/lexicon/numbers.py is the word list of facts/numbers.py), and each
    command under cli/ is named after what it runs."""
    by_name = defaultdict(set)
    for module in MODULES:
        parts = module.split(".")
        if len(parts) > 2 and parts[1] != "cli" and parts[-1] != "__main__":
            by_name[parts[-1]].add(parts[1])
    assert {name: tiers for name, tiers in by_name.items() if len(tiers) > 1} == {}


def test_the_evaluation_engine_touches_pandas_only_in_its_dataframe_adapter():
    wrong = [
        f"{module}:{line}"
        for module, path in MODULES.items()
        if module.startswith("bertscore_plugins.evaluation.") and not module.endswith(".dataframe")
        for target, line in _imports(path)
        if target.split(".")[0] == "pandas"
    ]
    assert wrong == []


def test_the_server_launcher_is_not_part_of_the_evaluation():
    wrong = [
        f"{module}:{line}"
        for module, path in MODULES.items()
        if not module.startswith(
            ("bertscore_plugins.cli", "bertscore_plugins.tools", "bertscore_plugins.judge")
        )
        for target, line in _imports(path)
        if target.startswith("bertscore_plugins.tools")
    ]
    assert wrong == []


def test_no_module_is_longer_than_a_sitting():
    long = {
        module: n
        for module, path in MODULES.items()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def _functions():
    for module, path in MODULES.items():
        if module in UPSTREAM_SIGNATURES:
            continue
        for node in _nodes(path):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield module, node


def test_no_function_is_longer_than_a_screen():
    long = {
        f"{module}.{node.name}:{node.lineno}": node.end_lineno - node.lineno + 1
        for module, node in _functions()
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    }
    assert long == {}


def test_no_function_takes_more_than_a_handful_of_parameters():
    # public constructors take every setting by keyword (ScoreConfig's fields, evaluate's kwargs)
    many = {}
    for module, node in _functions():
        arguments = node.args
        names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
        names = [name for name in names if name not in {"self", "cls"}]
        if len(names) > MAX_PARAMETERS and node.name != "__init__":
            many[f"{module}.{node.name}:{node.lineno}"] = len(names)
    assert many == {}

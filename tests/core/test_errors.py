"""The exception tree: one root every project error is under, each keeping the built-in base users catch."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from bertscore_plugins import errors
from bertscore_plugins.errors import BertScorePluginsError

PACKAGE = Path(errors.__file__).resolve().parent
RECIPES = PACKAGE.parent / "recipes"
#: runs inside Phoenix's own environment, where this package is not installed
OUTSIDE_THE_PACKAGE = {"tools/phoenix_loopback.py"}
#: built-in exceptions a raise may still name: protocol signals, not errors of ours
PROTOCOL = {"NotImplementedError", "AttributeError", "StopIteration", "KeyboardInterrupt", "SystemExit"}


def test_the_public_names_of_the_tree_are_pinned() -> None:
    assert errors.__all__ == [
        "ArgumentError",
        "ArgumentTypeError",
        "BaselineNotFoundError",
        "BertScorePluginsError",
        "ClusterResourceError",
        "ColumnNotFoundError",
        "DamagedRunFolder",
        "EndpointError",
        "FileFormatError",
        "FolderGivenError",
        "IdfWeightError",
        "InputError",
        "InputTableError",
        "JudgeServerError",
        "MissingFileError",
        "ModelLoadError",
        "NotPermittedError",
        "NumericalError",
        "OutputPathError",
        "PhoenixServerError",
        "PresetIntegrityError",
        "PresetNotInstalledError",
        "ProjectOSError",
        "Refused",
        "ResultStoreError",
        "SettingError",
        "SignatureMismatch",
        "TraceEvaluationError",
        "UnreadableInputError",
        "UnusableAnswer",
        "UnwritableOutputError",
        "UsageError",
    ]


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("UsageError", ValueError),
        ("SettingError", TypeError),
        ("SettingError", ValueError),
        ("ArgumentError", ValueError),
        ("ArgumentTypeError", TypeError),
        ("ColumnNotFoundError", KeyError),
        ("InputError", ValueError),
        ("FileFormatError", ValueError),
        ("SignatureMismatch", ValueError),
        ("ModelLoadError", ValueError),
        ("PresetNotInstalledError", ImportError),
        ("PresetIntegrityError", RuntimeError),
        ("MissingFileError", FileNotFoundError),
        ("BaselineNotFoundError", FileNotFoundError),
        ("FolderGivenError", IsADirectoryError),
        ("NotPermittedError", PermissionError),
        ("ProjectOSError", OSError),
        ("ResultStoreError", OSError),
        ("NumericalError", FloatingPointError),
        ("PhoenixServerError", RuntimeError),
        ("TraceEvaluationError", RuntimeError),
    ],
)
def test_every_error_is_under_the_root_and_keeps_its_builtin_base(name: str, builtin: type) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, BertScorePluginsError) and issubclass(cls, builtin)


def test_a_preset_that_is_not_installed_is_a_model_load_error() -> None:
    assert issubclass(errors.PresetNotInstalledError, errors.ModelLoadError)


def test_the_recipes_and_the_judges_errors_are_in_the_tree() -> None:
    for cls in (errors.InputTableError, errors.DamagedRunFolder):
        assert issubclass(cls, BertScorePluginsError) and issubclass(cls, ValueError)
    for cls in (errors.EndpointError, errors.UnusableAnswer, errors.Refused, errors.JudgeServerError):
        assert issubclass(cls, BertScorePluginsError)


def test_every_error_class_of_the_package_is_in_the_one_module_and_its_names() -> None:
    """No exception class is declared outside errors.py, and each one there is in ``__all__``."""
    package = Path(errors.__file__).parent
    elsewhere = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and path.name != "errors.py":
                bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
                if bases & {"Exception", "BertScorePluginsError", *errors.__all__}:
                    elsewhere.append(f"{path.relative_to(package)}:{node.lineno} {node.name}")
    assert elsewhere == []
    declared = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, Exception) and not issubclass(value, Warning)
    }
    assert declared == set(errors.__all__)


def _raised_builtins(path: Path) -> list[str]:
    """`raise ValueError(...)`-style raises of built-in exceptions in one source file, as "file:line Name"."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = target.id if isinstance(target, ast.Name) else None
            builtin = getattr(builtins, name or "", None)
            if isinstance(builtin, type) and issubclass(builtin, BaseException) and name not in PROTOCOL:
                found.append(f"{path}:{node.lineno} {name}")
    return found


def test_no_error_raised_on_purpose_is_a_bare_builtin() -> None:
    files = [
        path
        for folder in (PACKAGE, RECIPES)
        for path in sorted(folder.rglob("*.py"))
        if path.relative_to(folder).as_posix() not in OUTSIDE_THE_PACKAGE
    ]
    assert len(files) > 40
    assert [found for path in files for found in _raised_builtins(path)] == []


def test_a_column_error_reads_as_its_message() -> None:
    # a KeyError would show its message in quotes
    assert str(errors.ColumnNotFoundError("column 'x' not found")) == "column 'x' not found"


def test_a_preset_that_cannot_be_assembled_is_a_model_load_error(tmp_path, monkeypatch) -> None:
    from bertscore_plugins.models import resolve as models

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("BERTSCORE_PLUGINS_CACHE", str(blocked))  # the preset cache cannot be created
    with pytest.raises(errors.ModelLoadError) as caught:
        models.resolve_model("quality")
    assert isinstance(caught.value, BertScorePluginsError)
    assert "quality" in str(caught.value) or "bertscore-plugins[quality]" in str(caught.value)

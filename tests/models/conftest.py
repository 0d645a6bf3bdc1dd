"""A tiny BERT built once per test module, and a fresh copy of it per test (tests damage their copy); a tiny
synthetic preset per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bertscore_plugins.models.preset_archive import PresetSpec
from tests.support.tiny_models import tiny_bert
from tests.support.tiny_presets import tiny_preset


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return Path(tiny_bert(tmp_path_factory.mktemp("built") / "tiny"))


@pytest.fixture
def folder(built, tmp_path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "tiny"))


@pytest.fixture
def tiny(tmp_path) -> tuple[PresetSpec, Path]:
    """A three-part split zip of a small folder, and the spec that pins it."""
    return tiny_preset(tmp_path)

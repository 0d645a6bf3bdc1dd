"""A tiny BERT built once per test module, and a fresh copy of it per test (tests damage their copy)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.tiny_models import tiny_bert


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return Path(tiny_bert(tmp_path_factory.mktemp("built") / "tiny"))


@pytest.fixture
def folder(built, tmp_path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "tiny"))

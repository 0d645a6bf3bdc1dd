"""Fast unit tests of the core's pieces: `pytest tests/core -m "not model"` loads no model.

A test that needs one says so with `@pytest.mark.model`; any other test that tries to load a model
fails with a message saying so, which keeps the fast run fast. The core's tests that do load the
packaged model live in with_model/ (each module marked `model`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

WITH_MODEL = Path(__file__).resolve().parent / "with_model"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast run (`-m "not model"`) would deselect all of with_model/ anyway, but only after importing
    it (bert_score, hypothesis, datasets: ~10 s of a 2-core machine), so it skips collecting the folder."""
    if collection_path == WITH_MODEL and config.getoption("markexpr") == "not model":
        return True
    return None


@pytest.fixture(autouse=True)
def _models_only_where_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("model") is not None:
        return
    from bertscore_plugins.models import load as models

    def refuse(spec: models.ModelSpec) -> models.LoadedModel:
        raise AssertionError(
            f"{request.node.name} loads the model {spec.model!r}; mark it @pytest.mark.model"
        )

    monkeypatch.setattr(models, "load_model", refuse)

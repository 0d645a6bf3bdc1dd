"""Fast unit tests of the core's pieces: `pytest tests/core -m "not model"` loads no model.

A test that needs one says so with `@pytest.mark.model`; any other test that tries to load a model
fails with a message saying so, which keeps the fast run fast.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _models_only_where_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("model") is not None:
        return
    from bertscore_plugins import models

    def refuse(spec: models.ModelSpec) -> models.LoadedModel:
        raise AssertionError(
            f"{request.node.name} loads the model {spec.model!r}; mark it @pytest.mark.model"
        )

    monkeypatch.setattr(models, "load_model", refuse)

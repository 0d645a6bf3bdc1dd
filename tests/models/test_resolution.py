"""A scorer resolves its model once: the CLI's `layer` reaches the scorer through one resolution, one
layer decision (models.layers.choose_layer) and one baseline decision (baseline.baseline_for)."""

from __future__ import annotations

import pytest

from bertscore_plugins import BERTScorer, ScoreConfig, get_scorer
from bertscore_plugins.cli.common import config_from_args
from bertscore_plugins.cli.main import build_parser
from bertscore_plugins.core import baseline, scorer, scorer_cache
from bertscore_plugins.models import layers, resolve
from bertscore_plugins.models import load as models

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each decision is taken while a scorer is built."""
    counts = {"resolve_model": 0, "choose_layer": 0, "baseline_for": 0}

    def counting(module, name):
        original = getattr(module, name)

        def wrapped(*args, **kwargs):
            counts[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)

    counting(models, "resolve_model")
    counting(scorer, "resolve_model")  # imported by name there
    counting(scorer_cache, "resolve_model")
    counting(layers, "choose_layer")
    counting(scorer, "baseline_for")
    # so the scorer is built here, not found
    monkeypatch.setattr(scorer, "_SCORERS", scorer_cache.ScorerCache(scorer.BERTScorer._for_resolved))
    monkeypatch.setattr(models, "_MODEL_CACHE", {})  # so the loader runs and decides the layer
    return counts


def test_the_layer_from_the_command_line_is_resolved_and_decided_once(counted):
    args = build_parser().parse_args(["score", "-c", "c.txt", "-r", "r.txt", "--layer", "3", "--rescale"])
    config = config_from_args(args).replace(baseline_path=None)
    built = get_scorer(config)
    assert built.layer == 3 and built.baseline is not None
    assert counted == {"resolve_model": 1, "choose_layer": 1, "baseline_for": 1}


def test_a_scorer_built_directly_resolves_its_model_once(counted):
    built = BERTScorer(ScoreConfig(layer=2))
    assert built.layer == 2
    assert counted["resolve_model"] == 1 and counted["choose_layer"] == 1 and counted["baseline_for"] == 0


def test_the_baseline_decision_reads_the_users_file_first(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("LAYER,P,R,F\n4,0.5,0.5,0.5\n")
    config = ScoreConfig(rescale=True, baseline_path=str(path))
    found = baseline.baseline_for(config, resolve.resolve_model("default"), 4)
    assert (found.precision, found.source) == (0.5, "mine.tsv")

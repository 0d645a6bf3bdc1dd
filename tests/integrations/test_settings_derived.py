"""A setting declared once on ScoreConfig reaches every command's flags, the datasets fingerprint and the
signature with no other edit: a fixture adds a field to ScoreConfig (a subclass, as a new field would be)
and makes it the class the command line reads."""

from __future__ import annotations

import dataclasses

import pytest

from bertscore_plugins.cli import common
from bertscore_plugins.cli.main import build_parser
from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.core.signature import Signature
from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
from bertscore_plugins.settings import setting, signed_names, unsigned_defaults
from tests.support.extras import extra

datasets = extra("datasets")

#: every command that takes the core's settings, with the arguments it requires
COMMANDS = {
    "score": ["score", "-c", "c.txt", "-r", "r.txt"],
    "faithfulness": ["faithfulness", "-c", "c.txt", "-s", "s.txt"],
    "compare": ["compare", "-a", "a.txt", "-b", "b.txt", "-r", "r.txt"],
    "baseline": ["baseline", "--corpus", "corpus.txt"],
    "sanity": ["sanity"],
    "phoenix evaluate": ["phoenix", "evaluate", "--project", "p"],
}


@pytest.fixture
def extended(monkeypatch: pytest.MonkeyPatch) -> type[ScoreConfig]:
    """ScoreConfig with two new settings, one that changes scores and one that does not."""
    extended = dataclasses.make_dataclass(
        "ExtendedConfig",
        [
            ("smoothing", "float", setting(0.25, "a new setting that changes scores")),
            ("prefetch", "int", setting(2, "a new speed setting", signed=False)),
        ],
        bases=(ScoreConfig,),
        frozen=True,
    )
    monkeypatch.setattr(common, "ScoreConfig", extended)
    return extended


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_new_setting_is_a_flag_of_every_command(extended, command):
    args = build_parser().parse_args([*COMMANDS[command], "--smoothing", "0.5", "--prefetch", "8"])
    config = common.config_from_args(args)
    assert type(config) is extended
    assert (config.smoothing, config.prefetch) == (0.5, 8)
    defaults = common.config_from_args(build_parser().parse_args(COMMANDS[command]))
    assert (defaults.smoothing, defaults.prefetch) == (0.25, 2)


def test_a_new_setting_is_in_the_signature_when_it_changes_scores(extended):
    assert "smoothing" in signed_names(extended) and "prefetch" not in signed_names(extended)

    def signature(config: ScoreConfig) -> Signature:
        return Signature.build(config, model="m", layer=4, max_length=512, idf="off", baseline=None)

    assert "|smoothing:0.25|" in signature(extended())
    assert "|smoothing:0.5|" in signature(extended(smoothing=0.5))
    assert "prefetch" not in signature(extended(prefetch=8))
    assert signature(extended(prefetch=8)) == signature(extended())


def test_a_new_setting_is_in_the_datasets_fingerprint_when_it_changes_scores(extended):
    assert unsigned_defaults(extended)["prefetch"] == 2

    def fingerprint(config: ScoreConfig) -> str:
        return datasets.fingerprint.Hasher.hash(BERTScoreTransform(config=config))

    base = fingerprint(extended())
    assert fingerprint(extended(smoothing=0.5)) != base
    assert fingerprint(extended(prefetch=8)) == base


def test_a_new_setting_is_accepted_by_name_with_the_others(extended):
    config = extended().replace(smoothing=0.75, layer=3)
    assert (config.smoothing, config.layer) == (0.75, 3)
    with pytest.raises(TypeError, match=r"unknown argument\(s\) smoothin; accepted: .*smoothing"):
        extended().replace(smoothin=1.0)

"""The signature as a value: printed, parsed, compared (no model)."""

from __future__ import annotations

import json
import pickle

import pytest

from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.core.signature import Signature, SignatureMismatch, idf_label


def _build(**changes) -> Signature:
    settings = dict(
        model="org/model@abc1234;sha256:0011aabb", layer=4, max_length=512, idf="off", baseline=None
    )
    config = ScoreConfig(**changes.pop("config", {}))
    return Signature.build(config, **{**settings, **changes})


def test_the_string_is_the_familiar_one_and_parses_back():
    signature = _build()
    text = str(signature)
    assert (
        text.startswith("bertscore_plugins:") and "|model:org/model@abc1234;sha256:0011aabb|layer:4|" in text
    )
    assert "|idf:off|multiref:max|maxlen:512|long:truncate|dtype:float32|transformers:" in text
    assert not signature.rescaled and type(text) is str
    parsed = Signature.parse(text)
    assert parsed == signature and parsed.fields == signature.fields
    assert json.loads(json.dumps({"signature": signature}))["signature"] == text
    assert pickle.loads(pickle.dumps(signature)) == signature


def test_rescaled_signatures_end_with_rescaled_and_keep_the_baseline_field():
    signature = _build(baseline="en/model@1234abcd")
    assert str(signature).endswith("|baseline:en/model@1234abcd-rescaled") and signature.rescaled
    assert Signature.parse(str(signature)).fields["baseline"] == "en/model@1234abcd"


def test_diff_names_the_settings_that_changed():
    base = _build()
    other = _build(layer=5, idf=idf_label(True, "c0ffee"), config={"long_text": "window"})
    assert base.diff(other) == {
        "layer": ("4", "5"),
        "idf": ("off", "refs@c0ffee"),
        "long": ("truncate", "window(stride=auto)"),
    }
    assert base.diff(str(base)) == {}
    rescaled = _build(baseline="b.tsv@00ff00ff")
    assert base.diff(rescaled) == {"baseline": (None, "b.tsv@00ff00ff"), "rescaled": ("false", "true")}
    assert (
        base.describe_diff(other)
        == "layer 4 -> 5; idf off -> refs@c0ffee; long truncate -> window(stride=auto)"
    )


def test_require_same_refuses_with_the_difference():
    base = _build()
    base.require_same(str(base), "these")
    with pytest.raises(
        SignatureMismatch, match=r"the saved scores and this run were made with .*dtype float32 -> bfloat16"
    ):
        base.require_same(_build(config={"dtype": "bfloat16"}), "the saved scores and this run")


def test_a_library_upgrade_shows_in_the_difference():
    base = _build()
    fields = dict(base.fields, transformers="99.0.0")
    upgraded = Signature.from_fields(fields)
    assert base.diff(upgraded) == {"transformers": (base.fields["transformers"], "99.0.0")}


def test_the_embedding_key_ignores_what_acts_after_matching():
    base = _build()
    after_matching = _build(idf="refs@1", baseline="b@2", config={"multi_ref": "best_f1"})
    assert base.embedding_key() == after_matching.embedding_key()
    assert base.embedding_key() != _build(layer=3).embedding_key()
    assert "transformers:" in base.embedding_key()


def test_a_value_with_a_bar_stays_in_its_field_and_junk_is_refused():
    signature = Signature.from_fields({"bertscore_plugins": "1", "baseline": "my|file.tsv@00"}, rescaled=True)
    assert Signature.parse(str(signature)).fields == {"bertscore_plugins": "1", "baseline": "my|file.tsv@00"}
    with pytest.raises(ValueError, match="not a BERTScore signature"):
        Signature.parse("just some text")

"""The entailment part of the offline signal: each output sentence read against its best source passage."""

from __future__ import annotations

import pytest

from bertscore_plugins.facts.extract import extract
from bertscore_plugins.faithfulness import (
    entailment_of_rows,
    offline_faithfulness,
    sentence_entailment,
    signature,
)
from bertscore_plugins.faithfulness.combination import weights_identity

pytestmark = pytest.mark.model

SOURCE = (
    "The council met on Tuesday evening. It approved a new budget for the city's parks. "
    "Residents had asked for more benches. The mayor said work would start in spring. "
    "A woman is sleeping on a couch in the town hall lobby. Nobody woke her."
)


@pytest.fixture(scope="module")
def scorer():
    from bertscore_plugins.core.scorer import get_scorer

    return get_scorer(long_text="window")


def _explanation(scorer, output: str, source: str):
    return scorer.score([output], [source], explain=True).explanations[0]


def test_each_output_sentence_is_put_against_the_passage_it_comes_from(scorer):
    output = "The mayor said work would start in spring. It approved a new budget for the city's parks."
    explanation = _explanation(scorer, output, SOURCE)
    found = sentence_entailment.passages(extract(output), extract(SOURCE), explanation)
    assert [p.sentence for p in found] == [
        "The mayor said work would start in spring.",
        "It approved a new budget for the city's parks.",
    ]
    assert [p.closest for p in found] == [found[0].sentence, found[1].sentence]
    assert all(p.sentence in p.passage for p in found)


def test_a_copied_output_is_entailed_and_not_contradicted(scorer):
    row = offline_faithfulness(
        ["The council met on Tuesday evening."], [SOURCE], scorer, read_entailment=True
    )[0]
    assert row.entailment.weakest > 0.5
    assert row.entailment.contradiction < 0.5
    assert row.contradicted == ""


def test_a_sentence_the_model_reads_as_contradicted_is_named_with_its_source_sentence(scorer):
    row = offline_faithfulness(["A woman is running a marathon."], [SOURCE], scorer, read_entailment=True)[0]
    assert row.entailment.contradiction >= sentence_entailment.CONTRADICTED
    assert (
        "'A woman is running a marathon.' contradicts 'A woman is sleeping on a couch in the town hall lobby.'"
        in row.explanation
    )
    assert row.to_dict()["contradicted"] == row.contradicted


def test_entailment_is_read_only_when_asked_and_never_changes_the_score(scorer):
    outputs = ["The council met on Tuesday evening.", "A woman is running a marathon."]
    plain = offline_faithfulness(outputs, [SOURCE] * 2, scorer)
    read = offline_faithfulness(outputs, [SOURCE] * 2, scorer, read_entailment=True)
    assert [row.entailment for row in plain] == [None, None]
    assert [row.score for row in plain] == [row.score for row in read]
    assert [row.label for row in plain] == [row.label for row in read]


def test_rows_read_together_read_as_rows_read_one_by_one(scorer):
    outputs = [
        "The council met on Tuesday evening.",
        "A woman is running a marathon.",
        "Benches were asked for.",
    ]
    together = offline_faithfulness(outputs, [SOURCE] * 3, scorer, read_entailment=True)
    for output, row in zip(outputs, together, strict=True):
        explanation = _explanation(scorer, output, SOURCE)
        alone = entailment_of_rows([(output, SOURCE, explanation)])[0]
        assert alone.weakest == pytest.approx(row.entailment.weakest, abs=1e-6)
        assert alone.contradiction == pytest.approx(row.entailment.contradiction, abs=1e-6)


def test_the_signature_names_the_weights_and_the_entailment_adapter_when_read():
    identity = sentence_entailment.identity()
    assert signature() == f"offline-faithfulness:weights={weights_identity()}"
    assert signature(read_entailment=True) == f"{signature()}|entailment={identity}"
    assert len(identity) == 12

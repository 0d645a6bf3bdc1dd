"""An empty answer or a refusal is its own outcome, read by one rule (faithfulness/outcome.py), before any
signal or judge: never "faithful", never "unfaithful". Every door's label is checked in
tests/integrations/test_one_answer_on_every_door.py; here the rule itself, with no model."""

from __future__ import annotations

import pytest

from bertscore_plugins.evaluation.cells import Cell, DisagreementMetadata
from bertscore_plugins.evaluation.disagreement import Thresholds, disagreement_cells
from bertscore_plugins.faithfulness.outcome import ABSTAINED, EMPTY, answer_outcome
from bertscore_plugins.faithfulness.reading import plain_text

NO_CONTENT = ["", " ", "\n\t ", "\U0001f642\U0001f389", "?!...", "\u2014 \u2026", "***", "<p></p>", "\u200b"]
REFUSALS = [
    "I don't know.",
    "I do not know",
    "I don\u2019t know. Please consult your doctor.",
    "The context does not say.",
    "The provided context doesn't mention the discharge date.",
    "There is no information about the dosage in the documents.",
    "I'm sorry, but I don't know.",
    "I'm sorry, I cannot answer that from the documents.",
    "Based on the provided context, I cannot determine when he left.",
    "This cannot be determined from the context.",
    "Not enough information.",
    "Unknown.",
    "N/A",
    "Not mentioned in the context.",
    "I'm not sure.",
    '"I don\'t know."',
    "I don't know when the clinic opens on Sundays.",
]
ANSWERS = [
    "The patient was discharged on Thursday.",
    "It was Tuesday.",
    "42",
    "\u4e1c\u4eac\u662f\u65e5\u672c\u7684\u9996\u90fd\u3002",
    "The context does not say, but it was Tuesday.",  # a refusal that claims something anyway
    "I don't know. He was discharged on Thursday.",
    "None of the patients died.",
    "No evidence of infection was found.",
    "There is no evidence of cancer.",
    "Unknown gunmen attacked the village.",
    "The records do not show any infection.",
    "I can't say that I'm really objective.",  # a that-clause is a claim
    "I can't say with certainty that Richard Giffe is innocent.",
    "\"I don't know whether the person I'm talking to now may end up being someone else,\" Parrish said.",
    "I am not sure if you can open a bank account in France if you are not a resident.",
]


@pytest.mark.parametrize("answer", NO_CONTENT)
def test_an_answer_with_no_word_to_read_is_empty(answer):
    assert answer_outcome(plain_text(answer)) == EMPTY


@pytest.mark.parametrize("answer", REFUSALS)
def test_an_answer_that_only_declines_is_abstained(answer):
    assert answer_outcome(answer) == ABSTAINED


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_that_claims_something_is_read_for_faithfulness(answer):
    assert answer_outcome(answer) is None


def test_a_value_that_is_not_text_has_no_outcome_the_doors_refuse_it_first():
    assert answer_outcome(None) is None and answer_outcome(3.0) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("outcome", [EMPTY, ABSTAINED])
def test_the_disagreement_of_an_empty_or_refusing_answer_is_its_outcome_not_a_quadrant(outcome):
    similarity = Cell("bertscore", 0.97, "similar", None)
    faithfulness = Cell("offline_faithfulness", 0.0, outcome, None)
    cells, details = disagreement_cells(
        [similarity, None], [faithfulness, faithfulness], Thresholds(0.9), labels=["0", "1"]
    )
    found = [cell for cell in cells if cell is not None]
    assert [cell.label for cell in found] == [outcome, outcome]  # with no similarity (no reference) too
    assert [cell.score for cell in found] == [0.0, 0.0]
    assert [detail["status"] for detail in details] == ["COMPLETED", "COMPLETED"]
    metadata = [cell.metadata for cell in found]
    assert all(isinstance(m, DisagreementMetadata) for m in metadata)
    assert [m.similarity for m in metadata if isinstance(m, DisagreementMetadata)] == [0.97, None]

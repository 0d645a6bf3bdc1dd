"""A value is checked against the source fact that qualifies the same thing (day, item, drug, event),
and an unsupported value is named by the rival that qualifies the same thing, not the first of its kind.

Each case runs on the core's alignment (the packaged model, as every door reads it) and on the words alone.
"""

from __future__ import annotations

import pytest

from bertscore_plugins.facts import check_pair
from bertscore_plugins.faithfulness import check_facts

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

CLINIC = "The clinic opens at 9 am on weekdays and at 10 am on Saturdays."
STAY = "The patient was admitted on Monday, 3 March, and discharged on Tuesday, 11 March."
DOSES = "Give ibuprofen 400 mg every 6 hours and paracetamol 500 mg every 4 hours."
HOURS = "Opening hours: 9 am Monday to Friday, 10 am Saturday."
CLINICS = "Dr Lee sees patients at 9 am on Mondays. Dr Park sees patients at 2 pm on Tuesdays."


def both_ways(output: str, context: str) -> list[list[str]]:
    """The unsupported findings on the alignment and on the words alone."""
    aligned = check_facts([output], [context])[0]
    return [[str(f) for f in aligned.unsupported], [str(f) for f in check_pair(output, context).unsupported]]


@pytest.mark.parametrize(
    ("output", "context", "expected"),
    [
        ("It opens at 9 am on Saturdays.", CLINIC, "9 am: context says 10 am on Saturdays"),
        ("On Saturdays the doors open at 9 am.", CLINIC, "9 am: context says 10 am on Saturdays"),
        ("Tea costs $3.", "Coffee costs $3 and tea costs $2.", "$3: context says tea costs $2"),
        ("Tea costs $3.", "Coffee costs $3. Tea costs $2.", "$3: context says Tea costs $2"),
        (
            "A cup of tea is $3.",
            "At the kiosk, a coffee is $3, while a tea is $2.",
            "$3: context says tea is $2",
        ),
        ("Give paracetamol 400 mg.", DOSES, "400 mg: context says paracetamol 500 mg"),
        (
            "Paracetamol is given every 6 hours.",
            DOSES,
            "6 hours: context says paracetamol 500 mg every 4 hours",
        ),
        (
            "The concert starts at 8 pm on Thursday.",
            "The concert starts at 7 pm on Thursday and at 8 pm on Friday.",
            "8 pm: context says 7 pm on Thursday",
        ),
        ("The patient was admitted on 11 March.", STAY, "11 March: context says admitted on Monday, 3 March"),
        (
            "Dr Park sees patients at 9 am on Mondays.",
            CLINICS,
            "Mondays: context says Park sees patients at 2 pm on Tuesdays",
        ),
    ],
)
def test_a_value_the_source_attaches_to_something_else_is_unsupported_and_both_are_named(
    output, context, expected
):
    assert both_ways(output, context) == [[expected], [expected]]


@pytest.mark.parametrize(
    ("output", "context", "expected"),
    [
        ("The patient was discharged on Thursday, 11 March.", STAY, "Thursday: context says Tuesday"),
        (
            "The shipment left on Friday, 7 May.",
            "The order was placed on Monday, 5 May, and the shipment left on Wednesday, 7 May.",
            "Friday: context says Wednesday",
        ),
    ],
)
def test_a_wrong_value_is_named_by_the_source_fact_about_the_same_event(output, context, expected):
    assert both_ways(output, context) == [[expected], [expected]]


@pytest.mark.parametrize(
    ("output", "context"),
    [
        ("It opens at 9 am on weekdays and at 10 am on Saturdays.", CLINIC),  # restated whole
        ("On Saturdays it opens at 10 am.", CLINIC),  # reordered
        ("It opens at 10 am on Saturday.", CLINIC),  # singular for plural
        ("The clinic's doors open at 9 am.", CLINIC),  # a qualifier the source does not use
        ("Tea costs $2.", "Coffee costs $3 and tea costs $2."),
        ("Give ibuprofen 400 mg.", DOSES),
        ("Paracetamol: 500 mg every 4 hours.", DOSES),  # another sentence shape
        ("It opens at 9 am on Fridays.", HOURS),  # a day inside a listed range
        ("It opens at 9 am on Mondays.", HOURS),
        ("On Saturday it opens at 10 am.", HOURS),
        (
            "The concert starts at 8 pm on Friday.",
            "The concert starts at 7 pm on Thursday and at 8 pm on Friday.",
        ),
        ("The patient was discharged on 11 March.", STAY),
        ("Dr Park sees patients at 2 pm on Tuesdays.", CLINICS),
        (
            "A single room costs 80 euros a night and a double 120 euros.",
            "Single rooms cost 80 euros a night; doubles cost 120 euros.",
        ),
    ],
)
def test_a_value_bound_to_the_same_thing_stays_supported(output, context):
    assert both_ways(output, context) == [[], []]

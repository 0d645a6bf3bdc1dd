"""The fact check: which facts it finds, which it flags, and which it must leave alone.

Most cases run on the words alone (no alignment: fast, no model); the cases where the alignment
decides (clause polarity, antonyms, what the context says instead) use the real packaged model.
"""

from __future__ import annotations

import pytest

from bertscore_plugins.facts import check_pair, extract
from bertscore_plugins.faithfulness import check_facts

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


def kinds_and_values(text: str) -> list[tuple[str, object]]:
    return [(fact.kind, fact.value) for fact in extract(text).facts]


def unsupported(output: str, context: str) -> list[str]:
    return [str(finding) for finding in check_pair(output, context).unsupported]


# -- extraction: every fact type, normalised -----------------------------------------------------------


def test_number_words_and_digits_normalise_to_the_same_value_and_unit():
    assert kinds_and_values("It takes forty minutes.") == [("number", 40.0)]
    assert kinds_and_values("It takes 40 minutes.") == [("number", 40.0)]
    twenty_four = extract("no more than four tablets in twenty-four hours").facts
    assert [(f.value, f.unit) for f in twenty_four] == [(4.0, "tablet"), (24.0, "hour")]
    assert [(f.value, f.unit) for f in extract("two hundred and fifty-three metres").facts] == [
        (253.0, "metre")
    ]
    assert [(f.value, f.unit) for f in extract("a profit of 5 million dollars").facts] == [(5e6, "dollar")]


def test_percentages_currency_and_hyphenated_units():
    facts = extract("Sales rose 20% to $42 and 20 per cent of 1,500 people got a two-year warranty.").facts
    assert [(f.value, f.unit) for f in facts] == [
        (20.0, "percent"),
        (42.0, "dollar"),
        (20.0, "percent"),
        (1500.0, "person"),
        (2.0, "year"),
    ]


def test_dates_in_several_formats_normalise_to_month_day_year():
    august_14 = frozenset({(8, 14, 2024)})
    for text in (
        "due 2024-08-14",
        "due August 14, 2024",
        "due 14 August 2024",
        "due the 14th of August 2024",
    ):
        assert kinds_and_values(text) == [("date", august_14)], text
    # day and month read both ways when both could be a month
    assert kinds_and_values("due 04/08/2024") == [("date", frozenset({(8, 4, 2024), (4, 8, 2024)}))]
    assert kinds_and_values("by the thirtieth of April") == [("date", frozenset({(4, 30, None)}))]


def test_weekdays_months_years_and_times():
    assert kinds_and_values("Bins go out on Mondays in June 2019 at 14:05.") == [
        ("weekday", "Monday"),
        ("date", frozenset({(6, None, 2019)})),
        ("time", "14:05"),
    ]
    assert kinds_and_values("It opened in 2019.") == [("year", 2019.0)]
    assert kinds_and_values("It closed in March.") == [("month", 3)]


def test_modal_may_and_pronoun_one_are_not_facts():
    assert kinds_and_values("You may rent one at the desk.") == []
    assert kinds_and_values("Several hundred metres down.") == []


def test_did_not_and_didnt_are_the_same_negation():
    for text in (
        "The drug did not reduce the risk.",
        "The drug didn't reduce the risk.",
        "The drug did n't reduce the risk.",
    ):
        facts = extract(text)
        assert [f.kind for f in facts.facts] == ["negation"], text
        assert facts.clause_polarity == {0: False}, text
    assert extract("It cannot be machine washed.").clause_polarity == {0: False}
    assert extract("It can be washed, but do not tumble dry it.").clause_polarity == {0: True, 1: False}


# -- flagged: one changed fact -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "context", "expected"),
    [
        (
            "The patient was discharged on Thursday.",
            "The patient was discharged on Tuesday.",
            "Thursday: context says Tuesday",
        ),
        (
            "the patient was discharged on thursday.",
            "The patient was discharged on Tuesday.",
            "thursday: context says Tuesday",
        ),
        (
            "The hotel has 48 rooms.",
            "The Caldera Hotel opened in 2019 with 84 rooms.",
            "48 rooms: context says 84 rooms",
        ),
        (
            "The frame has a five-year warranty.",
            "The frame has a two-year warranty.",
            "five-year: context says two-year",
        ),
        ("Sales rose 25%.", "Sales rose 20 per cent.", "25%: context says 20 per cent"),
        ("The exam is on 14 August.", "The exam is on August 15.", "14 August: context says August 15"),
        (
            "It was founded on May 5, 2023.",
            "It was founded on 5 May 2024.",
            "May 5, 2023: context says 5 May 2024",
        ),
        ("The hotel opened in 2018.", "The hotel opened in 2019.", "2018: context says 2019"),
        ("The festival is held in June.", "The festival is held in July.", "June: context says July"),
        (
            "The library was designed by Clara Holt.",
            "The library was designed by the architect Maren Holt.",
            "Clara: not in the context",
        ),
    ],
)
def test_a_changed_fact_is_flagged_and_named(output, context, expected):
    assert unsupported(output, context) == [expected]
    assert check_pair(output, context).label == "unsupported"
    assert check_pair(output, context).score <= 0.5


def test_a_number_with_the_wrong_unit_is_not_supported_by_the_same_value_elsewhere():
    context = (
        "Adults may take one tablet every six hours, with no more than four tablets in twenty-four hours."
    )
    assert unsupported("Adults should take no more than six tablets in twenty-four hours.", context) == [
        "six tablets: context says four tablets"
    ]  # without the alignment, the value its qualifiers ("no more than", "in twenty-four hours") stand by


def test_swapped_entities_are_flagged_and_the_passive_is_not():
    context = "Germany defeated Brazil in the semifinal."
    assert unsupported("Brazil defeated Germany in the semifinal.", context) == [
        "Brazil defeated Germany: context says 'Germany defeated Brazil'"
    ]
    assert unsupported("Brazil was defeated by Germany in the semifinal.", context) == []
    assert unsupported("In the semifinal, Germany defeated Brazil.", context) == []


def test_names_written_capitalised_in_the_context_are_recognised_in_lower_cased_output():
    context = "The new city library was designed by the architect Maren Holt."
    check = check_pair("the library was designed by maren holt.", context)
    assert [(f.kind, f.text, f.supported) for f in check.findings] == [("entity", "maren holt", True)]


# -- left alone: the same facts, said differently ----------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "context"),
    [
        (
            "On Tuesday the patient was sent home from the hospital.",
            "The patient was discharged from the hospital on Tuesday.",
        ),
        ("The crossing takes 40 minutes.", "The crossing takes forty minutes in calm weather."),
        ("No more than four tablets in 24 hours.", "Take no more than four tablets in twenty-four hours."),
        (
            "Last year the firm announced 5 million dollars in profit.",
            "The company reported a profit of 5 million dollars last year.",
        ),
        ("Applications are due on 30 April.", "Applications must be submitted by the thirtieth of April."),
        ("Due 14/08/2024.", "The deadline is 2024-08-14."),
        ("The drug didn't reduce the risk.", "The drug did not reduce the risk."),
        ("Brazil lost the semifinal to Germany.", "Germany defeated Brazil in the semifinal."),
        (
            "Breakfast is included, and late checkout too.",
            "The offer covers late checkout; breakfast is included on both mornings.",
        ),
        (
            "She arrived in Paris on Monday and left on Friday.",
            "She left on Friday, having arrived in Paris on Monday.",
        ),
    ],
)
def test_paraphrases_number_words_and_reordered_clauses_are_not_flagged(output, context):
    assert unsupported(output, context) == []
    assert check_pair(output, context).score == 1.0


def test_no_facts_means_nothing_to_contradict():
    check = check_pair("Regular exercise improves sleep.", "The pool opens at six thirty on weekdays.")
    assert (check.findings, check.score, check.label) == ((), 1.0, "supported")


# -- with the core's alignment (the packaged model) --------------------------------------------------------


def test_the_alignment_decides_polarity_antonyms_and_what_the_context_says(default_scorer):
    rows = [
        (
            "The museum is not accessible by wheelchair.",
            "All floors are reachable by lift, so the museum is fully accessible by wheelchair.",
        ),
        (
            "The jacket cannot be machine washed.",
            "The Fell jacket can be machine washed at thirty degrees. Do not tumble dry it.",
        ),
        ("The council rejected the park plan.", "On Tuesday the council approved the plan to build a park."),
        (
            "The patient was discharged on Thursday.",
            "Mr. Okafor was admitted on Sunday and was discharged on Tuesday.",
        ),
        (
            "Adults should take no more than six tablets in twenty-four hours.",
            "Adults may take one tablet every six hours, with no more than four tablets in twenty-four hours.",
        ),
        ("The tournament was won by Anna Varga.", "Ilse Varga won the tournament ahead of Tomas Brenner."),
        ("The jacket can be machine washed.", "The Fell jacket can be machine washed. Do not tumble dry it."),
        (
            "Inflatables must not be used.",
            "An orange windsock means inflatables must not be used in the water.",
        ),
        (
            "Please do not hesitate to ask. Checkout is at eleven.",
            "Checkout at the hotel is at eleven in the morning.",
        ),
    ]
    checks = check_facts([o for o, _ in rows], [c for _, c in rows], scorer=default_scorer)
    explanations = [check.explanation for check in checks]
    assert explanations[0].startswith("is not accessible by wheelchair: context says 'so the museum is fully")
    assert explanations[1].startswith("cannot be machine washed: context says 'The Fell jacket can be")
    assert explanations[2] == "rejected: context says approved"
    assert explanations[3] == "Thursday: context says Tuesday"
    assert explanations[4] == "six tablets: context says four tablets"
    assert explanations[5] == "Anna: context says Ilse"
    assert [check.label for check in checks[6:]] == ["supported"] * 3


def test_coordinated_negations_and_unrelated_negated_clauses_are_not_contradictions(default_scorer):
    """Read on real news summaries: two cues in one clause coordinate (they do not cancel), and a plain
    clause contradicts a negated one only when it restates what is negated, not a word after it."""
    rows = [
        (  # "hasn't ... and isn't": both negated, as the context says (tokenised "has n't" too)
            "since then billy has n't been seen and he is n't returning any phone calls .",
            "Billy was last seen at the house. Since then Billy hasn't been seen and he isn't returning any "
            "phone calls or texts.",
        ),
        (  # the deal is not what the context negates: the connection is
            "Chelsea have signed a sponsorship deal with the Japanese firm.",
            "Ogane claims that Chelsea's interest in Muto is not connected with the sponsorship deal that "
            "Chelsea signed with the Japanese firm.",
        ),
        (  # its twin restates the negated head ("connected"): flagged
            "Chelsea's interest in Muto is connected with the sponsorship deal.",
            "Ogane claims that Chelsea's interest in Muto is not connected with the sponsorship deal that "
            "Chelsea signed with the Japanese firm.",
        ),
        (  # and a coordinated negation still contradicts a plain context
            "Billy has not called and he is not answering his phone.",
            "Billy called on Sunday and he is answering his phone again.",
        ),
    ]
    checks = check_facts([o for o, _ in rows], [c for _, c in rows], scorer=default_scorer)
    assert [check.label for check in checks] == ["supported", "supported", "unsupported", "unsupported"]
    assert all(finding.kind == "negation" for check in checks[2:] for finding in check.unsupported)


@pytest.mark.parametrize(
    ("output", "context", "expected"),
    [
        ("The bridge is about 1.2 kilometres long.", "The bridge spans 1,190 metres.", []),
        ("The course takes four weeks.", "The course takes 28 days.", []),
        ("The bag weighs 2.5 kg.", "The bag weighs 2,500 grams.", []),
        (
            "The bridge is 2 kilometres long.",
            "The bridge spans 1,190 metres.",
            ["2 kilometres: context says 1,190 metres"],
        ),
        ("The course takes five weeks.", "The course takes 28 days.", ["five weeks: context says 28 days"]),
    ],
)
def test_a_quantity_in_another_unit_of_the_same_measure_is_converted(output, context, expected):
    assert unsupported(output, context) == expected


def test_a_time_of_day_keeps_its_am_or_pm():
    context = "On Thursdays the library opens at 9 am and closes at 8 pm."
    assert unsupported("The library closes at 8 pm on Thursdays.", context) == []
    assert unsupported("The library opens at 9 am on Thursdays.", context) == []
    assert unsupported("The library closes at 9 pm on Thursdays.", context) == ["9 pm: context says 8 pm"]


def test_a_plain_clause_restating_what_the_context_negates_is_flagged_naming_that_clause(default_scorer):
    context = (
        "The warranty covers manufacturing defects for two years. It does not cover accidental damage "
        "or water damage."
    )
    checks = check_facts(
        ["The warranty covers accidental damage.", "The warranty covers manufacturing defects."],
        [context, context],
        scorer=default_scorer,
    )
    assert checks[0].explanation.startswith(
        "warranty covers accidental damage: context says 'It does not cover accidental damage"
    )
    assert checks[1].label == "supported"


def test_revenue_that_fell_where_the_context_says_it_grew_is_flagged(default_scorer):
    context = "Annual revenue grew 12% to $3.1 billion, the company said."
    checks = check_facts(
        ["The company's revenue fell to $3.1bn.", "The company's revenue grew to $3.1bn."],
        [context, context],
        scorer=default_scorer,
    )
    assert [check.explanation for check in checks] == [
        "fell: context says grew",
        "all 1 facts supported by the context",
    ]


def test_an_unknown_word_placeholder_is_a_gap_not_a_name():
    """Sequence models write UNK for a word outside their vocabulary: nothing to check, nothing invented."""
    context = "Gaioz Nigalidze was expelled from the Dubai Open chess tournament."
    assert unsupported("UNK UNK was expelled from the dubai open chess tournament .", context) == []
    assert unsupported("[UNK] was expelled from the Dubai Open.", context) == []
    assert unsupported("Officials say Magnus Carlsen was expelled from the Dubai Open.", context) == [
        "Magnus Carlsen: not in the context"
    ]


@pytest.fixture(scope="module")
def default_scorer():
    from bertscore_plugins import get_scorer

    return get_scorer()


def test_bad_rows_are_refused_naming_the_row():
    from bertscore_plugins.errors import InputError

    with pytest.raises(InputError, match=r"contexts\[1\] is None"):
        check_facts(["a", "b"], ["c", None])
    with pytest.raises(InputError, match=r"^contexts\[0\] has no text: each output needs a context$"):
        check_facts(["a"], [[]])
    with pytest.raises(InputError, match="2 outputs, 1 contexts"):
        check_facts(["a", "b"], ["c"])

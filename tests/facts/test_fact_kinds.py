"""Fact kinds read from the words alone (no model): each case beside the twin it must leave alone."""

from __future__ import annotations

import pytest

from bertscore_plugins.facts import check_pair, extract


def unsupported(output: str, context: str) -> list[str]:
    return [str(finding) for finding in check_pair(output, context).unsupported]


def kinds_and_values(text: str) -> list[tuple[str, object]]:
    return [(fact.kind, fact.value) for fact in extract(text).facts]


BAKERY = "The family bakery on Elm Street opened in March 2019 and sells sourdough."


def test_may_before_a_year_is_the_month_and_is_checked():
    assert unsupported("The bakery opened in May 2019.", BAKERY) == ["May 2019: context says March 2019"]
    assert unsupported("The bakery opened in March 2019.", BAKERY) == []
    assert unsupported("The bakery opened in April 2019.", BAKERY) == ["April 2019: context says March 2019"]


@pytest.mark.parametrize(
    ("text", "month"),
    [("opened in May 2019", 5), ("opened on 3 May", 5), ("closed in May, they said", 5), ("since May", 5)],
)
def test_may_next_to_a_day_a_year_or_after_a_word_of_time_is_the_month(text, month):
    assert any(fact.kind in ("date", "month") for fact in extract(text).facts), text
    values = [f.value for f in extract(text).facts if f.kind in ("date", "month")]
    assert values[0] == month or any(reading[0] == month for reading in values[0])


@pytest.mark.parametrize(
    "text",
    ["You may park at the back.", "May I ask a question?", "Theresa May said no.", "It may rain in 2019."],
)
def test_may_the_modal_verb_or_a_name_is_no_date(text):
    assert [fact.kind for fact in extract(text).facts if fact.kind in ("date", "month")] == []


def test_a_twelve_hour_time_is_the_same_as_its_twenty_four_hour_twin():
    context = "The meeting starts at 14:05 in room 3."
    assert unsupported("The meeting starts at 2:05 pm.", context) == []
    assert unsupported("The meeting starts at 2:05pm.", context) == []
    assert unsupported("The meeting starts at 2:05 p.m.", context) == []
    assert unsupported("The meeting starts at 2:05 pm.", "The meeting starts at 14:50 in room 3.") == [
        "2:05 pm: context says 14:50"
    ]
    assert unsupported("The meeting starts at 2:05 am.", context) == ["2:05 am: context says 14:05"]
    # without am or pm, 2:05 may be either half of the day
    assert unsupported("The meeting starts at 2:05.", context) == []
    assert kinds_and_values("at 2:05 pm") == [("time", "14:05")]
    assert kinds_and_values("at 12:30 am") == [("time", "0:30")]


def test_a_k_written_onto_a_number_is_a_thousand():
    assert kinds_and_values("The company hired 5k people.") == [("number", 5000.0)]
    assert unsupported("The company hired 5k people.", "The company hired 5,000 people last year.") == []
    assert unsupported("The company hired 5k people.", "The company hired 500 people last year.") == [
        "5k people: context says 500 people"
    ]
    assert [(f.value, f.unit) for f in extract("a 5m wall").facts] == [(5.0, "metre")]  # metres, not millions


@pytest.mark.parametrize(
    ("text", "value"),
    [("The city has 2m residents.", 2_000_000.0), ("It formed 65m years ago.", 65_000_000.0)],
)
def test_an_m_written_onto_a_number_before_a_plural_count_is_a_million(text, value):
    assert [f.value for f in extract(text).facts] == [value]
    assert unsupported("The city has 2m residents.", "The city has 2 million residents.") == []
    assert unsupported("The city has 3m residents.", "The city has 2 million residents.") == [
        "3m residents: context says 2 million residents"
    ]


@pytest.mark.parametrize(
    ("output", "context"),
    [
        ("The company has 5k employees.", "The company employs 5,000 people."),
        ("The company has 5,000 staff.", "The company has 5,000 employees."),
        ("About 300 people attended.", "Some 300 visitors attended the opening."),
    ],
)
def test_a_count_of_people_carries_a_count_of_employees_or_visitors(output, context):
    assert unsupported(output, context) == []


def test_counts_of_different_people_or_of_other_things_are_not_the_same():
    assert unsupported("The town has 5,000 residents.", "The town had 5,000 visitors last year.") == [
        "5,000 residents: not in the context"
    ]
    assert unsupported("The company has 6k employees.", "The company employs 5,000 people.") == [
        "6k employees: context says 5,000 people"
    ]


def test_no_against_a_count_is_zero():
    context = "There were three deaths in the crash."
    assert unsupported("There were no deaths.", context) == ["no deaths: context says three deaths"]
    assert unsupported("There were no deaths.", "There were 0 deaths in the crash.") == []
    assert unsupported("There were zero deaths.", "There were no deaths in the crash.") == []
    assert unsupported("There were three deaths.", "There were no deaths in the crash.") == [
        "three deaths: context says no deaths"
    ]


def test_no_is_checked_only_where_the_context_counts_the_same_thing():
    assert unsupported("There is no fee.", "Entry costs nothing; the museum opened in 2019.") == []
    assert check_pair("There were no deaths.", "The crash injured 4 people.").findings == ()
    # "no longer", "no more than", "no doubt" are no counts
    assert kinds_and_values("She no longer works there.") == [("negation", False)]
    assert kinds_and_values("no more than four tablets") == [("number", 4.0)]


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("founded in nineteen ninety-five", 1995.0),
        ("founded in twenty twenty-four", 2024.0),
        ("founded in two thousand nineteen", 2019.0),
        ("founded in two thousand and nineteen", 2019.0),
    ],
)
def test_years_written_in_words_read_as_the_year(text, year):
    assert [fact.value for fact in extract(text).facts] == [year]
    assert unsupported(f"It was {text}.", f"It was founded in {int(year)}.") == []
    assert unsupported(f"It was {text}.", f"It was founded in {int(year) + 1}.") != []


def test_eleven_thirty_is_no_year():
    assert [f.kind for f in extract("They met at eleven thirty.").facts] != ["year"]


def test_not_only_but_also_adds_it_does_not_negate():
    context = "The museum and the park are open on Sunday."
    output = "Not only the museum but also the park is open on Sunday."
    assert [f.kind for f in extract(output).facts] == ["weekday"]
    assert unsupported(output, context) == []
    # a real negation beside it is still one
    assert [f.kind for f in extract("The museum is not open on Sunday.").facts] == ["weekday", "negation"]


@pytest.mark.parametrize(
    ("output", "context"),
    [
        ("The result is not unlikely.", "The result is likely."),
        ("A delay is not impossible.", "A delay is possible."),
        ("He never failed to call on Sundays.", "He called every Sunday."),
    ],
)
def test_a_double_negation_is_a_positive_statement(output, context):
    facts = extract(output)
    assert [f.kind for f in facts.facts if f.kind == "negation"] == []
    assert all(facts.clause_polarity.values())
    assert unsupported(output, context) == []


def test_a_plain_negation_of_a_plain_word_is_still_a_negation():
    assert [f.kind for f in extract("The result is not likely.").facts] == ["negation"]
    assert [f.kind for f in extract("The offer is not universal.").facts] == ["negation"]

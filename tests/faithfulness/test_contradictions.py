"""Contradictions a RAG answer makes in plain words: a dropped or added "not" on a predicate adjective,
an event or thing in the opposite state, a double negation. Each beside its must-not-flag twin, through
the offline faithfulness a user calls (the packaged model's alignment)."""

from __future__ import annotations

import pytest

from bertscore_plugins.faithfulness import FAITHFUL, UNFAITHFUL, offline_faithfulness

pytestmark = pytest.mark.model

PARKING_NOT_FREE = "Parking at the clinic is not free; it costs 2 euros an hour."
PARKING_FREE = "Parking at the clinic is free for all patients."
TRAIN = "The 8:15 train to Leeds was delayed by 20 minutes because of a signal fault."


def rows(pairs: list[tuple[str, str]]) -> list:
    return offline_faithfulness([output for output, _ in pairs], [context for _, context in pairs])


def test_a_dropped_or_added_not_on_a_predicate_adjective_is_named():
    dropped, added, same_free, same_not_free = rows(
        [
            ("Parking at the clinic is free.", PARKING_NOT_FREE),
            ("Parking at the clinic is not free.", PARKING_FREE),
            ("Parking at the clinic is free.", PARKING_FREE),
            ("Parking at the clinic is not free.", PARKING_NOT_FREE),
        ]
    )
    assert dropped.label == UNFAITHFUL and dropped.facts.label == "unsupported"
    assert "free" in dropped.facts.explanation and "not free" in dropped.facts.explanation
    assert added.label == UNFAITHFUL
    assert added.facts.explanation.startswith("is not free: context says 'Parking at the clinic is free")
    assert same_free.label == FAITHFUL and same_free.facts.unsupported == []
    assert same_not_free.facts.unsupported == []


def test_an_event_in_the_opposite_state_is_named():
    on_time, delayed, late = rows(
        [
            ("Yes, the train left on time.", TRAIN),
            ("The train was delayed.", TRAIN),
            ("The train to Leeds left late.", TRAIN),
        ]
    )
    assert on_time.label == UNFAITHFUL
    assert on_time.facts.explanation == "on time: context says delayed"
    assert delayed.label == FAITHFUL and delayed.facts.unsupported == []
    assert late.facts.unsupported == []  # late and delayed are one state


@pytest.mark.parametrize(
    ("output", "context", "named"),
    [
        ("The store is open on Sunday.", "The store is closed on Sunday.", "open: context says closed"),
        (
            "The concert went ahead on Friday.",
            "The concert on Friday was called off because of the storm.",
            "went ahead: context says called off",
        ),
        (
            "Entry to the exhibition is free.",
            "Entry to the exhibition costs 12 euros.",
            "free: context says costs",
        ),
        # a cancelled flight neither left on time nor went ahead
        (
            "The flight was cancelled.",
            "The flight departed on schedule.",
            "cancelled: context says on schedule",
        ),
        (
            "The 9:40 ferry left on time.",
            "The 9:40 ferry was cancelled due to high winds.",
            "on time: context says cancelled",
        ),
    ],
)
def test_states_of_one_group_exclude_each_other(output, context, named):
    row = rows([(output, context)])[0]
    assert named in row.facts.explanation
    assert row.label == UNFAITHFUL


@pytest.mark.parametrize(
    ("output", "context"),
    [
        ("The store is open on Sunday.", "The store is open on Sunday from 10 to 4."),
        ("Members get audio guides at no cost.", "Audio guides are free for members."),
        # the other state is said of another thing
        ("The museum is open on Sunday.", "The museum is open on Sunday. The cafe is closed for repairs."),
        ("The pharmacy closes on Thursdays.", "The pharmacy is open every day, but it closes on Thursdays."),
        # delayed, then cancelled: a delay does not exclude the cancellation
        ("The flight was cancelled.", "The flight was delayed by two hours and then cancelled."),
        ("The flight was cancelled.", "The flight was delayed by two hours."),
    ],
)
def test_a_state_the_context_also_says_is_not_flagged(output, context):
    row = rows([(output, context)])[0]
    assert [f.kind for f in row.facts.unsupported if f.kind == "status"] == []


def test_a_double_negation_against_its_plain_negative_is_flagged_and_against_the_positive_is_not():
    positive, negative = rows(
        [
            ("The result is not unlikely.", "The result is likely."),
            ("The result is not unlikely.", "The result is unlikely."),
        ]
    )
    assert positive.facts.unsupported == []
    assert [str(f) for f in negative.facts.unsupported] == ["not unlikely: context says unlikely"]

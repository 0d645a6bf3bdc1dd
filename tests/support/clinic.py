"""Twelve requests to a small clinic RAG app: six right answers and six wrong in one fact each (a day, a
number, a name, a negation, a month, "approved" for "rejected"); the reference is the right answer."""

from __future__ import annotations

from tests.support.rag_app import Request

# (key, question, retrieved passage, right answer, wrong answer)
CASES = [
    (
        "day",
        "When was the patient discharged?",
        "The patient was admitted on Saturday with a fractured wrist and was discharged on Tuesday.",
        "The patient was discharged on Tuesday.",
        "The patient was discharged on Thursday.",
    ),
    (
        "number",
        "How many beds does the cardiology ward have?",
        "The cardiology ward has 36 beds, four private rooms and a small family lounge.",
        "The cardiology ward has 36 beds.",
        "The cardiology ward has 48 beds.",
    ),
    (
        "name",
        "Who is the attending physician tonight?",
        "Dr. Maren Olsen is the attending physician for tonight's shift on the surgical floor.",
        "The attending physician tonight is Dr. Maren Olsen.",
        "The attending physician tonight is Dr. Clara Olsen.",
    ),
    (
        "negation",
        "Is the pharmacy open on Sundays?",
        "The clinic pharmacy is not open on Sundays; it opens Monday to Saturday from eight to six.",
        "The pharmacy is not open on Sundays.",
        "The pharmacy is open on Sundays.",
    ),
    (
        "month",
        "When is the follow-up appointment?",
        "The follow-up appointment is scheduled for 14 March at the outpatient clinic on the second floor.",
        "The follow-up appointment is on 14 March.",
        "The follow-up appointment is on 14 May.",
    ),
    (
        "decision",
        "What happened to the insurance claim?",
        "The insurance claim was rejected because the referral letter was missing from the file.",
        "The insurance claim was rejected.",
        "The insurance claim was approved.",
    ),
]
WRONG = "wrong"


def clinic_requests(tag: str) -> list[Request]:
    """The twelve requests (keys ``<case>-right`` / ``<case>-wrong``); questions made unique by ``tag``."""
    requests = []
    for key, question, passage, right, wrong in CASES:
        for kind, answer in (("right", right), (WRONG, wrong)):
            expected = "high_sim_unfaithful" if kind == WRONG else "agree"
            requests.append(
                Request(f"{key}-{kind}", f"{question} ({tag} {kind})", (passage,), answer, right, expected)
            )
    return requests

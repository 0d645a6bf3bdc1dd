"""Rows for checking that every door reads the offline faithfulness the same way, generated here.

Each row is a question, a source of about 50, 600 or 3,000 tokens written from sentence templates (seeded,
so the same text every run), the sentence that answers the question placed first, in the middle or last,
and an answer written as plain text, HTML or markdown, which states the source's fact or changes its
number. The source is given as one text or as the same sentences split into passages (a list). Nothing
here knows how any door scores a row.

    >>> rows = door_rows()
    >>> len(rows), sorted({row.size for row in rows})
    (54, [50, 600, 3000])
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import product
from typing import Any

#: source sizes in tokens of the packaged model (about 0.78 words a token in these sentences)
SIZES = (50, 600, 3000)
WORDS_PER_TOKEN = 0.78
POSITIONS = ("first", "middle", "last")
FORMATS = ("plain", "html", "markdown")
SHAPES = ("text", "passages")


@dataclass(frozen=True)
class Fact:
    """A supporting sentence, the question it answers and an answer in parts: the two facts it states
    (the second as the source writes it, or changed) and the words around them."""

    place: str
    sentence: str
    question: str
    parts: tuple[str, str, str, str, str, str]  # subject, before, first fact, between, second fact, after
    changed: str  # the second fact as an unfaithful answer states it
    link: str  # where a markdown or HTML answer links to


FACTS = (
    Fact(
        "Harbour Street clinic",
        "The Harbour Street clinic opens at 8 am on Tuesdays and keeps 36 beds for patients who stay overnight.",
        "When does the Harbour Street clinic open on Tuesdays, and how many beds does it keep?",
        (
            "The clinic",
            " opens at ",
            "8 am on Tuesdays",
            " and keeps ",
            "36 beds",
            " for overnight patients.",
        ),
        "48 beds",
        "https://example.org/clinic/hours",
    ),
    Fact(
        "Millbrook library",
        "The Millbrook library lends up to 14 books per card and charges a fine of 20 pence for each day an item is late.",
        "How many books can I borrow from the Millbrook library, and what is the late fine?",
        (
            "A reader",
            " can borrow ",
            "up to 14 books",
            " per card, and a late item costs ",
            "20 pence a day",
            ".",
        ),
        "50 pence a day",
        "https://example.org/library/lending",
    ),
    Fact(
        "Kestrel Valley railway",
        "Trains on the Kestrel Valley railway leave Ashford station every 40 minutes and the journey to the coast takes 95 minutes.",
        "How often do Kestrel Valley trains leave Ashford, and how long is the trip to the coast?",
        (
            "A train",
            " leaves Ashford ",
            "every 40 minutes",
            ", and the ride to the coast takes ",
            "95 minutes",
            ".",
        ),
        "65 minutes",
        "https://example.org/railway/timetable",
    ),
    Fact(
        "Northgate swimming pool",
        "The Northgate swimming pool is 25 metres long and holds early sessions for adults from 6 am on weekdays.",
        "How long is the Northgate pool, and when do the early adult sessions start?",
        (
            "The pool",
            " is ",
            "25 metres long",
            " and early adult sessions start at ",
            "6 am on weekdays",
            ".",
        ),
        "7 am on weekdays",
        "https://example.org/pool/sessions",
    ),
)

_NAMES = (
    "Aoife Brennan", "Tomas Lindqvist", "Priya Raman", "Daniel Okafor", "Helen Marsh", "Jonas Weber",
    "Mariam Haddad", "Peter Quinn", "Sofia Moretti", "Graham Dunne", "Leila Farouk", "Owen Pritchard",
)  # fmt: skip
_ROLES = ("manager", "treasurer", "head of volunteers", "caretaker", "archivist", "education officer")
_GROUPS = ("the friends' association", "the parish council", "a local history society", "the youth club")
_MATERIALS = ("reclaimed oak", "local sandstone", "red brick", "slate from the old quarry", "pale limestone")
_PARTS = ("roof", "east wing", "entrance hall", "reading room", "north wall", "courtyard")
_ACTIVITIES = (
    "a book sale", "a garden open day", "a quiz night", "a charity walk", "a craft fair", "a summer concert",
)  # fmt: skip
_SEASONS = ("spring", "summer", "autumn", "winter")
_FOODS = ("soup", "sandwiches", "scones", "fruit cake", "toasted bagels")
_DRINKS = ("tea", "coffee", "fresh orange juice", "hot chocolate")
_TOWNS = ("Lindholm", "Ashby", "Corrin Bay", "Wexmoor", "Hallam", "Tarrow")
#: counts a filler sentence may use: none of them is a fact's number or its changed number
_COUNTS = (3, 5, 9, 11, 12, 17, 22, 30, 60, 75, 120, 300)

_FILLERS = (
    "{name} became the {role} in {year} after {count} years of work in {town}.",
    "The {part} was rebuilt in {year} with {material}, paid for by {group}.",
    "Every {season}, {group} runs {activity}, and most of the money raised goes to repairs.",
    "A small café beside the {part} serves {food} and {drink} to visitors.",
    "Old photographs from {year} show the {part} before the fire that closed it for {count} months.",
    "{name} wrote a short history of the building, which the shop in {town} still sells.",
    "Visitors from {town} often remark on the {part}, which was restored with {material}.",
    "The annual report lists {count} volunteers, most of whom live within walking distance.",
    "In {year} the council agreed to keep the {part} open after a petition signed by {count} hundred people.",
    "Parking is limited, so the {role} asks visitors from {town} to come by bus where they can.",
    "{group} meets in the {part} on the first evening of each month to plan {activity}.",
    "The original plans, drawn in {year}, are kept by the archive in {town}.",
)


def _filler(rng: random.Random) -> str:
    return rng.choice(_FILLERS).format(
        name=rng.choice(_NAMES), role=rng.choice(_ROLES), year=rng.randrange(1952, 2016),
        count=rng.choice(_COUNTS), town=rng.choice(_TOWNS), part=rng.choice(_PARTS),
        material=rng.choice(_MATERIALS), group=rng.choice(_GROUPS), activity=rng.choice(_ACTIVITIES),
        season=rng.choice(_SEASONS), food=rng.choice(_FOODS), drink=rng.choice(_DRINKS),
    )  # fmt: skip


def source_sentences(fact: Fact, size: int, position: str) -> list[str]:
    """About ``size`` tokens of sentences about ``fact``'s place, its supporting sentence at ``position``."""
    rng = random.Random(f"{fact.place}/{size}/{position}")
    words = size * WORDS_PER_TOKEN - len(fact.sentence.split())
    others = [f"These notes describe the {fact.place} and its neighbourhood."]
    while sum(len(sentence.split()) for sentence in others) < words:
        sentence = _filler(rng)
        if sentence not in others:
            others.append(sentence)
    at = {"first": 0, "middle": len(others) // 2, "last": len(others)}[position]
    return [*others[:at], fact.sentence, *others[at:]]


def passages(sentences: list[str]) -> list[str]:
    """The sentences in about six passages (one sentence each for a short source)."""
    size = max(1, len(sentences) // 6)
    return [" ".join(sentences[start : start + size]) for start in range(0, len(sentences), size)]


def answer(fact: Fact, form: str, faithful: bool) -> str:
    """The answer in ``form``: plain text, HTML (a paragraph, a link, bold, emphasis) or markdown (a link,
    bold, emphasis); the same words in each."""
    subject, before, first, between, second, after = fact.parts
    second = second if faithful else fact.changed
    if form == "html":
        return (
            f'<p><a href="{fact.link}">{subject}</a>{before}<strong>{first}</strong>{between}'
            f"<em>{second}</em>{after}</p>"
        )
    if form == "markdown":
        return f"[{subject}]({fact.link}){before}**{first}**{between}_{second}_{after}"
    return f"{subject}{before}{first}{between}{second}{after}"


@dataclass(frozen=True)
class DoorRow:
    """One row as a user gives it: ``context`` is a text or a list of passages."""

    row_id: str
    question: str
    context: Any
    output: str
    reference: str
    size: int
    position: str
    form: str
    shape: str
    faithful: bool


def door_rows() -> list[DoorRow]:
    """Every size x position x answer form x context shape: 54 rows, about half of them unfaithful."""
    rows = []
    for (s, size), (p, position), (f, form), shape in product(
        enumerate(SIZES), enumerate(POSITIONS), enumerate(FORMATS), SHAPES
    ):
        fact = FACTS[(3 * s + p) % len(FACTS)]
        sentences = source_sentences(fact, size, position)
        faithful = (s + p + f) % 2 == 0
        rows.append(
            DoorRow(
                row_id=f"{size}-{position}-{form}-{shape}",
                question=fact.question,
                context=" ".join(sentences) if shape == "text" else passages(sentences),
                output=answer(fact, form, faithful),
                reference=answer(fact, "plain", True),
                size=size,
                position=position,
                form=form,
                shape=shape,
                faithful=faithful,
            )
        )
    return rows


#: contexts with no text in them, each given the way a user could: an empty text, a blank one, no passages
EMPTY_CONTEXTS = {"empty-text": "", "blank-text": "  ", "no-passages": []}


def empty_rows() -> list[DoorRow]:
    """A row per empty context, with an answer that would otherwise be scored."""
    fact, text = FACTS[0], answer(FACTS[0], "plain", True)
    shape = {"empty-text": "text", "blank-text": "text", "no-passages": "passages"}
    return [
        DoorRow(name, fact.question, context, text, text, 0, "none", "plain", shape[name], True)
        for name, context in EMPTY_CONTEXTS.items()
    ]


#: answers that are no answer to judge (bertscore_plugins/faithfulness/outcome.py), each with its outcome
OUTCOME_ANSWERS = {
    "empty-answer": ("", "empty"),
    "blank-answer": ("   ", "empty"),
    "emoji-answer": ("\U0001f642\U0001f389\U0001f642", "empty"),
    "punctuation-answer": ("?! ... --", "empty"),
    "dont-know": ("I don't know.", "abstained"),
    "context-silent": ("The context does not say.", "abstained"),
    "polite-refusal": ("I'm sorry, but I cannot answer that from the provided documents.", "abstained"),
    "not-in-documents": ("Sorry, that information isn't in the documents.", "abstained"),
    "french-refusal": ("Je ne sais pas.", "abstained"),
    "bidi-wrapped-refusal": ("\u200fI don't know.\u200f", "abstained"),
}
#: answers that hedge and then claim something: read as answers (faithful or not), never as refusals
HEDGED_ANSWERS = {
    "hedge-then-changed-fine": ("I'm not sure, but a late item costs 50 pence a day.", False),
    "hedge-then-source-fact": ("I can't find the loan limit, but a late item costs 20 pence a day.", True),
}


def outcome_rows() -> list[DoorRow]:
    """A row per answer that is empty, content-free or a refusal, over a real source and reference."""
    fact = FACTS[1]
    sentences = source_sentences(fact, SIZES[0], "first")
    reference = answer(fact, "plain", True)
    return [
        DoorRow(name, fact.question, " ".join(sentences), text, reference, SIZES[0], "first", "plain",
                "text", False)
        for name, (text, _) in OUTCOME_ANSWERS.items()
    ]  # fmt: skip


def hedged_rows() -> list[DoorRow]:
    """A row per answer that hedges and then claims the source's fact or a changed one."""
    fact = FACTS[1]
    sentences = source_sentences(fact, SIZES[0], "first")
    reference = answer(fact, "plain", True)
    return [
        DoorRow(name, fact.question, " ".join(sentences), text, reference, SIZES[0], "first", "plain",
                "text", faithful)
        for name, (text, faithful) in HEDGED_ANSWERS.items()
    ]  # fmt: skip

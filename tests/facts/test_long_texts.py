"""A long output against a long source that contradicts it everywhere: the same findings as the pair's
passages checked one by one, and a progress bar over the facts where a person watches (the time per
doubling is measured in benchmarks/speed/facts_cost.py --doubling, not asserted here)."""

from __future__ import annotations

from bertscore_plugins.facts import check_pair
from bertscore_plugins.facts.support import FACT_CHARACTERS_PER_SECOND, facts_bar

OUTPUT = (
    "On {k} March the clinic on Elm Street did not open before 9 am, and Dr. Maria Olsen saw {n} patients. "
    "Parking was free for patients, but the 8:15 train was delayed by {n} minutes. "
)
SOURCE = (
    "On {k} April the clinic on Oak Street opened before 8 am, and Dr. John Berg saw {m} patients. "
    "Parking was not free for patients, and the 9:40 train was on time after {m} minutes. "
)


def _texts(passages: int) -> tuple[str, str]:
    output = "".join(OUTPUT.format(k=k % 28 + 1, n=k + 3) for k in range(passages))
    return output, "".join(SOURCE.format(k=k % 28 + 1, m=k + 7) for k in range(passages))


def test_a_long_conflicting_pair_names_what_the_source_says_for_each_kind_of_fact():
    output, source = _texts(60)
    found = check_pair(output, source, progress=False)
    said: dict[str, str | None] = {}
    for finding in found.unsupported:  # the first passage's finding for each text
        said.setdefault(finding.text, finding.context_says)
    assert found.label == "unsupported" and found.score <= 0.5
    assert said["1 March"] == "1 April"  # a date: the source's date in the same words
    assert said["9 am"] == "8 am" and said["8:15"] == "9:40"  # times
    assert said["3 patients"] == "7 patients"  # a count: the source's count in the same words
    assert "7 patients" not in said  # ... and never one the source carries
    assert said["Maria Olsen"] is None and said["Elm"] is None  # names (no alignment: nothing in their place)
    assert said["did not open before 9 am"] == "'On 1 April the clinic on Oak Street opened before 8 am'"
    assert said["Parking free patients"] == "'Parking was not free for patients'"
    assert said["delayed"] == "on time"


def test_a_long_pair_shows_a_progress_bar_over_its_facts_and_the_same_findings(capsys):
    output, source = _texts(40)
    quiet = check_pair(output, source, progress=False)
    assert capsys.readouterr().err == ""
    shown = check_pair(output, source, progress=True)
    bar = capsys.readouterr().err
    assert "fact check" in bar and ("fact/s" in bar or "s/fact" in bar)
    assert shown == quiet
    # progress=None: only where a person watches (a terminal or a notebook), and only for long work
    assert facts_bar(10, None, 10 * FACT_CHARACTERS_PER_SECOND) is None  # pytest's stderr is no terminal
    assert facts_bar(10, None, 100) is None

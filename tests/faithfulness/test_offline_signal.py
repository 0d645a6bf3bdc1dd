"""The offline faithfulness signal: its parts, the named misses and false alarms beside their twins,
the input layer, non-English rows, and work that grows linearly with the output."""

from __future__ import annotations

import json

import pytest

from bertscore_plugins.facts import NOT_CHECKED, check_pair, extract
from bertscore_plugins.faithfulness import check_facts, offline_faithfulness
from bertscore_plugins.inputs import InputError
from bertscore_plugins.thresholds import FAITHFULNESS_THRESHOLD

pytestmark = pytest.mark.model  # loads the packaged model


def flagged(output: str, context: str) -> list[str]:
    row = offline_faithfulness([output], [context])[0]
    return [str(finding) for finding in row.facts.unsupported]


@pytest.mark.parametrize(
    ("output", "context", "says"),
    [
        (
            "Aspirin is safe for children under 16.",
            "Aspirin should not be given to children under 16.",
            "safe: context says 'Aspirin should not be given to children under 16.'",
        ),
        (
            "The flight was cancelled.",
            "The flight was delayed by two hours.",
            "cancelled: context says delayed",
        ),
        (
            "Maria teaches Physics and Tom teaches Chemistry.",
            "Maria teaches Chemistry and Tom teaches Physics.",
            "Tom teaches Chemistry: context says 'Tom teaches Physics'",
        ),
        (
            "The tower is just over 500 metres tall.",
            "The tower is 650 m tall.",
            "500 metres: context says 650 m",
        ),
        (
            "The firm raised $4.2bn last year.",
            "Last year the firm raised $2.4bn.",
            "$4.2bn: context says $2.4bn",
        ),
        ("It fell to -5 degrees.", "It fell to 5 degrees overnight.", "-5 degrees: context says 5 degrees"),
        ("Yesterday Germany was defeated by Brazil.", "Yesterday Germany defeated Brazil.", None),
    ],
)
def test_a_changed_fact_is_flagged_with_what_the_context_says(output, context, says):
    found = flagged(output, context)
    assert found, output
    if says is not None:
        assert found == [says]


@pytest.mark.parametrize(
    ("output", "context"),
    [
        (
            "Aspirin should not be given to children under 16.",
            "Aspirin should not be given to children under 16.",
        ),
        ("The flight was delayed.", "The flight was delayed by two hours."),
        (
            "Maria teaches Chemistry and Tom teaches Physics.",
            "Maria teaches Chemistry and Tom teaches Physics.",
        ),
        ("The tower is just over 500 metres tall.", "The tower is 503 m tall."),
        ("The firm raised $4.2bn last year.", "Last year the firm raised $4.2bn."),
        ("It fell to -5 degrees.", "It fell to -5 degrees overnight."),
        ("It fell to \u22125 degrees.", "It fell to -5 degrees overnight."),
        ("Yesterday Brazil was defeated by Germany.", "Yesterday Germany defeated Brazil."),
    ],
)
def test_the_faithful_twin_is_not_flagged(output, context):
    assert flagged(output, context) == []


@pytest.mark.parametrize(
    ("output", "context", "label"),
    [
        ("The tower is just over 500 metres tall.", "The tower is 503 m tall.", "faithful"),
        ("The tower is just over 500 metres tall.", "The tower is 650 m tall.", "unfaithful"),
        ("The firm raised $4.2bn last year.", "Last year the firm raised $4.2 billion.", "faithful"),
        ("The firm raised $4.2bn last year.", "Last year the firm raised $2.4 billion.", "unfaithful"),
    ],
)
def test_a_fact_the_context_writes_its_own_way_counts_as_written(output, context, label):
    """The lexical parts count the words of a carried fact as the source's: "just over 500 metres" for
    "503 m" is no unsupported wording, so the label is a reader's, not a string match's."""
    row = offline_faithfulness([output], [context])[0]
    assert row.label == label, row.explanation


def test_a_currency_magnitude_is_one_fact():
    facts = extract("The firm raised $4.2bn last year.").facts
    assert [(f.text, f.value, f.unit) for f in facts] == [("$4.2bn", 4.2e9, "dollar")]


def test_a_minus_sign_makes_a_negative_number_but_a_hyphen_does_not():
    assert [f.value for f in extract("fell to \u22125 degrees").facts] == [-5.0]
    assert [f.value for f in extract("covid-19 cases").facts] == [19.0]
    assert [f.value for f in extract("2-5 days").facts] == [2.0, 5.0]


def test_passive_voice_at_a_sentence_start_is_a_documented_limit():
    # a name that opens the sentence is not known to be a name (it is capitalised anyway), so "Bob was
    # paid by Alice" against "Bob paid Alice" is left to the score; mid-sentence names are checked
    assert check_pair("Bob was paid by Alice.", "Bob paid Alice.").unsupported == []
    assert check_pair("Yesterday Bob was paid by Alice.", "Yesterday Bob paid Alice.").unsupported


def test_non_english_rows_are_counted_as_not_checked_and_say_so():
    row = offline_faithfulness(
        ["Der Patient wurde am Donnerstag entlassen und ging nach Hause."],
        ["Der Patient wurde am Dienstag entlassen und ging nach Hause."],
    )[0]
    assert row.facts.label == NOT_CHECKED and not row.facts.checked
    assert "not checked" in row.explanation
    assert row.to_dict()["fact_checked"] is False
    assert row.label == "unfaithful" and row.score < FAITHFULNESS_THRESHOLD  # not vouched for
    english = offline_faithfulness(["Discharged on Thursday."], ["He was discharged on Tuesday."])[0]
    assert english.facts.checked and english.label == "unfaithful"


@pytest.mark.parametrize(
    ("outputs", "named"),
    [
        ({"a wrong fact": "faithful"}, "mapping"),
        ({"one", "two"}, "order is arbitrary"),
    ],
)
def test_the_entry_points_refuse_a_mapping_and_a_set(outputs, named):
    for entry in (check_facts, offline_faithfulness):
        with pytest.raises(InputError, match=named) as error:
            entry(outputs, ["context one", "context two"][: len(outputs)])
        assert "outputs" in str(error.value)


def test_the_entry_points_refuse_a_dataframe_as_contexts():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"context": ["The ferry takes forty minutes."]})
    with pytest.raises(InputError, match="DataFrame") as error:
        check_facts(["The ferry takes forty minutes."], frame)
    assert "contexts" in str(error.value)


def test_a_bad_row_is_named():
    with pytest.raises(InputError, match=r"contexts\[1\] is None"):
        offline_faithfulness(["a", "b"], ["a", None])


def test_the_parts_are_visible_and_the_score_is_a_probability():
    row = offline_faithfulness(
        ["The ferry takes forty minutes. It leaves from Marsh Quay every Thursday."],
        ["The ferry from Marsh Quay leaves every ninety minutes. The crossing takes forty minutes."],
    )[0]
    details = row.to_dict()
    assert 0.0 <= row.score <= 1.0
    for part in ("groundedness", "weakest_sentence", "lcs", "weakest_lexical", "lexical"):
        assert 0.0 <= details[part] <= 1.0, part
    assert details["weakest_sentence_text"] == "It leaves from Marsh Quay every Thursday."
    assert details["unsupported_facts"] == ["Thursday: not in the context"]
    assert "weakest sentence" in row.explanation and "Thursday: not in the context" in row.explanation
    assert row.label == "unfaithful" and row.score < FAITHFULNESS_THRESHOLD


def test_a_sentence_stitched_from_far_apart_paragraphs_is_the_weakest_lexically():
    """Every word of the stitched sentence is in the article, so against the whole source it looks copied;
    against its best passage of two sentences it does not."""
    from bertscore_plugins.facts.extract import extract
    from bertscore_plugins.faithfulness.parts import lexical_sequence_parts

    article = (
        "The mayor opened the new bridge on Monday. Crowds lined the river to watch. "
        "Traffic was diverted for the day. The old ferry will keep running at weekends. "
        "Local shops reported a busy afternoon. The bridge cost the city four million pounds."
    )
    copied = "The mayor opened the new bridge on Monday. Crowds lined the river to watch."
    stitched = "The mayor opened the old ferry. Local shops reported a busy afternoon."
    whole, passage = lexical_sequence_parts(extract(copied), extract(article))
    assert (whole, passage) == (1.0, 1.0)
    whole, passage = lexical_sequence_parts(extract(stitched), extract(article))
    assert whole == 1.0  # every word, in order, somewhere in the article
    assert passage < 0.7


def test_a_rare_word_the_source_never_writes_is_named_even_in_lower_case():
    """Names and numbers are what summaries invent; lower-cased output has no capitals to show a name,
    but the tokenizer splits a rare word into pieces. Common words and carried facts are not novel."""
    source = "The club's new stadium opened on Saturday in front of twelve thousand fans from Exeter."
    rows = offline_faithfulness(
        [
            "the new stadium opened in torquay on saturday .",
            "the new stadium drew 20,000 fans .",
            "the new ground opened on saturday in front of 12,000 fans from exeter .",
        ],
        [source] * 3,
    )
    assert [row.novel_rare_words for row in rows] == [("torquay",), ("20,000",), ()]
    assert "never in the context: torquay" in rows[0].explanation
    assert rows[0].to_dict()["novel_rare_word"] == 1.0 and rows[2].to_dict()["novel_rare_word"] == 0.0
    assert rows[2].score > rows[0].score


def test_unknown_word_placeholders_count_in_no_part():
    from bertscore_plugins.facts.extract import extract
    from bertscore_plugins.faithfulness.parts import lexical_sequence_parts, lexical_support

    article = extract("Gaioz Nigalidze was expelled from the Dubai Open chess tournament on Sunday.")
    with_gap = extract("UNK UNK was expelled from the dubai open chess tournament .")
    assert lexical_support(with_gap, article) == 1.0
    assert lexical_sequence_parts(with_gap, article) == (1.0, 1.0)


def test_the_weights_file_is_readable_and_names_its_training_data():
    from bertscore_plugins.faithfulness import combination as signal

    table = json.loads(signal.WEIGHTS.read_text(encoding="utf-8"))
    assert set(table["weights"]) == set(signal.FEATURES)
    assert "faithfulness_train.py" in table["trained_by"]
    assert set(table["trained_on"]) == {"summeval", "frank_valid"}


def test_the_fact_check_reads_each_output_word_a_bounded_number_of_times():
    """Work grows linearly with the output: every pass over the output's words is counted (not timed)."""
    from dataclasses import replace

    from bertscore_plugins.facts.support import check_extracted

    class CountingWords(list):
        reads = 0

        def __iter__(self):
            for word in super().__iter__():
                CountingWords.reads += 1
                yield word

    sentence = "The bridge did not open on Monday, and Anna Varga paid 40 euros. "
    per_word = []
    for copies in (20, 80):
        out = extract(sentence * copies)
        counted = replace(out, words=CountingWords(out.words))
        CountingWords.reads = 0
        check_extracted(counted, extract(sentence))
        per_word.append(CountingWords.reads / len(out.words))
    assert per_word[1] <= per_word[0] * 1.25, per_word


def test_the_demo_fact_errors_are_caught_directly_and_faithful_rows_keep_their_facts():
    """recipes/demo_data.jsonl without Phoenix: every wrong day, number, name and negation is an
    unsupported fact (so the row is unfaithful); at most one faithful row has a fact flagged."""
    from pathlib import Path

    demo = Path(__file__).resolve().parents[2] / "recipes" / "demo_data.jsonl"
    rows = [json.loads(line) for line in demo.read_text(encoding="utf-8").splitlines() if line.strip()]
    signals = offline_faithfulness([r["output"] for r in rows], [r["context"] for r in rows])
    fact_cases = {"wrong_day", "wrong_number", "wrong_name", "negation"}
    caught = [s for r, s in zip(rows, signals, strict=True) if r["case"] in fact_cases]
    assert len(caught) == 17
    assert all(s.facts.unsupported and s.label == "unfaithful" for s in caught)
    assert all(s.score < FAITHFULNESS_THRESHOLD for s in caught)
    faithful_flagged = [
        r["id"]
        for r, s in zip(rows, signals, strict=True)
        if r["careful_judge"] == "faithful" and s.facts.unsupported
    ]
    assert len(faithful_flagged) <= 1, faithful_flagged

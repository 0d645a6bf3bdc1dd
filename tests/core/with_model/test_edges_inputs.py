"""The input layer: only sequences of str (or of sequences of str) are read; everything else is refused
with the row named, the same way from every entry point."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bertscore_plugins import EmptyTextWarning, UnknownTokenWarning, get_scorer
from bertscore_plugins.errors import InputError
from bertscore_plugins.inputs import check_pairs

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


@pytest.fixture(scope="module")
def scorer():
    return get_scorer()


@pytest.mark.parametrize(
    ("candidates", "message"),
    [
        (
            {"a": "A cat."},
            (
                "candidates must be a list of strings (one per row), got a mapping (dict); its keys "
                "would be scored, pass a list of its values"
            ),
        ),
        (
            {"A cat."},
            (
                "candidates must be a list of strings (one per row), got a set, whose order is arbitrary; "
                "pass a list"
            ),
        ),
        (
            frozenset({"A cat."}),
            (
                "candidates must be a list of strings (one per row), got a frozenset, whose order "
                "is arbitrary; pass a list"
            ),
        ),
        ("A cat.", "candidates must be a list of strings (one per row), got a single str, not one per row"),
        (
            b"A cat.",
            "candidates must be a list of strings (one per row), got a single bytes, not one per row",
        ),
        (
            np.array("A cat."),
            (
                "candidates must be a list of strings (one per row), got a 0-d array (ndarray), "
                "not one item per row"
            ),
        ),
        (
            np.str_("A cat."),
            "candidates must be a list of strings (one per row), got a single str_, not one per row",
        ),
        (5, "candidates must be a list of strings (one per row), got int, not a list"),
        (None, "candidates must be a list of strings (one per row), got NoneType, not a list"),
        (
            pd.DataFrame({"c": ["A cat."]}),
            (
                "candidates must be a list of strings (one per row), got a DataFrame; "
                "pass one column, e.g. frame['candidate']"
            ),
        ),
    ],
)
def test_containers_that_are_not_rows_are_refused(candidates, message):
    with pytest.raises(InputError) as caught:
        check_pairs(candidates, ["A cat."])
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            np.array("A dog."),
            ("references[1] is a 0-d array (ndarray), not one item per row; expected a str or a list of str"),
        ),
        (
            np.int64(3),
            "references[1] is a 0-d array (int64), not one item per row; expected a str or a list of str",
        ),
        (b"A dog.", "references[1] is bytes, expected str (decode it first, e.g. value.decode('utf-8'))"),
        (
            bytearray(b"A dog."),
            ("references[1] is bytearray, expected str (decode it first, e.g. value.decode('utf-8'))"),
        ),
        (
            {"A dog."},
            "references[1] is a set, whose order is arbitrary; pass a list; expected a str or a list of str",
        ),
        (
            {"x": "A dog."},
            (
                "references[1] is a mapping (dict); its keys would be scored, pass a list of its values; "
                "expected a str or a list of str"
            ),
        ),
        (None, "references[1] is None (a missing value?)"),
        (float("nan"), "references[1] is NaN (a missing value?)"),
        (3, "references[1] is int, not a list; expected a str or a list of str"),
        ([], "references[1] is an empty list: each candidate needs at least one reference"),
        (
            ["A dog.", b"x"],
            "references[1][1] is bytes, expected str (decode it first, e.g. value.decode('utf-8'))",
        ),
        (["A dog.", None], "references[1][1] is None (a missing value?)"),
    ],
)
def test_reference_rows_that_are_not_texts_name_the_row(row, message):
    with pytest.raises(InputError) as caught:
        check_pairs(["A cat.", "A dog."], ["A cat.", row])
    assert str(caught.value) == message


def test_lone_surrogates_are_refused_naming_row_and_position(scorer):
    with pytest.raises(InputError) as caught:
        scorer.score(["fine", "ab\ud800c"], ["fine", "fine"])
    assert str(caught.value).startswith("candidates[1] holds a lone surrogate '\\ud800' at character 2")
    with pytest.raises(
        InputError, match=r"^references\[0\]\[1\] holds a lone surrogate '\\udfff' at character 0"
    ):
        scorer.score(["fine"], [["fine", "\udfff"]])
    with pytest.raises(InputError, match=r"^references\[0\] holds a lone surrogate"):
        scorer.fit_idf(["\ud83d"])


def test_accepted_shapes_score_the_same(scorer):
    candidates = ["The cat sat.", "A dog barked loudly."]
    references = ["A cat was sitting.", "The dog barked."]
    expected = scorer.score(candidates, references).f1.tolist()
    shapes = [
        (tuple(candidates), tuple(references)),
        (pd.Series(candidates, index=[10, 3]), pd.Series(references, index=[7, 1])),
        (np.array(candidates), np.array(references)),
        (np.array(candidates, dtype=object), np.array(references, dtype=object)),
        (pa.array(candidates), pa.chunked_array([references[:1], references[1:]])),
        ((text for text in candidates), iter(references)),
        (candidates, [[text] for text in references]),
        (candidates, [np.array([text]) for text in references]),
        (candidates, [pa.array([text]) for text in references]),
        (candidates, np.array([[text] for text in references])),
        ([np.str_(text) for text in candidates], references),
    ]
    for cands, refs in shapes:
        assert scorer.score(cands, refs).f1.tolist() == expected, (type(cands), type(refs))


def test_normalised_rows_are_plain_python_strings():
    cands, groups = check_pairs(np.array(["a", "b"]), pd.Series([["c", "d"], ["e"]]))
    assert cands == ["a", "b"] and groups == [["c", "d"], ["e"]]
    assert all(type(text) is str for text in cands + [t for g in groups for t in g])


def test_misaligned_lengths_name_both_counts():
    with pytest.raises(
        InputError, match=r"^candidates and references differ in length: 2 candidates, 1 references$"
    ):
        check_pairs(["a", "b"], ["a"])


TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
BAD_ROW = st.one_of(
    st.none(),
    st.integers(),
    st.binary(max_size=4),
    st.sets(TEXT, max_size=2),
    st.dictionaries(TEXT, TEXT, max_size=2),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=6), st.data())
def test_one_bad_row_anywhere_is_named_by_its_index(texts, data):
    row = data.draw(st.integers(0, len(texts) - 1))
    bad = data.draw(BAD_ROW)
    references = list(texts)
    references[row] = bad
    with pytest.raises(InputError) as caught:
        check_pairs(texts, references)
    assert str(caught.value).startswith(f"references[{row}]")
    candidates = list(texts)
    candidates[row] = bad
    with pytest.raises(InputError) as caught:
        check_pairs(candidates, texts)
    assert str(caught.value).startswith(f"candidates[{row}] is ")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=5))
def test_any_text_is_either_scored_or_refused_for_a_surrogate(texts):
    has_surrogate = any(0xD800 <= ord(ch) <= 0xDFFF for text in texts for ch in text)
    try:
        cands, groups = check_pairs(texts, texts)
    except InputError as error:
        assert has_surrogate and "lone surrogate" in str(error)
    else:
        assert not has_surrogate and cands == texts and groups == [[t] for t in texts]


# ------------------------------------------------------------- decided semantics (README, class 9)


def test_texts_made_only_of_unknown_tokens_are_scored_as_bert_score_does_with_a_warning(scorer):
    unknown = scorer.tokenizer.tokenizer.unk_token_id
    ids = scorer.tokenizer.encode(["\U0001d518\U0001d519"])[0].ids
    assert ids[1:-1] == [unknown]  # the premise: this text is one unknown token
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = scorer.score(["\U0001d518\U0001d519", "A cat."], ["\u0f00\u0f01", "A cat."])
    found = [w for w in caught if issubclass(w.category, UnknownTokenWarning)]
    assert len(found) == 1
    assert str(found[0].message).startswith("2 text(s) are made only of the model's unknown token")
    assert scores.f1[0] == pytest.approx(1.0, abs=1e-6)


def test_a_rescaled_empty_pair_gets_the_rescaled_zero_and_the_warning_says_so():
    b_p, b_r, b_f = 0.37035200, 0.36927047, 0.36798340  # layer 4 of the shipped baseline file
    rescaled = get_scorer(rescale=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = rescaled.score(["", "A cat."], ["A cat.", "A cat."])
    message = str(next(w for w in caught if issubclass(w.category, EmptyTextWarning)).message)
    assert message.startswith(
        "1 empty candidate(s) and 0 row(s) with an empty reference scored 0 before "
        "rescaling, i.e. (0 - b) / (1 - b) with the baseline b, for precision, recall and F1"
    )
    assert scores.f1[0] == pytest.approx((0 - b_f) / (1 - b_f), abs=1e-6)
    assert scores.precision[0] == pytest.approx((0 - b_p) / (1 - b_p), abs=1e-6)
    assert scores.recall[0] == pytest.approx((0 - b_r) / (1 - b_r), abs=1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        get_scorer().score([""], ["A cat."])
    plain = str(next(w for w in caught if issubclass(w.category, EmptyTextWarning)).message)
    assert plain.startswith(
        "1 empty candidate(s) and 0 row(s) with an empty reference scored 0 for precision"
    )

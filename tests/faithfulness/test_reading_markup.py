"""Markup is read as the text it shows: an answer written as HTML or with a markdown link scores like
the same answer in plain text."""

from __future__ import annotations

import pytest

from bertscore_plugins.faithfulness import check_facts, offline_faithfulness, plain_text

CONTEXT = "Parking at the clinic is free for patients. The clinic opens at 8 am on weekdays."
PLAIN = "Parking at the clinic is free for patients, and the clinic opens at 8 am on weekdays."


@pytest.mark.parametrize(
    ("marked", "plain"),
    [
        ("<p>Parking at <b>the clinic</b> is free.</p>", "Parking at the clinic is free."),
        (
            "Parking at [the clinic](https://example.org/clinic_(main)) is free.",
            "Parking at the clinic is free.",
        ),
        (
            "Parking at [the clinic][1] is **free**.\n\n[1]: https://example.org",
            "Parking at the clinic is free.",
        ),
        (
            "# Parking\n\n- Parking is *free*.\n- Opens at `8 am`.",
            "Parking\n\nParking is free.\nOpens at 8 am.",
        ),
        ("Fish &amp; chips &lt;3", "Fish & chips <3"),
        ("<div>One.</div><div>Two.</div>", "One.\n\nTwo."),
    ],
)
def test_markup_is_taken_away(marked, plain):
    assert plain_text(marked) == plain


@pytest.mark.parametrize(
    "text", ["snake_case and 2 * 3 * 4", "x < 5 and y > 3", "Plain  text, kept   as written.", "a_b_c"]
)
def test_text_without_markup_is_returned_unchanged(text):
    assert plain_text(text) == text


@pytest.mark.model
def test_the_same_answer_as_html_or_with_a_markdown_link_scores_like_plain_text():
    html = (
        "<p>Parking at <a href='https://example.org/clinic'>the clinic</a> is <b>free</b> for patients, "
        "and the clinic opens at 8 am on weekdays.</p>"
    )
    markdown = (
        "Parking at [the clinic](https://example.org/clinic) is **free** for patients, and the clinic "
        "opens at 8 am on weekdays."
    )
    plain, as_html, as_markdown = offline_faithfulness([PLAIN, html, markdown], [CONTEXT] * 3)
    assert plain.label == "faithful"
    assert as_html.score == pytest.approx(plain.score, abs=1e-6) and as_html.label == plain.label
    assert as_markdown.score == pytest.approx(plain.score, abs=1e-6) and as_markdown.label == plain.label
    # the context may be markup too
    html_context = offline_faithfulness([PLAIN], [f"<html><body><p>{CONTEXT}</p></body></html>"])[0]
    assert html_context.score == pytest.approx(plain.score, abs=1e-6)
    assert [c.label for c in check_facts([html], [CONTEXT])] == ["supported"]

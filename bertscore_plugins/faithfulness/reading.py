"""How the offline signal reads a row, whichever door it came through: the text a reader sees.

- Several context passages are one source, joined with blank lines (:data:`CONTEXT_SEPARATOR`), so every
  passage can support the output.
- Markup is taken away (:func:`plain_text`): an answer written as HTML or with a markdown link ("[the
  clinic](https://...)") says what its plain text says; the tags, the URL and the asterisks are not words
  the source should have to write. Text without markup is returned unchanged.
- Long sources are read whole (the scorer reads them in overlapping windows: ``scoring.offline_scorer``).
- A context with no text as read (an empty or blank text, no passages, blank passages, markup alone) is
  refused (:func:`context_problem`): there is nothing the output could be faithful to, and a score for it
  would only measure the output's length. A span has no such context: Phoenix's blank document is no
  document, so the span is skipped for "no context".

:func:`as_read` is the one function every door applies to a row before the core scores it, and
:func:`context_problem` the one check of its context.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TypeAlias

CONTEXT_SEPARATOR = "\n\n"
"""Joins a list of context passages into one text, so every passage can support the output."""

_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.DOTALL)
_HIDDEN = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_BLOCK_TAG = re.compile(r"</?(?:p|br|div|li|ul|ol|h[1-6]|tr|table|section|article|blockquote)\b[^>]*>", re.I)
_ENTITY = re.compile(r"&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_REFERENCE_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s+\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_CODE = re.compile(r"`+([^`\n]+)`+")
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+(?=\S))", re.MULTILINE)
_MARKDOWN = re.compile(r"\]\(|\]\[|\*\*|__|~~|`|^[ \t]*(?:#{1,6}|>|[-*+])[ \t]", re.MULTILINE)


def plain_text(text: str) -> str:
    """``text`` with its markup taken away: "<p>The <b>clinic</b> opens at 9.</p>" -> "The clinic opens
    at 9."; "[the clinic](https://x.org) opens at 9" -> "the clinic opens at 9"."""
    if not isinstance(text, str):
        return text
    html_found = bool(_HTML_TAG.search(text) or _ENTITY.search(text))
    markdown_found = bool(_MARKDOWN.search(text))
    if not (html_found or markdown_found):
        return text
    if html_found:
        text = _HIDDEN.sub(" ", text)
        text = _BLOCK_TAG.sub("\n", text)
        text = html.unescape(_HTML_TAG.sub("", text))
    if markdown_found:
        text = _LINK_DEFINITION.sub("", text)
        text = _IMAGE_OR_LINK.sub(r"\1", text)
        text = _REFERENCE_LINK.sub(r"\1", text)
        text = _AUTOLINK.sub(r"\1", text)
        text = _CODE.sub(r"\1", text)
        text = _LINE_MARK.sub("", text)
        for _ in range(2):  # "***both***": bold inside italics
            text = _EMPHASIS.sub(r"\2", text)
    # the spaces a tag left collapse; paragraphs stay apart
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" *\n[ \n]*\n *", "\n\n", text)
    return re.sub(r" ?\n ?", "\n", text).strip()


#: a row's context: one text, or its passages
Context: TypeAlias = "str | Sequence[str]"


def join_context(context: Context) -> str:
    """Several passages (a list or tuple of texts) as one text, blank lines between them; a text as it is."""
    return context if isinstance(context, str) else CONTEXT_SEPARATOR.join(context)


#: what every door says of a context with no text: "contexts[3] has no text: each output needs a context"
#: (the API, the command line), "row 3: InputError: context has no text: ..." (a batch's failure cell)
NO_TEXT = "has no text: each output needs a context"


def context_problem(context: Context) -> str | None:
    """:data:`NO_TEXT` when ``context`` (a text, or a list of passages, each already a str) has no text
    as read (:func:`as_read`: blank, no passages, markup alone), else None."""
    joined = join_context(context)
    return NO_TEXT if isinstance(joined, str) and not plain_text(joined).strip() else None


def as_read(output: str, context: Context) -> tuple[str, str]:
    """(output, context) as the offline signal reads them: passages joined, markup taken away."""
    return plain_text(output), plain_text(join_context(context))


def checked_rows(outputs: object, contexts: object) -> tuple[list[str], list[str]]:
    """The API's rows through the core's input layer (bertscore_plugins.inputs), in this API's words: a
    dict, a set, a DataFrame, a single string, a None or NaN row are refused naming the argument and the
    row, and so is a context with no text (:func:`context_problem`); then each row :func:`as_read`."""
    from bertscore_plugins.errors import InputError
    from bertscore_plugins.inputs import check_pairs, rows_message

    try:
        texts, groups = check_pairs(outputs, contexts)
    except InputError as error:
        bad = getattr(error, "bad_rows", None)
        if getattr(error, "side", None) == "references" and bad:  # no passages: a context with no text
            message = rows_message("contexts", [(row, _no_passages(problem)) for row, problem in bad])
        else:
            message = str(error).replace("candidates", "outputs").replace("references", "contexts")
        raise InputError(message) from None
    empty = [(row, problem) for row, group in enumerate(groups) if (problem := context_problem(list(group)))]
    if empty:
        raise InputError(rows_message("contexts", empty))
    pairs = [as_read(output, list(group)) for output, group in zip(texts, groups, strict=True)]
    return [output for output, _ in pairs], [context for _, context in pairs]


def _no_passages(problem: str) -> str:
    """The core's word for a row with no references, as this API says it of a context with no passages."""
    return NO_TEXT if problem.startswith("is an empty list") else problem

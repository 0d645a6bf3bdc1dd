"""Markup -> the text a reader sees: HTML tags and entities, markdown links, emphasis, headings, bullets.

An answer written as HTML or with a markdown link ("[the clinic](https://...)") says what its plain text
says; the tags, the URL and the asterisks are not words the source should have to write. Text without
markup is returned unchanged.
"""

from __future__ import annotations

import html
import re

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

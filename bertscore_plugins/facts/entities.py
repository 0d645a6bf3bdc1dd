"""Names: runs of capitalised words the context must write (as they are or as a related form)."""

from __future__ import annotations

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.alignment import Alignment
from bertscore_plugins.facts.findings import Finding
from bertscore_plugins.facts.text import TextFacts, stem

_CALENDAR = set(lx.WEEKDAYS) | {w + "s" for w in lx.WEEKDAYS} | set(lx.MONTHS)


def _is_entity_word(out: TextFacts, k: int, ctx: TextFacts) -> bool:
    word = out.words[k]
    text, lower = word.text, word.lower.strip("'’")
    if not text[:1].isalpha() or lower in lx.STOPWORDS or lower in _CALENDAR or lower in lx.TITLES:
        return False
    if lower in lx.PLACEHOLDERS:
        return False
    if text.isupper() and (len(text) <= 2 or len(text) > 5):  # "ID", "TV"; "TIMELINE" is a shouted word
        return False
    if lower in ctx.proper:  # written as a name in the context: robust to a lower-cased output
        return True
    if not text[:1].isupper():
        return False
    if not word.sentence_start:
        return True
    after_title = k > 0 and out.words[k - 1].lower.rstrip(".") in lx.TITLES
    return after_title or lower in out.proper


def entities(out: TextFacts, ctx: TextFacts, taken: set[int]) -> list[tuple[int, ...]]:
    """Runs of consecutive name words ("Clara Holt") that are not part of another fact."""
    runs: list[list[int]] = []
    for k in range(len(out.words)):
        if k in taken or not _is_entity_word(out, k, ctx):
            continue
        if runs and runs[-1][-1] == k - 1 and out.words[k].sentence == out.words[k - 1].sentence:
            runs[-1].append(k)
        else:
            runs.append([k])
    return [tuple(run) for run in runs]


def name_in(lower: str, ctx: TextFacts) -> bool:
    """Is this (lower-cased) name written in ``ctx``, as it is or as a related form?"""
    lower = lower.strip("'’")
    if lower in ctx.forms or stem(lower) in ctx.forms:
        return True
    # "German" / "Germany", "Israeli" / "Israel": a shared stem of five letters or more; "Baluchistan" /
    # "Balochistan": a long name spelled one letter differently
    return len(lower) >= 5 and any(
        (len(form) >= 5 and (form.startswith(lower[:-1]) or lower.startswith(form)) and form[:5] == lower[:5])
        or (len(lower) >= 6 and _one_edit_apart(lower, form))
        for form in ctx.proper
    )


def _one_edit_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def check_entity(
    words: tuple[int, ...], out: TextFacts, ctx: TextFacts, alignment: Alignment, rivals: list[int]
) -> Finding:
    text = " ".join(out.words[k].text for k in words)
    missing = [k for k in words if not name_in(out.words[k].lower, ctx)]
    if not missing:
        return Finding("entity", text, True)
    named = " ".join(out.words[k].text for k in missing)
    # what the context says in its place: the context name most similar to the missing one
    # (a capitalised word at a sentence start counts here too: "Ilse Varga won ..."); the candidates are
    # the same for every name of the row, so they are listed once (``rivals``, filled on first need)
    if not rivals:
        rivals.extend(
            j
            for j, w in enumerate(ctx.words)
            if w.text[:1].isupper()
            and w.text[:1].isalpha()
            and w.lower not in lx.STOPWORDS
            and w.lower not in _CALENDAR
            and not name_in(w.lower, out)
        )
        rivals.append(-1)  # marks the list as built, even when empty
    names = rivals[:-1]  # the marker is last
    closest = alignment.closest(missing[0], names) if names else None
    return Finding("entity", named, False, ctx.words[closest].text if closest is not None else None)

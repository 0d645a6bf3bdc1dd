"""Who did what to whom: "Brazil defeated Germany" against "Germany defeated Brazil"."""

from __future__ import annotations

import itertools

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.entities import name_in
from bertscore_plugins.facts.findings import Finding
from bertscore_plugins.facts.text import TextFacts, Word, stem

_BE = {"is", "was", "were", "are", "be", "been", "being", "'s", "'re"}


def _passive(words: list[Word], relation: int, second: int) -> bool:
    """ "X was defeated by Y": a form of "be" before the relation and "by" after it."""
    before = words[relation - 1].lower if relation > 0 else ""
    return before in _BE and any(w.lower == "by" for w in words[relation + 1 : second])


def _objects(
    ctx: TextFacts, subjects: list[int], relations: list[int], names: set[str]
) -> list[tuple[str, int]]:
    """For each tight "subject relation object" in the context (the relation at most two words after the
    subject, the object at most two after the relation) whose object is one of ``names``: (object, its
    position). Looser phrasing is left alone: a name a few words on is often not the object."""
    found = []
    for ia in subjects:
        ir = next((r for r in relations if ia < r <= ia + 2), None)
        if ir is None:
            continue
        k = next((k for k in range(ir + 1, min(ir + 3, len(ctx.words))) if ctx.words[k].lower in names), None)
        if k is not None:
            found.append((ctx.words[k].lower, k))
    return found


def _subjects(ctx: TextFacts, objects: list[int], relations: list[int], names: set[str]) -> bool:
    """Is one of ``names`` the tight subject of a relation whose object is at one of ``objects``?"""
    for k in objects:
        ir = next((r for r in relations if k - 2 <= r < k), None)
        if ir is not None and any(ctx.words[j].lower in names for j in range(max(0, ir - 2), ir)):
            return True
    return False


def check_order(out: TextFacts, ctx: TextFacts, entities: list[tuple[int, ...]]) -> list[Finding]:
    """ "Brazil defeated Germany" against "Germany defeated Brazil": same names and relation, swapped."""
    findings = []
    others = {out.words[run[0]].lower for run in entities}
    # a capitalised word opening the sentence ("Maria teaches ...") may be a subject too
    subjects = others | {w.lower for w in out.words if w.text[:1].isupper() and w.lower not in lx.STOPWORDS}
    for first, second in itertools.pairwise(entities):
        a, b = first[-1], second[0]
        if out.words[a].sentence != out.words[b].sentence:
            continue
        name_a, name_b = out.words[first[0]].lower, out.words[second[0]].lower
        if name_a == name_b or not name_in(name_a, ctx) or not name_in(name_b, ctx):
            continue
        relations = [
            k
            for k in range(a + 1, b)
            if out.words[k].text[:1].isalpha()
            and out.words[k].lower not in lx.STOPWORDS
            and stem(out.words[k].lower) in ctx.forms
        ]
        if not relations:
            continue
        relation = relations[0]
        rel_stem = stem(out.words[relation].lower)
        out_passive = _passive(out.words, relation, b)
        verdict = None
        for sentence in sorted({ctx.words[k].sentence for k in ctx.positions.get(name_a, [])}):
            positions = ctx.sentence_words(sentence)
            pa = [k for k in positions if ctx.words[k].lower == name_a]
            pb = [k for k in positions if ctx.words[k].lower == name_b]
            pr = [k for k in positions if stem(ctx.words[k].lower) == rel_stem]
            if not (pa and pb and pr):
                continue
            ia, ib, ir = pa[0], pb[0], pr[0]
            tight = b - a <= 3  # "Tom teaches Chemistry": subject, relation, object and nothing more
            objects = _objects(ctx, pa, pr, others) if tight and not out_passive else []
            if (
                objects
                and name_b not in [name for name, _ in objects]
                and _subjects(ctx, pb, pr, subjects - {name_a, name_b})
            ):
                # "Tom teaches Chemistry" against "Maria teaches Chemistry and Tom teaches Physics": the
                # context relates each of the two names to another of the output's names
                verdict = False
                k, end = objects[0][1], pa[0]
                snippet = ctx.text[ctx.words[min(end, k)].start : ctx.words[max(end, k)].end]
                break
            flipped = out_passive != _passive(ctx.words, ir, max(ia, ib))
            if (ia < ir < ib) != flipped and (ia < ir < ib or ib < ir < ia):
                verdict = True
                break
            if ia < ir < ib or ib < ir < ia:
                verdict = False
                snippet = ctx.text[ctx.words[min(ia, ib)].start : ctx.words[max(ia, ib)].end]
        if verdict is None:
            continue
        text = out.text[out.words[first[0]].start : out.words[second[-1]].end]
        findings.append(Finding("order", text, verdict, None if verdict else f"'{snippet}'"))
    return findings

"""Polarity: a negation cue's scope negated where the context says it, no plain restatement of a negated
clause, no word aligned to its antonym, nothing called safe that the context forbids."""

from __future__ import annotations

import numpy as np

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.alignment import Alignment
from bertscore_plugins.facts.findings import Finding
from bertscore_plugins.facts.text import Fact, TextFacts, stem

#: mean similarity of an output clause's content words to their aligned context words at or above which
#: the clause counts as restating that context clause (so its polarity must agree). Same-meaning
#: clauses align above ~0.6 with the packaged MiniLM; polite padding ("do not hesitate to ask") sits
#: well below, and is left to groundedness.
CLAUSE_ALIGNMENT = 0.55
#: an output word aligned to its antonym at or above this similarity is a polarity error
ANTONYM_ALIGNMENT = 0.4
_ANTONYMS = {frozenset((stem(a), stem(b))) for a, b in lx.ANTONYM_PAIRS}


def _predicate_words(out: TextFacts, ctx: TextFacts, clause: int, after: int = -1) -> list[int]:
    """The clause's content words after ``after``, names left out: polarity is about what is said of
    a name, and a name recurs all over a long context."""
    return [
        k
        for k in out.clause_words(clause)
        if k > after
        and (w := out.words[k]).text[:1].isalpha()
        and w.lower not in lx.STOPWORDS
        and w.lower not in lx.NEGATION_CUES
        and w.lower.strip("'’") not in out.proper
        and w.lower.strip("'’") not in ctx.proper
    ]


def _counterparts(
    out: TextFacts, ctx: TextFacts, words: list[int], alignment: Alignment
) -> list[tuple[int, float]] | None:
    """(context word, similarity) for each word, when together they restate one context passage."""
    if not words:
        return None
    if alignment.context_word:
        pairs = [
            (alignment.context_word[k], alignment.similarity[k]) for k in words if k in alignment.context_word
        ]
        if not pairs or float(np.mean([similarity for _, similarity in pairs])) < CLAUSE_ALIGNMENT:
            return None
        return pairs
    # no alignment: the context clause sharing the most stems (the first of those), and the shared words
    # in it, found through the context's stem index rather than a pass over its words per clause
    stems = {stem(out.words[k].lower) for k in words}
    positions = _stem_arrays(ctx)
    found = [positions[s] for s in stems if s in positions]
    if not found:
        return None
    shared = np.concatenate(found)
    clauses = _clause_array(ctx)[shared]
    counts = np.bincount(clauses)
    best = int(counts.argmax())
    if counts[best] < max(1, len(stems) // 2):
        return None
    return [(int(j), 1.0) for j in np.sort(shared[clauses == best])]


def _word_flags(ctx: TextFacts) -> dict[str, frozenset[bool]]:
    """Per word (lower-cased), whether the context writes it negated, plain or both (built once)."""

    def build(f: TextFacts) -> dict[str, frozenset[bool]]:
        return {word: frozenset(f.negated[i] for i in at) for word, at in f.positions.items()}

    return ctx.derived("word_flags", build)


def _stem_flags(ctx: TextFacts) -> dict[str, frozenset[bool]]:
    """Per stem, whether the context writes it negated, plain or both, in any of its forms (built once)."""

    def build(f: TextFacts) -> dict[str, frozenset[bool]]:
        return {key: frozenset(f.negated[i] for i in at) for key, at in _stem_positions(f).items()}

    return ctx.derived("stem_flags", build)


def _stem_arrays(ctx: TextFacts) -> dict[str, np.ndarray]:
    """Per stem, where the context writes it (an array, for the clause count above)."""
    return ctx.derived(
        "stem_arrays",
        lambda f: {key: np.array(at, dtype=np.int64) for key, at in _stem_positions(f).items()},
    )


def _clause_array(ctx: TextFacts) -> np.ndarray:
    return ctx.derived("clause_array", lambda f: np.array([w.clause for w in f.words], dtype=np.int64))


def _context_negated(ctx: TextFacts, pairs: list[tuple[int, float]], negated_output: bool) -> bool:
    """Does the context say it negated? Similarity-weighted vote of the aligned context words.

    A word the context repeats may be aligned to any of its occurrences, so each word gives the
    output the benefit of the doubt: it votes "negated" for a negated output when ANY occurrence of it
    is in a negation's scope, and "plain" for a plain output when any occurrence is plain.
    """

    def vote(j: int) -> int:
        if negated_output:
            negated_anywhere = _word_flags(ctx).get(ctx.words[j].lower, frozenset({ctx.negated[j]}))
            return 1 if True in negated_anywhere else -1
        # a plain output: a word the context writes both ways ("covers defects", "does not cover
        # damage") abstains, in any of its forms; the words only the negated clause writes decide
        flags = _stem_flags(ctx).get(stem(ctx.words[j].lower), frozenset({ctx.negated[j]}))
        return 0 if len(flags) > 1 else (1 if flags == {True} else -1)

    votes = sum(vote(j) * similarity for j, similarity in pairs)
    return votes > 0


def _stem_positions(ctx: TextFacts) -> dict[str, list[int]]:
    def build(f: TextFacts) -> dict[str, list[int]]:
        positions: dict[str, list[int]] = {}
        for k, w in enumerate(f.words):
            positions.setdefault(stem(w.lower), []).append(k)
        return positions

    return ctx.derived("stem_positions", build)


def _negated_heads(ctx: TextFacts) -> dict[int, str]:
    """Per negated context clause, the stem of the word its negation negates first ("not *connected*
    with the deal")."""

    def build(f: TextFacts) -> dict[int, str]:
        heads: dict[int, str] = {}
        for k, w in enumerate(f.words):
            if not f.negated[k] or w.clause in heads:
                continue
            head = next(
                (
                    j
                    for j in f.clause_words(w.clause)
                    if j >= k
                    and f.words[j].text[:1].isalpha()
                    and f.words[j].lower not in lx.STOPWORDS
                    and f.words[j].lower not in lx.NEGATION_CUES
                ),
                None,
            )
            if head is not None:
                heads[w.clause] = stem(f.words[head].lower)
        return heads

    return ctx.derived("negated_heads", build)


def _restates_negated_head(
    out: TextFacts, ctx: TextFacts, words: list[int], pairs: list[tuple[int, float]]
) -> bool:
    """A plain clause contradicts a negated one only when it restates what the negation negates: "signed
    a sponsorship deal" restates no negated head of "interest in Muto is not connected with the deal";
    "covers accidental damage" restates "does not cover accidental damage" (its head, "cover", may be
    aligned to another clause's "covers": the output's own words are compared, stemmed)."""
    heads = _negated_heads(ctx)
    said = {stem(out.words[k].lower) for k in words}
    return any(heads.get(ctx.words[j].clause) in said for j, _ in pairs)


def _clause_text(facts: TextFacts, clause: int, limit: int = 60) -> str:
    words = [facts.words[k] for k in facts.clause_words(clause)]
    text = facts.text[words[0].start : words[-1].end].strip(" ,;:") if words else ""
    return "'" + (text if len(text) <= limit else text[: limit - 3].rstrip() + "...") + "'"


def check_polarity(out: TextFacts, ctx: TextFacts, alignment: Alignment) -> list[Finding]:
    """Each negation cue's scope must be negated where the context says it, and a plain statement must
    not restate a negated one. Compared word by word on the aligned words (the cue's scope)."""
    findings = []
    cues: dict[int, tuple[int, Fact]] = {}
    for fact in out.facts:
        if fact.kind == "negation":
            cue = next(
                k for k in fact.words if out.words[k].lower in lx.NEGATION_CUES or out.words[k].lower == "no"
            )
            cues.setdefault(out.words[cue].clause, (cue, fact))
    for clause in out.clause_polarity:
        if clause in cues:
            found = _negated_clause(out, ctx, alignment, *cues[clause])
        else:
            found = _plain_clause(out, ctx, alignment, clause)
        if found is not None:
            findings.append(found)
    findings += _antonyms(out, ctx, alignment)
    findings += _double_negations(out, ctx, alignment)
    findings += _permissive(out, ctx)
    return findings


def _negated_clause(
    out: TextFacts, ctx: TextFacts, alignment: Alignment, cue: int, fact: Fact
) -> Finding | None:
    """A negated output clause: the context must negate what it restates."""
    pairs = _counterparts(out, ctx, _predicate_words(out, ctx, out.words[cue].clause, after=cue), alignment)
    if pairs is None:
        return None  # the scope restates nothing in the context: groundedness's case, not polarity's
    negated_output = out.negated[min(cue + 1, len(out.words) - 1)]
    agrees = _context_negated(ctx, pairs, negated_output) == negated_output
    strongest = max(pairs, key=lambda pair: pair[1])[0]
    return Finding(
        "negation", fact.text, agrees, None if agrees else _clause_text(ctx, ctx.words[strongest].clause)
    )


def _plain_clause(out: TextFacts, ctx: TextFacts, alignment: Alignment, clause: int) -> Finding | None:
    """A plain output clause that restates a negated context clause ("Parking is free" for "Parking is
    not free"): unsupported, naming the context's clause."""
    words = _predicate_words(out, ctx, clause)
    pairs = _counterparts(out, ctx, words, alignment)
    if pairs is None or not _restates_negated_head(out, ctx, words, pairs):
        return None
    if not (_context_negated(ctx, pairs, False) or _says_only_negated_head(out, ctx, words, pairs)):
        return None
    negated = [pair for pair in pairs if ctx.negated[pair[0]]] or pairs  # name the negated clause
    strongest = max(negated, key=lambda pair: pair[1])[0]
    text = " ".join(out.words[k].text for k in words[:4])
    return Finding("negation", text, False, _clause_text(ctx, ctx.words[strongest].clause))


def _says_only_negated_head(
    out: TextFacts, ctx: TextFacts, words: list[int], pairs: list[tuple[int, float]]
) -> bool:
    """The plain clause gives a thing the very quality a restated context clause denies it, and the
    context never writes that word outside a negation: "Parking at the clinic is free" against "Parking
    at the clinic is not free" (the subject's words, plain in both, outvote the predicate in the
    word-by-word vote). Predicates after "be" only ("is not free", "are not allowed"): a negated verb
    ("may not be playing much") is often restated loosely ("struggled for playing time") in a summary."""
    heads = _predicate_heads(ctx)
    said = {stem(out.words[k].lower) for k in words if _after_be(out, k)}
    flags = _stem_flags(ctx)
    for j, _ in pairs:
        head = heads.get(ctx.words[j].clause)
        if head in said and flags.get(head, frozenset()) <= {True}:  # negated wherever it is written
            return True
    return False


def _after_be(facts: TextFacts, k: int, reach: int = 3) -> bool:
    """Is word ``k`` a predicate: a form of "be" at most ``reach`` words before it, in its clause?"""
    clause = facts.words[k].clause
    return any(
        facts.words[j].lower in lx.BE_FORMS and facts.words[j].clause == clause
        for j in range(max(0, k - reach), k)
    )


def _predicate_heads(ctx: TextFacts) -> dict[int, str]:
    """Per context clause negated after "be" ("is not free", "isn't open"), the stem of the predicate."""

    def build(f: TextFacts) -> dict[int, str]:
        return {
            clause: head
            for clause, head in _negated_heads(f).items()
            if any(
                _after_be(f, k) and stem(f.words[k].lower) == head and f.negated[k]
                for k in f.clause_words(clause)
            )
        }

    return ctx.derived("predicate_heads", build)


def _double_negations(out: TextFacts, ctx: TextFacts, alignment: Alignment) -> list[Finding]:
    """ "not unlikely" states "likely": unsupported where the aligned context writes the negative word
    plainly ("The result is unlikely")."""
    findings = []
    for k in out.litotes:
        target = alignment.context_word.get(k)
        if target is None or ctx.negated[target] or ctx.words[target].lower != out.words[k].lower:
            continue
        cue = next(j for j in range(k - 1, -1, -1) if out.words[j].lower in ("not", "n't", "never"))
        text = out.text[out.words[cue].start : out.words[k].end]
        findings.append(Finding("negation", text, False, ctx.words[target].text))
    return findings


def _permissive(out: TextFacts, ctx: TextFacts) -> list[Finding]:
    """ "Aspirin is safe for children" against "should not be given to children": a plain clause that
    calls something safe or allowed, where a context clause about the same things is negated."""
    findings = []
    for clause, positive in out.clause_polarity.items():
        words = [out.words[k] for k in out.clause_words(clause)]
        cue = next((w for w in words if w.lower in lx.PERMISSIVE), None)
        if cue is None or not positive:
            continue
        stems = {stem(w.lower) for w in words if w.text[:1].isalpha() and w.lower not in lx.STOPWORDS} - {
            stem(cue.lower)
        }
        shared: dict[int, set[str]] = {}
        for w in ctx.words:
            if stem(w.lower) in stems:
                shared.setdefault(w.clause, set()).add(stem(w.lower))
        negated = [
            c
            for c, found in shared.items()
            if len(found) >= min(2, len(stems)) and not ctx.clause_polarity.get(c, True)
        ]
        if negated:
            findings.append(Finding("negation", cue.text, False, _clause_text(ctx, negated[0])))
    return findings


def _negated_form(word: str, other: str) -> bool:
    return (
        any(word == prefix + other or other == prefix + word for prefix in lx.NEGATING_PREFIXES)
        and min(len(word), len(other)) >= 4
    )


def _antonyms(out: TextFacts, ctx: TextFacts, alignment: Alignment) -> list[Finding]:
    findings = []
    for k, target in alignment.context_word.items():
        word = out.words[k]
        if k in out.litotes:
            continue  # "not unlikely" says "likely": the negative word is not its own claim
        if not word.text[:1].isalpha() or word.lower in ctx.forms or stem(word.lower) in ctx.forms:
            continue
        if alignment.similarity[k] < ANTONYM_ALIGNMENT:
            continue
        other = ctx.words[target]
        a, b = stem(word.lower), stem(other.lower)
        if frozenset((a, b)) in _ANTONYMS or _negated_form(word.lower, other.lower):
            findings.append(Finding("negation", word.text, False, other.text))
    return findings

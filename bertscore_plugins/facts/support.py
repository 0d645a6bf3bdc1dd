"""Does the context carry each of the output's facts? Normalised comparison, guided by the alignment.

The alignment is the core's own greedy matching (``Explanation.similarity``: every output token's most
similar context token). A similar embedding is never enough: "Thursday" aligns to "Tuesday" at 0.85,
so a fact counts as supported only when the context carries the same normalised value (the same number
with a compatible unit, the same date, weekday or name, the same polarity). The alignment decides
*where* to look: which context clause an output clause restates (for negation and antonyms) and what
the context says in place of an unsupported fact ("Thursday: context says Tuesday").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from bertscore_plugins.facts import lexicon as lx
from bertscore_plugins.facts.extract import Fact, TextFacts, extract, stem, tokenize

#: mean similarity of an output clause's content words to their aligned context words at or above which
#: the clause counts as restating that context clause (so its polarity must agree). Same-meaning
#: clauses align above ~0.6 with the packaged MiniLM; polite padding ("do not hesitate to ask") sits
#: well below, and is left to groundedness.
CLAUSE_ALIGNMENT = 0.55
#: an output word aligned to its antonym at or above this similarity is a polarity error
ANTONYM_ALIGNMENT = 0.4
#: a row with any unsupported fact scores at most this (so it falls below any "faithful" cut)
UNSUPPORTED_CAP = 0.5
SUPPORTED, UNSUPPORTED, NOT_CHECKED = "supported", "unsupported", "not checked"

_ANTONYMS = {frozenset((stem(a), stem(b))) for a, b in lx.ANTONYM_PAIRS}
_BE = {"is", "was", "were", "are", "be", "been", "being", "'s", "'re"}
_CALENDAR = set(lx.WEEKDAYS) | {w + "s" for w in lx.WEEKDAYS} | set(lx.MONTHS)


@dataclass(frozen=True)
class Finding:
    """One output fact and whether the context carries it (and, if not, what the context says)."""

    kind: str
    text: str
    supported: bool
    context_says: str | None = None
    words: tuple[int, ...] = ()  # the output's words that state it (numbers, dates, names)

    def __str__(self) -> str:
        if self.supported:
            return f"{self.text}: supported"
        if self.context_says:
            return f"{self.text}: context says {self.context_says}"
        return f"{self.text}: not in the context"


@dataclass(frozen=True)
class FactCheck:
    """The fact check of one output against its context.

    ``score`` in [0, 1], higher = more faithful: 1.0 when every fact is carried (or there is none to
    check), else the supported fraction, at most ``UNSUPPORTED_CAP``. ``label``: "supported" or
    "unsupported". ``explanation`` names each unsupported fact and what the context says instead.
    """

    findings: tuple[Finding, ...]
    checked: bool = True  # False: a text is not English, so nothing was checked (and nothing passed)

    @property
    def unsupported(self) -> list[Finding]:
        return [finding for finding in self.findings if not finding.supported]

    @property
    def supported_words(self) -> frozenset[int]:
        """The output's words that state a fact the context carries ("just over 500 metres" for "503 m")."""
        return frozenset(k for finding in self.findings if finding.supported for k in finding.words)

    @property
    def score(self) -> float:
        if not self.findings:
            return 1.0
        wrong = len(self.unsupported)
        if not wrong:
            return 1.0
        return min(UNSUPPORTED_CAP, (len(self.findings) - wrong) / len(self.findings))

    @property
    def label(self) -> str:
        if not self.checked:
            return NOT_CHECKED
        return UNSUPPORTED if self.unsupported else SUPPORTED

    @property
    def explanation(self) -> str:
        if not self.checked:
            return "facts not checked: the fact check reads English text only"
        if not self.findings:
            return "no checkable facts (numbers, dates, names, negations)"
        if not self.unsupported:
            return f"all {len(self.findings)} facts supported by the context"
        return "; ".join(str(finding) for finding in self.unsupported)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "label": self.label,
            "checked": self.checked,
            "explanation": self.explanation,
            "facts": [
                {"kind": f.kind, "text": f.text, "supported": f.supported, "context_says": f.context_says}
                for f in self.findings
            ],
        }


class Alignment:
    """The core's token alignment mapped onto the fact check's words.

    ``context_word[k]``: the context word best aligned to output word ``k``; ``similarity[k]``: that
    cosine similarity; :meth:`closest` compares one output word with chosen context words.
    """

    def __init__(
        self, output: TextFacts | None = None, context: TextFacts | None = None, explanation: Any = None
    ) -> None:
        self.context_word: dict[int, int] = {}
        self.similarity: dict[int, float] = {}
        self._matrix: np.ndarray | None = None
        self._output_pieces: dict[int, list[int]] = {}
        self._content: set[int] = set()
        self._context_pieces: dict[int, list[int]] = {}
        self._piece_word = np.zeros(0, dtype=np.int64)
        if output is None or context is None or explanation is None:
            return
        if not getattr(explanation, "candidate_spans", None) or explanation.similarity.numel() == 0:
            return
        self._content = {
            k for k, w in enumerate(output.words) if w.text[:1].isalpha() and w.lower not in lx.STOPWORDS
        }
        matrix = explanation.similarity.numpy()
        self._matrix = matrix
        for piece, word in enumerate(output.word_indexes(explanation.candidate_spans).tolist()):
            if word >= 0:
                self._output_pieces.setdefault(word, []).append(piece)
        # context word of each context piece; the reverse (pieces of a word) only where closest() asks
        self._piece_word = context.word_indexes(explanation.reference_spans)
        best_index = matrix.argmax(axis=1)
        best = matrix[np.arange(matrix.shape[0]), best_index]
        for word, pieces in self._output_pieces.items():
            top = max(pieces, key=lambda piece: best[piece])
            target = int(self._piece_word[best_index[top]])
            if target >= 0:
                self.context_word[word] = target
                self.similarity[word] = float(best[top])

    def _pieces_of(self, context_word: int) -> list[int]:
        if context_word not in self._context_pieces:
            self._context_pieces[context_word] = np.flatnonzero(self._piece_word == context_word).tolist()
        return self._context_pieces[context_word]

    def closest(self, output_word: int, context_words: list[int], reach: int = 4) -> int | None:
        """Of ``context_words``, the one standing in for ``output_word`` (None without an alignment).

        Similarity alone picks "Sunday" for "Thursday" as readily as "Tuesday"; what decides is where
        the output word's neighbours align: "discharged on Thursday" puts "discharged" two words
        before the context's "Tuesday". So each candidate scores its similarity plus how well the
        output word's content neighbours (``reach`` words either side) keep their offsets around it.
        """
        if self._matrix is None or output_word not in self._output_pieces:
            return None
        rows = self._output_pieces[output_word]
        neighbours = [
            (k - output_word, self.context_word[k])
            for k in range(output_word - reach, output_word + reach + 1)
            if k != output_word and k in self.context_word and k in self._content
        ]
        scored = []
        for w in context_words:
            pieces = self._pieces_of(w)
            if not pieces:
                continue
            similarity = float(self._matrix[np.ix_(rows, pieces)].max())
            # nearer neighbours weigh more ("Anna Varga": the surname right after the first name)
            kept = sum(
                max(0.0, 1.0 - abs((n - w) - offset) / (reach + 1)) / abs(offset) for offset, n in neighbours
            )
            weight = sum(1.0 / abs(offset) for offset, _ in neighbours)
            scored.append((similarity + (kept / weight if weight else 0.0), w))
        return max(scored)[1] if scored else None


def check_pair(output: str, context: str, explanation: Any = None) -> FactCheck:
    """Check every fact of ``output`` against ``context``.

    Args:
        output: the generated text.
        context: the source it must be faithful to.
        explanation: the core's ``Explanation`` of (output, context) (``scorer.score(..., explain=True)``);
            without it, number/date/name checks still run and clause polarity falls back to word overlap.

    Returns:
        A :class:`FactCheck`.
    """
    return check_extracted(extract(output.strip()), extract(context.strip()), explanation)


def check_extracted(out: TextFacts, ctx: TextFacts, explanation: Any = None) -> FactCheck:
    """:func:`check_pair` on texts already run through ``extract`` (the signal's other parts read them too)."""
    if not (is_english(out) and is_english(ctx)):
        return FactCheck((), checked=False)
    alignment = Alignment(out, ctx, explanation)
    findings: list[Finding] = []
    taken: set[int] = set()
    for fact in out.facts:
        taken.update(fact.words)
        if fact.kind == "negation":
            continue  # judged per clause below
        findings.append(_check_value(fact, ctx, alignment))
    entities = _entities(out, ctx, taken)
    rivals: list[int] = []  # the context's names the output does not write, built on first need
    findings += [_check_entity(words, out, ctx, alignment, rivals) for words in entities]
    findings += _check_polarity(out, ctx, alignment)
    findings += _check_order(out, ctx, entities)
    return FactCheck(tuple(findings))


def is_english(facts: TextFacts) -> bool:
    """Does this text read as English? (Mostly Latin letters, and no more function words of other
    languages than of English.)"""
    return facts.derived("english", _reads_english)


def _reads_english(facts: TextFacts) -> bool:
    letters = [c for w in facts.words for c in w.text if c.isalpha()]
    if letters and sum(c.isascii() or "\u00c0" <= c <= "\u024f" for c in letters) < 0.7 * len(letters):
        return False
    words = [w.lower for w in facts.words if w.text[:1].isalpha()]
    return sum(w in lx.OTHER_LANGUAGE_WORDS for w in words) <= sum(w in lx.ENGLISH_WORDS for w in words)


def check_explanation(explanation: Any) -> FactCheck:
    """The fact check of the pair an ``Explanation`` describes (its texts and alignment in one)."""
    return check_pair(explanation.candidate_text, explanation.reference_text, explanation)


# -- numbers, dates, calendar words ----------------------------------------------------------------------


def _same_number(a: float, b: float, approx: str | None = None) -> bool:
    """Is context value ``b`` what output value ``a`` says (hedged by ``approx``: "just over 500" is 503)?"""
    if abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)):
        return True
    if approx == "about":
        return abs(a - b) <= 0.1 * abs(b)
    if approx == "over":
        return a <= b <= a + 0.25 * abs(a)
    if approx == "under":
        return a - 0.25 * abs(a) <= b <= a
    return False


def _units_agree(output: Fact, context: Fact) -> bool:
    if output.unit is None or context.unit is None or output.unit == context.unit:
        return True
    return output.unit in context.unit_window or context.unit in output.unit_window


def _conversion(unit: str | None, other: str | None) -> float | None:
    """How many ``other`` make one ``unit`` (kilometre -> metre: 1000), when they measure the same thing."""
    if (unit, other) in lx.CONVERSIONS:
        return lx.CONVERSIONS[(unit, other)]
    if (other, unit) in lx.CONVERSIONS:
        return 1.0 / lx.CONVERSIONS[(other, unit)]
    return None


def _carries(output: Fact, context: Fact) -> bool:
    """Does this context fact carry this output fact?"""
    kind = output.kind
    if kind == "number":
        if context.kind not in ("number", "year"):
            return False
        if context.kind == "year" or _units_agree(output, context):
            return _same_number(output.value, context.value, output.approx)
        factor = _conversion(output.unit, context.unit)
        return factor is not None and _same_number(output.value * factor, context.value, output.approx)
    if kind == "year":
        if context.kind in ("year", "number"):
            return _same_number(output.value, context.value)
        return context.kind == "date" and any(r[2] == int(output.value) for r in context.value)
    if kind == "date":
        return context.kind == "date" and any(
            o[0] == c[0] and (o[1] is None or o[1] == c[1]) and (o[2] is None or c[2] is None or o[2] == c[2])
            for o in output.value
            for c in context.value
        )
    if kind == "month":
        return (context.kind == "month" and context.value == output.value) or (
            context.kind == "date" and any(c[0] == output.value for c in context.value)
        )
    return context.kind == kind and context.value == output.value


def _hedged(fact: Fact) -> tuple[int, ...]:
    """The fact's words, with the hedge before a hedged number ("just over" of "just over 500")."""
    return tuple(range(fact.words[0] - fact.hedge, fact.words[0])) + fact.words


def _comparable(output: Fact, context: Fact) -> bool:
    """Context facts worth naming in place of an unsupported output fact."""
    if output.kind in ("date", "month", "year"):
        return context.kind in ("date", "month", "year")
    if output.kind == "number":
        return context.kind == "number"
    return context.kind == output.kind


def _check_value(fact: Fact, ctx: TextFacts, alignment: Alignment) -> Finding:
    if any(_carries(fact, other) for other in ctx.facts):
        return Finding(fact.kind, fact.text, True, words=_hedged(fact))
    rivals = [other for other in ctx.facts if _comparable(fact, other)]
    if fact.kind == "number" and fact.unit is not None:
        # "3-year warranty" against a context with no durations: nothing to name in its place
        rivals = [
            other
            for other in rivals
            if other.unit is not None
            and (_units_agree(fact, other) or _conversion(fact.unit, other.unit) is not None)
        ]
    if not rivals:
        return Finding(fact.kind, fact.text, False)
    closest = alignment.closest(fact.head, [other.head for other in rivals])
    says = next((other for other in rivals if other.head == closest), rivals[0])
    return Finding(fact.kind, fact.text, False, says.text)


# -- names ---------------------------------------------------------------------------------------------


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


def _entities(out: TextFacts, ctx: TextFacts, taken: set[int]) -> list[tuple[int, ...]]:
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


def _name_in(lower: str, ctx: TextFacts) -> bool:
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


def _check_entity(
    words: tuple[int, ...], out: TextFacts, ctx: TextFacts, alignment: Alignment, rivals: list[int]
) -> Finding:
    text = " ".join(out.words[k].text for k in words)
    missing = [k for k in words if not _name_in(out.words[k].lower, ctx)]
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
            and not _name_in(w.lower, out)
        )
        rivals.append(-1)  # marks the list as built, even when empty
    names = [j for j in rivals if j >= 0]
    closest = alignment.closest(missing[0], names) if names else None
    return Finding("entity", named, False, ctx.words[closest].text if closest is not None else None)


# -- polarity: negation cues and antonyms ----------------------------------------------------------------


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
    # no alignment: the context clause sharing the most stems, and the shared words in it
    stems = {stem(out.words[k].lower) for k in words}
    by_clause: dict[int, list[int]] = {}
    for j, w in enumerate(ctx.words):
        if stem(w.lower) in stems:
            by_clause.setdefault(w.clause, []).append(j)
    if not by_clause:
        return None
    best = max(by_clause, key=lambda c: len(by_clause[c]))
    if len(by_clause[best]) < max(1, len(stems) // 2):
        return None
    return [(j, 1.0) for j in by_clause[best]]


def _context_negated(ctx: TextFacts, pairs: list[tuple[int, float]], negated_output: bool) -> bool:
    """Does the context say it negated? Similarity-weighted vote of the aligned context words.

    A word the context repeats may be aligned to any of its occurrences, so each word gives the
    output the benefit of the doubt: it votes "negated" for a negated output when ANY occurrence of it
    is in a negation's scope, and "plain" for a plain output when any occurrence is plain.
    """

    def vote(j: int) -> int:
        if negated_output:
            occurrences = ctx.positions.get(ctx.words[j].lower, [j])
            return 1 if any(ctx.negated[i] for i in occurrences) else -1
        # a plain output: a word the context writes both ways ("covers defects", "does not cover
        # damage") abstains, in any of its forms; the words only the negated clause writes decide
        flags = {ctx.negated[i] for i in _stem_positions(ctx).get(stem(ctx.words[j].lower), [j])}
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


def _check_polarity(out: TextFacts, ctx: TextFacts, alignment: Alignment) -> list[Finding]:
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
            cue, fact = cues[clause]
            pairs = _counterparts(out, ctx, _predicate_words(out, ctx, clause, after=cue), alignment)
            if pairs is None:
                continue  # the scope restates nothing in the context: groundedness's case, not polarity's
            negated_output = out.negated[min(cue + 1, len(out.words) - 1)]
            agrees = _context_negated(ctx, pairs, negated_output) == negated_output
            strongest = max(pairs, key=lambda pair: pair[1])[0]
            findings.append(
                Finding(
                    "negation",
                    fact.text,
                    agrees,
                    None if agrees else _clause_text(ctx, ctx.words[strongest].clause),
                )
            )
            continue
        words = _predicate_words(out, ctx, clause)
        pairs = _counterparts(out, ctx, words, alignment)
        if (
            pairs is not None
            and _restates_negated_head(out, ctx, words, pairs)
            and _context_negated(ctx, pairs, False)
        ):
            negated = [pair for pair in pairs if ctx.negated[pair[0]]] or pairs  # name the negated clause
            strongest = max(negated, key=lambda pair: pair[1])[0]
            text = " ".join(out.words[k].text for k in words[:4])
            findings.append(Finding("negation", text, False, _clause_text(ctx, ctx.words[strongest].clause)))
    findings += _antonyms(out, ctx, alignment)
    findings += _permissive(out, ctx)
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
        if not word.text[:1].isalpha() or word.lower in ctx.forms or stem(word.lower) in ctx.forms:
            continue
        if alignment.similarity[k] < ANTONYM_ALIGNMENT:
            continue
        other = ctx.words[target]
        a, b = stem(word.lower), stem(other.lower)
        if frozenset((a, b)) in _ANTONYMS or _negated_form(word.lower, other.lower):
            findings.append(Finding("negation", word.text, False, other.text))
    return findings


# -- who did what to whom ---------------------------------------------------------------------------------


def _passive(words: list, relation: int, second: int) -> bool:
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


def _check_order(out: TextFacts, ctx: TextFacts, entities: list[tuple[int, ...]]) -> list[Finding]:
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
        if name_a == name_b or not _name_in(name_a, ctx) or not _name_in(name_b, ctx):
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


__all__ = [
    "Alignment",
    "FactCheck",
    "Finding",
    "check_explanation",
    "check_extracted",
    "check_pair",
    "tokenize",
]

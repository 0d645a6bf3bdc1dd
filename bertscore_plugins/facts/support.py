"""Does the context carry each of the output's facts? Normalised comparison, guided by the alignment.

The alignment is the core's own greedy matching (``Explanation.similarity``: every output token's most
similar context token). A similar embedding is never enough: "Thursday" aligns to "Tuesday" at 0.85,
so a fact counts as supported only when the context carries the same normalised value (the same number
with a compatible unit, the same date, weekday or name, the same polarity). The alignment decides
*where* to look: which context clause an output clause restates (for negation and antonyms) and what
the context says in place of an unsupported fact ("Thursday: context says Tuesday").

Each kind is checked in its own module: values.py (numbers, dates, times), entities.py, polarity.py
(negation, antonyms), order.py (who did what to whom), status.py (on time / delayed, open / closed ...); this one runs them over a pair.
"""

from __future__ import annotations

import sys

from bertscore_plugins.facts.alignment import Alignment, TokenAlignment
from bertscore_plugins.facts.entities import check_entity, entities
from bertscore_plugins.facts.extract import extract
from bertscore_plugins.facts.findings import (
    UNSUPPORTED_CAP,
    FactCheck,
    Finding,
)
from bertscore_plugins.facts.language import is_english
from bertscore_plugins.facts.order import check_order
from bertscore_plugins.facts.polarity import ANTONYM_ALIGNMENT, CLAUSE_ALIGNMENT, check_polarity
from bertscore_plugins.facts.status import check_status
from bertscore_plugins.facts.text import TextFacts
from bertscore_plugins.facts.values import check_value
from bertscore_plugins.watching import AUTO_SECONDS, Progress, person_watches


def check_pair(
    output: str, context: str, explanation: TokenAlignment | None = None, progress: bool | None = None
) -> FactCheck:
    """Check every fact of ``output`` against ``context``.

    Args:
        output: the generated text.
        context: the source it must be faithful to.
        explanation: the core's ``Explanation`` of (output, context) (``scorer.score(..., explain=True)``);
            without it, number/date/name checks still run and clause polarity falls back to word overlap.
        progress: a progress bar over the output's facts (None: where a person watches, for a pair
            expected to take ``watching.AUTO_SECONDS`` or more).

    Returns:
        A :class:`FactCheck`.
    """
    return check_extracted(extract(output.strip()), extract(context.strip()), explanation, progress)


def check_extracted(
    out: TextFacts, ctx: TextFacts, explanation: TokenAlignment | None = None, progress: bool | None = None
) -> FactCheck:
    """:func:`check_pair` on texts already run through ``extract`` (the signal's other parts read them too)."""
    if not (is_english(out) and is_english(ctx)):
        return FactCheck((), checked=False)
    alignment = Alignment(out, ctx, explanation)
    findings: list[Finding] = []
    taken: set[int] = set()
    names = entities(out, ctx, {k for fact in out.facts for k in fact.words})
    bar = facts_bar(len(out.facts) + len(names) + 1, progress, len(out.text) + len(ctx.text))
    try:
        for fact in out.facts:
            taken.update(fact.words)
            if bar is not None:
                bar.update(1)
            if fact.kind == "negation":
                continue  # judged per clause below
            found = check_value(fact, out, ctx, alignment)
            if found is not None:
                findings.append(found)
        rivals: list[int] = []  # the context's names the output does not write, built on first need
        for words in names:
            findings.append(check_entity(words, out, ctx, alignment, rivals))
            if bar is not None:
                bar.update(1)
        findings += check_polarity(out, ctx, alignment)
        findings += check_order(out, ctx, names)
        findings += check_status(out, ctx)
        if bar is not None:
            bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return FactCheck(_distinct(findings))


#: characters (output and context) the fact check reads per second, for the automatic bar: 330,000 on
#: the words alone and 210,000 on an alignment, measured on a shared 2-core CPU (benchmarks/speed/facts_cost.py
#: --doubling, benchmarks/results/facts_doubling.json); below the slower, so the estimate errs toward a bar
FACT_CHARACTERS_PER_SECOND = 200_000


def facts_bar(steps: int, progress: bool | None, characters: int) -> Progress | None:
    """A tqdm bar over the fact check's ``steps`` (each output fact and name, then the clauses), or None:
    ``progress=None`` shows it where a person watches when the pair is expected to take
    ``watching.AUTO_SECONDS`` or more."""
    if progress is None:
        progress = characters / FACT_CHARACTERS_PER_SECOND >= AUTO_SECONDS and person_watches()
    if not progress:
        return None
    from tqdm.auto import tqdm

    bar: Progress = tqdm(total=steps, unit="fact", desc="fact check", file=sys.stderr)
    return bar


def _distinct(findings: list[Finding]) -> tuple[Finding, ...]:
    """One finding per fact and what the context says instead: two checks may see the same error
    ("open" against "closed" is an antonym and a status)."""
    seen: set[tuple[str, str | None]] = set()
    kept = []
    for finding in findings:
        key = (finding.text.lower(), finding.context_says)
        if not finding.supported:
            if key in seen:
                continue
            seen.add(key)
        kept.append(finding)
    return tuple(kept)


def check_explanation(explanation: TokenAlignment) -> FactCheck:
    """The fact check of the pair an ``Explanation`` describes (its texts and alignment in one)."""
    return check_pair(explanation.candidate_text, explanation.reference_text, explanation)


__all__ = ["ANTONYM_ALIGNMENT", "CLAUSE_ALIGNMENT", "UNSUPPORTED_CAP", "Alignment", "is_english"]

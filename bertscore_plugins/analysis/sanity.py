"""The checklist to run before trusting a BERTScore configuration (any model, layer, idf or baseline).

Checks that must pass: an exact copy scores 1, an empty candidate or reference scores 0 (raw), rows
score the same whatever their order in the batch, and known-good paraphrases beat off-topic text.
Known blind spots are shown for what they are: a candidate with a wrong date, a wrong number, a
negation or swapped entities still scores close to the reference, usually above a correct paraphrase.
Those rows are "warn": BERTScore measures similarity, not truth, so pair it with a faithfulness check.
Each blind spot is followed by a "fact check" row showing whether the offline fact check
(bertscore_plugins.facts, reading this configuration's own alignment) catches that changed fact.

Example:
    >>> report = run_sanity()              # the default configuration
    >>> report.passed
    True
    >>> print(report.table())              # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bertscore_plugins.core.scorer import resolve_scorer

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.core.score_settings import ScoreSettings
    from bertscore_plugins.core.scorer import BERTScorer

PASS, FAIL, WARN = "pass", "fail", "warn"

#: (reference, correct paraphrase, off-topic text); paraphrases keep every fact of the reference
PARAPHRASES: tuple[tuple[str, str, str], ...] = (
    (
        "The patient was discharged from the hospital on Tuesday.",
        "On Tuesday the patient was sent home from the hospital.",
        "The orchestra rehearsed the symphony twice before the concert.",
    ),
    (
        "The company reported a profit of 5 million dollars last year.",
        "Last year the firm announced 5 million dollars in profit.",
        "Heavy snow closed the mountain roads for three days.",
    ),
    (
        "A man is playing a guitar on stage.",
        "On stage, a man plays the guitar.",
        "The recipe calls for two cups of flour and one egg.",
    ),
    (
        "The meeting has been postponed until next week.",
        "The meeting was pushed back to next week.",
        "Bright red flowers grow along the river bank.",
    ),
    (
        "The drug reduced the risk of heart attack in older patients.",
        "In older patients, the medicine lowered the risk of a heart attack.",
        "The train to Paris leaves from platform nine every morning.",
    ),
    (
        "Germany defeated Brazil in the semifinal.",
        "Brazil lost the semifinal to Germany.",
        "She planted tomatoes and basil in the garden.",
    ),
)

#: (blind spot, reference, candidate that changes one fact and keeps almost every word)
BLIND_SPOTS: tuple[tuple[str, str, str], ...] = (
    (
        "wrong date",
        "The patient was discharged from the hospital on Tuesday.",
        "The patient was discharged from the hospital on Thursday.",
    ),
    (
        "wrong number",
        "The company reported a profit of 5 million dollars last year.",
        "The company reported a profit of 50 million dollars last year.",
    ),
    (
        "negation",
        "The drug reduced the risk of heart attack in older patients.",
        "The drug did not reduce the risk of heart attack in older patients.",
    ),
    (
        "swapped entities",
        "Germany defeated Brazil in the semifinal.",
        "Brazil defeated Germany in the semifinal.",
    ),
)

EXACT_COPY = "The committee approved the new budget on Friday."
EXACT_TOLERANCE = 1e-4


@dataclass(frozen=True)
class SanityRow:
    """One line of the checklist: what was checked, its status, the score(s) and what they mean."""

    check: str
    status: str
    score: str
    detail: str


@dataclass(frozen=True)
class SanityReport:
    """The checklist's rows for one configuration, identified by its signature."""

    rows: tuple[SanityRow, ...]
    signature: str

    @property
    def passed(self) -> bool:
        """True when no check failed ("warn" rows document blind spots and do not fail)."""
        return all(row.status != FAIL for row in self.rows)

    def statuses(self) -> dict[str, str]:
        return {row.check: row.status for row in self.rows}

    def table(self) -> str:
        """A Markdown table (readable as plain text too), followed by the signature."""
        header = ("check", "status", "score", "what it shows")
        lines = [header] + [(row.check, row.status, row.score, row.detail) for row in self.rows]
        widths = [max(len(line[column]) for line in lines) for column in range(len(header))]

        def format_line(cells: tuple[str, ...]) -> str:
            return (
                "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) + " |"
            )

        rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
        body = [format_line(lines[0]), rule] + [format_line(line) for line in lines[1:]]
        verdict = "all checks pass" if self.passed else "SOME CHECKS FAIL"
        warns = sum(row.status == WARN for row in self.rows)
        return "\n".join(body) + f"\n\n{verdict}; {warns} known blind spot(s) shown as warn\n{self.signature}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "passed": self.passed,
            "rows": [dict(row.__dict__) for row in self.rows],
        }


def run_sanity(
    scorer: BERTScorer | ScoreConfig | None = None, **settings: Unpack[ScoreSettings]
) -> SanityReport:
    """Run the checklist on one configuration.

    Args:
        scorer: a `BERTScorer`, a `ScoreConfig`, or None for the default configuration.
        **settings: configuration settings (same names as `ScoreConfig`), applied on top.

    Returns:
        A `SanityReport`; `report.passed` is False if a must-pass check failed; `report.table()`
        prints it.
    """
    scorer = resolve_scorer(scorer, settings)
    candidates, references = _checklist_pairs()
    result = scorer.score(candidates, references)
    f1 = np.asarray(result.f1, dtype=np.float64)
    # Row order must not change a score: score the same rows reversed.
    reversed_f1 = np.asarray(scorer.score(candidates[::-1], references[::-1]).f1, dtype=np.float64)[::-1]
    paraphrase_f1 = f1[1 : 1 + 2 * len(PARAPHRASES) : 2]
    rows = [
        *_exactness_rows(scorer, f1[0], result.rescaled),
        _order_row(f1, reversed_f1),
        _paraphrase_row(paraphrase_f1, f1[2 : 2 + 2 * len(PARAPHRASES) : 2]),
        *_blind_spot_rows(scorer, f1[1 + 2 * len(PARAPHRASES) :], paraphrase_f1),
    ]
    return SanityReport(tuple(rows), str(result.signature))


def _checklist_pairs() -> tuple[list[str], list[str]]:
    """The exact copy, each paraphrase and off-topic text against its reference, each blind spot."""
    references = [EXACT_COPY]
    candidates = [EXACT_COPY]
    for reference, paraphrase, off_topic in PARAPHRASES:
        candidates += [paraphrase, off_topic]
        references += [reference, reference]
    for _, reference, wrong in BLIND_SPOTS:
        candidates.append(wrong)
        references.append(reference)
    return candidates, references


def _exactness_rows(scorer: BERTScorer, copy_f1: float, rescaled: bool) -> list[SanityRow]:
    """An exact copy scores 1, an empty side 0. Read from raw scores: a rescaled empty row is
    -b/(1-b) by construction, not 0."""
    from bertscore_plugins.core.row_warnings import EmptyTextWarning

    raw_scorer = scorer.with_config(rescale=False) if rescaled else scorer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyTextWarning)  # the empty rows are the point of this check
        raw = raw_scorer.score([EXACT_COPY, "", EXACT_COPY], [EXACT_COPY, EXACT_COPY, ""])
    precision, recall, f1 = (
        np.asarray(column, dtype=np.float64) for column in (raw.precision, raw.recall, raw.f1)
    )
    return [
        _exact_copy_row(precision[0], recall[0], f1[0], copy_f1, rescaled),
        _empty_row("empty candidate scores 0", precision[1], recall[1], f1[1]),
        _empty_row("empty reference scores 0", precision[2], recall[2], f1[2]),
    ]


def _order_row(f1: np.ndarray, reversed_f1: np.ndarray) -> SanityRow:
    worst_order_change = float(np.max(np.abs(f1 - reversed_f1)))
    return SanityRow(
        "row order does not change scores",
        PASS if worst_order_change <= EXACT_TOLERANCE else FAIL,
        f"{worst_order_change:.1e}",
        "largest change when the batch is reversed",
    )


def _paraphrase_row(paraphrase_f1: np.ndarray, off_topic_f1: np.ndarray) -> SanityRow:
    wins = int(np.sum(paraphrase_f1 > off_topic_f1))
    return SanityRow(
        "paraphrase beats off-topic",
        PASS if wins == len(PARAPHRASES) else FAIL,
        f"{paraphrase_f1.min():.3f}-{paraphrase_f1.max():.3f} vs {off_topic_f1.min():.3f}-{off_topic_f1.max():.3f}",
        f"{wins}/{len(PARAPHRASES)} paraphrases above their off-topic text "
        f"(smallest margin {float(np.min(paraphrase_f1 - off_topic_f1)):+.3f})",
    )


def _blind_spot_rows(scorer: BERTScorer, blind_f1: np.ndarray, paraphrase_f1: np.ndarray) -> list[SanityRow]:
    """Per blind spot: does similarity rank the factual error with the correct rewordings (warn), and
    does the offline fact check catch it."""
    rows = []
    paraphrase_median = float(np.median(paraphrase_f1))
    for (name, _, _), score, check in zip(BLIND_SPOTS, blind_f1, _fact_checks(scorer), strict=True):
        above = int(np.sum(paraphrase_f1 < score))
        # warn = the metric ranks the factual error at least as close as a typical correct rewording
        blind = score >= paraphrase_median
        meaning = "similarity is not truth" if blind else "this configuration separates it"
        rows.append(
            SanityRow(
                f"blind spot: {name}",
                WARN if blind else PASS,
                f"{score:.3f}",
                f"scores above {above}/{len(PARAPHRASES)} correct paraphrases: {meaning}",
            )
        )
        caught = check.label == "unsupported"
        rows.append(
            SanityRow(
                f"fact check: {name}",
                PASS if caught else WARN,
                f"{check.score:.3f}",
                f"caught: {check.explanation}" if caught else "not caught by the offline fact check",
            )
        )
    return rows


def _fact_checks(scorer: BERTScorer) -> list[Any]:
    """The offline fact check of each blind-spot candidate against its reference (as the context)."""
    from bertscore_plugins.faithfulness import check_facts

    candidates = [wrong for _, _, wrong in BLIND_SPOTS]
    references = [reference for _, reference, _ in BLIND_SPOTS]
    return check_facts(candidates, references, scorer=scorer)


def _exact_copy_row(
    precision: float, recall: float, f1: float, scored_f1: float, rescaled: bool
) -> SanityRow:
    ok = all(abs(value - 1.0) <= EXACT_TOLERANCE for value in (precision, recall, f1))
    ok = ok and abs(scored_f1 - 1.0) <= EXACT_TOLERANCE
    note = " (rescaled too)" if rescaled else ""
    return SanityRow("exact copy scores 1", PASS if ok else FAIL, f"{f1:.4f}", f"P, R and F1 equal 1{note}")


def _empty_row(check: str, precision: float, recall: float, f1: float) -> SanityRow:
    ok = all(value == 0.0 for value in (precision, recall, f1))
    return SanityRow(
        check, PASS if ok else FAIL, f"{f1:.4f}", f"raw P={precision:.4f} R={recall:.4f}, no NaN"
    )

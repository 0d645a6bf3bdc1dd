"""One row's offline faithfulness: its parts, the score they make together, its label and explanation.

The one result type of the offline signal, whichever door a row came through (the Python API, the batch
engine, a Phoenix evaluator, the command line): ``score`` and ``label`` are computed here and nowhere else.
The threshold it holds was checked where the user gave it (``bertscore_plugins.thresholds.check_threshold``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bertscore_plugins.facts.findings import FactCheck
from bertscore_plugins.faithfulness import combination
from bertscore_plugins.faithfulness.outcome import ABSTAINED, EMPTY
from bertscore_plugins.faithfulness.parts import Parts
from bertscore_plugins.faithfulness.sentence_entailment import SentenceEntailment
from bertscore_plugins.thresholds import FAITHFULNESS_THRESHOLD

FAITHFUL, UNFAITHFUL = "faithful", "unfaithful"
"""The labels of the offline signal, the same words Phoenix's faithfulness judge uses."""


@dataclass(frozen=True)
class OfflineFaithfulness:
    """The offline faithfulness of one row: its parts and the score they make together.

    ``score`` in [0, 1]: the logistic combination (combination.py, weights.json) of groundedness (BERTScore
    precision against the context), the weakest output sentence against its best source window, ROUGE-L
    precision of the output against the source and of its weakest sentence against its best passage, the
    share of content words the source writes, whether it writes a rare word the source never writes and
    whether the fact check found an unsupported fact; in the upper half of [0, 1] when the row is vouched
    for (facts checked and all carried, no such rare word, weakest sentence >= combination.SENTENCE_SUPPORT),
    in the lower half otherwise. ``label`` "faithful" when ``score >= threshold``, the facts were checked
    and none is unsupported, else "unfaithful".

    ``outcome`` (outcome.py) is set when the answer is no answer to judge: ``"empty"`` (no word to read:
    its score is 0.0, nothing in it is supported) or ``"abstained"`` (it declines to answer: its score is
    the signal's as computed). The label is then the outcome, never "faithful" or "unfaithful".
    """

    groundedness: float
    facts: FactCheck
    threshold: float = FAITHFULNESS_THRESHOLD
    parts: Parts | None = None
    entailment: SentenceEntailment | None = None
    outcome: str | None = None

    @property
    def features(self) -> dict[str, float]:
        """The combination's inputs (combination.FEATURES), each in [0, 1]."""
        parts = self.parts or Parts(1.0, "", 1.0, 1.0, 1.0)
        groundedness = max(0.0, min(1.0, self.groundedness))
        lcs, weakest_lexical = parts.lcs, parts.weakest_lexical
        if parts.lexical >= 1.0 and not self.facts.unsupported:
            # Every content word is the source's and every fact is supported: word order alone is no
            # evidence against the output ("X is Dr. Olsen" for "Dr. Olsen is X" had ROUGE-L 0.5), so the
            # order-sensitive parts are floored by their embedding twins, which still see a recombination.
            # Measured on the development sets: AUC within 0.004 of the unfloored parts, every set still
            # above groundedness and ROUGE-L precision (benchmarks/QUALITY.md section 7).
            lcs, weakest_lexical = max(lcs, groundedness), max(weakest_lexical, parts.weakest_sentence)
        return {
            "groundedness": groundedness,
            "weakest_sentence": parts.weakest_sentence,
            "lcs": lcs,
            "weakest_lexical": weakest_lexical,
            "lexical": parts.lexical,
            "novel_rare_word": 1.0 if parts.novel_rare else 0.0,
            "unsupported_fact": 1.0 if self.facts.unsupported else 0.0,
        }

    @property
    def score(self) -> float:
        if self.outcome == EMPTY:
            return 0.0
        # facts that could not be checked (not English) are not vouched for
        return combination.score(self.features, checked=self.facts.checked)

    @property
    def label(self) -> str:
        if self.outcome is not None:
            return self.outcome
        vouched = self.facts.checked and not self.facts.unsupported
        return FAITHFUL if self.score >= self.threshold and vouched else UNFAITHFUL

    @property
    def weakest_sentence(self) -> str:
        return self.parts.weakest_sentence_text if self.parts else ""

    @property
    def novel_rare_words(self) -> tuple[str, ...]:
        """The output's rare words (names, numbers) that the context never writes."""
        return self.parts.novel_rare if self.parts else ()

    @property
    def explanation(self) -> str:
        if self.outcome == EMPTY:
            return "empty answer: no word to read, so nothing to check against the context"
        if self.outcome == ABSTAINED:
            return f"the answer abstains (declines to answer), so it makes no claim to check; score {self.score:.3f}"
        parts = self.features
        head = (
            f"score {self.score:.3f} (groundedness {self.groundedness:.3f}, lexical {parts['lcs']:.2f}, "
            f"weakest sentence {parts['weakest_sentence']:.3f}"
        )
        if self.weakest_sentence:
            head += f": '{self.weakest_sentence}'"
        head += ")"
        if self.novel_rare_words:
            head += "; never in the context: " + ", ".join(self.novel_rare_words)
        if self.contradicted:
            head += f"; {self.contradicted}"
        return f"{head}; facts: {self.facts.explanation}"

    @property
    def contradicted(self) -> str:
        """The output sentence the entailment model reads as contradicted, and the source sentence
        ("'the train left on time' contradicts 'delayed by 20 minutes'"), or ""."""
        return self.entailment.contradicted if self.entailment else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "label": self.label,
            "explanation": self.explanation,
            "outcome": self.outcome,
            "groundedness": self.groundedness,
            **{name: value for name, value in self.features.items() if name != "groundedness"},
            "weakest_sentence_text": self.weakest_sentence,
            "fact_score": self.facts.score,
            "fact_label": self.facts.label,
            "fact_checked": self.facts.checked,
            "unsupported_facts": [str(finding) for finding in self.facts.unsupported],
            "novel_rare_words": list(self.novel_rare_words),
            "contradicted": self.contradicted,
            "supporting_passages": [list(span) for span in self.parts.passages] if self.parts else [],
        }

    def cell_parts(self) -> tuple[float, str, str, dict[str, Any]]:
        """(score, label, explanation, metadata) as an annotation cell carries them: every part, the
        fact check's findings and the weakest sentence, beside the groundedness the row was read with."""
        details = self.to_dict()
        metadata = {key: details[key] for key in details if key not in ("score", "label", "explanation")}
        metadata["facts"] = self.facts.to_dict()["facts"]
        return self.score, self.label, self.explanation, metadata

"""What the fact check found: one ``Finding`` per output fact, and the ``FactCheck`` of a whole output."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: a row with any unsupported fact scores at most this (so it falls below any "faithful" threshold)
UNSUPPORTED_CAP = 0.5
SUPPORTED, UNSUPPORTED, NOT_CHECKED = "supported", "unsupported", "not checked"


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

"""What a trace evaluation tells back: :class:`EvaluationReport` (counts, reasons, time per part)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class EvaluationReport:
    """What a run did. Counts are spans unless named otherwise; ``seconds`` splits the wall time."""

    project: str
    configuration: str
    spans_read: int = 0
    already_done: int = 0
    evaluated: int = 0
    results: Counter = field(default_factory=Counter)  # evaluator name -> results computed this run
    logged: int = 0  # annotations Phoenix accepted this run
    logged_from_store: int = 0  # ... of which an earlier run had computed
    skipped: Counter = field(default_factory=Counter)  # "evaluator: reason" -> spans
    failed: Counter = field(default_factory=Counter)  # "evaluator: reason" -> spans (retried next run)
    seconds: dict[str, float] = field(
        default_factory=lambda: {"read": 0.0, "score": 0.0, "judge": 0.0, "store": 0.0, "write": 0.0}
    )
    polls: int = 0
    judge_calls: Counter = field(default_factory=Counter)  # "judged" / "saved" (by judge triage)

    def to_dict(self) -> dict[str, object]:
        return {
            "project": self.project,
            "configuration": self.configuration,
            "spans_read": self.spans_read,
            "already_done": self.already_done,
            "evaluated": self.evaluated,
            "results": dict(self.results),
            "logged": self.logged,
            "logged_from_store": self.logged_from_store,
            "skipped": dict(self.skipped),
            "failed": dict(self.failed),
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "polls": self.polls,
            "judge_calls": {"judged": self.judge_calls["judged"], "saved": self.judge_calls["saved"]},
        }

    def summary(self) -> str:
        """A few lines for people: counts, then each skip/failure reason."""
        lines = [
            (
                f"project {self.project!r}, configuration {self.configuration}: read {self.spans_read} "
                f"spans, {self.already_done} already evaluated, evaluated {self.evaluated}, "
                f"logged {self.logged} annotations ({self.logged_from_store} from the local store)"
            )
        ]
        if self.judge_calls:
            lines.append(
                f"  judge: {self.judge_calls['judged']} calls, {self.judge_calls['saved']} saved "
                "(rows the offline signals settled)"
            )
        if self.results:
            lines.append("  results: " + ", ".join(f"{n} {c}" for n, c in sorted(self.results.items())))
        for title, counts in (("skipped", self.skipped), ("failed (retried next run)", self.failed)):
            for reason, count in sorted(counts.items()):
                lines.append(f"  {title}: {count} span(s): {reason}")
        total = sum(self.seconds.values()) or 1.0
        lines.append(
            "  time: " + ", ".join(f"{k} {v:.1f} s ({100 * v / total:.0f}%)" for k, v in self.seconds.items())
        )
        return "\n".join(lines)

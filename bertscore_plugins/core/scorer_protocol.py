"""What the rest of the package needs of a scorer: a :class:`Scorer` (``BERTScorer`` is one).

The evaluation engine, the offline faithfulness and the integrations take any object that scores pairs and
signs its scores (the core's ``BERTScorer``, a wrapper, a test's stand-in), so a renamed method is a type
error where it is called, not an ``AttributeError`` in a user's run. Typing only: importing this loads no
model and no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bertscore_plugins.core.scores import Scores
    from bertscore_plugins.core.signature import Signature


class Scorer(Protocol):
    """Scores candidates against references (one or several per row) and signs the scores."""

    @property
    def signature(self) -> Signature: ...

    def score(
        self,
        candidates: Sequence[str],
        references: Sequence[str] | Sequence[Sequence[str]],
        progress: bool | None = None,
        explain: bool = False,
    ) -> Scores: ...

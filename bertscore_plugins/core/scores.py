"""What a scoring call returns: per-row precision, recall and F1 in input order, and their signature."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bertscore_plugins.core.explain import Explanation
from bertscore_plugins.core.signature import Signature
from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.json_types import JSONObject


@dataclass
class Scores:
    """Per-row precision, recall and F1 (float32 arrays, input order) and the signature."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    signature: Signature
    rescaled: bool
    explanations: list[Explanation] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.signature = Signature(self.signature)  # a plain string from elsewhere becomes a value too

    def __len__(self) -> int:
        return len(self.f1)

    def means(self) -> dict[str, float]:
        """Corpus-level precision, recall and F1: the row means, accumulated in float64.

        The one mean every report uses (CLI, evaluate, baselines, comparisons): a float32 sum over many
        rows drifts in the last digits.

        Raises:
            ValueError: there are no rows.
        """
        if not len(self):
            raise ArgumentError("no rows: the mean of an empty result is undefined")
        columns = {"precision": self.precision, "recall": self.recall, "f1": self.f1}
        # widened first, then summed: the same summation order as stats' float64 columns, to the last bit
        return {name: float(values.astype(np.float64).mean()) for name, values in columns.items()}

    def to_dict(self) -> JSONObject:
        return {
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f1": self.f1.tolist(),
            "signature": self.signature,
        }

"""Inverse document frequency weights, exactly as bert_score computes them.

idf(t) = ln((M + 1) / (df(t) + 1)) over M reference texts (duplicates counted), where df(t) counts the
texts whose token-id set (special tokens included) contains t; tokens never seen get ln(M + 1).
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from bertscore_plugins.errors import ArgumentTypeError, IdfWeightError

#: the largest weight a table may hold. The scorer sums a text's weights in float32 (largest 3.4e38), so
#: 1e30 leaves room for 3e8 tokens a text; a larger weight would overflow the sum to inf and turn every
#: weight of that text into 0 (an identical pair scored 0). Real idf is at most ln(documents + 1): 28
#: for 10**12 documents.
MAX_WEIGHT = 1e30


class IdfTable:
    """A frozen idf table: token id -> weight, plus the weight of unseen tokens.

    It carries a digest of its content, which goes into the signature and into cache keys, so two
    tables fitted on different corpora never share a cached scorer or a datasets cache entry.
    """

    __slots__ = ("_weights", "digest", "model_identity", "num_documents", "unseen_weight")

    def __init__(
        self,
        weights: Mapping[int, float],
        unseen_weight: float,
        num_documents: int | None = None,
        model_identity: str | None = None,
    ) -> None:
        self._weights = {_token_id(k): _weight(v, f"weight of token id {k}") for k, v in weights.items()}
        self.unseen_weight = _weight(unseen_weight, "unseen_weight")
        self.num_documents = num_documents
        self.model_identity = model_identity
        content = repr((sorted(self._weights.items()), self.unseen_weight, model_identity)).encode()
        self.digest = hashlib.sha256(content).hexdigest()[:12]

    def weight(self, token_id: int) -> float:
        return self._weights.get(token_id, self.unseen_weight)

    def weights_for(self, token_ids: Sequence[int]) -> list[float]:
        get, unseen = self._weights.get, self.unseen_weight
        return [get(t, unseen) for t in token_ids]

    def as_dict(self) -> dict[int, float]:
        return dict(self._weights)

    def __len__(self) -> int:
        return len(self._weights)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IdfTable) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"IdfTable(tokens={len(self._weights)}, documents={self.num_documents}, digest={self.digest})"

    # pickling: a plain tuple state (no torch, no tokenizer), used by datasets' fingerprint and Ray
    def __getstate__(self) -> tuple[dict[int, float], float, int | None, str | None, str]:
        return (self._weights, self.unseen_weight, self.num_documents, self.model_identity, self.digest)

    def __setstate__(self, state: tuple[dict[int, float], float, int | None, str | None, str]) -> None:
        (self._weights, self.unseen_weight, self.num_documents, self.model_identity, self.digest) = state


def _token_id(key: object) -> int:
    """A table key as a token id: a whole number >= 0 (an int, or its decimal text as JSON keys are).
    Anything else is refused by name: int() would turn 3.7 into token 3, another token's weight."""
    if (isinstance(key, numbers.Integral) and not isinstance(key, bool)) or (
        isinstance(key, str) and key.strip().isdecimal()
    ):
        token_id = int(key)
    else:
        raise IdfWeightError(
            f"IdfTable key {key!r} ({type(key).__name__}) is not a token id: keys must be whole numbers >= 0"
        )
    if token_id < 0:
        raise IdfWeightError(f"IdfTable key {key!r} is not a token id: keys must be whole numbers >= 0")
    return token_id


def _weight(value: object, name: str) -> float:
    """A finite weight in [0, MAX_WEIGHT], or an error naming it: a NaN or infinite weight would make
    every score of a text holding that token NaN, a negative one could cancel a text's total weight, and
    one above MAX_WEIGHT would overflow the text's total (see MAX_WEIGHT)."""
    if isinstance(value, bool) or (not isinstance(value, (int, float)) and not hasattr(value, "__float__")):
        raise ArgumentTypeError(f"IdfTable {name} must be a number, got {type(value).__name__}")
    try:
        number, shown = float(value), None
    except OverflowError:  # an int beyond any float
        number, shown = math.inf, "an integer beyond any float"
    if shown is None and (not math.isfinite(number) or number < 0):
        raise IdfWeightError(f"IdfTable {name} must be a finite number >= 0, got {number!r}")
    if number > MAX_WEIGHT:
        raise IdfWeightError(
            f"IdfTable {name} is {shown or repr(number)}, above {MAX_WEIGHT:g}: a text's total weight "
            "would overflow and every pair holding it would score 0 (idf weights are at most "
            "ln(documents + 1))"
        )
    return number


def idf_from_token_ids(documents: Iterable[Sequence[int]], model_identity: str | None = None) -> IdfTable:
    """Fit idf on already tokenized documents (each a list of token ids, special tokens included)."""
    document_frequency: Counter[int] = Counter()
    num_documents = 0
    for token_ids in documents:
        document_frequency.update(set(token_ids))
        num_documents += 1
    weights = {
        token_id: math.log((num_documents + 1) / (count + 1))
        for token_id, count in document_frequency.items()
    }
    return IdfTable(weights, math.log(num_documents + 1), num_documents, model_identity)

"""One token's best match on the other side of a pair: what an explanation lists and a cell's metadata keeps.

Its own module, free of torch: the evaluation's cells hold these too, and read them back from the store
without loading the scorer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenMatch:
    """A token, its best counterpart on the other side, and their cosine similarity."""

    token: str
    matched_token: str
    similarity: float

    def __str__(self) -> str:
        return f"{self.token} -> {self.matched_token} {self.similarity:.2f}"

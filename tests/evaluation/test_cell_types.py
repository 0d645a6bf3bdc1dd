"""A cell is a typed value until one of the three edges (the store's JSON, a Phoenix annotation or DataFrame
cell, the flat table): each signal's metadata is its own record, so a sink that reads a key the record lacks
is a type error where it is written (tests/architecture/test_type_checking.py runs mypy on such a sink), and
every record comes back from its dict unchanged."""

from __future__ import annotations

import pytest

from bertscore_plugins.core.token_match import TokenMatch
from bertscore_plugins.evaluation.cells import (
    BertScoreMetadata,
    Cell,
    DisagreementMetadata,
    FactCheckMetadata,
    OtherMetadata,
    VerdictMetadata,
    as_cell,
)

SIMILARITY = Cell(
    "bertscore",
    0.91,
    "similar",
    "F1 0.910 (P 0.920, R 0.900)",
    BertScoreMetadata(
        0.92,
        0.9,
        0.85,
        "sig",
        (TokenMatch("Thursday", "Tuesday", 0.71),),
        token_matches=(TokenMatch("Left", "Left", 1.0), TokenMatch("Thursday", "Tuesday", 0.71)),
    ),
)
GROUNDED = BertScoreMetadata(0.4, 0.3, 0.5, "sig", (), f1=0.35)
CELLS = [
    SIMILARITY,
    Cell(
        "groundedness",
        0.4,
        "empty",
        "precision 0.400",
        BertScoreMetadata(0.4, 0.3, 0.5, "s", (), 0.35, None, "empty"),
    ),
    Cell(
        "offline_faithfulness",
        0.12,
        "unfaithful",
        "facts: Thursday",
        FactCheckMetadata(
            GROUNDED, None, True, "unsupported", ("Thursday: context says Tuesday",), 1.0, {"lcs": 0.5}
        ),
    ),
    Cell("faithfulness", 0.0, "abstained", "judge not asked", VerdictMetadata("outcome")),
    Cell("faithfulness", 1.0, "faithful", "settled offline", VerdictMetadata("offline", 0.93)),
    Cell(
        "faithfulness",
        0.8,
        "faithful",
        "p(yes) 0.8",
        VerdictMetadata("judge", None, {"model": "m"}),
        kind="llm",
    ),
    Cell(
        "sim_faith_disagreement",
        1.0,
        "high_sim_unfaithful",
        "bertscore 0.910 >= 0.900",
        DisagreementMetadata(
            0.91, 0.12, 0.9, 0.5, "fixed", "bertscore", "offline_faithfulness", "unfaithful"
        ),
        direction="minimize",
    ),
    Cell("another_evaluator", 0.5, "fine", None, OtherMetadata({"anything": [1, 2]})),
]


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: f"{cell.name}-{type(cell.metadata).__name__}")
def test_every_cell_comes_back_from_its_dict_unchanged(cell):
    assert Cell.from_dict(cell.to_dict()) == cell
    assert as_cell(cell.to_dict()) == cell and as_cell(cell) is cell and as_cell(None) is None


def test_the_dict_is_the_shape_phoenix_scores_have():
    found = SIMILARITY.to_dict()
    assert list(found) == ["name", "score", "label", "explanation", "metadata", "kind", "direction"]
    assert found["metadata"]["worst_matches"] == [
        {"token": "Thursday", "matched_token": "Tuesday", "similarity": 0.71}
    ]
    assert found["metadata"]["token_matches"][1] == ["Thursday", "Tuesday", 0.71]


def test_a_damaged_metadata_dict_is_carried_as_it_is_never_misread():
    cell = Cell.from_dict(
        {"name": "bertscore", "score": 0.9, "metadata": {"precision": "high", "signature": "s"}}
    )
    assert cell.metadata == OtherMetadata({"precision": "high", "signature": "s"})
    assert Cell.from_dict({"name": "x", "score": float("nan"), "label": 3}).score is None

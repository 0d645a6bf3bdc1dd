"""Similarity vs faithfulness on a RAG table: the example behind ``bertscore-plugins disagreement``.

    python -m recipes.disagreement answers.jsonl --out runs/answers --phoenix-url http://127.0.0.1:6006
    bertscore-plugins disagreement answers.jsonl --out runs/answers      # the same, from any folder

The recipe ships with the package (``bertscore_plugins.cli.disagreement``): this file runs it with the
same flags, and `score_table` below shows the pipeline it wires, for a table already in memory: rows ->
the one engine -> the one result store (resumable: a second call computes nothing) -> flat columns.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bertscore_plugins.cli.disagreement import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from bertscore_plugins.cli.disagreement import EXIT_JUDGE as EXIT_JUDGE
from bertscore_plugins.cli.disagreement import EXIT_OK as EXIT_OK
from bertscore_plugins.cli.disagreement import EXIT_PHOENIX as EXIT_PHOENIX
from bertscore_plugins.cli.disagreement import HTML_NAME as HTML_NAME
from bertscore_plugins.cli.disagreement import PNG_NAME as PNG_NAME
from bertscore_plugins.cli.disagreement import main as main


def score_table(rows: list[dict], store_path: str | Path) -> list[dict]:
    """Each row (``id``, ``question``, ``context``, ``output``, ``reference``) with flat score columns,
    computed once into the store at ``store_path`` and read back from it on every later call."""
    from bertscore_plugins.evaluation.batch import BatchRow
    from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
    from bertscore_plugins.evaluation.pipeline import evaluate_stored
    from bertscore_plugins.evaluation.score_table import flat_row
    from bertscore_plugins.evaluation.store import ResultStore
    from bertscore_plugins.evaluation.store_keys import scorer_identity, store_keys

    config = EvaluationConfig()  # no judge: the offline faithfulness is the faithfulness signal
    batch = [
        BatchRow(str(row["id"]), row["output"], row["context"], row["reference"], row["question"])
        for row in rows
    ]
    with ResultStore(store_path) as store:
        found = evaluate_stored(batch, config, store, store_keys(config, scorer_identity(config.score)))
    return [{**row, **flat_row(found.cells[str(row["id"])])} for row in rows]


if __name__ == "__main__":
    sys.exit(main())

"""BERTScore on Spark: an iterator pandas_udf that loads the model once per Python worker.

Spark's own `predict_batch_udf` rejects ``array<string>`` columns (multiple references per row), so this
recipe uses the iterator form of `pandas_udf`: one scorer per task iterator, reused across the task's
Arrow batches (and across tasks, since `get_scorer` caches it per worker process and Spark reuses
Python workers). The reference column may be ``string`` or ``array<string>``.

Run it (local, two cores, driver on 127.0.0.1, no UI):

    python recipes/spark_bertscore.py pairs.parquet scored.parquet --candidate-column mt \
        --reference-column reference --layer 4

On a cluster, submit the same file with ``spark-submit`` (the package must be installed on the
executors) and drop ``--master`` or set it to the cluster's. Needs the ``spark`` extra.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.functions import pandas_udf

from bertscore_plugins import IdfTable, ScoreConfig, get_scorer
from bertscore_plugins.errors import ArgumentError, ArgumentTypeError

logger = logging.getLogger(__name__)

#: the struct the UDF returns; `score_spark_dataframe` expands it into prefixed columns
SCORE_SCHEMA = T.StructType(
    [
        T.StructField("precision", T.DoubleType()),
        T.StructField("recall", T.DoubleType()),
        T.StructField("f1", T.DoubleType()),
        T.StructField("signature", T.StringType()),
    ]
)


def local_spark_session(cores: int = 2, app_name: str = "bertscore") -> SparkSession:
    """A local Spark session bound to 127.0.0.1 with the UI off, using this Python for its workers."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    return (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(app_name)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )


def _references(values: pd.Series) -> list[str | list[str]]:
    # array<string> cells arrive as numpy arrays; string cells as str
    return [value if isinstance(value, str) else list(value) for value in values]


def _check_rows(candidates: pd.Series, references: pd.Series) -> None:
    for row, (candidate, reference) in enumerate(zip(candidates, references, strict=True)):
        if not isinstance(candidate, str):
            raise ArgumentTypeError(
                f"row {row} of the Arrow batch: candidate is {candidate!r}, expected a string"
            )
        if reference is None or (not isinstance(reference, str) and len(reference) == 0):
            raise ArgumentError(f"row {row} of the Arrow batch: reference is missing or an empty list")


def make_bertscore_udf(config: ScoreConfig):
    """The iterator pandas_udf ``(candidate, reference) -> struct<precision, recall, f1, signature>``.

    `config` must not have ``idf=True`` (a per-batch table): pass an `IdfTable` fitted on the whole
    column (`score_spark_dataframe` does this).
    """
    if config.idf is True:
        raise ArgumentError(
            "idf=True would fit idf per Arrow batch; fit one table on the whole reference column "
            "(score_spark_dataframe(..., idf=True) does this) and pass it as idf=<IdfTable>"
        )

    @pandas_udf(SCORE_SCHEMA)
    def bertscore(batches: Iterator[tuple[pd.Series, pd.Series]]) -> Iterator[pd.DataFrame]:
        scorer = get_scorer(config)  # once per task iterator, cached per worker process
        for candidates, references in batches:
            _check_rows(candidates, references)
            result = scorer.score(list(candidates), _references(references))
            yield pd.DataFrame(
                {
                    "precision": result.precision.astype("float64"),
                    "recall": result.recall.astype("float64"),
                    "f1": result.f1.astype("float64"),
                    "signature": [result.signature] * len(result),
                }
            )

    return bertscore


def fit_idf_on_column(df: DataFrame, reference_column: str, config: ScoreConfig) -> IdfTable:
    """One idf table over the whole (flattened) reference column, fitted on the driver."""
    column = df.schema[reference_column].dataType
    flat = F.explode(reference_column) if isinstance(column, T.ArrayType) else F.col(reference_column)
    references = [row[0] for row in df.select(flat).toLocalIterator()]
    return get_scorer(config.replace(idf=False)).fit_idf(references)


def score_spark_dataframe(
    df: DataFrame,
    *,
    candidate_column: str = "candidate",
    reference_column: str = "reference",
    prefix: str = "bertscore_",
    config: ScoreConfig | None = None,
    **settings: Any,
) -> DataFrame:
    """`df` with ``<prefix>precision``, ``recall``, ``f1`` and ``signature`` columns added.

    Settings are the `ScoreConfig` names; ``idf=True`` fits one table on the whole reference column first.
    """
    scoring = config.replace(**settings) if config is not None else ScoreConfig.from_kwargs(**settings)
    if scoring.idf is True:
        scoring = scoring.replace(idf=fit_idf_on_column(df, reference_column, scoring))
    bertscore = make_bertscore_udf(scoring)
    struct_column = f"{prefix}struct"
    scored = df.withColumn(struct_column, bertscore(F.col(candidate_column), F.col(reference_column)))
    for name in ("precision", "recall", "f1", "signature"):
        scored = scored.withColumn(f"{prefix}{name}", F.col(f"{struct_column}.{name}"))
    return scored.drop(struct_column)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score a parquet file of pairs with BERTScore on Spark.")
    parser.add_argument("input", help="parquet file or directory with candidate and reference columns")
    parser.add_argument("output", help="parquet directory to write (overwritten)")
    parser.add_argument("--candidate-column", default="candidate")
    parser.add_argument("--reference-column", default="reference")
    parser.add_argument("--cores", type=int, default=2, help="local[N]; ignored when --master is given")
    parser.add_argument("--master", default=None, help="Spark master URL (default: local[--cores])")
    parser.add_argument("--model", default="default")
    parser.add_argument("--layer", type=int, default=None)
    parser.add_argument("--idf", action="store_true", help="fit idf on the whole reference column")
    parser.add_argument("--rescale", action="store_true")
    args = parser.parse_args(argv)

    owns_session = SparkSession.getActiveSession() is None  # called from a notebook: leave its session up
    if args.master:
        spark = SparkSession.builder.master(args.master).appName("bertscore").getOrCreate()
    else:
        spark = local_spark_session(args.cores)
    try:
        df = spark.read.parquet(args.input)
        scored = score_spark_dataframe(
            df,
            candidate_column=args.candidate_column,
            reference_column=args.reference_column,
            model=args.model,
            layer=args.layer,
            idf=args.idf,
            rescale=args.rescale,
        )
        scored.write.mode("overwrite").parquet(args.output)
        print(f"wrote {args.output}")
    finally:
        if owns_session:
            spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

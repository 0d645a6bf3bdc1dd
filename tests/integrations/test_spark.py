"""The Spark recipe (recipes/spark_bertscore.py) against the core: single and multiple references, idf.

Runs when Java and PySpark are present; one local[2] session for the module, stopped (JVM included,
by process id) at the end.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.distributed_pairs import REPO, assert_matches_core, load_pairs, multi_references

RECIPES = REPO / "recipes"
#: rows per test: several per task once repartitioned in 3 (how many is not the point: parity is per row)
ROWS = 40
SUBMIT_ARGS = "PYSPARK_SUBMIT_ARGS"
#: the JVM lives for this module only: with its quick compiler alone and the serial collector the module
#: took 23-24 s of user CPU against 29-31 s (two runs each); the numbers checked are Python's
SHORT_LIVED_JVM = '--driver-java-options "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" pyspark-shell'

pytestmark = [
    pytest.mark.slow,
    # PySpark 4.3 warns on every pandas conversion with pandas >= 3; the numbers are still checked below
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java is not installed; the Spark recipe needs a JVM")
    pytest.importorskip("pyspark")
    psutil = pytest.importorskip("psutil")
    saved_path, saved_submit = os.environ.get("PYTHONPATH"), os.environ.get(SUBMIT_ARGS)
    # Spark's Python workers must import bertscore_plugins and the recipe module (the UDF lives there).
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), str(RECIPES)] + ([saved_path] if saved_path else [])
    )
    os.environ[SUBMIT_ARGS] = saved_submit or SHORT_LIVED_JVM
    sys.path.insert(0, str(RECIPES))
    session = None
    # processes that existed before Spark (e.g. the session's Phoenix server) are never waited for or killed
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    try:
        import spark_bertscore
        from pyspark import SparkContext

        session = spark_bertscore.local_spark_session(cores=2)
        yield session
    finally:
        procs = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
        if session is not None:
            session.stop()
            gateway = SparkContext._gateway
            if gateway is not None:
                # spark.stop() leaves the JVM running; it exits when its stdin closes
                gateway.shutdown()
                if getattr(gateway, "proc", None) is not None:
                    gateway.proc.stdin.close()
                SparkContext._gateway = None
                SparkContext._jvm = None
        _gone, alive = psutil.wait_procs(procs, timeout=60)
        for process in alive:  # only the processes this session started, by pid
            process.kill()
        sys.path.remove(str(RECIPES))
        for name, saved in (("PYTHONPATH", saved_path), (SUBMIT_ARGS, saved_submit)):
            if saved is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = saved
        assert not alive, f"Spark processes left after stop: {[p.pid for p in alive]}"


def _core_scores(candidates, references, **settings):
    from bertscore_plugins import ScoreConfig, get_scorer

    return get_scorer(ScoreConfig(**settings)).score(list(candidates), list(references))


@pytest.fixture(scope="module")
def single_pairs():
    """The single-reference pairs and the core's scores of them, shared by the DataFrame and recipe tests."""
    candidates, references, _source = load_pairs(ROWS)
    return candidates, references, _core_scores(candidates, references)


def _scored_rows(spark, rows, schema, **settings):
    import spark_bertscore

    df = spark.createDataFrame(rows, schema).repartition(3)  # several tasks, rows shuffled across them
    scored = spark_bertscore.score_spark_dataframe(df, **settings).toPandas()
    return scored.sort_values("row_id").reset_index(drop=True)


def test_single_references_match_the_core(spark, single_pairs):
    candidates, references, expected = single_pairs
    rows = list(zip(range(ROWS), candidates, references, strict=True))
    scored = _scored_rows(spark, rows, "row_id int, candidate string, reference string")
    assert scored["row_id"].tolist() == list(range(ROWS))
    assert_matches_core(scored, expected)


def test_multiple_references_match_the_core(spark):
    candidates, references, _source = load_pairs(ROWS)
    multi = multi_references(candidates, references)
    rows = list(zip(range(ROWS), candidates, multi, strict=True))
    scored = _scored_rows(spark, rows, "row_id int, candidate string, reference array<string>")
    assert scored["row_id"].tolist() == list(range(ROWS))
    assert_matches_core(scored, _core_scores(candidates, multi))


def test_idf_is_fitted_once_on_the_whole_column(spark):
    candidates, references, _source = load_pairs(ROWS)
    multi = multi_references(candidates, references)
    rows = list(zip(range(ROWS), candidates, multi, strict=True))
    scored = _scored_rows(
        spark,
        rows,
        "row_id int, mt string, refs array<string>",
        candidate_column="mt",
        reference_column="refs",
        prefix="bs_",
        idf=True,
    )
    expected = _core_scores(candidates, multi, idf=True)
    for name in ("precision", "recall", "f1"):
        np.testing.assert_allclose(scored[f"bs_{name}"], getattr(expected, name), atol=1e-6, rtol=0)


def test_recipe_runs_end_to_end_on_parquet(spark, single_pairs, tmp_path: Path):
    import pandas as pd
    import spark_bertscore

    candidates, references, expected = single_pairs
    pd.DataFrame({"row_id": range(ROWS), "candidate": candidates, "reference": references}).to_parquet(
        tmp_path / "pairs.parquet", index=False
    )
    assert spark_bertscore.main([str(tmp_path / "pairs.parquet"), str(tmp_path / "scored")]) == 0
    scored = pd.read_parquet(tmp_path / "scored").sort_values("row_id").reset_index(drop=True)
    assert_matches_core(scored, expected)

"""Ray Data integration: parity with the core, order, exactly-once under an actor crash, no leftovers.

The Ray tests start one local Ray instance (2 CPUs, loopback only, no dashboard) for the module and
shut it down by process id at the end.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from tests.support.distributed_pairs import REPO, assert_matches_core, load_pairs, multi_references

#: the crash test's pairs: 6 blocks of 10 rows in 12 batches of 5, so both actors get work and the actor
#: dies mid-run (at row 35, in the 8th batch) with rows already scored before and still to come after it
ROWS, ROWS_PER_BLOCK, BATCH_SIZE, CRASH_ROW = 60, 10, 5, 35
CORE_MODULES = (
    "bertscore_plugins",
    "bertscore_plugins.core.score_config",
    "bertscore_plugins.core.idf",
    "bertscore_plugins.models.load",
    "bertscore_plugins.core.tokenize",
    "bertscore_plugins.core.embed",
    "bertscore_plugins.core.match",
    "bertscore_plugins.core.scorer",
    "bertscore_plugins.core.baseline",
    "bertscore_plugins.core.explain",
    "bertscore_plugins.inputs",
    "bertscore_plugins.core.signature",
    "bertscore_plugins.cli",
)


@pytest.mark.slow  # a fresh interpreter importing the whole core
def test_core_imports_neither_ray_nor_spark():
    """Acceptance 4: importing the package and its core modules pulls in no Ray and no PySpark."""
    program = (
        "import importlib, importlib.util, json, sys\n"
        f"names = {CORE_MODULES!r}\n"
        "imported = [n for n in names if importlib.util.find_spec(n) is not None]\n"
        "for n in imported: importlib.import_module(n)\n"
        "print(json.dumps({'imported': imported,"
        " 'engines': sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'pyspark', 'py4j'))}))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert (
        "bertscore_plugins" in report["imported"]
        and "bertscore_plugins.core.score_config" in report["imported"]
    )
    assert report["engines"] == []


# --- a local Ray instance ---------------------------------------------------------------------------


def _descendants(psutil, exclude: frozenset[int] = frozenset()) -> list:
    """Child processes of this test process, minus those that existed before Ray started (e.g. the
    session's Phoenix server), so the fixture only ever waits for and kills what Ray started."""
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in exclude]


@pytest.fixture(scope="module")
def ray_local(tmp_path_factory):
    ray = pytest.importorskip("ray")
    psutil = pytest.importorskip("psutil")
    from ray._private import ray_constants

    from tests.support.ray_crash import CRASH_MARKER_ENV, CRASH_ROW_ENV

    marker = tmp_path_factory.mktemp("ray_crash") / "crashed-once"
    saved_env = {
        k: os.environ.get(k)
        for k in (
            "PYTHONPATH",
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER",
            "RAY_worker_niceness",
            CRASH_MARKER_ENV,
            CRASH_ROW_ENV,
        )
    }
    saved_cluster_flag = ray_constants.ENABLE_RAY_CLUSTER
    # Workers must import bertscore_plugins and tests.support.ray_crash (the crashing UDF): both are under
    # the repository root (tests is a package).
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([saved_env["PYTHONPATH"]] if saved_env["PYTHONPATH"] else [])
    )
    # Ray resolves 127.0.0.1 to the routable address and binds every server to all interfaces unless
    # it runs in "single machine" mode; this keeps the node on loopback (checked below).
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    # Ray runs its workers at nice 15: on a shared, busy machine they would starve behind everything else.
    os.environ["RAY_worker_niceness"] = "0"  # noqa: SIM112 (Ray reads this exact lower-case name)
    os.environ[CRASH_MARKER_ENV] = str(marker)
    os.environ[CRASH_ROW_ENV] = str(CRASH_ROW)
    started = []
    before = frozenset(p.pid for p in _descendants(psutil))
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
        started = _descendants(psutil, before)
        yield {"ray": ray, "marker": marker, "psutil": psutil, "before": before}
    finally:
        procs = {p.pid: p for p in started + _descendants(psutil, before)}
        ray.shutdown()
        _gone, alive = psutil.wait_procs(list(procs.values()), timeout=60)
        for process in alive:  # only processes this fixture's Ray started, by pid
            process.kill()
        ray_constants.ENABLE_RAY_CLUSTER = saved_cluster_flag
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        assert not alive, f"Ray processes left after ray.shutdown(): {[p.pid for p in alive]}"


def _pairs_frame(count: int) -> pd.DataFrame:
    candidates, references, _source = load_pairs(count)
    return pd.DataFrame({"row_id": np.arange(count), "mt": candidates, "ref": references})


def _blocks(frame: pd.DataFrame, rows_per_block: int) -> list[pd.DataFrame]:
    return [frame.iloc[start : start + rows_per_block] for start in range(0, len(frame), rows_per_block)]


def _core_scores(candidates, references, **settings):
    from bertscore_plugins import ScoreConfig, get_scorer

    return get_scorer(ScoreConfig(**settings)).score(list(candidates), list(references))


@pytest.mark.slow
def test_local_ray_is_on_loopback(ray_local):
    ray, psutil = ray_local["ray"], ray_local["psutil"]
    assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
    pids = {p.pid for p in _descendants(psutil, ray_local["before"])}
    listening = {
        c.laddr.ip for c in psutil.net_connections("inet") if c.status == psutil.CONN_LISTEN and c.pid in pids
    }
    assert listening and listening <= {"127.0.0.1", "::ffff:127.0.0.1", "::1"}, listening


@pytest.mark.slow
def test_killed_actor_loses_and_duplicates_no_row(ray_local):
    """Acceptances 1 and 2: two actors, one of which dies mid-run; the job finishes with the core's
    numbers, in input order, each row once. One run proves both: a run without a crash is the same
    score_ray_dataset path with one fewer actor start."""
    from bertscore_plugins.integrations.ray import score_ray_dataset
    from tests.support.ray_crash import CrashOnceUDF

    ray, marker = ray_local["ray"], ray_local["marker"]
    frame = _pairs_frame(ROWS)
    ds = ray.data.from_pandas(_blocks(frame, ROWS_PER_BLOCK))  # several blocks so both actors get work
    assert not marker.exists()
    scored = score_ray_dataset(
        ds,
        actors=2,
        cpus_per_actor=0.5,
        batch_size=BATCH_SIZE,
        candidate_column="mt",
        reference_column="ref",
        udf_class=CrashOnceUDF,
    ).to_pandas()

    assert marker.exists(), "the crash did not happen, so the test proved nothing"
    crashed_pid = int(marker.read_text())
    assert not ray_local["psutil"].pid_exists(crashed_pid)
    assert scored["row_id"].tolist() == list(range(ROWS))
    assert scored["mt"].tolist() == frame["mt"].tolist()
    assert_matches_core(scored, _core_scores(frame["mt"], frame["ref"]))


@pytest.mark.slow
def test_parquet_multi_reference_idf_round_trip(ray_local, tmp_path):
    """List references from parquet, idf fitted once on the whole column, written back to parquet."""
    from bertscore_plugins.integrations.ray import score_parquet

    candidates, references, _source = load_pairs(40)
    multi = multi_references(candidates, references)
    frame = pd.DataFrame({"row_id": np.arange(len(candidates)), "candidate": candidates, "reference": multi})
    source = tmp_path / "pairs"
    source.mkdir()
    for number, block in enumerate(_blocks(frame, 10)):
        block.to_parquet(source / f"part-{number}.parquet", index=False)
    output = tmp_path / "scored"

    # half a CPU per actor: the parquet read and write tasks need the rest (see check_cluster_resources)
    score_parquet(
        str(source),
        str(output),
        actors=2,
        repartition=4,
        cpus_per_actor=0.5,
        batch_size=8,
        idf=True,
        prefix="bs_",
    )

    scored = pd.read_parquet(output).sort_values("row_id").reset_index(drop=True)
    assert scored["row_id"].tolist() == list(range(len(candidates)))
    assert [list(refs) for refs in scored["reference"]] == multi
    expected = _core_scores(candidates, multi, idf=True)  # the core fits idf on all references of the call
    for name in ("precision", "recall", "f1"):
        np.testing.assert_allclose(scored[f"bs_{name}"], getattr(expected, name), atol=1e-6, rtol=0)


@pytest.mark.slow
def test_a_pool_holding_every_cpu_is_refused_before_any_work(ray_local):
    """actors=2 on a 2-CPU cluster would leave no CPU for read and write tasks: the job waited forever."""
    from bertscore_plugins.errors import ClusterResourceError
    from bertscore_plugins.integrations.ray import score_ray_dataset

    ds = ray_local["ray"].data.from_pandas(_pairs_frame(4))
    with pytest.raises(ClusterResourceError) as caught:
        score_ray_dataset(ds, actors=2, cpus_per_actor=1, candidate_column="mt", reference_column="ref")
    message = str(caught.value)
    assert message.startswith(
        "actors=2 x cpus_per_actor=1 reserves 2 CPUs but the Ray cluster has 2 CPU and 0 GPU"
    )
    assert "lower cpus_per_actor" in message


@pytest.mark.slow
def test_a_gpu_per_actor_on_a_cluster_without_gpus_is_refused_before_any_work(ray_local):
    """The README's own call (actors=8, gpus_per_actor=1) on a CPU-only machine: one error, not a hang."""
    from bertscore_plugins.errors import ClusterResourceError
    from bertscore_plugins.integrations.ray import score_ray_dataset

    ds = ray_local["ray"].data.from_pandas(_pairs_frame(4))
    with pytest.raises(ClusterResourceError) as caught:
        score_ray_dataset(ds, actors=8, gpus_per_actor=1, cpus_per_actor=4, batch_size=1024, model="default")
    assert str(caught.value) == (
        "gpus_per_actor=1: no node of the Ray cluster has that many GPUs (it has 2 CPU and 0 GPU (no GPU)); "
        "set gpus_per_actor=0 to score on CPUs, or connect to a cluster with GPUs"
    )


@pytest.mark.slow
def test_the_job_uses_no_deprecated_ray_option(ray_local):
    from bertscore_plugins.integrations.ray import RayJob, score_ray_dataset

    ds = ray_local["ray"].data.from_pandas(_pairs_frame(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # Ray's RayDeprecationWarning is one
        score_ray_dataset(
            ds, RayJob(actors=1, cpus_per_actor=0.5, candidate_column="mt", reference_column="ref")
        )


def test_job_settings_are_checked_and_retired_ray_options_are_refused_by_name():
    pytest.importorskip("ray")
    from bertscore_plugins.errors import ArgumentError
    from bertscore_plugins.integrations.ray import RayJob, score_ray_dataset

    for field, value in (
        ("actors", 0),
        ("batch_size", 2.5),
        ("gpus_per_actor", -1),
        ("cpus_per_actor", math.inf),
        ("threads_per_actor", 0),
        ("threads_per_actor", 1.5),
    ):
        with pytest.raises(ArgumentError, match=f"^{field} must be"):
            RayJob(**{field: value})
    with pytest.raises(ArgumentError, match="max_task_retries: no longer passed to Ray"):
        score_ray_dataset(None, max_task_retries=3)


@pytest.mark.slow
def test_huggingface_dataset_gets_a_block_per_actor(ray_local):
    datasets = pytest.importorskip("datasets")
    from bertscore_plugins.integrations.ray import from_huggingface

    hf = datasets.Dataset.from_pandas(_pairs_frame(40), preserve_index=False)
    ds = from_huggingface(hf, actors=2).materialize()
    assert ds.num_blocks() >= 2
    assert ds.count() == 40


def test_idf_true_in_one_actor_is_refused():
    pytest.importorskip("ray")
    from bertscore_plugins.integrations.ray import BERTScoreRayUDF

    with pytest.raises(ValueError, match="whole reference column"):
        BERTScoreRayUDF(idf=True)


def test_bad_rows_are_named():
    pytest.importorskip("ray")
    from bertscore_plugins.errors import InputError
    from bertscore_plugins.integrations.ray import BERTScoreRayUDF

    udf = BERTScoreRayUDF()
    with pytest.raises(InputError, match=r"row 1 .*candidate column 'candidate' is missing"):
        udf(pd.DataFrame({"candidate": ["a", None], "reference": ["a", "b"]}))
    with pytest.raises(InputError, match=r"row 0 .*empty list"):
        udf(pd.DataFrame({"candidate": ["a"], "reference": [[]]}))
    with pytest.raises(InputError, match="column 'reference' not in the batch"):
        udf(pd.DataFrame({"candidate": ["a"], "ref": ["a"]}))


@pytest.mark.slow
def test_udf_scores_a_pandas_batch_like_the_core():
    pytest.importorskip("ray")
    from bertscore_plugins.integrations.ray import BERTScoreRayUDF

    batch = pd.DataFrame(
        {
            "candidate": ["the cat sat on the mat", "a dog barked"],
            "reference": [
                "a cat was sitting on the mat",
                np.array(["the dog barked", "dogs bark"], dtype=object),
            ],
        }
    )
    scored = BERTScoreRayUDF()(batch)
    expected = _core_scores(
        batch["candidate"], ["a cat was sitting on the mat", ["the dog barked", "dogs bark"]]
    )
    assert_matches_core(scored, expected)
    assert list(scored.columns[:2]) == ["candidate", "reference"]
    empty = BERTScoreRayUDF()(batch.iloc[:0])
    assert len(empty) == 0 and list(empty.columns[2:]) == BERTScoreRayUDF().output_columns()


def test_an_actor_encodes_with_the_threads_its_job_gives_it():
    pytest.importorskip("ray")
    import torch

    from bertscore_plugins.integrations.ray import BERTScoreRayUDF

    before = torch.get_num_threads()
    try:
        BERTScoreRayUDF(threads=1)
        assert torch.get_num_threads() == 1  # Ray's own choice would follow cpus_per_actor
        BERTScoreRayUDF(threads=2)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)

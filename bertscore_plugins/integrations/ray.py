"""BERTScore on Ray Data: a callable class for `Dataset.map_batches` and a one-call job.

Each Ray actor loads the model once (through `get_scorer`) and scores pandas batches of
candidate/reference pairs; the output keeps every input column and adds
``<prefix>precision``, ``<prefix>recall``, ``<prefix>f1`` and ``<prefix>signature``.

Fault tolerance (see recipes/RAY.md) is Ray Data's own for actor pools: a dead actor is recreated (on
another node if its node is gone) and the batch it was scoring is re-run on it. Ray 2.60 takes other
actor options only through its deprecated ``ray_remote_args``, so none are passed: a batch that kills
every process it touches (an out-of-memory text) is retried by Ray without a bound. A map task's output
block is only published when the task completes, so a killed actor neither loses nor duplicates rows,
and the retried batch gets the same numbers because scoring is deterministic.

Resources are checked before any work: a pool the connected cluster cannot hold (a GPU per actor on a
machine without one, more CPUs than it has, none left for read and write tasks) is refused at once with
one error naming the setting and the cluster's resources, instead of a job that waits forever.

This module needs the ``ray`` extra (``pip install 'bertscore-plugins[ray]'``); nothing in the core
imports it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import ray  # the real Ray: absolute import, this module is bertscore_plugins.integrations.ray
import ray.data

from bertscore_plugins.core.idf import IdfTable
from bertscore_plugins.core.score_config import ScoreConfig, refuse_idf_per_batch
from bertscore_plugins.core.scorer import get_scorer
from bertscore_plugins.errors import ArgumentError, ClusterResourceError, InputError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings

logger = logging.getLogger(__name__)

#: blocks per actor when reading an in-memory Hugging Face dataset, so every actor gets work
BLOCKS_PER_ACTOR = 4

#: how to fit idf once for Ray (config.refuse_idf_per_batch says why it must be)
IDF_ONCE = (
    "fit the table once on the whole reference column and pass it as idf=<IdfTable>: "
    "score_ray_dataset(ds, idf=True, ...) does this for you, or build it with "
    "get_scorer(ScoreConfig(...)).fit_idf(all_references)"
)


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, float) and math.isnan(value)


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def candidates_from_column(values: Iterable[object], column: str) -> list[str]:
    """The candidate column as a list of str; InputError names the (batch) row and the problem."""
    candidates = []
    for row, value in enumerate(values):
        if _is_missing(value):
            raise InputError(f"row {row} of the batch: candidate column {column!r} is missing (None/NaN)")
        if not isinstance(value, str):
            raise InputError(
                f"row {row} of the batch: candidate column {column!r} holds {type(value).__name__} "
                f"{_describe(value)}, expected a string"
            )
        candidates.append(value)
    return candidates


def references_from_column(values: Iterable[object], column: str) -> list[str | list[str]]:
    """The reference column as str or list[str] per row (parquet/arrow lists arrive as numpy arrays)."""
    references: list[str | list[str]] = []
    for row, value in enumerate(values):
        if isinstance(value, str):
            references.append(value)
            continue
        if isinstance(value, (list, tuple, np.ndarray)):
            items = list(value)
            if not items:
                raise InputError(f"row {row} of the batch: reference column {column!r} is an empty list")
            for position, item in enumerate(items):
                if not isinstance(item, str):
                    raise InputError(
                        f"row {row} of the batch: reference {position} in column {column!r} is "
                        f"{type(item).__name__} {_describe(item)}, expected a string"
                    )
            references.append(items)
            continue
        if _is_missing(value):
            raise InputError(f"row {row} of the batch: reference column {column!r} is missing (None/NaN)")
        raise InputError(
            f"row {row} of the batch: reference column {column!r} holds {type(value).__name__} "
            f"{_describe(value)}, expected a string or a list of strings"
        )
    return references


def _flatten(references: Iterable[str | Sequence[str]]) -> list[str]:
    flat: list[str] = []
    for item in references:
        if isinstance(item, str):
            flat.append(item)
        else:
            flat.extend(item)
    return flat


def _build_config(config: ScoreConfig | None, settings: Mapping[str, Any]) -> ScoreConfig:
    if config is None:
        return ScoreConfig.from_kwargs(**settings)
    return config.replace(**settings) if settings else config


class BERTScoreRayUDF:
    """Callable class for ``ray.data.Dataset.map_batches(..., batch_format="pandas")``.

    Ray builds one instance per actor, so the model is loaded once per actor and reused for every batch.

    Args:
        candidate_column: column holding the generated texts.
        reference_column: column holding a reference string or a list of reference strings per row.
        prefix: prefix of the output columns (``<prefix>precision``, ``recall``, ``f1``, ``signature``).
        config: a `ScoreConfig`; keyword settings (the same names as `ScoreConfig`) override it.
        threads: torch threads in this actor (None: Ray's choice, one per CPU the actor reserves).
        **settings: `ScoreConfig` settings, e.g. ``model="default", layer=4, rescale=True``.

    Raises:
        ValueError: ``idf=True`` (a per-batch idf would make scores depend on batching); pass an
            `IdfTable` fitted on the whole reference column instead.
        TypeError: an unknown setting name.

    Example:
        >>> ds.map_batches(BERTScoreRayUDF, fn_constructor_kwargs={"layer": 4}, batch_size=256,
        ...                batch_format="pandas", compute=ray.data.ActorPoolStrategy(size=4))
    """

    def __init__(
        self,
        candidate_column: str = "candidate",
        reference_column: str = "reference",
        prefix: str = "bertscore_",
        config: ScoreConfig | None = None,
        threads: int | None = None,
        **settings: Unpack[ScoreSettings],
    ) -> None:
        if threads is not None:  # Ray sets an actor's torch threads from its CPU reservation otherwise
            import torch

            torch.set_num_threads(threads)
        self.config = _build_config(config, settings)
        refuse_idf_per_batch(self.config, "batch", IDF_ONCE)
        self.candidate_column = candidate_column
        self.reference_column = reference_column
        self.prefix = prefix
        self.scorer = get_scorer(self.config)

    def output_columns(self) -> list[str]:
        """Names of the columns this UDF adds."""
        return [f"{self.prefix}{name}" for name in ("precision", "recall", "f1", "signature")]

    def __call__(self, batch: pd.DataFrame | dict[str, np.ndarray]) -> pd.DataFrame:
        """Score one batch; returns the batch with the score and signature columns added, same row order."""
        if not isinstance(batch, pd.DataFrame):
            batch = pd.DataFrame(batch)
        for column in (self.candidate_column, self.reference_column):
            if column not in batch.columns:
                raise InputError(
                    f"column {column!r} not in the batch; columns are {list(batch.columns)} "
                    "(set candidate_column=/reference_column=)"
                )
        scored = batch.copy()
        if len(batch) == 0:  # Ray can hand over an empty block; keep the schema
            for column in self.output_columns():
                scored[column] = pd.Series([], dtype=object if column.endswith("signature") else np.float32)
            return scored
        candidates = candidates_from_column(batch[self.candidate_column], self.candidate_column)
        references = references_from_column(batch[self.reference_column], self.reference_column)
        result = self.scorer.score(candidates, references)
        scored[f"{self.prefix}precision"] = np.asarray(result.precision, dtype=np.float32)
        scored[f"{self.prefix}recall"] = np.asarray(result.recall, dtype=np.float32)
        scored[f"{self.prefix}f1"] = np.asarray(result.f1, dtype=np.float32)
        scored[f"{self.prefix}signature"] = result.signature
        return scored


def fit_idf_on_dataset(
    ds: ray.data.Dataset,
    *,
    reference_column: str = "reference",
    config: ScoreConfig | None = None,
    **settings: Unpack[ScoreSettings],
) -> IdfTable:
    """Fit one idf table on the whole reference column of a Ray dataset (on the driver).

    The references are streamed to the driver and flattened (every reference of a multi-reference row
    counts as one document, as in bert_score); this executes the dataset's pipeline once more.
    """
    base = _build_config(config, {k: v for k, v in settings.items() if k != "idf"})
    references: list[str | list[str]] = []
    for batch in ds.select_columns([reference_column]).iter_batches(batch_format="pandas"):
        references.extend(references_from_column(batch[reference_column], reference_column))
    if not references:
        raise InputError("cannot fit idf: the dataset has no rows")
    return get_scorer(base).fit_idf(_flatten(references))


@dataclass(frozen=True)
class RayJob:
    """How `score_ray_dataset` runs on the cluster (each field is also its keyword).

    actors: size of the actor pool (``ray.data.ActorPoolStrategy(size=actors)``). gpus_per_actor and
    cpus_per_actor: resources reserved per actor (fractions share a device; Ray sets the actor's thread
    count from its CPUs); the pool must leave a CPU for read and write tasks. threads_per_actor: torch
    threads in each actor (None: Ray's, one per reserved CPU); more threads than reserved CPUs uses the CPU
    Ray keeps for reads and writes, which idle while the model encodes (the README sizes both from
    ``ray.cluster_resources()``). batch_size: rows per batch.
    candidate_column, reference_column, prefix: as in `BERTScoreRayUDF`. preserve_order: keep the input
    row order (sets ``ds.context.execution_options.preserve_order``, shared with the dataset). udf_class:
    a subclass of `BERTScoreRayUDF` to run instead (e.g. one that adds columns).

    Raises:
        ArgumentError: a count that is not a positive whole number, a negative resource.
    """

    actors: int = 1
    gpus_per_actor: float = 0
    cpus_per_actor: float = 1
    threads_per_actor: int | None = None
    batch_size: int = 256
    candidate_column: str = "candidate"
    reference_column: str = "reference"
    prefix: str = "bertscore_"
    preserve_order: bool = True
    udf_class: type[BERTScoreRayUDF] | None = None

    def __post_init__(self) -> None:
        for name in ("actors", "batch_size", "threads_per_actor"):
            value = getattr(self, name)
            if name == "threads_per_actor" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ArgumentError(f"{name} must be a positive whole number, got {value!r}")
        for name in ("gpus_per_actor", "cpus_per_actor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ArgumentError(f"{name} must be a finite number >= 0, got {value!r}")


_JOB_NAMES = tuple(field.name for field in fields(RayJob))
#: Ray Data 2.60 takes actor options only through the deprecated ``ray_remote_args``: not passed any more
_RETIRED = {"max_restarts", "max_task_retries"}


def score_ray_dataset(
    ds: ray.data.Dataset, job: RayJob | None = None, *, config: ScoreConfig | None = None, **settings: Any
) -> ray.data.Dataset:
    """Add BERTScore columns to a Ray dataset with a fixed pool of `actors` model-holding actors.

    Args:
        ds: dataset with a candidate column and a reference column (str or list of str per row).
        job: how to run (`RayJob`); its fields may also be given as keywords (``actors=8,
            gpus_per_actor=1, batch_size=1024``), applied on top.
        config, **settings: scoring settings, the same names as `ScoreConfig`. ``idf=True`` fits one
            table on the whole reference column first (one extra pass over `ds`) and hands it to every
            actor.

    Returns:
        A lazy dataset; write it once (``write_parquet``) or ``materialize()`` it, since every consumer
        re-runs the pipeline, model included.

    Raises:
        ClusterResourceError: the connected Ray cluster cannot give the pool what it asks for (no GPU for
            ``gpus_per_actor``, too few CPUs, or none left for read/write tasks): raised here, before any
            work, instead of the job waiting forever for resources. Checked when Ray is initialised.
    """
    retired = sorted(_RETIRED & set(settings))
    if retired:
        raise ArgumentError(
            f"{', '.join(retired)}: no longer passed to Ray (Ray Data takes them only through its deprecated "
            "ray_remote_args); Ray Data's own fault tolerance applies: a dead actor is recreated and its "
            "batch re-run"
        )
    chosen = {name: settings.pop(name) for name in _JOB_NAMES if name in settings}
    job = replace(job or RayJob(), **chosen)
    check_cluster_resources(job)
    scoring = _build_config(config, settings)
    if scoring.idf is True:
        table = fit_idf_on_dataset(ds, reference_column=job.reference_column, config=scoring)
        logger.info("fitted idf on the whole reference column: %r", table)
        scoring = scoring.replace(idf=table)
    if job.preserve_order:
        ds.context.execution_options.preserve_order = True
    return ds.map_batches(
        job.udf_class or BERTScoreRayUDF,
        fn_constructor_kwargs={
            "candidate_column": job.candidate_column,
            "reference_column": job.reference_column,
            "prefix": job.prefix,
            "config": scoring,
            **({"threads": job.threads_per_actor} if job.threads_per_actor else {}),
        },
        batch_size=job.batch_size,
        batch_format="pandas",
        compute=ray.data.ActorPoolStrategy(size=job.actors),
        num_cpus=job.cpus_per_actor,
        num_gpus=job.gpus_per_actor or None,
    )


def check_cluster_resources(job: RayJob) -> None:
    """Refuse, naming the setting and the cluster's resources, a pool the connected cluster cannot run:
    Ray would otherwise wait forever for an actor no node can hold ("no node can provide the resources")
    or for a CPU for the read and write tasks (seen with read_parquet on a 2-CPU node)."""
    if not ray.is_initialized():
        return  # Ray Data starts a local instance when the job runs; nothing to ask yet
    total = ray.cluster_resources()
    nodes = [node.get("Resources", {}) for node in ray.nodes() if node.get("Alive")]
    has = _resources_text(total)
    pool_gpus = job.actors * job.gpus_per_actor
    if job.gpus_per_actor and not any(node.get("GPU", 0) >= job.gpus_per_actor for node in nodes):
        raise ClusterResourceError(
            f"gpus_per_actor={job.gpus_per_actor:g}: no node of the Ray cluster has that many GPUs (it has {has}); "
            "set gpus_per_actor=0 to score on CPUs, or connect to a cluster with GPUs"
        )
    if pool_gpus > total.get("GPU", 0):
        raise ClusterResourceError(
            f"actors={job.actors} x gpus_per_actor={job.gpus_per_actor:g} needs {pool_gpus:g} GPUs but the Ray "
            f"cluster has {has}; lower actors to {int(total.get('GPU', 0) // job.gpus_per_actor)} or less"
        )
    pool_cpus = job.actors * job.cpus_per_actor
    if job.cpus_per_actor and pool_cpus >= total.get("CPU", 0):
        raise ClusterResourceError(
            f"actors={job.actors} x cpus_per_actor={job.cpus_per_actor:g} reserves {pool_cpus:g} CPUs but the Ray "
            f"cluster has {has}, and read and write tasks need a CPU besides the pool, or the job waits "
            "forever; lower cpus_per_actor (fractions work, e.g. 0.5) or actors"
        )


def _resources_text(resources: dict[str, float]) -> str:
    cpus, gpus = resources.get("CPU", 0), resources.get("GPU", 0)
    return f"{cpus:g} CPU and {gpus:g} GPU" + ("" if gpus else " (no GPU)")


def from_huggingface(hf_dataset: Any, *, actors: int, blocks_per_actor: int = BLOCKS_PER_ACTOR):
    """A Ray dataset from a `datasets.Dataset`, split into enough blocks that every actor gets work.

    An in-memory Hugging Face dataset otherwise becomes a single block, which keeps one actor busy and
    the rest idle.
    """
    blocks = max(1, min(len(hf_dataset), actors * blocks_per_actor))
    return ray.data.from_huggingface(hf_dataset, override_num_blocks=blocks)


def score_parquet(
    input_path: str, output_path: str, *, actors: int = 1, repartition: int | None = None, **kwargs: Any
) -> None:
    """Read pairs from parquet, score them with `score_ray_dataset`, write parquet to `output_path`.

    `output_path` should be a new, empty directory: Ray adds files to an existing one. Ray Data reads
    small inputs as one block whatever `override_num_blocks` says, which keeps a single actor busy; pass
    ``repartition=actors * 4`` for such inputs (it adds a barrier, so leave it off for large ones, which
    Ray already splits into many blocks).
    """
    ds = ray.data.read_parquet(input_path)
    if repartition:
        ds = ds.repartition(repartition)
    score_ray_dataset(ds, actors=actors, **kwargs).write_parquet(output_path)

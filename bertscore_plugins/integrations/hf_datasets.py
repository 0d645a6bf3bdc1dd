"""BERTScore columns for a whole `datasets.Dataset` (`ds.map`) or a pandas DataFrame.

    >>> from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
    >>> transform = BERTScoreTransform(candidate_column="prediction", reference_column="reference")
    >>> ds = ds.map(transform, batched=True, batch_size=256)      # adds bertscore_precision/recall/f1

The transform pickles as its configuration, the package version and the model's identity only (never
the loaded model), so `datasets` computes the same fingerprint on a re-run (cache hit for disk-backed
datasets) and a new one when any number-changing setting or the model weights change (do not pass a
fixed `new_fingerprint`: datasets would serve it whatever the settings). The model loads lazily, once per
process, through the core's scorer cache.

Several workers: `ds.map(transform, batched=True, num_proc=k, with_rank=True)` puts worker `r` on
`cuda:{r % device_count}` when GPUs exist. CUDA cannot start in a forked process, so on GPUs call
`multiprocess.set_start_method("spawn")` first (datasets uses the `multiprocess` package). On CPUs,
forked workers run torch with one thread each (OpenMP is not fork-safe). Streaming datasets
(`IterableDataset.map(transform, batched=True)`) work the same way, without cache or ranks.

`ds.map(transform, batched=True, input_columns=["prediction", "reference"])` works too: the transform
then receives the two columns themselves, candidates first. `device`, `batch_tokens` and `chunk_pairs`
are not part of the fingerprint (they never change a score).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
from collections.abc import Iterable, Mapping, Sized
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from bertscore_plugins.core.row_warnings import row_names_in_warnings
from bertscore_plugins.core.score_config import ScoreConfig, refuse_idf_per_batch
from bertscore_plugins.core.scorer import BERTScorer, get_scorer
from bertscore_plugins.errors import ArgumentTypeError, ColumnNotFoundError, InputError
from bertscore_plugins.inputs import check_pairs, check_references, rows_message
from bertscore_plugins.settings import unsigned_defaults

if TYPE_CHECKING:
    from types import FrameType

    import pandas as pd
    from datasets import Features
    from typing_extensions import NotRequired, Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings

SCORE_NAMES = ("precision", "recall", "f1")

logger = logging.getLogger(__name__)

# The process that imported this module; a different pid later means we run in a forked map() worker.
_IMPORTING_PID = os.getpid()


class TransformState(TypedDict):
    """What a transform pickles (worker processes receive it); datasets hashes it without ``progress``."""

    config: ScoreConfig
    candidate_column: str
    reference_column: str
    prefix: str
    progress: NotRequired[bool | None]
    package_version: str
    model_identity: str


def _package_version() -> str:
    from bertscore_plugins import __version__

    return __version__


def model_identity(config: ScoreConfig) -> str:
    """The model's identity (repo@revision or a content hash of a local folder) without loading weights."""
    from bertscore_plugins.models.resolve import resolve_model

    return resolve_model(config.model, config.lang).identity


def pick_device(configured: str | None, rank: int | None) -> str | None:
    """`cuda:{rank % n}` for a ranked worker when GPUs exist; otherwise the configured device.

    None leaves the choice to the core (cuda if available, else cpu). An explicit `device` setting always
    wins, so a user can pin every worker to the CPU.
    """
    if configured is not None or rank is None:
        return configured
    import torch

    if torch.cuda.is_available():
        return f"cuda:{rank % torch.cuda.device_count()}"
    return "cpu"


class BERTScoreTransform:
    """A callable for `Dataset.map(transform, batched=True[, with_rank=True][, with_indices=True])`.

    Args:
        candidate_column: column holding candidate texts (str per row).
        reference_column: column holding references (str or list of str per row).
        prefix: output columns are `prefix + "precision" | "recall" | "f1"` (float32).
        config: a ScoreConfig to start from; `settings` override it.
        progress: a bar per map() batch (default False: datasets shows its own bar over batches).
        **settings: any of `bertscore_plugins.setting_names()`, or bert_score's names (score_config.py's table).

    `idf=True` would fit idf on each batch separately, so every batch size would give other numbers; it
    is refused: fit once on the whole column with `transform = transform.fit_idf(ds[reference_column])`.
    """

    def __init__(
        self,
        candidate_column: str = "candidate",
        reference_column: str = "reference",
        prefix: str = "bertscore_",
        config: ScoreConfig | None = None,
        progress: bool | None = False,
        **settings: Unpack[ScoreSettings],
    ) -> None:
        own = ("candidate_column", "reference_column", "prefix", "config", "progress")
        self.config = (config or ScoreConfig()).with_arguments(dict(settings), "BERTScoreTransform", also=own)
        self.candidate_column = candidate_column
        self.reference_column = reference_column
        self.prefix = prefix
        self.progress = progress
        self._identity: str | None = None
        self._scorer: BERTScorer | None = None

    @property
    def output_columns(self) -> list[str]:
        return [self.prefix + name for name in SCORE_NAMES]

    @property
    def model_identity(self) -> str:
        if self._identity is None:
            self._identity = model_identity(self.config)
        return self._identity

    def output_features(self, features: Features) -> Features:
        """`features` of the input dataset plus the float32 score columns (for `map(features=...)`)."""
        import datasets

        combined = datasets.Features(dict(features))
        for column in self.output_columns:
            combined[column] = datasets.Value("float32")
        return combined

    def fit_idf(self, references: Iterable[Any]) -> BERTScoreTransform:
        """A NEW transform whose idf table is fitted on the whole reference column (str or list of str per
        row); this one is left unchanged (it is frozen, like its configuration), so keep the result:

            >>> transform = transform.fit_idf(ds["reference"])  # doctest: +SKIP
            >>> ds = ds.map(transform, batched=True)  # doctest: +SKIP
        """
        groups = check_references(list(references))
        scorer = get_scorer(self.config.replace(idf=False))
        table = scorer.fit_idf(groups)
        return BERTScoreTransform(
            self.candidate_column,
            self.reference_column,
            self.prefix,
            self.config.replace(idf=table),
            progress=self.progress,
        )

    # --- pickling: what datasets hashes for its fingerprint and what worker processes receive ---
    def __getstate__(self) -> TransformState:
        return {
            "config": self.config,
            "candidate_column": self.candidate_column,
            "reference_column": self.reference_column,
            "prefix": self.prefix,
            "progress": self.progress,
            "package_version": _package_version(),
            "model_identity": self.model_identity,
        }

    def fingerprint_state(self) -> TransformState:
        """What datasets hashes: the state without the settings that never change a score."""
        state = self.__getstate__()
        # settings declared unsigned (speed, memory, device) are reset, so a re-run on another device or
        # with another batch budget is served from the cache
        state["config"] = dataclasses.replace(self.config, **unsigned_defaults(type(self.config)))
        del state["progress"]
        return state

    def __setstate__(self, state: TransformState) -> None:
        self.config = state["config"]
        self.candidate_column = state["candidate_column"]
        self.reference_column = state["reference_column"]
        self.prefix = state["prefix"]
        self.progress = state.get("progress", False)
        self._identity = state["model_identity"]
        self._scorer = None

    def __repr__(self) -> str:
        return (
            f"BERTScoreTransform(candidate_column={self.candidate_column!r}, "
            f"reference_column={self.reference_column!r}, prefix={self.prefix!r}, config={self.config!r})"
        )

    # --- scoring ---
    def __call__(self, batch: dict[str, list] | Any, *extra: Any) -> dict[str, np.ndarray]:
        """Score one batch; `extra` is what `with_indices` (a list) and/or `with_rank` (an int) add.

        With map(input_columns=[candidates, references]) the batch comes as the two columns themselves.
        """
        if not isinstance(batch, Mapping):  # datasets passes a LazyBatch (a Mapping) without input_columns
            if not extra or isinstance(extra[0], int) or _is_index_list(extra[0], batch):
                raise ArgumentTypeError(
                    "BERTScoreTransform needs two columns: map(..., input_columns=[candidate column, "
                    "reference column]) in that order, or no input_columns"
                )
            batch, extra = {self.candidate_column: batch, self.reference_column: extra[0]}, extra[1:]
        indices = next((value for value in extra if isinstance(value, (list, range))), None)
        if indices is None:  # map() without with_indices: its own rows for this batch, when it shows them
            indices = _rows_of_the_map_batch()
        rank = next(
            (value for value in extra if isinstance(value, int) and not isinstance(value, bool)), None
        )
        refuse_idf_per_batch(
            self.config,
            "map() batch",
            f"fit it once on the whole column first: transform = transform.fit_idf(ds[{self.reference_column!r}])",
        )
        candidates = self._column(batch, self.candidate_column)
        references = self._column(batch, self.reference_column)
        try:
            candidates, references = check_pairs(candidates, references)
        except InputError as error:
            raise InputError(_locate(error, indices)) from None
        scorer = self._scorer_for(rank)
        # with the dataset's row indices, the core's warnings name dataset rows, not batch positions
        with row_names_in_warnings(list(indices)) if indices is not None else contextlib.nullcontext():
            scores = scorer.score(candidates, references, progress=self.progress)
        return {
            self.prefix + name: np.asarray(getattr(scores, name), dtype=np.float32) for name in SCORE_NAMES
        }

    def _scorer_for(self, rank: int | None) -> BERTScorer:
        if self._scorer is None:
            if os.getpid() != _IMPORTING_PID:
                _single_threaded_after_fork()
            device = pick_device(self.config.device, rank)
            self._scorer = get_scorer(self.config.replace(device=device))
        return self._scorer

    def _column(self, batch: Mapping[str, Any], column: str) -> list:
        if column not in batch:
            raise ColumnNotFoundError(
                f"column {column!r} not found; the batch has {sorted(batch)}. Set candidate_column= / "
                "reference_column= on BERTScoreTransform (and call map with batched=True)"
            )
        values = batch[column]
        if isinstance(values, str):
            raise ArgumentTypeError(f"column {column!r} holds a single string: call map with batched=True")
        return list(values)


def _is_index_list(value: object, column: Sized) -> bool:
    """with_indices=True passes a list of ints: not a second text column."""
    return isinstance(value, range) or (
        isinstance(value, list)
        and len(value) == len(column)
        and all(isinstance(v, int) for v in value[:3])
        and bool(value)
    )


def _register_fingerprint() -> None:
    """Teach datasets' hasher (its own pickler, used only for fingerprints) to hash fingerprint_state()."""
    try:
        from datasets.utils._dill import pklregister
    except ImportError:  # another datasets layout: the full state is hashed (device changes miss the cache)
        return

    @pklregister(BERTScoreTransform)
    def _save(pickler: Any, transform: BERTScoreTransform) -> None:  # datasets' dill pickler
        pickler.save_reduce(_from_state, (transform.fingerprint_state(),), obj=transform)


def _from_state(state: TransformState) -> BERTScoreTransform:
    transform = BERTScoreTransform.__new__(BERTScoreTransform)
    transform.__setstate__(state)
    return transform


def _single_threaded_after_fork() -> None:
    """Use one torch thread in a forked `map(num_proc=k)` worker.

    torch's CPU kernels run on GNU OpenMP, whose thread pool does not survive fork: if the parent had
    already scored (OpenMP started), the child's first parallel kernel waits forever on a barrier
    (seen in LayerNorm). One thread per worker avoids OpenMP regions; the k workers share the cores.
    """
    import torch

    if torch.get_num_threads() > 1:
        logger.info("forked datasets.map worker: torch.set_num_threads(1) (OpenMP is not fork-safe)")
        torch.set_num_threads(1)


#: the function of datasets' map() that calls a transform with one batch, and its module
_MAP_CALLER = ("apply_function", "datasets.arrow_dataset")


def _rows_of_the_map_batch() -> list[int] | None:
    """The dataset rows of the batch that ``Dataset.map(..., batched=True)`` is calling the transform
    with, when it was not asked for them (``with_indices``): map's own frame holds them (``indices``,
    shifted by ``offset`` in a ``num_proc`` worker), so a warning or an error names dataset row 47, not
    "candidate rows 6" of the batch. None where no such frame is found (another caller, another datasets
    layout): the message then names the batch position and says how to get the row."""
    frame: FrameType | None = sys._getframe(2)  # the transform's caller
    for _ in range(4):
        if frame is None:
            return None
        if (frame.f_code.co_name, frame.f_globals.get("__name__")) == _MAP_CALLER:
            indices, offset = frame.f_locals.get("indices"), frame.f_locals.get("offset", 0)
            if isinstance(indices, (list, range)) and isinstance(offset, int):
                return [int(index) + offset for index in indices]
            return None
        frame = frame.f_back
    return None


def _locate(error: InputError, indices: list | range | None, label: str = "dataset row") -> str:
    """A position-based input error told with the user's row labels (map(with_indices=True) or a
    DataFrame index): every bad row, not only the first."""
    message = str(error)
    if indices is None:
        return f"{message} (row number within the map() batch; pass with_indices=True to get the dataset row)"
    bad = error.bad_rows
    if not bad or error.side is None:
        return message
    labels = list(indices)
    if len(bad) == 1:
        row = bad[0][0]
        return f"{message} ({label} {labels[row[0] if isinstance(row, tuple) else row]!r})"
    relabelled = [
        ((labels[row[0]], row[1]) if isinstance(row, tuple) else labels[row], problem) for row, problem in bad
    ]
    return f"{rows_message(error.side, relabelled)} (by {label}, not position)"


def score_dataframe(
    df: pd.DataFrame,
    candidate_column: str,
    reference_column: str,
    prefix: str = "bertscore_",
    progress: bool | None = None,
    **settings: Unpack[ScoreSettings],
) -> pd.DataFrame:
    """A copy of `df` with float32 `prefix + precision/recall/f1` columns, scored in one core call.

    References may be a string or a list of strings per row. `idf=True` fits idf on this whole column
    (one call), which is the bert_score meaning. The column arguments are spelled as on
    BERTScoreTransform.

        >>> scored = score_dataframe(df, "answer", "gold_answer", layer=4)
    """
    config = ScoreConfig().with_arguments(dict(settings), "score_dataframe")
    for column in (candidate_column, reference_column):
        if column not in df.columns:
            raise ColumnNotFoundError(f"column {column!r} not found; the DataFrame has {list(df.columns)}")
    try:
        candidates, references = check_pairs(df[candidate_column].tolist(), df[reference_column].tolist())
    except InputError as error:
        raise InputError(_locate(error, df.index.tolist(), "DataFrame index")) from None
    scores = get_scorer(config).score(candidates, references, progress=progress)
    scored = df.copy()
    for name in SCORE_NAMES:
        scored[prefix + name] = np.asarray(getattr(scores, name), dtype=np.float32)
    return scored


_register_fingerprint()

"""The scorer: one object holding the model, tokenizer and caches; every integration calls it.

Data path per chunk of rows: unique texts -> tokens (tokenize.py) -> embeddings (embed.py) ->
greedy matches (match.py) -> P/R/F1 -> multi-reference rule (multi_reference.py) -> baseline
rescaling (baseline.py) -> signature (signature.py). `BERTScorer._score` runs these steps in this
order. Chunks bound memory; output order always equals input order.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, overload

import numpy as np
import torch

from bertscore_plugins.core.baseline import Baseline, baseline_for
from bertscore_plugins.core.chunk_steps import RowCredit, explain_chunk, match_chunk
from bertscore_plugins.core.chunks import Chunk, fit_idf_on_chunks, plan_chunks
from bertscore_plugins.core.embed import Embedder
from bertscore_plugins.core.explain import Explanation, plot_explanation
from bertscore_plugins.core.heap import keep_large_blocks_mapped, release_freed_memory
from bertscore_plugins.core.idf import IdfTable, idf_from_token_ids
from bertscore_plugins.core.multi_reference import reduce_over_references
from bertscore_plugins.core.progress import progress_bar as _progress_bar
from bertscore_plugins.core.reference_cache import ReferenceCache, embed_through_cache
from bertscore_plugins.core.row_warnings import (
    CallReport,
    rows_text,
)
from bertscore_plugins.core.score_config import ScoreConfig, check_layer_list
from bertscore_plugins.core.scorer_cache import ScorerCache
from bertscore_plugins.core.scorer_protocol import Scorer
from bertscore_plugins.core.scores import Scores
from bertscore_plugins.core.signature import Signature, idf_label
from bertscore_plugins.core.tokenize import TextTokenizer, position_limit
from bertscore_plugins.core.weights import token_weights
from bertscore_plugins.errors import ArgumentTypeError, InputError, NumericalError, SettingError
from bertscore_plugins.inputs import check_pairs, check_references, check_some_rows
from bertscore_plugins.models.layers import FINAL_NORM_MODELS
from bertscore_plugins.models.load import ModelSpec, get_model
from bertscore_plugins.models.resolve import ModelSource, resolve_model
from bertscore_plugins.watching import Progress

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

    from bertscore_plugins.core.score_settings import ScoreSettings

#: embedding values (tokens x hidden x layers) a chunk may hold: 256 MiB in float32. With MiniLM
#: (384 wide) that is ~175k tokens, about 2,600 English sentence pairs. Budgeting values, not rows,
#: makes every full chunk the same size in memory, so a 32k-pair job peaks where a 2k-pair one does
CHUNK_VALUES = 1 << 26


class BERTScorer:
    """BERTScore for one configuration.

    Example:
        >>> scorer = BERTScorer(layer=4)
        >>> scores = scorer.score(["The patient left on Tuesday."], ["The patient was discharged on Tuesday."])
        >>> float(scores.f1[0]) > 0.8
        True

    Raises:
        InputError: bad candidates/references (the message names the row).
        ModelLoadError, BaselineNotFoundError, ValueError: bad configuration.
    """

    def __init__(self, config: ScoreConfig | None = None, **settings: Unpack[ScoreSettings]) -> None:
        config = config or ScoreConfig()
        config = config.replace(**settings) if settings else config
        self._build(config, resolve_model(config.model, config.lang))

    @classmethod
    def _for_resolved(cls, config: ScoreConfig, source: ModelSource) -> BERTScorer:
        """A scorer for a configuration whose model `get_scorer` has already resolved."""
        scorer = cls.__new__(cls)
        scorer._build(config, source)
        return scorer

    def _build(self, config: ScoreConfig, source: ModelSource) -> None:
        """Load (or share) the model `source` names; the layer comes from the loader (models.layers.choose_layer),
        the baseline from baseline.baseline_for."""
        self.config = cfg = config
        self._model = get_model(model_spec(cfg, source))
        self.layer = self._model.layer
        positions = position_limit(self._model.encoder.config)
        if cfg.max_length is not None and positions is not None and cfg.max_length > positions:
            # checked here, not mid-score: the position embeddings would fail on the first long batch
            raise SettingError(
                "max_length",
                f"max_length={cfg.max_length} is beyond model {self._model.source.name!r}'s {positions} position "
                f"embeddings; use max_length <= {positions} (or None for the model's limit)",
            )
        self.tokenizer = TextTokenizer(self._model.tokenizer, cfg.max_length, self._model.encoder.config)
        self.embedder = Embedder(self._model, self.tokenizer, cfg.batch_tokens, cfg.window_stride)
        source = self._model.source
        revision = self._model.revision
        identity = source.identity
        if revision and "@" not in identity and ";" not in identity:  # a hub id: pin the commit
            identity = f"{identity}@{revision[:7]}"
        self.model_identity = identity
        self.baseline: Baseline | None = self._baseline_for(self.layer) if cfg.rescale else None
        self._reference_cache: ReferenceCache | None = None
        self._lock = threading.Lock()

    # ----------------------------------------------------------------------------------- public
    @property
    def signature(self) -> Signature:
        """The signature of the scores this scorer produces (idf fitted per call shows as "refs")."""
        return self._signature(idf_label(self.config.idf), self.layer, self.baseline)

    def with_config(self, **changes: Unpack[ScoreSettings]) -> BERTScorer:
        """A scorer for a changed configuration, sharing the loaded model where possible."""
        return get_scorer(self.config.replace(**changes))

    def fit_idf(self, references: Sequence[str] | Sequence[Sequence[str]]) -> IdfTable:
        """idf over the flattened references (duplicates counted), bert_score's formula."""
        groups = check_references(references)
        if not groups:
            raise InputError("references are empty: there is nothing to fit idf on")
        texts = [text for group in groups for text in group]
        truncate = self.config.long_text == "truncate"
        documents = (tokenized.ids for tokenized in self.tokenizer.encode(texts, truncate=truncate))
        return idf_from_token_ids(documents, self.model_identity)

    @property
    def reference_cache(self) -> ReferenceCache | None:
        """The reference-embedding cache, once enabled."""
        return self._reference_cache

    def enable_reference_cache(
        self, disk_dir: str | None = None, max_bytes: int | None = None
    ) -> ReferenceCache:
        """Keep reference embeddings (in memory, and on disk when `disk_dir` is given) across calls.

        Re-scoring new candidates against the same references then skips re-encoding them.
        `max_bytes` bounds the memory part (least recently used references leave first).
        """
        # keyed by the signature's embedding fields: a new model, layer or library version re-encodes
        key_text = self.signature.embedding_key()
        self._reference_cache = ReferenceCache(
            hashlib.sha256(key_text.encode()).hexdigest()[:16], disk_dir, max_bytes
        )
        return self._reference_cache

    def disable_reference_cache(self) -> None:
        """Encode every reference again from now on; a disk folder keeps its entries for a later enable."""
        self._reference_cache = None

    def explain(self, candidate: str, reference: str) -> Explanation:
        """Worst-matched tokens and the similarity matrix of one pair."""
        return self.score([candidate], [reference], explain=True).explanations[0]  # type: ignore[index]

    def plot_example(self, candidate: str, reference: str, path: str | None = None) -> Figure:
        """A similarity heatmap of one pair (a matplotlib Figure; saved to `path` when given).

        Leaves matplotlib's global state alone: no backend switch, no pyplot figure left open."""
        explanation = self.explain(candidate, reference)
        return plot_explanation(explanation, f"{self.config.model} layer {self.layer}", path)

    def score(
        self,
        candidates: Sequence[str],
        references: Sequence[str] | Sequence[Sequence[str]],
        progress: bool | None = None,
        explain: bool = False,
    ) -> Scores:
        """Score each candidate against its reference(s).

        Args:
            candidates: one string per row.
            references: one string or a non-empty list of strings per row.
            progress: show a progress bar (tqdm.auto: a widget in notebooks); None = when the texts are
                expected to take more than a couple of seconds (progress.py), on a terminal or in a notebook.
            explain: also return one Explanation per row (best-F1 reference for multi-reference rows).

        Returns:
            Scores with float32 precision, recall and f1 in input order, and the signature.

        Raises:
            InputError: a bad row (named), a length mismatch, or no rows at all.
        """
        cands, groups = check_pairs(candidates, references)
        check_some_rows(cands)
        with self._lock:  # the tokenizer and model are shared; keep one call at a time
            return self._score(cands, groups, [self.layer], progress=progress, explain=explain)[0]

    def score_layers(
        self,
        candidates: Sequence[str],
        references: Sequence[str] | Sequence[Sequence[str]],
        layers: Sequence[int] | None = None,
        progress: bool | None = None,
    ) -> dict[int, Scores]:
        """Scores at several layers from one encoder pass (layer selection, baselines).

        Equal to scoring with `layer=k` for each k. Models with a norm after the layer stack (T5,
        mBART, PEGASUS) would differ from bert_score's truncated model, so they are scored per layer.
        """
        wanted = check_layer_list(layers, self._model.num_layers, self._model.source.name)
        cands, groups = check_pairs(candidates, references)
        check_some_rows(cands)
        model_type = str(getattr(self._model.encoder.config, "model_type", ""))
        if model_type in FINAL_NORM_MODELS or self._model.uses_hidden_states:
            return {layer: self.with_config(layer=layer).score(cands, groups, progress) for layer in wanted}
        deepest = self if self.layer == wanted[-1] else self.with_config(layer=wanted[-1])
        with deepest._lock:
            return dict(zip(wanted, deepest._score(cands, groups, wanted, progress=progress), strict=True))

    # -------------------------------------------------------------------------------- internals
    # The data path, top to bottom: plan chunks -> embed -> weigh -> match pairs -> reduce over
    # references -> explain (only when asked) -> rescale and sign. Every step returns arrays; the
    # layer list is the only thing that differs between score() and score_layers().

    def _score(
        self,
        candidates: list[str],
        groups: list[list[str]],
        layers: list[int],
        *,
        progress: bool | None = None,
        explain: bool = False,
    ) -> list[Scores]:
        """One Scores per layer in `layers` (each equal to scoring with layer=k) from one encoder pass."""
        report = CallReport()
        chunks: Iterable[Chunk] = self._plan(candidates, groups, layers)
        idf_table = self.config.idf if isinstance(self.config.idf, IdfTable) else None
        if self.config.idf is True:
            chunks = list(chunks)  # idf needs every reference before any row is scored
            idf_table = fit_idf_on_chunks(chunks, self.model_identity)
        idf_text = idf_label(self.config.idf, idf_table.digest if idf_table is not None else None)

        values: list[np.ndarray] = []  # per chunk: (precision/recall/f1, layers, rows)
        explanations: list[list[Explanation]] = [[] for _ in layers]
        characters = sum(map(len, candidates)) + sum(len(text) for group in groups for text in group)
        bar = _progress_bar(len(candidates), progress, characters)
        keep_large_blocks_mapped()  # a chunk's peak stays the first chunk's (heap.py)
        for planned in chunks:
            report.note(planned, self.tokenizer)
            row_values, chunk_explanations = self._score_chunk(
                planned, layers, idf_table, report, bar, explain
            )
            values.append(row_values)
            for layer_explanations, more in zip(explanations, chunk_explanations, strict=True):
                layer_explanations += more
            release_freed_memory()  # the chunk's tensors are gone: give their heap pages back (heap.py)
        if bar is not None:
            bar.close()
        report.warn(rescaled=self.baseline is not None)
        scores = np.concatenate(values, axis=-1)
        return [
            self._finish(scores[:, depth], layer, idf_text, explanations[depth] if explain else None)
            for depth, layer in enumerate(layers)
        ]

    def _score_chunk(
        self,
        planned: Chunk,
        layers: list[int],
        idf_table: IdfTable | None,
        report: CallReport,
        bar: Progress | None,
        explain: bool,
    ) -> tuple[np.ndarray, list[list[Explanation]]]:
        """(precision/recall/f1, layers, rows) values of one chunk's rows and, when asked, their
        explanations per layer; the chunk's embeddings live only as long as this call."""
        credit = RowCredit(bar, len(planned.rows), len(planned.texts))
        chunk = replace(
            planned,
            embeddings=self._embed(planned, layers, credit),
            weights=self._weigh(planned, idf_table, report),
        )
        row_values, best = reduce_over_references(
            match_chunk(chunk), chunk.reference_counts, self.config.multi_ref
        )
        explanations = [
            explain_chunk(chunk, depth, best[depth], self.tokenizer) if explain else []
            for depth in range(len(layers))
        ]
        credit.finish()
        return row_values, explanations

    def _plan(self, candidates: list[str], groups: list[list[str]], layers: list[int]) -> Iterator[Chunk]:
        """Chunks of consecutive rows whose unique texts' embeddings fit CHUNK_VALUES (chunks.py)."""
        return plan_chunks(
            candidates,
            groups,
            self.tokenizer,
            truncate=self.config.long_text == "truncate",
            token_budget=max(CHUNK_VALUES // (self._hidden_size() * len(layers)), 1),
            chunk_pairs=self.config.chunk_pairs,
        )

    def _embed(self, chunk: Chunk, layers: list[int], credit: RowCredit | None = None) -> list[torch.Tensor]:
        """Per unique text: (layers, tokens, hidden) unit-norm embeddings; (layers, 0, hidden) when empty.

        References come from the reference cache when it holds them (it holds this scorer's layer).
        `credit` hears of every encoder batch (the progress moves within a chunk, not only between them).
        """
        cache = self._reference_cache if layers == [self.layer] else None
        embeddings = embed_through_cache(
            cache,
            chunk.texts,
            chunk.tokens,
            chunk.reference_texts,
            lambda tokens: self.embedder.embed(tokens, layers, credit),
            self._model.device,
        )
        empty = torch.empty((len(layers), 0, self._hidden_size()), device=self._model.device)
        return [empty if embedding is None else embedding for embedding in embeddings]

    def _weigh(self, chunk: Chunk, idf_table: IdfTable | None, report: CallReport) -> list[torch.Tensor]:
        """Per unique text: token weights summing to 1 (idf or uniform; special tokens 0 without idf)."""
        return [
            token_weights(tokens, self.tokenizer, idf_table, report.idf_fallback).to(self._model.device)
            for tokens in chunk.tokens
        ]

    def _finish(
        self, values: np.ndarray, layer: int, idf_text: str, explanations: list[Explanation] | None
    ) -> Scores:
        """Scores at one layer from (precision/recall/f1, rows) values: rescaled when asked, signed."""
        baseline = (
            self.baseline
            if layer == self.layer
            else self._baseline_for(layer)
            if self.config.rescale
            else None
        )
        precision, recall, f1 = values
        if baseline is not None:
            precision = baseline.rescale(precision, "precision")
            recall = baseline.rescale(recall, "recall")
            f1 = baseline.rescale(f1, "f1")
        for name, column in (("precision", precision), ("recall", recall), ("f1", f1)):
            bad = np.flatnonzero(~np.isfinite(column))
            if bad.size:  # never hand out NaN/inf: say which rows instead (should be unreachable)
                raise NumericalError(
                    f"{name} is not finite in rows {rows_text(bad.tolist())} at layer {layer}"
                )
        signature = self._signature(idf_text, layer, baseline)
        return Scores(precision, recall, f1, signature, baseline is not None, explanations)

    def _signature(self, idf_text: str, layer: int, baseline: Baseline | None) -> Signature:
        return Signature.build(
            self.config,
            model=self.model_identity,
            layer=layer,
            max_length=self.tokenizer.max_length,
            idf=idf_text,
            baseline=baseline.label if baseline else None,
        )

    def _baseline_for(self, layer: int) -> Baseline:
        return baseline_for(self.config, self._model.source, layer)

    def _hidden_size(self) -> int:
        config = self._model.encoder.config
        return int(getattr(config, "hidden_size", None) or getattr(config, "d_model", None) or 1024)


def model_spec(config: ScoreConfig, source: ModelSource) -> ModelSpec:
    """The model cache's key for a configuration whose model is `source` (loads no weights)."""
    return ModelSpec(
        model=config.model,
        identity=source.identity,
        source=source,
        layer=config.layer,
        dtype=config.dtype,
        device=config.device,
        lang=config.lang,
        allow_pickle_weights=config.allow_pickle_weights,
        quantize=config.quantize,
    )


_SCORERS: ScorerCache[BERTScorer] = ScorerCache(BERTScorer._for_resolved)


def get_scorer(config: ScoreConfig | None = None, **settings: Unpack[ScoreSettings]) -> BERTScorer:
    """The process-wide scorer for a configuration (built once, models shared between configurations)."""
    config = config or ScoreConfig()
    return _SCORERS.get(config.replace(**settings) if settings else config)


@overload
def resolve_scorer(scorer: BERTScorer | ScoreConfig | None, settings: Mapping[str, object]) -> BERTScorer: ...


@overload
def resolve_scorer(scorer: Scorer | ScoreConfig | None, settings: Mapping[str, object]) -> Scorer: ...


def resolve_scorer(scorer: Scorer | ScoreConfig | None, settings: Mapping[str, object]) -> Scorer:
    """The scorer an API function should use: given one (with settings applied), a config, or settings.

    The one home of "a scorer or its settings" for every entry point that takes both. An object that
    scores but is not a BERTScorer (a wrapper, a test's stand-in) is used as given when no settings
    come with it."""
    if scorer is None:
        return get_scorer(ScoreConfig.from_kwargs(**settings))
    if isinstance(scorer, ScoreConfig):
        return get_scorer(scorer.replace(**settings) if settings else scorer)
    if isinstance(scorer, BERTScorer):
        return get_scorer(scorer.config.replace(**settings)) if settings else scorer
    if not settings and callable(getattr(scorer, "score", None)):
        return scorer
    raise ArgumentTypeError(
        f"scorer must be a BERTScorer, a ScoreConfig or None, got {type(scorer).__name__}"
    )


def score(
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    progress: bool | None = None,
    **settings: Unpack[ScoreSettings],
) -> Scores:
    """Score in one call with a cached scorer: `score(cands, refs, layer=4, idf=True)`.

    Settings are ScoreConfig's names or bert_score's (`model_type`, `num_layers`, ...: score_config.py's alias
    table); `progress` shows a progress bar (None = on a terminal or in a notebook for large inputs).
    For bert_score's return types ((P, R, F) tensors) use `bertscore_plugins.integrations.compat.score`.
    """
    return get_scorer(ScoreConfig.from_kwargs(**settings)).score(candidates, references, progress=progress)


def fit_idf(
    references: Sequence[str] | Sequence[Sequence[str]], **settings: Unpack[ScoreSettings]
) -> IdfTable:
    """An idf table fitted on `references` (flattened, duplicates counted: bert_score's formula) with the
    tokenizer of the model the settings name; pass it as `idf=` to score a column in several calls."""
    return get_scorer(ScoreConfig.from_kwargs(**settings).replace(idf=False)).fit_idf(references)

"""The scorer: one object holding the model, tokenizer and caches; every integration calls it.

Data path per chunk of rows: unique texts -> tokens (tokenize.py) -> embeddings (embed.py) ->
greedy matches (match.py) -> P/R/F1 -> multi-reference rule (multi_reference.py) -> baseline
rescaling (baseline.py) -> signature (signature.py). `BERTScorer._score` runs these steps in this
order. Chunks bound memory; output order always equals input order.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from bertscore_plugins.core.baseline import Baseline, baseline_for
from bertscore_plugins.core.config import ScoreConfig, SettingError
from bertscore_plugins.core.embed import Embedder
from bertscore_plugins.core.explain import Explanation, explain_pair, plot_explanation
from bertscore_plugins.core.idf import IdfTable, idf_from_token_ids
from bertscore_plugins.core.match import match_pairs
from bertscore_plugins.core.multi_reference import reduce_over_references
from bertscore_plugins.core.progress import progress_bar as _progress_bar
from bertscore_plugins.core.reference_cache import ReferenceCache
from bertscore_plugins.core.signature import Signature, idf_label
from bertscore_plugins.core.tokenize import TextTokenizer, TokenizedText, position_limit
from bertscore_plugins.errors import ArgumentError, ArgumentTypeError, NumericalError
from bertscore_plugins.inputs import InputError, check_pairs, check_references, check_some_rows
from bertscore_plugins.models.load import ModelSource, ModelSpec, get_model, resolve_model

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: embedding values (tokens x hidden x layers) a chunk may hold: 256 MiB in float32. With MiniLM
#: (384 wide) that is ~175k tokens, about 2,600 English sentence pairs. Budgeting values, not rows,
#: makes every full chunk the same size in memory, so a 32k-pair job peaks where a 2k-pair one does
CHUNK_VALUES = 1 << 26
#: rows whose texts are token-counted in one batched tokenizer call when planning chunks
_COUNT_BLOCK = 256


@dataclass
class Scores:
    """Per-row precision, recall and F1 (float32 arrays, input order) and the signature."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    signature: Signature
    rescaled: bool
    explanations: list[Explanation] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.signature = Signature(self.signature)  # a plain string from elsewhere becomes a value too

    def __len__(self) -> int:
        return len(self.f1)

    def means(self) -> dict[str, float]:
        """Corpus-level precision, recall and F1: the row means, accumulated in float64.

        The one mean every report uses (CLI, evaluate, baselines, comparisons): a float32 sum over many
        rows drifts in the last digits.

        Raises:
            ValueError: there are no rows.
        """
        if not len(self):
            raise ArgumentError("no rows: the mean of an empty result is undefined")
        columns = {"precision": self.precision, "recall": self.recall, "f1": self.f1}
        # widened first, then summed: the same summation order as stats' float64 columns, to the last bit
        return {name: float(values.astype(np.float64).mean()) for name, values in columns.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f1": self.f1.tolist(),
            "signature": self.signature,
        }


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

    def __init__(self, config: ScoreConfig | None = None, **settings: Any) -> None:
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
        """Load (or share) the model `source` names; the layer comes from the loader (models.choose_layer),
        the baseline from baseline.baseline_for."""
        self.config = cfg = config
        self._model = get_model(ModelSpec.from_config(cfg, source))
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

    def with_config(self, **changes: Any) -> BERTScorer:
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
        wanted = self._check_layers(layers)
        cands, groups = check_pairs(candidates, references)
        check_some_rows(cands)
        model_type = str(getattr(self._model.encoder.config, "model_type", ""))
        if model_type in _FINAL_NORM_MODELS or self._model.uses_hidden_states:
            return {layer: self.with_config(layer=layer).score(cands, groups, progress) for layer in wanted}
        deepest = self if self.layer == wanted[-1] else self.with_config(layer=wanted[-1])
        with deepest._lock:
            return dict(zip(wanted, deepest._score(cands, groups, wanted, progress=progress), strict=True))

    def _check_layers(self, layers: Sequence[int] | None) -> list[int]:
        """score_layers' `layers` as a sorted list, or SettingError naming what is wrong."""
        deepest = self._model.num_layers
        if layers is None:
            return list(range(deepest + 1))
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise SettingError("layers", f"layers must be a list of layer numbers, got {layers!r}")
        wanted = list(layers)
        if not wanted:
            raise SettingError(
                "layers", f"layers is empty: pass at least one of 0..{deepest}, or None for all"
            )
        for layer in wanted:
            if (
                isinstance(layer, bool)
                or not isinstance(layer, (int, np.integer))
                or not 0 <= layer <= deepest
            ):
                raise SettingError(
                    "layers",
                    f"layers must hold layer numbers 0..{deepest} of model "
                    f"{self._model.source.name!r}, got {layer!r}",
                )
        return sorted({int(layer) for layer in wanted})

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
        report = _Report()
        chunks: Iterable[_Chunk] = self._plan(candidates, groups, layers)
        idf_table = self.config.idf if isinstance(self.config.idf, IdfTable) else None
        if self.config.idf is True:
            chunks = list(chunks)  # idf needs every reference before any row is scored
            idf_table = _fit_idf_on_chunks(chunks, self.model_identity)
        idf_text = idf_label(self.config.idf, idf_table.digest if idf_table is not None else None)

        values: list[np.ndarray] = []  # per chunk: (precision/recall/f1, layers, rows)
        explanations: list[list[Explanation]] = [[] for _ in layers]
        characters = sum(map(len, candidates)) + sum(len(text) for group in groups for text in group)
        bar = _progress_bar(len(candidates), progress, characters)
        for planned in chunks:
            report.note(planned, self.tokenizer)
            # a new value, alive for this iteration only: a listed plan (idf) keeps no embeddings
            chunk = replace(
                planned,
                embeddings=self._embed(planned, layers),
                weights=self._weigh(planned, idf_table, report),
            )
            pair_values = self._match(chunk)
            row_values, best = reduce_over_references(
                pair_values, chunk.reference_counts, self.config.multi_ref
            )
            values.append(row_values)
            if explain:
                for depth, layer_explanations in enumerate(explanations):
                    layer_explanations += self._explain(chunk, depth, best[depth])
            if bar is not None:
                bar.update(len(chunk.rows))
        if bar is not None:
            bar.close()
        report.warn(rescaled=self.baseline is not None)
        scores = np.concatenate(values, axis=-1)
        return [
            self._finish(scores[:, depth], layer, idf_text, explanations[depth] if explain else None)
            for depth, layer in enumerate(layers)
        ]

    def _plan(self, candidates: list[str], groups: list[list[str]], layers: list[int]) -> Iterator[_Chunk]:
        """Chunks of consecutive rows: at most `chunk_pairs` pairs whose unique texts' embeddings fit
        CHUNK_VALUES, each text tokenized once, here.

        A chunk's embeddings are all held until its pairs are matched, so peak memory is one chunk's:
        budgeting tokens (not rows) keeps it flat when some rows are long or tokenize into many pieces
        (e.g. Cyrillic text in an English vocabulary: 2.3x the tokens per row). A row's references are
        never split; a row alone over the budget is its own chunk.
        """
        truncate = self.config.long_text == "truncate"
        budget = max(CHUNK_VALUES // (self._hidden_size() * len(layers)), 1)
        start, pairs, tokens, chunk = 0, 0, 0, {}
        for block in range(0, len(groups), _COUNT_BLOCK):
            rows = range(block, min(block + _COUNT_BLOCK, len(groups)))
            block_texts = list(
                dict.fromkeys(text for row in rows for text in (candidates[row], *groups[row]))
            )
            encoded = dict(
                zip(block_texts, self.tokenizer.encode(block_texts, truncate=truncate), strict=True)
            )
            for row in rows:
                row_texts = dict.fromkeys((candidates[row], *groups[row]))
                new = [text for text in row_texts if text not in chunk]
                row_tokens = sum(len(encoded[text].ids) for text in new)
                if pairs and (
                    pairs + len(groups[row]) > self.config.chunk_pairs or tokens + row_tokens > budget
                ):
                    yield _Chunk.of(candidates, groups, range(start, row), chunk)
                    start, pairs, tokens, chunk = row, 0, 0, {}
                    new, row_tokens = list(row_texts), sum(len(encoded[text].ids) for text in row_texts)
                chunk.update((text, encoded[text]) for text in new)
                pairs += len(groups[row])
                tokens += row_tokens
        if start < len(groups):
            yield _Chunk.of(candidates, groups, range(start, len(groups)), chunk)

    def _embed(self, chunk: _Chunk, layers: list[int]) -> list[torch.Tensor]:
        """Per unique text: (layers, tokens, hidden) unit-norm embeddings; (layers, 0, hidden) when empty.

        References come from the reference cache when it holds them (it holds this scorer's layer).
        """
        cache = self._reference_cache if layers == [self.layer] else None
        references = chunk.reference_texts if cache is not None else set()
        embeddings: list[torch.Tensor | None] = [None] * len(chunk.texts)
        for i, text in enumerate(chunk.texts):
            if text in references:
                hit = cache.get(text, self._model.device)  # type: ignore[union-attr]
                if hit is not None:
                    embeddings[i] = hit[1][None]
        missing = [i for i, embedding in enumerate(embeddings) if embedding is None]
        to_embed = [i for i in missing if not chunk.tokens[i].is_empty]
        fresh = self.embedder.embed([chunk.tokens[i] for i in to_embed], layers) if to_embed else []
        for i, embedding in zip(to_embed, fresh, strict=True):
            embeddings[i] = embedding
            if chunk.texts[i] in references:
                cache.put(chunk.texts[i], chunk.tokens[i], embedding[0])  # type: ignore[union-attr]
        empty = torch.empty((len(layers), 0, self._hidden_size()), device=self._model.device)
        return [empty if embedding is None else embedding for embedding in embeddings]

    def _weigh(self, chunk: _Chunk, idf_table: IdfTable | None, report: _Report) -> list[torch.Tensor]:
        """Per unique text: token weights summing to 1 (idf or uniform; special tokens 0 without idf)."""
        return [self._weights(tokens, idf_table, report) for tokens in chunk.tokens]

    def _match(self, chunk: _Chunk) -> np.ndarray:
        """(precision/recall/f1, layers, pairs) float32 for the chunk's pairs, row by row."""
        candidates, references = chunk.pair_texts()
        return match_pairs(
            [chunk.embeddings[i] for i in candidates],
            [chunk.weights[i] for i in candidates],
            [chunk.embeddings[i] for i in references],
            [chunk.weights[i] for i in references],
        )

    def _explain(self, chunk: _Chunk, depth: int, best: np.ndarray) -> list[Explanation]:
        """Per row: the explanation of its best-F1 pair at the `depth`-th layer (`best`: pair per row)."""
        candidates, references = chunk.pair_texts()
        prefix, suffix = len(self.tokenizer.prefix_ids), len(self.tokenizer.suffix_ids)
        return [
            explain_pair(
                chunk.tokens[candidates[pair]],
                chunk.embeddings[candidates[pair]][depth],
                chunk.tokens[references[pair]],
                chunk.embeddings[references[pair]][depth],
                prefix,
                suffix,
            )
            for pair in best.tolist()
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
                raise NumericalError(f"{name} is not finite in rows {_rows(bad.tolist())} at layer {layer}")
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

    def _weights(self, tokens: TokenizedText, idf_table: IdfTable | None, report: _Report) -> torch.Tensor:
        if tokens.is_empty:
            return torch.zeros(0)
        if idf_table is None:
            zero = self.tokenizer.zero_weight_ids
            values = [0.0 if token_id in zero else 1.0 for token_id in tokens.ids]
        else:
            values = idf_table.weights_for(tokens.ids)
            if sum(values) <= 0:
                # every token of this text occurs in every idf document: no information; fall back to
                # uniform weights over its content tokens (bert_score returns NaN here)
                report.idf_fallback.add(tokens.text)
                prefix, suffix = len(self.tokenizer.prefix_ids), len(self.tokenizer.suffix_ids)
                values = [0.0] * prefix + [1.0] * (len(tokens.ids) - prefix - suffix) + [0.0] * suffix
        weights = torch.tensor(values, dtype=torch.float32)
        total = weights.sum()
        if total <= 0:  # only special tokens carry weight zero and nothing else is there
            weights = torch.ones_like(weights)
            total = weights.sum()
        return (weights / total).to(self._model.device)


@dataclass
class _Chunk:
    """Consecutive rows and their unique texts: each text is tokenized, embedded and weighed once."""

    rows: range  # positions in the call's input
    candidates: list[str]  # one per row
    references: list[list[str]]  # one non-empty list per row
    texts: list[str]  # the unique texts of these rows, first use first
    tokens: list[TokenizedText]  # per text, from the planner
    embeddings: list[torch.Tensor] = field(default_factory=list)  # per text: (layers, tokens, hidden)
    weights: list[torch.Tensor] = field(default_factory=list)  # per text: (tokens,), summing to 1

    @classmethod
    def of(
        cls, candidates: list[str], groups: list[list[str]], rows: range, tokens: dict[str, TokenizedText]
    ) -> _Chunk:
        return cls(
            rows,
            candidates[rows.start : rows.stop],
            groups[rows.start : rows.stop],
            list(tokens),
            list(tokens.values()),
        )

    @cached_property
    def index(self) -> dict[str, int]:
        """Text -> its position in `texts`."""
        return {text: i for i, text in enumerate(self.texts)}

    @cached_property
    def reference_texts(self) -> set[str]:
        return {text for group in self.references for text in group}

    @property
    def reference_counts(self) -> np.ndarray:
        """References per row: each row has that many consecutive pairs."""
        return np.array([len(group) for group in self.references], dtype=np.int64)

    def pair_texts(self) -> tuple[list[int], list[int]]:
        """Candidate and reference text positions of every (row, reference) pair, row by row."""
        index = self.index
        candidates = [
            index[cand] for cand, group in zip(self.candidates, self.references, strict=True) for _ in group
        ]
        references = [index[ref] for group in self.references for ref in group]
        return candidates, references


def _fit_idf_on_chunks(chunks: list[_Chunk], model_identity: str) -> IdfTable:
    """idf over every reference of the call (duplicates counted), from the planner's tokens."""
    documents = (
        chunk.tokens[chunk.index[reference]].ids
        for chunk in chunks
        for group in chunk.references
        for reference in group
    )
    return idf_from_token_ids(documents, model_identity)


#: encoders whose output passes a final norm: hidden_states[k] != the k-layer truncated model's output
_FINAL_NORM_MODELS = {"t5", "mt5", "umt5", "mbart", "pegasus", "led"}


class _Report:
    """Counts what deserves one warning per call (never a print)."""

    def __init__(self) -> None:
        self.empty_candidates: list[int] = []
        self.empty_references: list[int] = []
        self.truncated: set[str] = set()
        self.idf_fallback: set[str] = set()
        self.unknown_only: set[str] = set()

    def note(self, chunk: _Chunk, tokenizer: TextTokenizer) -> None:
        """Record the chunk's truncated texts, texts made only of the unknown token, and rows with an
        empty side."""
        self.truncated.update(
            text for text, tokens in zip(chunk.texts, chunk.tokens, strict=True) if tokens.truncated
        )
        unknown = tokenizer.tokenizer.unk_token_id
        if unknown is not None:
            self.unknown_only.update(
                text
                for text, tokens in zip(chunk.texts, chunk.tokens, strict=True)
                if _only_unknown(tokens, unknown, tokenizer)
            )
        empty = {text for text, tokens in zip(chunk.texts, chunk.tokens, strict=True) if tokens.is_empty}
        if not empty:
            return
        for row, candidate, group in zip(chunk.rows, chunk.candidates, chunk.references, strict=True):
            if candidate in empty:
                self.empty_candidates.append(row)
            if any(text in empty for text in group):
                self.empty_references.append(row)

    def warn(self, rescaled: bool = False) -> None:
        if self.empty_candidates or self.empty_references:
            warnings.warn(
                EmptyTextWarning.of(self.empty_candidates, self.empty_references, rescaled), stacklevel=4
            )
        if self.unknown_only:
            warnings.warn(
                f"{len(self.unknown_only)} text(s) are made only of the model's unknown token (e.g. a script its "
                "vocabulary lacks); they are scored as bert_score does, by that token's embedding, so two such "
                "texts score about 1.0 against each other whatever they say. Use a model whose vocabulary "
                "covers them",
                UnknownTokenWarning,
                stacklevel=4,
            )
        if self.truncated:
            warnings.warn(
                f"{len(self.truncated)} text(s) longer than the model window were truncated; "
                "set long_text='window' to score every token",
                TruncationWarning,
                stacklevel=4,
            )
        if self.idf_fallback:
            warnings.warn(
                f"{len(self.idf_fallback)} text(s) got zero idf weight on every token (their tokens occur in "
                "every idf document, e.g. identical references); they were scored with uniform weights",
                IdfFallbackWarning,
                stacklevel=4,
            )


class EmptyTextWarning(UserWarning):
    """Empty or whitespace-only texts scored 0.

    ``candidate_rows`` / ``reference_rows`` are the rows, as positions in the call's inputs, or as the
    caller's own labels once :func:`row_labels_in_warnings` has renamed them."""

    def __init__(
        self,
        message: str,
        candidate_rows: Sequence = (),
        reference_rows: Sequence = (),
        rescaled: bool = False,
    ):
        super().__init__(message)
        self.candidate_rows, self.reference_rows, self.rescaled = (
            tuple(candidate_rows),
            tuple(reference_rows),
            rescaled,
        )

    @classmethod
    def of(
        cls, candidate_rows: Sequence, reference_rows: Sequence, rescaled: bool = False
    ) -> EmptyTextWarning:
        # bert_score's convention: the raw score is 0 and is rescaled like any other, so that an empty
        # pair still ranks below every real match; the message says which number the user gets
        value = "0 before rescaling, i.e. (0 - b) / (1 - b) with the baseline b," if rescaled else "0"
        return cls(
            f"{len(candidate_rows)} empty candidate(s) and {len(reference_rows)} row(s) with an "
            f"empty reference scored {value} for precision, recall and F1 against that reference "
            f"(candidate rows {_rows(candidate_rows)}; reference rows {_rows(reference_rows)})",
            candidate_rows,
            reference_rows,
            rescaled,
        )


@contextlib.contextmanager
def row_labels_in_warnings(labels: Sequence) -> Iterator[None]:
    """Within the block, the rows an :class:`EmptyTextWarning` names are ``labels[position]``.

    For callers that score a subset or a batch of their rows (a DataFrame without its failed rows, one
    ``map()`` batch, a page of spans), so the warning names the user's row, never a shifted position.
    Other warnings pass through unchanged."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            caught = recorded
            yield
    finally:  # re-emitted outside the recording, also when the block raises
        for record in caught:
            found = record.message
            if isinstance(found, EmptyTextWarning):
                found = EmptyTextWarning.of(
                    [labels[row] for row in found.candidate_rows],
                    [labels[row] for row in found.reference_rows],
                    found.rescaled,
                )
            warnings.warn_explicit(
                found, record.category, record.filename, record.lineno, source=record.source
            )


class UnknownTokenWarning(UserWarning):
    """Texts made only of the unknown token were scored (their scores say nothing about their content)."""


def _only_unknown(tokens: TokenizedText, unknown: int, tokenizer: TextTokenizer) -> bool:
    content = tokens.ids[len(tokenizer.prefix_ids) : len(tokens.ids) - len(tokenizer.suffix_ids)]
    return bool(content) and all(token_id == unknown for token_id in content)


class TruncationWarning(UserWarning):
    """Texts longer than the model window were truncated."""


class IdfFallbackWarning(UserWarning):
    """idf gave a text zero total weight; uniform weights were used."""


def _rows(rows: Sequence, limit: int = 10) -> str:
    if not rows:
        return "none"
    shown = ", ".join(str(row) for row in rows[:limit])
    return shown + (f", ... ({len(rows)} in all)" if len(rows) > limit else "")


_SCORERS: dict[tuple[ScoreConfig, str], BERTScorer] = {}
_SCORERS_LOCK = threading.Lock()


def get_scorer(config: ScoreConfig | None = None, **settings: Any) -> BERTScorer:
    """The process-wide scorer for a configuration (built once, models shared between configurations)."""
    config = config or ScoreConfig()
    if settings:
        config = config.replace(**settings)
    source = resolve_model(config.model, config.lang)  # once per scorer: its identity is the cache key
    key = (config, source.identity)  # a checkpoint rewritten in place is a new scorer (see models.get_model)
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = BERTScorer._for_resolved(config, source)
        return _SCORERS[key]


def resolve_scorer(scorer: BERTScorer | ScoreConfig | None, settings: dict[str, Any]) -> BERTScorer:
    """The scorer an API function should use: given one (with settings applied), a config, or settings.

    The one home of "a scorer or its settings" for every entry point that takes both. An object that
    scores but is not a BERTScorer (a wrapper, a test's stand-in) is used as given when no settings
    come with it."""
    if scorer is None:
        return get_scorer(ScoreConfig.from_kwargs(**settings))
    if isinstance(scorer, ScoreConfig):
        return get_scorer(scorer.replace(**settings) if settings else scorer)
    if isinstance(scorer, BERTScorer):
        return scorer.with_config(**settings) if settings else scorer
    if not settings and callable(getattr(scorer, "score", None)):
        return scorer
    raise ArgumentTypeError(
        f"scorer must be a BERTScorer, a ScoreConfig or None, got {type(scorer).__name__}"
    )


def score(
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    progress: bool | None = None,
    **settings: Any,
) -> Scores:
    """Score in one call with a cached scorer: `score(cands, refs, layer=4, idf=True)`.

    Settings are ScoreConfig's names or bert_score's (`model_type`, `num_layers`, ...: config.py's alias
    table); `progress` shows a progress bar (None = on a terminal or in a notebook for large inputs).
    For bert_score's return types ((P, R, F) tensors) use `bertscore_plugins.integrations.compat.score`.
    """
    return get_scorer(ScoreConfig.from_kwargs(**settings)).score(candidates, references, progress=progress)


def fit_idf(references: Sequence[str] | Sequence[Sequence[str]], **settings: Any) -> IdfTable:
    """An idf table fitted on `references` (flattened, duplicates counted: bert_score's formula) with the
    tokenizer of the model the settings name; pass it as `idf=` to score a column in several calls."""
    return get_scorer(ScoreConfig.from_kwargs(**settings).replace(idf=False)).fit_idf(references)

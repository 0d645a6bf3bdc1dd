"""The scorer: one object holding the model, tokenizer and caches; every integration calls it.

Data path per chunk of rows: unique texts -> tokens (tokenize.py) -> embeddings (embed.py) ->
greedy matches (match.py) -> P/R/F1 -> multi-reference rule -> baseline rescaling (baseline.py).
Chunks bound memory; output order always equals input order.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from bertscore_plugins.baseline import Baseline, find_baseline
from bertscore_plugins.config import ScoreConfig
from bertscore_plugins.embed import Embedder
from bertscore_plugins.explain import Explanation, explain_pair, plot_explanation
from bertscore_plugins.idf import IdfTable, idf_from_token_ids
from bertscore_plugins.inputs import check_pairs, check_references
from bertscore_plugins.match import greedy_match
from bertscore_plugins.models import get_model, resolve_model, shipped_baseline
from bertscore_plugins.progress import progress_bar as _progress_bar
from bertscore_plugins.reference_cache import ReferenceCache
from bertscore_plugins.signature import build_signature, idf_label
from bertscore_plugins.tokenize import TextTokenizer, TokenizedText

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
    signature: str
    rescaled: bool
    explanations: list[Explanation] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.f1)

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
        self.config = config.replace(**settings) if settings else config
        cfg = self.config
        self._model = get_model(
            cfg.model, cfg.layer, cfg.dtype, cfg.device, cfg.lang, cfg.allow_pickle_weights, cfg.quantize
        )
        self.layer = self._model.layer
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
    def signature(self) -> str:
        """The signature of the scores this scorer produces."""
        return self._signature(idf_label(self.config.idf))

    def _signature(self, idf: str, layer: int | None = None, baseline: Baseline | None = None) -> str:
        """Signature at this scorer's layer and baseline, or at another layer's (score_layers)."""
        if layer is None:
            layer, baseline = self.layer, self.baseline
        return build_signature(
            self.config, self.model_identity, layer, self.tokenizer.max_length, idf,
            baseline.label if baseline else None,
        )

    def with_config(self, **changes: Any) -> BERTScorer:
        """A scorer for a changed configuration, sharing the loaded model where possible."""
        return get_scorer(self.config.replace(**changes))

    def fit_idf(self, references: Sequence[str] | Sequence[Sequence[str]]) -> IdfTable:
        """idf over the flattened references (duplicates counted), bert_score's formula."""
        groups = check_references(references)
        texts = [text for group in groups for text in group]
        return self._fit_idf(texts)

    def _fit_idf(self, texts: list[str]) -> IdfTable:
        truncate = self.config.long_text == "truncate"
        documents = (tokenized.ids for tokenized in self.tokenizer.encode(texts, truncate=truncate))
        return idf_from_token_ids(documents, self.model_identity)

    @property
    def reference_cache(self) -> ReferenceCache | None:
        """The reference-embedding cache, once enabled."""
        return self._reference_cache

    def enable_reference_cache(self, disk_dir: str | None = None, max_bytes: int | None = None) -> ReferenceCache:
        """Keep reference embeddings (in memory, and on disk when `disk_dir` is given) across calls.

        Re-scoring new candidates against the same references then skips re-encoding them.
        `max_bytes` bounds the memory part (least recently used references leave first).
        """
        key_text = "|".join(
            [self.model_identity, str(self.layer), self.config.dtype, str(self.tokenizer.max_length),
             self.config.long_text, str(self.config.window_stride), str(self.config.quantize)]
        )
        self._reference_cache = ReferenceCache(
            hashlib.sha256(key_text.encode()).hexdigest()[:16], disk_dir, max_bytes
        )
        return self._reference_cache

    def explain(self, candidate: str, reference: str) -> Explanation:
        """Worst-matched tokens and the similarity matrix of one pair."""
        return self.score([candidate], [reference], explain=True).explanations[0]  # type: ignore[index]

    def plot_example(self, candidate: str, reference: str, path: str | None = None):
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
            progress: show a progress bar (tqdm.auto: a widget in notebooks); None = for 2,000 rows or more,
                on a terminal or in a notebook.
            explain: also return one Explanation per row (best-F1 reference for multi-reference rows).

        Returns:
            Scores with float32 precision, recall and f1 in input order, and the signature.
        """
        cands, groups = check_pairs(candidates, references)
        with self._lock:  # the tokenizer and model are shared; keep one call at a time
            return self._score(cands, groups, progress, explain)

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
        cands, groups = check_pairs(candidates, references)
        wanted = sorted(set(layers)) if layers is not None else list(range(self._model.num_layers + 1))
        model_type = str(getattr(self._model.encoder.config, "model_type", ""))
        if model_type in _FINAL_NORM_MODELS or self._model.uses_hidden_states:
            return {layer: self.with_config(layer=layer).score(cands, groups, progress) for layer in wanted}
        deepest = self if self.layer == wanted[-1] else self.with_config(layer=wanted[-1])
        with deepest._lock:
            return deepest._score(cands, groups, progress, False, layers=wanted)  # type: ignore[return-value]

    # -------------------------------------------------------------------------------- internals
    def _score(
        self, cands: list[str], groups: list[list[str]], progress: bool | None, explain: bool,
        layers: list[int] | None = None,
    ) -> Scores | dict[int, Scores]:
        cfg = self.config
        idf_table: IdfTable | None = None
        idf_text = idf_label(cfg.idf)
        if isinstance(cfg.idf, IdfTable):
            idf_table = cfg.idf
        elif cfg.idf:
            idf_table = self._fit_idf([text for group in groups for text in group])
            idf_text = idf_label(True, idf_table.digest)

        rows, depth = len(cands), len(layers) if layers else 1
        # one row of results per requested layer (a single row in the usual one-layer case)
        precision = np.zeros((depth, rows), dtype=np.float32)
        recall = np.zeros((depth, rows), dtype=np.float32)
        f1 = np.zeros((depth, rows), dtype=np.float32)
        explanations: list[Explanation] | None = [None] * rows if explain else None  # type: ignore[list-item]
        report = _Report()
        bar = _progress_bar(rows, progress)
        for start, end, encoded in self._chunks(cands, groups, depth):
            self._score_chunk(
                cands, groups, start, end, encoded, idf_table, precision, recall, f1, explanations, report, layers
            )
            if bar is not None:
                bar.update(end - start)
        if bar is not None:
            bar.close()
        report.warn()

        if layers is None:
            return self._finish(precision[0], recall[0], f1[0], self.layer, idf_text, explanations)
        return {
            layer: self._finish(precision[i], recall[i], f1[i], layer, idf_text, None)
            for i, layer in enumerate(layers)
        }

    def _chunks(self, cands: list[str], groups: list[list[str]], depth: int):
        """(start, end, tokens) per chunk: row ranges of at most `chunk_pairs` pairs whose unique texts'
        embeddings fit CHUNK_VALUES, with those texts' tokenization (done once, here).

        A chunk's embeddings are all held until its pairs are matched, so peak memory is one chunk's:
        budgeting tokens (not rows) keeps it flat when some rows are long or tokenize into many pieces
        (e.g. Cyrillic text in an English vocabulary: 2.3x the tokens per row). A row's references are
        never split; a row alone over the budget is its own chunk.
        """
        truncate = self.config.long_text == "truncate"
        budget = max(CHUNK_VALUES // (self._hidden_size() * depth), 1)
        start, pairs, tokens, chunk = 0, 0, 0, {}
        for block in range(0, len(groups), _COUNT_BLOCK):
            rows = range(block, min(block + _COUNT_BLOCK, len(groups)))
            block_texts = list(dict.fromkeys(text for row in rows for text in (cands[row], *groups[row])))
            encoded = dict(zip(block_texts, self.tokenizer.encode(block_texts, truncate=truncate)))
            for row in rows:
                row_texts = dict.fromkeys((cands[row], *groups[row]))
                new = [text for text in row_texts if text not in chunk]
                row_tokens = sum(len(encoded[text].ids) for text in new)
                if pairs and (pairs + len(groups[row]) > self.config.chunk_pairs or tokens + row_tokens > budget):
                    yield start, row, chunk
                    start, pairs, tokens, chunk = row, 0, 0, {}
                    new, row_tokens = list(row_texts), sum(len(encoded[text].ids) for text in row_texts)
                chunk.update((text, encoded[text]) for text in new)
                pairs += len(groups[row])
                tokens += row_tokens
        if start < len(groups) or not groups:
            yield start, len(groups), chunk

    def _hidden_size(self) -> int:
        config = self._model.encoder.config
        return int(getattr(config, "hidden_size", None) or getattr(config, "d_model", None) or 1024)

    def _finish(self, precision, recall, f1, layer, idf_text, explanations) -> Scores:
        baseline = self.baseline
        if baseline is not None and layer != self.layer:  # score_layers: each layer has its own row
            baseline = self._baseline_for(layer)
        if baseline is not None:
            precision = baseline.rescale(precision, "precision")
            recall = baseline.rescale(recall, "recall")
            f1 = baseline.rescale(f1, "f1")
        signature = self._signature(idf_text, layer, baseline)
        return Scores(precision, recall, f1, signature, baseline is not None, explanations)

    def _baseline_for(self, layer: int) -> Baseline:
        # the model cache is shared across languages, so the shipped file is looked up per config
        cfg, source = self.config, self._model.source
        shipped = shipped_baseline(cfg.lang, source.name) or (source.baseline_file if cfg.lang == "en" else None)
        return find_baseline(cfg.baseline_path, shipped, source.location, source.name, cfg.lang, layer)

    def _score_chunk(
        self, cands, groups, start, end, encoded, idf_table, precision, recall, f1, explanations, report,
        layers=None,
    ):
        # unique texts, as the planner tokenized them: a string used several times (or on both
        # sides) is embedded once
        texts = list(encoded)
        index = {text: i for i, text in enumerate(texts)}
        reference_texts = {text for row in range(start, end) for text in groups[row]}
        tokenized, embeddings = self._embed_texts(texts, encoded, reference_texts, layers)

        for text, tokens in zip(texts, tokenized):
            if tokens.truncated:
                report.truncated.add(text)
        weights = [self._weights(tokens, idf_table, report) for tokens in tokenized]

        pairs = [(row, index[cands[row]], index[ref]) for row in range(start, end) for ref in groups[row]]
        # a pair with an empty side scores (0, 0, 0)
        keep = np.array([not tokenized[c].is_empty and not tokenized[x].is_empty for _, c, x in pairs], dtype=bool)
        scored = [pair for pair, kept in zip(pairs, keep) if kept]
        for row in range(start, end):
            if tokenized[index[cands[row]]].is_empty:
                report.empty_candidates.append(row)
            if any(tokenized[index[text]].is_empty for text in groups[row]):
                report.empty_references.append(row)

        for depth in range(precision.shape[0]):
            def at_layer(i, depth=depth):
                return embeddings[i] if layers is None else embeddings[i][depth]

            pair_p = np.zeros(len(pairs), dtype=np.float32)
            pair_r = np.zeros(len(pairs), dtype=np.float32)
            pair_f = np.zeros(len(pairs), dtype=np.float32)
            if scored:
                p, r, f = greedy_match(
                    [at_layer(c) for _, c, _ in scored], [weights[c] for _, c, _ in scored],
                    [at_layer(x) for _, _, x in scored], [weights[x] for _, _, x in scored],
                )
                pair_p[keep], pair_r[keep], pair_f[keep] = p.numpy(), r.numpy(), f.numpy()
            self._reduce(cands, groups, start, end, index, tokenized, embeddings, pair_p, pair_r, pair_f,
                         precision[depth], recall[depth], f1[depth], explanations if layers is None else None)

    def _reduce(self, cands, groups, start, end, index, tokenized, embeddings, pair_p, pair_r, pair_f,
                precision, recall, f1, explanations):
        """Per-row reduction over its references (and the explanation of the best reference)."""
        position = 0
        for row in range(start, end):
            count = len(groups[row])
            span = slice(position, position + count)
            rp, rr, rf = pair_p[span], pair_r[span], pair_f[span]
            best = int(np.argmax(rf))
            if self.config.multi_ref == "max":
                precision[row], recall[row], f1[row] = rp.max(), rr.max(), rf.max()
            else:  # "best_f1": the whole triple of the reference with the best F1
                precision[row], recall[row], f1[row] = rp[best], rr[best], rf[best]
            if explanations is not None:
                cand_index, ref_index = index[cands[row]], index[groups[row][best]]
                explanations[row] = explain_pair(
                    tokenized[cand_index], embeddings[cand_index], tokenized[ref_index], embeddings[ref_index],
                    len(self.tokenizer.prefix_ids), len(self.tokenizer.suffix_ids),
                )
            position += count

    def _embed_texts(
        self, texts: list[str], encoded: dict[str, TokenizedText], reference_texts: set[str],
        layers: list[int] | None = None,
    ):
        cache = self._reference_cache if layers is None else None
        tokenized: list[TokenizedText | None] = [None] * len(texts)
        embeddings: list[torch.Tensor | None] = [None] * len(texts)
        missing = []
        for i, text in enumerate(texts):
            hit = cache.get(text, self._model.device) if cache is not None and text in reference_texts else None
            if hit is not None:
                tokenized[i], embeddings[i] = hit
            else:
                missing.append(i)
        if missing:
            fresh_tokens = [encoded[texts[i]] for i in missing]
            to_embed = [i for i, tokens in zip(missing, fresh_tokens) if not tokens.is_empty]
            for i, tokens in zip(missing, fresh_tokens):
                tokenized[i] = tokens
            fresh = self.embedder.embed([tokenized[i] for i in to_embed], layers=layers) if to_embed else []
            for i, embedding in zip(to_embed, fresh):
                embeddings[i] = embedding
                if cache is not None and texts[i] in reference_texts:
                    cache.put(texts[i], tokenized[i], embedding)
        return tokenized, embeddings

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


#: encoders whose output passes a final norm: hidden_states[k] != the k-layer truncated model's output
_FINAL_NORM_MODELS = {"t5", "mt5", "umt5", "mbart", "pegasus", "led"}


class _Report:
    """Counts what deserves one warning per call (never a print)."""

    def __init__(self) -> None:
        self.empty_candidates: list[int] = []
        self.empty_references: list[int] = []
        self.truncated: set[str] = set()
        self.idf_fallback: set[str] = set()

    def warn(self) -> None:
        if self.empty_candidates or self.empty_references:
            warnings.warn(
                f"{len(self.empty_candidates)} empty candidate(s) and {len(self.empty_references)} row(s) with an "
                f"empty reference scored 0 for precision, recall and F1 against that reference "
                f"(candidate rows {_rows(self.empty_candidates)}; reference rows {_rows(self.empty_references)})",
                EmptyTextWarning,
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
    """Empty or whitespace-only texts scored 0."""


class TruncationWarning(UserWarning):
    """Texts longer than the model window were truncated."""


class IdfFallbackWarning(UserWarning):
    """idf gave a text zero total weight; uniform weights were used."""


def _rows(rows: list[int], limit: int = 10) -> str:
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
    key = (config, resolve_model(config.model, config.lang).identity)  # see models.get_model
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = BERTScorer(config)
        return _SCORERS[key]


def resolve_scorer(scorer: BERTScorer | ScoreConfig | None, settings: dict[str, Any]) -> BERTScorer:
    """The scorer an API function should use: given one (with settings applied), a config, or settings."""
    if scorer is None:
        return get_scorer(ScoreConfig.from_kwargs(**settings))
    if isinstance(scorer, ScoreConfig):
        return get_scorer(scorer.replace(**settings) if settings else scorer)
    if isinstance(scorer, BERTScorer):
        return scorer.with_config(**settings) if settings else scorer
    raise TypeError(f"scorer must be a BERTScorer, a ScoreConfig or None, got {type(scorer).__name__}")


def score(
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    progress: bool | None = None,
    **settings: Any,
) -> Scores:
    """Score in one call with a cached scorer: `score(cands, refs, layer=4, idf=True)`.

    Settings are ScoreConfig's names or bert_score's (`model_type`, `num_layers`, ...: config.py's alias
    table); `progress` shows a progress bar (None = on a terminal or in a notebook for large inputs).
    For bert_score's return types ((P, R, F) tensors) use `bertscore_plugins.compat.score`.
    """
    return get_scorer(ScoreConfig.from_kwargs(**settings)).score(candidates, references, progress=progress)


def fit_idf(references: Sequence[str] | Sequence[Sequence[str]], **settings: Any) -> IdfTable:
    """An idf table fitted on `references` (flattened, duplicates counted: bert_score's formula) with the
    tokenizer of the model the settings name; pass it as `idf=` to score a column in several calls."""
    return get_scorer(ScoreConfig.from_kwargs(**settings).replace(idf=False)).fit_idf(references)

"""bert_score 0.3.13's API on this project's core: migrating is one changed import.

    >>> # from bert_score import score, BERTScorer
    >>> from bertscore_plugins.integrations.compat import score, BERTScorer
    >>> P, R, F = score(cands, refs, lang="en")                       # CPU float32 tensors, shape (N,)
    >>> (P, R, F), signature = score(cands, refs, model_type="./roberta-large", num_layers=17, return_hash=True)

Same signatures, argument names and return types as bert_score: (P, R, F) tensors of shape (N,), or
(L + 1, N) with `all_layers=True`; `((P, R, F), hash)` with `return_hash=True`; `idf` as a bool or a dict
token id -> weight. Numbers equal bert_score's on the same model and layer
(tests/integrations/test_compat.py runs both side by side). Differences, all documented in the README's migration section:

- `lang="en"` without `model_type` scores with the packaged all-MiniLM-L6-v2 (offline), not roberta-large:
  pass `model_type="roberta-large"` for upstream's model and numbers. Other languages pick upstream's
  model for that language (a hub download), never the English default.
- the hash is this project's signature (model revision and weights digest, layer, idf corpus, versions).
- `batch_size`, `nthreads` and `use_fast_tokenizer` are accepted and change nothing (config.UPSTREAM_NO_EFFECT);
  `verbose=True` shows a progress bar instead of printing to stdout.
- for unrelated texts at a model's last layers, bert_score's score of a pair depends on the other pairs in its
  batch (README, parity section); here it never does, and equals bert_score's score of the pair alone.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal, cast, overload

import numpy as np
import torch

from bertscore_plugins.core.idf import IdfTable
from bertscore_plugins.core.score_config import ScoreConfig, idf_from_upstream
from bertscore_plugins.core.scorer import BERTScorer as _CoreScorer
from bertscore_plugins.core.scorer import get_scorer
from bertscore_plugins.core.scores import Scores
from bertscore_plugins.errors import ArgumentError, BertScorePluginsWarning


class UpstreamModelWarning(BertScorePluginsWarning):
    """lang="en" scores with the packaged model, not bert_score's roberta-large: numbers differ from upstream."""


Triple = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


def warn_packaged_model(where: str, stacklevel: int = 2) -> None:
    """`UpstreamModelWarning` from `where` (a drop-in for upstream's API: this module, the evaluate metric),
    for a call that asked for English by `lang` and named no model. `stacklevel`: as warnings.warn's, from
    the caller of this function."""
    warnings.warn(
        f"{where}: lang='en' scores with the packaged all-MiniLM-L6-v2 (layer 4), not "
        "bert_score's roberta-large (layer 17): numbers differ from upstream's. Pass "
        "model_type='roberta-large' (or a local folder of it) for upstream's numbers",
        UpstreamModelWarning,
        stacklevel=stacklevel + 1,
    )


def _config(
    model_type: str | None,
    num_layers: int | None,
    lang: str | None,
    *,
    idf: Any,
    device: str | None,
    rescale_with_baseline: bool,
    baseline_path: str | None,
) -> ScoreConfig:
    settings: dict[str, Any] = {"rescale": bool(rescale_with_baseline), "idf": idf_from_upstream(idf)}
    if model_type is None and (lang or "en").lower() == "en":
        warn_packaged_model("bertscore_plugins.integrations.compat", stacklevel=4)
    if model_type is not None:
        settings["model"] = model_type
    if num_layers is not None:
        settings["layer"] = num_layers
    if lang is not None:
        settings["lang"] = lang.lower()
    if device is not None:
        settings["device"] = str(device)
    if baseline_path is not None:
        settings["baseline_path"] = str(baseline_path)
    return ScoreConfig(**settings)


def _tensors(scores: Scores) -> Triple:
    found = (scores.precision, scores.recall, scores.f1)
    return cast(Triple, tuple(torch.from_numpy(np.array(values, dtype=np.float32)) for values in found))


def _score(
    scorer: _CoreScorer, cands: Sequence[str], refs: Any, verbose: bool, all_layers: bool
) -> tuple[Triple, str]:
    progress = True if verbose else None
    if not all_layers:
        scores = scorer.score(cands, refs, progress=progress)
        return _tensors(scores), str(scores.signature)
    by_layer = scorer.score_layers(cands, refs, progress=progress)
    layers = sorted(by_layer)
    stacked = tuple(torch.stack([_tensors(by_layer[layer])[i] for layer in layers]) for i in range(3))
    return cast(Triple, stacked), str(by_layer[layers[-1]].signature)


# What a type checker sees: (P, R, F) by default, ((P, R, F), signature) with return_hash=True.
@overload
def score(
    cands: Sequence[str],
    refs: Sequence[str] | Sequence[Sequence[str]],
    model_type: str | None = ...,
    num_layers: int | None = ...,
    verbose: bool = ...,
    idf: bool | dict[int, float] = ...,
    device: str | None = ...,
    batch_size: int = ...,
    nthreads: int = ...,
    all_layers: bool = ...,
    lang: str | None = ...,
    return_hash: Literal[False] = ...,
    rescale_with_baseline: bool = ...,
    baseline_path: str | None = ...,
    use_fast_tokenizer: bool = ...,
) -> Triple: ...
@overload
def score(
    cands: Sequence[str],
    refs: Sequence[str] | Sequence[Sequence[str]],
    model_type: str | None = ...,
    num_layers: int | None = ...,
    verbose: bool = ...,
    idf: bool | dict[int, float] = ...,
    device: str | None = ...,
    batch_size: int = ...,
    nthreads: int = ...,
    all_layers: bool = ...,
    lang: str | None = ...,
    *,
    return_hash: Literal[True],
    rescale_with_baseline: bool = ...,
    baseline_path: str | None = ...,
    use_fast_tokenizer: bool = ...,
) -> tuple[Triple, str]: ...
@overload
def score(
    cands: Sequence[str],
    refs: Sequence[str] | Sequence[Sequence[str]],
    model_type: str | None = ...,
    num_layers: int | None = ...,
    verbose: bool = ...,
    idf: bool | dict[int, float] = ...,
    device: str | None = ...,
    batch_size: int = ...,
    nthreads: int = ...,
    all_layers: bool = ...,
    lang: str | None = ...,
    return_hash: bool = ...,
    rescale_with_baseline: bool = ...,
    baseline_path: str | None = ...,
    use_fast_tokenizer: bool = ...,
) -> Triple | tuple[Triple, str]: ...


def score(
    cands: Sequence[str],
    refs: Sequence[str] | Sequence[Sequence[str]],
    model_type: str | None = None,
    num_layers: int | None = None,
    verbose: bool = False,
    idf: bool | dict[int, float] = False,
    device: str | None = None,
    batch_size: int = 64,
    nthreads: int = 4,
    all_layers: bool = False,
    lang: str | None = None,
    return_hash: bool = False,
    rescale_with_baseline: bool = False,
    baseline_path: str | None = None,
    use_fast_tokenizer: bool = False,
) -> Triple | tuple[Triple, str]:
    """bert_score.score: BERTScore of each candidate against its reference(s).

    Args:
        cands: candidate texts.
        refs: one reference per candidate, or a list of references per candidate (best score per column).
        model_type: a model name, hub id, local folder (or "default"); None = the model for `lang`.
        num_layers: layer to use; None = the model's tuned layer (bert_score's table).
        verbose: show a progress bar.
        idf: False, True (fitted on the flattened references), or a dict token id -> weight.
        device: "cpu", "cuda", ...; None = cuda if available.
        batch_size, nthreads, use_fast_tokenizer: accepted, no effect (see config.UPSTREAM_NO_EFFECT).
        all_layers: return every layer's scores, shape (L + 1, N).
        lang: language of the texts ("en" = the packaged default model; others: bert_score's model for it).
        return_hash: also return the signature.
        rescale_with_baseline: rescale with the baseline for the model, layer and `lang`.
        baseline_path: a baseline file in bert_score's format.

    Returns:
        (P, R, F) float32 CPU tensors, or ((P, R, F), signature) with `return_hash`.

    Raises:
        InputError, ModelLoadError, BaselineNotFoundError, ValueError: as the core does.
    """
    del batch_size, nthreads, use_fast_tokenizer  # no effect here
    config = _config(
        model_type,
        num_layers,
        lang,
        idf=idf,
        device=device,
        rescale_with_baseline=rescale_with_baseline,
        baseline_path=baseline_path,
    )
    triple, signature = _score(get_scorer(config), cands, refs, verbose, all_layers)
    return (triple, signature) if return_hash else triple


class BERTScorer:
    """bert_score.BERTScorer: load once, score many times.

    Same constructor as bert_score (`idf=True` needs `idf_sents` or a later `compute_idf(sents)`), same
    `score(cands, refs, verbose=False, batch_size=64, return_hash=False)`, properties and `plot_example`.
    """

    def __init__(
        self,
        model_type: str | None = None,
        num_layers: int | None = None,
        batch_size: int = 64,
        nthreads: int = 4,
        all_layers: bool = False,
        idf: bool = False,
        idf_sents: Sequence[str] | None = None,
        device: str | None = None,
        lang: str | None = None,
        rescale_with_baseline: bool = False,
        baseline_path: str | None = None,
        use_fast_tokenizer: bool = False,
    ) -> None:
        self.batch_size = batch_size
        self.nthreads = nthreads
        self.all_layers = all_layers
        self._idf = bool(idf)
        self._use_fast_tokenizer = use_fast_tokenizer
        self._config = _config(
            model_type,
            num_layers,
            lang,
            idf=False,
            device=device,
            rescale_with_baseline=rescale_with_baseline,
            baseline_path=baseline_path,
        )
        self._scorer = get_scorer(self._config)
        self._idf_table: IdfTable | None = None
        self._baseline_path = baseline_path
        if idf_sents is not None:
            self.compute_idf(idf_sents)

    @property
    def lang(self) -> str:
        return self._config.lang

    @property
    def idf(self) -> bool:
        return self._idf

    @property
    def model_type(self) -> str:
        return self._config.model

    @property
    def num_layers(self) -> int:
        return self._scorer.layer

    @property
    def rescale_with_baseline(self) -> bool:
        return self._config.rescale

    @property
    def baseline_vals(self) -> torch.Tensor | None:
        """Baseline (P, R, F) for this layer, or every layer's rows with `all_layers`; None without rescaling."""
        baseline = self._scorer.baseline  # set exactly when rescaling
        if baseline is None:
            return None
        if not self.all_layers:
            return torch.tensor([baseline.precision, baseline.recall, baseline.f1], dtype=torch.float32)
        rows = [self._scorer._baseline_for(layer) for layer in range(self._scorer._model.num_layers + 1)]
        return torch.tensor([[row.precision, row.recall, row.f1] for row in rows], dtype=torch.float32)

    @property
    def use_fast_tokenizer(self) -> bool:
        return self._use_fast_tokenizer

    @property
    def device(self) -> str:
        return str(self._scorer._model.device)

    @property
    def hash(self) -> str:
        return str(self._scorer_now().signature)

    def compute_idf(self, sents: Sequence[str]) -> None:
        """Fit idf on `sents` (bert_score's formula); later `score` calls use it when `idf=True`."""
        if self._idf_table is not None:
            warnings.warn(
                "Overwriting the previous importance weights.", BertScorePluginsWarning, stacklevel=2
            )
        self._idf_table = self._scorer.fit_idf(list(sents))

    def _scorer_now(self) -> _CoreScorer:
        if not self._idf:
            return self._scorer
        if self._idf_table is None:
            raise ArgumentError(
                "IDF weights are not computed: pass idf_sents= to BERTScorer or call compute_idf(sents) first "
                "(bert_score raises AssertionError here)"
            )
        return self._scorer.with_config(idf=self._idf_table)

    @overload
    def score(
        self,
        cands: Sequence[str],
        refs: Sequence[str] | Sequence[Sequence[str]],
        verbose: bool = ...,
        batch_size: int = ...,
        return_hash: Literal[False] = ...,
    ) -> Triple: ...
    @overload
    def score(
        self,
        cands: Sequence[str],
        refs: Sequence[str] | Sequence[Sequence[str]],
        verbose: bool = ...,
        batch_size: int = ...,
        *,
        return_hash: Literal[True],
    ) -> tuple[Triple, str]: ...
    @overload
    def score(
        self,
        cands: Sequence[str],
        refs: Sequence[str] | Sequence[Sequence[str]],
        verbose: bool = ...,
        batch_size: int = ...,
        return_hash: bool = ...,
    ) -> Triple | tuple[Triple, str]: ...

    def score(
        self,
        cands: Sequence[str],
        refs: Sequence[str] | Sequence[Sequence[str]],
        verbose: bool = False,
        batch_size: int = 64,
        return_hash: bool = False,
    ) -> Triple | tuple[Triple, str]:
        """(P, R, F) tensors (or ((P, R, F), signature)); `batch_size` has no effect here."""
        del batch_size
        triple, signature = _score(self._scorer_now(), cands, refs, verbose, self.all_layers)
        return (triple, signature) if return_hash else triple

    def plot_example(self, candidate: str, reference: str, fname: str = ""):
        """A similarity heatmap of one pair (a matplotlib Figure), saved to `fname` when given."""
        return self._scorer.plot_example(candidate, reference, path=fname or None)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(hash={self.hash}, batch_size={self.batch_size}, "
            f"nthreads={self.nthreads})"
        )


def plot_example(
    candidate: str,
    reference: str,
    model_type: str | None = None,
    num_layers: int | None = None,
    lang: str | None = None,
    rescale_with_baseline: bool = False,
    baseline_path: str | None = None,
    use_fast_tokenizer: bool = False,
    fname: str = "",
):
    """bert_score.plot_example: a similarity heatmap of one pair (a matplotlib Figure)."""
    del use_fast_tokenizer
    config = _config(
        model_type,
        num_layers,
        lang,
        idf=False,
        device=None,
        rescale_with_baseline=rescale_with_baseline,
        baseline_path=baseline_path,
    )
    return get_scorer(config).plot_example(candidate, reference, path=fname or None)

"""BERTScore as a Hugging Face `evaluate` metric: a thin adapter over the core scorer.

Users load it by path, offline:

    >>> import evaluate
    >>> from bertscore_plugins.integrations.hf_evaluate import metric_card_path
    >>> bertscore = evaluate.load(metric_card_path(), layer=4)          # settings at load time
    >>> bertscore.compute(predictions=["a cat"], references=[["a cat", "the cat"]], rescale=False)

Settings use the core's keyword names (`bertscore_plugins.setting_names()`) or upstream's `compute()`
arguments with upstream's meaning (`model_type`, `num_layers`, `lang`, `idf` as a bool or dict,
`rescale_with_baseline`, `baseline_path`, `device`, `all_layers`, `verbose`; `batch_size`, `nthreads` and
`use_fast_tokenizer` are accepted and change nothing: score_config.py's one alias table); they are fixed at load
time and may be overridden per `compute` call. `evaluate.load(path, per_row=False)` returns only the three
corpus means, which evaluate's Evaluator needs for `strategy="bootstrap"`. The scorer comes from the core's process-wide cache, one per
configuration, so a second `compute` reuses the loaded model; with `idf=True` the core fits idf on each
call's own references (upstream's module kept the first call's weights).
"""

from __future__ import annotations

import importlib.resources
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import datasets
import evaluate
import numpy as np

from bertscore_plugins.core.score_config import ScoreConfig, split_call_options
from bertscore_plugins.core.scorer import get_scorer
from bertscore_plugins.errors import InputError
from bertscore_plugins.inputs import check_pairs
from bertscore_plugins.integrations.compat import warn_packaged_model

if TYPE_CHECKING:
    from bertscore_plugins.core.scorer import BERTScorer

# Constructor arguments that `evaluate.load` / `EvaluationModule.__init__` own (not scoring settings).
EVALUATE_ARGUMENTS = (
    "config_name",
    "keep_in_memory",
    "cache_dir",
    "num_process",
    "process_id",
    "seed",
    "experiment_id",
    "hash",
    "max_concurrent_cache_files",
    "timeout",
)

#: options of one compute() call (not scoring settings): upstream's `verbose` and `all_layers`, and
#: `progress`; given to evaluate.load they become this module's defaults
CALL_OPTIONS = ("verbose", "all_layers", "progress")
#: this module's own load-time option: per_row=False returns only the three corpus means (floats), the
#: shape evaluate's Evaluator needs for strategy="bootstrap"
MODULE_OPTIONS = ("per_row",)

_DESCRIPTION = """\
BERTScore matches each token of a candidate to its most similar token of the reference by cosine
similarity of contextual embeddings, and reports precision, recall and F1. This module is exact
(bert_score 0.3.13 numbers on the same model and layer), runs offline with a packaged default model
(all-MiniLM-L6-v2, layer 4), and records a signature that says how every number was made.
"""

_CITATION = """\
@inproceedings{bert-score,
  title={BERTScore: Evaluating Text Generation with BERT},
  author={Tianyi Zhang* and Varsha Kishore* and Felix Wu* and Kilian Q. Weinberger and Yoav Artzi},
  booktitle={International Conference on Learning Representations},
  year={2020},
  url={https://openreview.net/forum?id=SkeHuCVFDr}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): candidate texts.
    references (list of str, or list of list of str): one reference, or several, per candidate.
    Any setting of `bertscore_plugins.setting_names()` (model, layer, idf, rescale, baseline_path, lang,
    max_length, long_text, window_stride, multi_ref, dtype, device, batch_tokens, chunk_pairs, ...), given
    to `evaluate.load(...)` and/or overriding it for one `compute(...)` call.
    Upstream's compute() arguments, with upstream's meaning: lang, model_type, num_layers, verbose, idf (bool
    or dict token id -> weight), device, all_layers (one list per layer), rescale_with_baseline,
    baseline_path; batch_size, nthreads, use_fast_tokenizer (accepted, no effect). progress (bool).
Returns:
    precision, recall, f1 (list of float, one per row, input order); precision_mean, recall_mean, f1_mean
    (float); signature (str: model, layer, idf, rescaling, versions); hashcode (the same string, for code
    written against the upstream module).
"""


def metric_card_path() -> str:
    """The folder of the metric card shipped inside the installed package, for `evaluate.load(path)`."""
    return str(importlib.resources.files("bertscore_plugins") / "metric_card")


def build_space(folder: str | Path) -> Path:
    """Assemble a Hub Space folder: the metric card files plus this package's source (it is not on PyPI,
    and a Space installs only requirements.txt, whose lines are all PyPI packages). Returns the folder."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    card = Path(metric_card_path())
    for item in card.iterdir():
        if item.is_file() and item.suffix != ".pyc":
            shutil.copy2(item, target / item.name)
    package = card.parent
    shutil.copytree(
        package,
        target / package.name,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return target


def _reference_lists(references: Any) -> Any:
    """One list of strings per row, so str and list rows can mix within and across add_batch calls."""
    if references is None or isinstance(references, (str, bytes)):
        return references  # let evaluate / the checks below report it
    rows = list(references)
    return [[row] if isinstance(row, str) else row for row in rows]


def _check_batch(predictions: Any, references: Any) -> None:
    """Reject bad rows before evaluate's Arrow encoding turns them into vague schema errors."""
    if predictions is None or references is None:
        return  # evaluate reports missing inputs itself
    if len(predictions) == 0 and len(references) == 0:
        raise InputError("predictions and references are empty: there is nothing to score")
    try:
        check_pairs(predictions, references)
    except InputError as error:
        message = str(error).replace("candidates", "predictions")
        raise InputError(message) from None


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BERTScorePlugins(evaluate.Metric):
    """BERTScore for `evaluate`; its module name is ``bert_score_plugins`` (snake case of the class)."""

    def __init__(self, config_name: str | None = None, **kwargs: Any) -> None:
        settings = {name: kwargs.pop(name) for name in list(kwargs) if name not in EVALUATE_ARGUMENTS}
        self.per_row = bool(settings.pop("per_row", True))
        settings, self.options = split_call_options(settings, CALL_OPTIONS)
        self.given = dict(settings)  # what the user named at load time (lang=, model_type=, ...)
        self.config = ScoreConfig().with_arguments(settings, "evaluate.load / BERTScorePlugins")
        super().__init__(config_name=config_name, **kwargs)

    def _info(self) -> evaluate.MetricInfo:
        text = datasets.Value("string", id="sequence")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features(
                    {"predictions": text, "references": datasets.Sequence(text, id="references")}
                ),
                datasets.Features({"predictions": text, "references": text}),
            ],
            codebase_urls=["https://github.com/Tiiiger/bert_score"],
            reference_urls=["https://openreview.net/forum?id=SkeHuCVFDr", "https://arxiv.org/abs/1904.09675"],
            license="MIT",
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add rows; a reference may be a string or a list of strings in any row."""
        references = _reference_lists(references)
        _check_batch(predictions, references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one row; the reference may be a string or a list of strings."""
        if isinstance(reference, str):
            reference = [reference]
        if prediction is not None and reference is not None:
            _check_batch([prediction], [reference])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions: list[str], references: list, **overrides: Any) -> dict[str, Any]:
        overrides, options = split_call_options(overrides, CALL_OPTIONS)
        options = {**self.options, **options}
        config = self.config.with_arguments(overrides, "compute()")
        given = {**self.given, **overrides}
        if (
            "lang" in given
            and not {"model", "model_type"} & given.keys()
            and (given["lang"] or "en").lower() == "en"
        ):
            # upstream's evaluate module scores lang="en" with roberta-large: say so, as the drop-in does
            warn_packaged_model("bertscore_plugins.integrations.hf_evaluate", stacklevel=4)
        progress = options.get("progress")
        if progress is None and options.get("verbose"):
            progress = True
        scorer = get_scorer(config)
        if options.get("all_layers"):  # upstream: one list per layer (0 = embeddings) in each column
            by_layer = scorer.score_layers(list(predictions), list(references), progress=progress)
            layers = sorted(by_layer)
            result: dict[str, Any] = {
                name: [getattr(by_layer[layer], name).tolist() for layer in layers] for name in _COLUMNS
            }
            signature = str(by_layer[layers[-1]].signature)
            return {**result, "signature": signature, "hashcode": signature}
        if not self.per_row:
            return {
                name: _mean(values) for name, values in self._rows(scorer, predictions, references, progress)
            }
        scores = scorer.score(list(predictions), list(references), progress=progress)
        means = scores.means()
        return {
            "precision": scores.precision.tolist(),
            "recall": scores.recall.tolist(),
            "f1": scores.f1.tolist(),
            "precision_mean": means["precision"],
            "recall_mean": means["recall"],
            "f1_mean": means["f1"],
            "signature": scores.signature,
            "hashcode": scores.signature,
        }

    def _rows(self, scorer: BERTScorer, predictions: list[str], references: list, progress: bool | None):
        """Per-row columns, memoised per (prediction, references) pair for this scorer.

        A row's score never depends on the other rows (without per-call idf), so evaluate's bootstrap, which
        calls compute() on thousands of resamples of the same rows, scores each distinct row once.
        """
        rows = [
            (prediction, tuple(refs) if not isinstance(refs, str) else (refs,))
            for prediction, refs in zip(predictions, references, strict=True)
        ]
        if scorer.config.idf is True:  # idf is fitted on each call's references: no reuse across calls
            scores = scorer.score([p for p, _ in rows], [list(r) for _, r in rows], progress=progress)
            return [(name, getattr(scores, name)) for name in _COLUMNS]
        memo = self.__dict__.setdefault("_row_memo", {})
        key = str(scorer.signature)
        if key not in memo or len(memo[key]) > 100_000:
            memo.clear()  # one configuration's rows at a time, bounded
        known = memo.setdefault(key, {})
        missing = list(dict.fromkeys(row for row in rows if row not in known))
        if missing:
            scores = scorer.score([p for p, _ in missing], [list(r) for _, r in missing], progress=progress)
            for i, row in enumerate(missing):
                known[row] = (scores.precision[i], scores.recall[i], scores.f1[i])
        return [
            (name, np.array([known[row][i] for row in rows], dtype=np.float32))
            for i, name in enumerate(_COLUMNS)
        ]


_COLUMNS = ("precision", "recall", "f1")


def _mean(values: np.ndarray) -> float:
    # float64 accumulation: a float32 sum over many rows drifts in the last digits
    return float(np.mean(values, dtype=np.float64)) if len(values) else 0.0

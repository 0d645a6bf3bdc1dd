"""BERTScore as a Hugging Face `evaluate` metric: a thin adapter over the core scorer.

Users load it by path, offline:

    >>> import evaluate
    >>> from bertscore_plugins.hf_evaluate import metric_card_path
    >>> bertscore = evaluate.load(metric_card_path(), layer=4)          # settings at load time
    >>> bertscore.compute(predictions=["a cat"], references=[["a cat", "the cat"]], rescale=False)

Settings use the core's keyword names (`bertscore_plugins.setting_names()`); they are fixed at load time and
may be overridden per `compute` call. The scorer comes from the core's process-wide cache, one per
configuration, so a second `compute` reuses the loaded model; with `idf=True` the core fits idf on each
call's own references (upstream's module kept the first call's weights).
"""

from __future__ import annotations

import importlib.resources
from typing import Any

import datasets
import evaluate

from bertscore_plugins import InputError, ScoreConfig, get_scorer, setting_names
from bertscore_plugins.inputs import check_pairs

# Constructor arguments that `evaluate.load` / `EvaluationModule.__init__` own (not scoring settings).
EVALUATE_ARGUMENTS = (
    "config_name", "keep_in_memory", "cache_dir", "num_process", "process_id", "seed", "experiment_id",
    "hash", "max_concurrent_cache_files", "timeout",
)

# Names used by evaluate's canonical `bertscore` module / bert_score, and what to use here instead.
UPSTREAM_NAMES = {
    "model_type": "model",
    "num_layers": "layer",
    "rescale_with_baseline": "rescale",
    "batch_size": "batch_tokens (a padded-token budget, not a sentence count)",
    "verbose": "nothing: progress goes through logging",
    "nthreads": "nothing: tokenization is batched by the fast tokenizer",
    "all_layers": "nothing: score one layer per configuration",
    "use_fast_tokenizer": "nothing: a fast tokenizer is always used",
}

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
Returns:
    precision, recall, f1 (list of float, one per row, input order); precision_mean, recall_mean, f1_mean
    (float); signature (str: model, layer, idf, rescaling, versions); hashcode (the same string, for code
    written against the upstream module).
"""


def metric_card_path() -> str:
    """The folder of the metric card shipped inside the installed package, for `evaluate.load(path)`."""
    return str(importlib.resources.files("bertscore_plugins") / "metric_card")


def check_settings(settings: dict[str, Any], where: str) -> None:
    """Raise TypeError for unknown setting names, listing the accepted ones (and upstream's renamings)."""
    accepted = setting_names()
    unknown = [name for name in settings if name not in accepted]
    if not unknown:
        return
    hints = [f"{name} -> {UPSTREAM_NAMES[name]}" for name in unknown if name in UPSTREAM_NAMES]
    hint = f" (upstream names: {'; '.join(hints)})" if hints else ""
    raise TypeError(
        f"{where} got unknown argument(s) {', '.join(sorted(unknown))}{hint}; accepted: {', '.join(accepted)}"
    )


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
        check_settings(settings, "evaluate.load / BERTScorePlugins")
        self.config = ScoreConfig.from_kwargs(**settings)
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
        check_settings(overrides, "compute()")
        config = self.config.replace(**overrides) if overrides else self.config
        scores = get_scorer(config).score(list(predictions), list(references))
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


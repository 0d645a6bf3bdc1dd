"""BERTScore in Arize Phoenix: similarity next to faithfulness, and the rows where they disagree.

Built on ``phoenix.evals`` and ``phoenix.client``; the Phoenix server is never imported. The scores,
labels and explanations come from the evaluation engine (``bertscore_plugins.evaluation``, which imports
no Phoenix: the names written, ``EvaluationConfig``, ``evaluate_batch``, ``Thresholds`` are imported from
there); this package gives them Phoenix's shapes and talks to the server. Its public names, each imported
from here (module under ``bertscore_plugins.integrations.phoenix``, names, what it is for; each function's
docstring is the reference)::

    evaluators            BERTScoreEvaluator, batch_evaluate_dataframe, DisagreementEvaluator
    evaluators            evaluate_rows  (a DataFrame through the pipeline, Phoenix's judge)
    groundedness          GroundednessEvaluator  (precision of the output against its context)
    offline_faithfulness  OfflineFaithfulnessEvaluator  (groundedness x fact check)
    phoenix_judge         faithfulness_judge, faithfulness_evaluator, run_judge  (Phoenix's judge)
    annotation_sink       annotation_configs, ensure_annotation_configs, log_span_annotations
    annotation_sink       disagreement_filters, project_url  (the filters and links Phoenix shows)
    gateway               project_id  (a project's id from its name)
    experiments           create_dataset, log_experiment, experiment_evaluators, experiment_url
    trace_evaluation      evaluate_project  (spans: paging, the result store, polling)
    trace_settings        TraceSettings  (which spans, how to poll)
    trace_report          EvaluationReport  (what a run did)

Helpers: ``span_source`` (reading spans, OpenInference fields), ``span_rows`` (spans as batch rows, cells
as annotations). The development server (``bertscore-plugins phoenix serve``) is
``bertscore_plugins.tools.phoenix_server``, outside this API. The names above import from the package
lazily (``pandas`` and ``phoenix.evals`` load on first use).
"""

from typing import TYPE_CHECKING, Any

# What a type checker reads (`X as X`: an explicit re-export, PEP 484); at run time each name is imported
# from its module on first use (PEP 562, below).
if TYPE_CHECKING:
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        annotation_configs as annotation_configs,
    )
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        disagreement_filters as disagreement_filters,
    )
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        ensure_annotation_configs as ensure_annotation_configs,
    )
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        log_span_annotations as log_span_annotations,
    )
    from bertscore_plugins.integrations.phoenix.annotation_sink import project_url as project_url
    from bertscore_plugins.integrations.phoenix.evaluators import BERTScoreEvaluator as BERTScoreEvaluator
    from bertscore_plugins.integrations.phoenix.evaluators import (
        DisagreementEvaluator as DisagreementEvaluator,
    )
    from bertscore_plugins.integrations.phoenix.evaluators import (
        batch_evaluate_dataframe as batch_evaluate_dataframe,
    )
    from bertscore_plugins.integrations.phoenix.evaluators import evaluate_rows as evaluate_rows
    from bertscore_plugins.integrations.phoenix.experiments import create_dataset as create_dataset
    from bertscore_plugins.integrations.phoenix.experiments import (
        experiment_evaluators as experiment_evaluators,
    )
    from bertscore_plugins.integrations.phoenix.experiments import experiment_url as experiment_url
    from bertscore_plugins.integrations.phoenix.experiments import log_experiment as log_experiment
    from bertscore_plugins.integrations.phoenix.gateway import project_id as project_id
    from bertscore_plugins.integrations.phoenix.groundedness import (
        GroundednessEvaluator as GroundednessEvaluator,
    )
    from bertscore_plugins.integrations.phoenix.offline_faithfulness import (
        OfflineFaithfulnessEvaluator as OfflineFaithfulnessEvaluator,
    )
    from bertscore_plugins.integrations.phoenix.phoenix_judge import (
        faithfulness_evaluator as faithfulness_evaluator,
    )
    from bertscore_plugins.integrations.phoenix.phoenix_judge import faithfulness_judge as faithfulness_judge
    from bertscore_plugins.integrations.phoenix.phoenix_judge import run_judge as run_judge
    from bertscore_plugins.integrations.phoenix.trace_evaluation import evaluate_project as evaluate_project
    from bertscore_plugins.integrations.phoenix.trace_report import EvaluationReport as EvaluationReport
    from bertscore_plugins.integrations.phoenix.trace_settings import TraceSettings as TraceSettings

#: module -> the public names it defines: the same imports as above, for run time (a test checks the two agree)
_HOMES = {
    f"{__name__}.annotation_sink": (
        "annotation_configs",
        "disagreement_filters",
        "ensure_annotation_configs",
        "log_span_annotations",
        "project_url",
    ),
    f"{__name__}.evaluators": (
        "BERTScoreEvaluator",
        "DisagreementEvaluator",
        "batch_evaluate_dataframe",
        "evaluate_rows",
    ),
    f"{__name__}.experiments": (
        "create_dataset",
        "experiment_evaluators",
        "experiment_url",
        "log_experiment",
    ),
    f"{__name__}.gateway": ("project_id",),
    f"{__name__}.groundedness": ("GroundednessEvaluator",),
    f"{__name__}.offline_faithfulness": ("OfflineFaithfulnessEvaluator",),
    f"{__name__}.phoenix_judge": (
        "faithfulness_evaluator",
        "faithfulness_judge",
        "run_judge",
    ),
    f"{__name__}.trace_evaluation": ("evaluate_project",),
    f"{__name__}.trace_report": ("EvaluationReport",),
    f"{__name__}.trace_settings": ("TraceSettings",),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_MODULE_OF)

if not TYPE_CHECKING:  # hidden from checkers: to them a misspelt name is an error, not Any

    def __getattr__(name: str) -> Any:
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_MODULE_OF})

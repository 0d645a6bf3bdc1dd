"""The evaluation's one configuration: thresholds, judge, annotation names and identifier, reference source.

Every row source (a DataFrame, the recipe's table, a page of Phoenix spans) is evaluated under one
:class:`EvaluationConfig`, built once (from keyword arguments, the command line or the recipe's flags),
validated once and signed: the signature names every setting that changes a result, plus the core's
`ScoreConfig`, so a stored result is reused only under the configuration that made it.

    >>> config = EvaluationConfig(similarity_threshold=0.85, judge_rows="unsettled")
    >>> config.effective_faithfulness_threshold  # no judge: the offline faithfulness' threshold
    0.5
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bertscore_plugins.core.score_config import ScoreConfig, whole_number
from bertscore_plugins.errors import SettingError
from bertscore_plugins.evaluation.names import (
    ANNOTATION_IDENTIFIER,
    DISAGREEMENT,
    GROUNDEDNESS,
    OFFLINE_FAITHFULNESS,
    SIMILARITY,
)
from bertscore_plugins.settings import document, names_of, setting, settings_of, signed_names
from bertscore_plugins.thresholds import (
    DEFAULT_GROUNDEDNESS_THRESHOLD,
    DEFAULT_SIMILARITY_THRESHOLD,
    FAITHFULNESS_THRESHOLD,
    JUDGE_THRESHOLD,
    check_threshold,
    threshold_from_text,
)

if TYPE_CHECKING:
    from bertscore_plugins.evaluation.judge import Judge

JUDGE_ROWS = ("all", "unsettled")
DISAGREEMENT_READS = ("auto", "judge", "offline")


@dataclass(frozen=True)
class EvaluationConfig:
    """How a batch of RAG rows is evaluated: similarity, groundedness, offline faithfulness, the judge,
    the disagreement. Frozen; validated on construction (`SettingError` naming the setting); see
    `signature`. The core's settings are in `score` (a `ScoreConfig`).
    """

    similarity_threshold: float = setting(
        DEFAULT_SIMILARITY_THRESHOLD,
        "F1 against the reference at or above which an answer is 'similar'",
        parse=threshold_from_text,
    )
    groundedness_threshold: float = setting(
        DEFAULT_GROUNDEDNESS_THRESHOLD,
        "precision against the context at or above which an answer is 'grounded'",
        parse=threshold_from_text,
    )
    offline_threshold: float = setting(
        FAITHFULNESS_THRESHOLD,
        "offline faithfulness at or above which an answer with no unsupported fact is 'faithful'",
        parse=threshold_from_text,
    )
    faithfulness_threshold: float | None = setting(
        None,
        "the disagreement's faithfulness threshold; None = 0.5 with a judge (it scores 0 or 1), else the "
        "offline threshold",
        parse=threshold_from_text,
    )
    thresholds_from_data: bool = setting(
        False, "set the disagreement's thresholds at the medians of this batch (not for spans: pages differ)"
    )
    judge_rows: str = setting(
        "all",
        "'unsettled': ask the judge only about rows the offline signals (groundedness and the fact "
        "check) cannot settle, and report the calls saved",
        choices=JUDGE_ROWS,
    )
    disagreement_reads: str = setting(
        "auto",
        "the faithfulness the disagreement reads when a judge runs: 'auto' (the judge's verdict, unless the "
        "judge says it was measured near chance, as the packaged local judge was: then the offline "
        "faithfulness, the verdict beside it, said once per run), 'judge' (its verdict, whatever its "
        "measured quality: a provider's judge) or 'offline' (the offline faithfulness)",
        choices=DISAGREEMENT_READS,
    )
    judge_concurrency: int = setting(4, "judge requests in flight", signed=False)
    judge_max_retries: int = setting(1, "extra judge attempts per failing row", signed=False)
    annotation_identifier: str = setting(
        ANNOTATION_IDENTIFIER,
        "the identifier our span annotations carry in Phoenix: one current annotation per span and signal "
        "(the latest configuration's, named in its metadata); Phoenix's own evaluators never replace it",
    )
    reference_key: str | None = setting(None, "the reference in a span: metadata.<key> or an attribute name")
    reference_dataset: str | None = setting(
        None, "a Phoenix dataset whose examples' expected output is the spans' reference"
    )
    example_id_key: str = setting(
        "metadata.example_id", "where a span holds its dataset example id (with reference_dataset)"
    )
    reference_field: str | None = setting(None, "the reference's key in the example output")
    similarity_name: str = setting(SIMILARITY, "annotation name of the similarity", flag=None)
    groundedness_name: str = setting(GROUNDEDNESS, "annotation name of the groundedness", flag=None)
    offline_name: str = setting(OFFLINE_FAITHFULNESS, "annotation name of the offline signal", flag=None)
    disagreement_name: str = setting(DISAGREEMENT, "annotation name of the disagreement", flag=None)
    judge: Judge | None = setting(
        None,
        "the faithfulness judge (a `Judge`: rows in, verdicts out; Phoenix's FaithfulnessEvaluator is "
        "`bertscore_plugins.integrations.phoenix.faithfulness_judge(llm)`); None = no judge, the offline faithfulness "
        "is the faithfulness signal",
        flag=None,
    )
    score: ScoreConfig = field(default_factory=ScoreConfig)

    def __post_init__(self) -> None:
        _check(self)

    # -- derived --------------------------------------------------------------------------------------

    @property
    def faithfulness_name(self) -> str:
        """The faithfulness signal the disagreement reads: the judge's name (unless ``disagreement_reads``
        is "offline"), else the offline signal's."""
        judge = self.judge
        return judge.name if judge is not None and self.reads_judge else self.offline_name

    @property
    def reads_judge(self) -> bool:
        """Whether the disagreement reads the judge's verdict: "judge", or "auto" with a judge not measured
        near chance (:func:`judge_near_chance`)."""
        if self.judge is None or self.disagreement_reads == "offline":
            return False
        return self.disagreement_reads == "judge" or not judge_near_chance(self.judge)

    @property
    def effective_faithfulness_threshold(self) -> float:
        if self.faithfulness_threshold is not None:
            return self.faithfulness_threshold
        return JUDGE_THRESHOLD if self.reads_judge else self.offline_threshold

    @property
    def names(self) -> tuple[str, ...]:
        """Every annotation name this configuration writes."""
        judge = (self.judge.name,) if self.judge is not None else ()
        return (
            self.similarity_name,
            self.groundedness_name,
            self.offline_name,
            *judge,
            self.disagreement_name,
        )

    @property
    def judge_model(self) -> str | None:
        """``provider/model`` of the judge's LLM (what the signature records of it)."""
        return None if self.judge is None else (self.judge.model or "?")

    @property
    def signature(self) -> str:
        """Every signed setting of this configuration and of its `ScoreConfig`, as one line."""
        ours = [f"{name}={_signed_value(self, name)}" for name in signed_names(EvaluationConfig)]
        core = [f"{name}={getattr(self.score, name)!r}" for name in signed_names(ScoreConfig)]
        from bertscore_plugins.faithfulness import signature as offline_signature

        return "evaluation:" + "|".join(ours) + " score:" + "|".join(core) + " " + offline_signature()

    def configuration_id(self, scorer_signature: str) -> str:
        """A short stable id of this configuration with the scorer that runs it (model digest included)."""
        text = f"{self.signature} scorer:{scorer_signature}"
        return "cfg-" + hashlib.sha256(text.encode()).hexdigest()[:16]

    def replace(self, **changes: Any) -> EvaluationConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_kwargs(cls, score: ScoreConfig | None = None, **kwargs: Any) -> EvaluationConfig:
        """From keyword arguments: this class's settings, and the core's (into `score`); unknown names
        raise TypeError listing the accepted ones."""
        ours = {name: value for name, value in kwargs.items() if name in names_of(cls)}
        core = {name: value for name, value in kwargs.items() if name not in ours}
        # the one name check (config.ScoreConfig.with_arguments), listing this class's settings too
        score = (score or ScoreConfig()).with_arguments(core, "EvaluationConfig", also=names_of(cls))
        return cls(score=score, **ours)


EvaluationConfig.__doc__ = (EvaluationConfig.__doc__ or "") + document(EvaluationConfig)


def judge_near_chance(judge: Judge) -> bool:
    """Whether ``judge`` says its measured quality is near chance (its ``near_chance`` attribute: the
    packaged local judge ranks development summaries at ROC-AUC about 0.5, benchmarks/QUALITY.md section
    9). A judge that says nothing is taken at its word: a provider's model is read."""
    return getattr(judge, "near_chance", False) is True


def _signed_value(config: EvaluationConfig, name: str) -> str | None:
    if name == "judge":
        return config.judge_model
    return repr(getattr(config, name))


def _check(config: EvaluationConfig) -> None:
    """Check every setting once; raise SettingError naming the bad one."""
    for name in ("similarity_threshold", "groundedness_threshold", "offline_threshold"):
        object.__setattr__(config, name, check_threshold(name, getattr(config, name)))
    if config.faithfulness_threshold is not None:
        threshold = check_threshold("faithfulness_threshold", config.faithfulness_threshold)
        object.__setattr__(config, "faithfulness_threshold", threshold)
    if type(config.thresholds_from_data) is not bool:
        raise SettingError("thresholds_from_data", "thresholds_from_data must be True or False")
    if config.judge_rows not in JUDGE_ROWS:
        raise SettingError("judge_rows", f"judge_rows must be one of {JUDGE_ROWS}, got {config.judge_rows!r}")
    if config.disagreement_reads not in DISAGREEMENT_READS:
        raise SettingError(
            "disagreement_reads",
            f"disagreement_reads must be one of {DISAGREEMENT_READS}, got {config.disagreement_reads!r}",
        )
    for name, smallest in (("judge_concurrency", 1), ("judge_max_retries", 0)):
        whole = whole_number(name, getattr(config, name), smallest, f"a whole number of at least {smallest}")
        object.__setattr__(config, name, whole)
    _check_texts(config)
    if config.reference_key and config.reference_dataset:
        raise SettingError("reference_key", "give reference_key or reference_dataset, not both")
    if not isinstance(config.score, ScoreConfig):
        raise SettingError("score", f"score must be a ScoreConfig, got {type(config.score).__name__}")
    from bertscore_plugins.evaluation.judge import is_judge  # a judge's cells: only where one is given

    if config.judge is not None and not is_judge(config.judge):
        raise SettingError(
            "judge",
            f"judge must be a Judge (a name, a model and verdicts(rows)), got {type(config.judge).__name__}; "
            "for Phoenix's FaithfulnessEvaluator with an LLM use "
            "bertscore_plugins.integrations.phoenix.faithfulness_judge(llm)",
        )
    names = config.names
    if len(set(names)) != len(names):
        raise SettingError("disagreement_name", f"annotation names must differ, got {list(names)}")


def _check_texts(config: EvaluationConfig) -> None:
    optional = {"reference_key", "reference_dataset", "reference_field"}
    for described in settings_of(EvaluationConfig):
        if described.type.split("|")[0].strip() != "str":
            continue
        value = getattr(config, described.name)
        if value is None and described.name in optional:
            continue
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            raise SettingError(
                described.name, f"{described.name} must be a non-empty one-line text, got {value!r}"
            )


def evaluation_config(config: EvaluationConfig | None, settings: Mapping[str, Any]) -> EvaluationConfig:
    """``config`` with ``settings`` applied (this class's names and the core's), or one built from them."""
    if config is None:
        return EvaluationConfig.from_kwargs(**settings)
    if not settings:
        return config
    return EvaluationConfig.from_kwargs(score=config.score, **{**_own_values(config), **settings})


def _own_values(config: EvaluationConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in names_of(EvaluationConfig)}

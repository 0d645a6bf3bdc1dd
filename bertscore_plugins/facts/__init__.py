"""The fact check: does the source carry each fact of an English output (numbers, dates, names, negations)?

Plain text analysis, no scorer and no model: ``extract`` finds an output's facts; ``check_pair`` asks
whether the context carries each, guided by an alignment when one is given (the core's ``Explanation`` of
output against source: which source words each output word matched). The offline faithfulness signal that
combines this with groundedness, and runs the scorer, is ``bertscore_plugins.faithfulness``.

    >>> check_pair("Discharged on Thursday.", "He was discharged on Tuesday.").explanation
    'Thursday: context says Tuesday'
"""

from bertscore_plugins import _moved
from bertscore_plugins.facts.extract import Fact, extract
from bertscore_plugins.facts.support import (
    NOT_CHECKED,
    SUPPORTED,
    UNSUPPORTED,
    FactCheck,
    Finding,
    check_explanation,
    check_extracted,
    check_pair,
)

__all__ = [
    "NOT_CHECKED",
    "SUPPORTED",
    "UNSUPPORTED",
    "Fact",
    "FactCheck",
    "Finding",
    "check_explanation",
    "check_extracted",
    "check_pair",
    "extract",
]


def __getattr__(name: str):  # the offline signal's names before 0.2 (now in faithfulness/), with a warning
    return _moved.moved_name(__name__, name)

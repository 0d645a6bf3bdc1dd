"""The fact check: does the source carry each fact of an English output (numbers, dates, names, negations)?

Plain text analysis, no scorer and no model: ``extract`` finds an output's facts; ``check_pair`` asks
whether the context carries each, guided by an alignment when one is given (the core's ``Explanation`` of
output against source: which source words each output word matched). The offline faithfulness signal that
combines this with groundedness, and runs the scorer, is ``bertscore_plugins.faithfulness``.

    >>> check_pair("Discharged on Thursday.", "He was discharged on Tuesday.").explanation
    'Thursday: context says Tuesday'
"""

from bertscore_plugins.facts.extract import extract
from bertscore_plugins.facts.findings import NOT_CHECKED, SUPPORTED, UNSUPPORTED, FactCheck, Finding
from bertscore_plugins.facts.support import check_explanation, check_extracted, check_pair
from bertscore_plugins.facts.text import Fact

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

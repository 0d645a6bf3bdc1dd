"""Every threshold and quantile a user sets, with its default and its one check.

Similarity (F1 against a reference), groundedness (precision against the context), the offline
faithfulness score, the disagreement's thresholds and the quantiles that set them from data all live in [0, 1]:
a threshold outside it labels every row the same way, and NaN never compares. Every door (the Python API, the
DataFrame functions, the Phoenix evaluators, trace evaluation, the recipes, the command line) checks a
threshold here, so a bad one is refused with the same message wherever it is given; a flag's text reaches the
check through :func:`threshold_from_text`, so "--threshold True" is refused in the same words as ``True``.

    >>> check_threshold("threshold", 0.85)
    0.85
    >>> check_threshold("threshold", float("nan"))  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    SettingError: threshold must be a finite number from 0 to 1, got nan
"""

from __future__ import annotations

import math
import numbers

from bertscore_plugins.errors import SettingError
from bertscore_plugins.settings import as_float, shown

#: F1 at or above which an output counts as "similar" (packaged MiniLM, layer 4, no rescaling: unrescaled
#: BERTScore sits high for any fluent English pair, so the useful threshold is high too)
DEFAULT_SIMILARITY_THRESHOLD = 0.9
#: BERTScore precision against the context at or above which an output counts as grounded (packaged
#: MiniLM, layer 4, unrescaled)
DEFAULT_GROUNDEDNESS_THRESHOLD = 0.8
#: the offline faithfulness score at or above which a row (with every fact carried) is "faithful": the
#: boundary between the halves of faithfulness.combination.score, so a row is faithful when vouched for
FAITHFULNESS_THRESHOLD = 0.5
#: a judge scores 1.0 (faithful) or 0.0 (unfaithful): 0.5 splits them
JUDGE_THRESHOLD = 0.5

EXPECTED = "a finite number from 0 to 1"


def check_threshold(name: str, value: object) -> float:
    """``value`` as a float when it is a real, finite number in [0, 1] (not a bool, not a string);
    ``SettingError`` naming ``name`` otherwise: "threshold must be a finite number from 0 to 1, got nan"."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or type(value).__name__ == "bool_":
        raise SettingError(name, f"{name} must be {EXPECTED}, got {type(value).__name__} {shown(value)}")
    number = as_float(value)  # 10**400 (an int or a Fraction) is no float: refused here, by name
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise SettingError(name, f"{name} must be {EXPECTED}, got {shown(value)}")
    return number


def threshold_from_text(text: str) -> float | str:
    """A threshold's command-line text as the number it spells ("0.85" -> 0.85, "nan" -> nan), or the text itself
    when it spells none ("True"): :func:`check_threshold` then refuses it naming the setting, as it refuses the
    value given in Python, instead of argparse's "invalid float value"."""
    try:
        return float(text)
    except ValueError:
        return text

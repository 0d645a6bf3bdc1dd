"""What a user installs: a wheel with py.typed, LICENSE and the metric card, working offline in a clean
virtual environment, and a Hub Space folder whose requirements install from PyPI packages only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
#: the tests run with PYTHONPATH at the checkout; the clean environment must not see it
CLEAN_ENV = {**os.environ, "PYTHONPATH": ""}


def _build_wheel(out: Path) -> Path:
    try:
        import setuptools

        offline = tuple(int(part) for part in setuptools.__version__.split(".")[:1]) >= (77,)
    except ImportError:
        offline = False
    command = [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(out)]
    subprocess.run(command + (["--no-build-isolation"] if offline else []), check=True, cwd=out)
    [wheel] = out.glob("bertscore_plugins-*.whl")
    return wheel


def _pip_install(python: Path, *args: str) -> None:
    """The running pip installing into `python`'s venv, quietly, never reaching an index."""
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index", *args]
    subprocess.run(command, check=True, env=CLEAN_ENV)


def _clean_venv(folder: Path) -> Path:
    """A venv with nothing of this project in it; the running environment's packages, except this one,
    are visible through a .pth file (no index is reached: the machine may be offline)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    deps = folder / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name.lower()
        if name.startswith(("bertscore_plugins", "__editable__")) or name.endswith(".pth"):
            continue
        (deps / entry.name).symlink_to(entry)
    (site / "running_environment.pth").write_text(str(deps) + "\n")
    return python


def test_wheel_installs_into_a_clean_venv_and_the_card_loads_offline(tmp_path):
    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "bertscore_plugins/py.typed" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert (
        "bertscore_plugins/metric_card/metric_card.py" in names
        and "bertscore_plugins/integrations/compat.py" in names
    )
    assert "bertscore_plugins/faithfulness/weights.json" in names  # the offline faithfulness's combination
    # `make test` caches bytecode in the checkout; none of it goes into the wheel
    assert not [name for name in names if name.endswith(".pyc") or "__pycache__" in name]

    python = _clean_venv(tmp_path / "venv")
    _pip_install(python, "--no-deps", str(wheel))
    script = (
        "import json, evaluate, bertscore_plugins\n"
        "from bertscore_plugins.integrations.hf_evaluate import metric_card_path\n"
        "module = evaluate.load(metric_card_path())\n"
        "result = module.compute(predictions=['The cat sat.'], references=['A cat sat.'])\n"
        "print(json.dumps({'file': bertscore_plugins.__file__, 'card': metric_card_path(), 'f1': result['f1']}))\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "PYTHONPATH": ""}
    run = subprocess.run(
        [str(python), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path, env=env
    )
    report = json.loads(run.stdout.strip().splitlines()[-1])
    venv = str(tmp_path / "venv")
    assert report["file"].startswith(venv) and report["card"].startswith(venv)
    from bertscore_plugins import get_scorer

    assert report["f1"] == pytest.approx(
        get_scorer().score(["The cat sat."], ["A cat sat."]).f1.tolist(), abs=1e-6
    )


def test_space_folder_requirements_install_from_pypi_packages(tmp_path):
    from bertscore_plugins.integrations.hf_evaluate import build_space

    space = build_space(tmp_path / "space")
    assert {"app.py", "bert_score_plugins.py", "requirements.txt", "README.md"} <= {
        p.name for p in space.iterdir()
    }
    assert (space / "bertscore_plugins" / "integrations" / "hf_evaluate.py").is_file()
    python = _clean_venv(tmp_path / "venv")
    # every requirement is satisfied by installed PyPI distributions (no index reached, no local path)
    _pip_install(python, "--dry-run", "-r", str(space / "requirements.txt"))
    # and the Space's loading script finds the metric from the copied source, as it would on the Hub
    script = (
        "import bert_score_plugins, bertscore_plugins; "
        "print(bert_score_plugins.BERTScorePlugins.__name__, bertscore_plugins.__file__)"
    )
    run = subprocess.run(
        [str(python), "-c", script],
        check=True,
        capture_output=True,
        text=True,
        cwd=space,
        env={**os.environ, "PYTHONPATH": ""},
    )
    name, origin = run.stdout.split()
    assert name == "BERTScorePlugins" and origin.startswith(str(space))

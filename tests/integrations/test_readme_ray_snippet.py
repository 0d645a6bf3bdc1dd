"""The README's Ray snippet runs as written on a CPU-only machine and scores its rows, and the Ray it
starts keeps every server on loopback, as the project's own Ray tests do (a plain `ray.init()` listens on
every interface). The documentation's block runner skips this block (it is marked); this file runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.docs.blocks import Block, code_blocks

REPO = Path(__file__).resolve().parents[2]
LOOPBACK = {"127.0.0.1", "::ffff:127.0.0.1", "::1"}

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
    code = readme_ray_block().code
    # two CPUs whatever the machine has: the actor takes one, Ray's read and write tasks the other
    script = tmp_path / "snippet.py"
    script.write_text(code.replace("ray.init(", "ray.init(num_cpus=2, ", 1) + PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}  # as a user's shell has it
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "PYTHONPATH": str(REPO), "RAY_worker_niceness": "0", "HF_HUB_OFFLINE": "1"},
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.strip().splitlines()
    from bertscore_plugins import score

    expected = score(["A cat sat."], ["The cat sat on the mat."]).f1[0]
    numbers = [line for line in printed if re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", line.strip())]
    assert float(numbers[-1]) == pytest.approx(float(expected), abs=1e-6)  # the snippet's print
    result = json.loads(printed[-1])
    assert result["nodes"] == ["127.0.0.1"]
    assert result["listening"] and set(result["listening"]) <= LOOPBACK, result
    assert result["left"] == 0

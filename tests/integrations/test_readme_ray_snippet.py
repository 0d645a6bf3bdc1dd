"""The README's Ray snippet, run as written up to its `ray.init(...)`, keeps every Ray server on
loopback, as the project's own Ray tests do (a plain `ray.init()` listens on every interface)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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


def snippet_until_init(readme: str) -> str:
    """The Python lines of the README's Ray section, up to and including `ray.init(...)`."""
    section = readme.split("## Bigger than one machine", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    lines = code.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("ray.init("))
    return "\n".join(lines[: end + 1]) + "\n"


def test_the_snippet_calls_ray_init_after_setting_single_machine_mode():
    snippet = snippet_until_init((REPO / "README.md").read_text(encoding="utf-8"))
    assert snippet.index("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") < snippet.index("import ray")
    assert "include_dashboard=False" in snippet


@pytest.mark.slow
def test_the_readme_ray_snippet_listens_on_loopback_only(tmp_path):
    pytest.importorskip("ray")
    snippet = snippet_until_init((REPO / "README.md").read_text(encoding="utf-8"))
    script = tmp_path / "snippet.py"
    script.write_text(snippet.replace("ray.init(", "ray.init(num_cpus=1, ", 1) + PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}  # as a user's shell has it
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "PYTHONPATH": str(REPO), "RAY_worker_niceness": "0"},
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["nodes"] == ["127.0.0.1"]
    assert result["listening"] and set(result["listening"]) <= LOOPBACK, result
    assert result["left"] == 0

"""Runs one contender in a fresh subprocess and watches its memory.

Each run gets its own process so peak RSS (the child's VmHWM) belongs to that run alone. The parent
polls the child's VmRSS as a safety valve: a run that passes `rss_cap_mib` is stopped (by its process
id) and reported as such instead of exhausting a shared machine's memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONTENDER_SCRIPT = Path(__file__).resolve().parent / "contenders.py"


def _rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def available_memory_mib() -> float | None:
    """MemAvailable from /proc/meminfo in MiB (None where /proc is absent)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_contender(
    spec: dict, rss_cap_mib: float | None = None, timeout_s: float | None = None, in_process: bool = False
) -> dict:
    """Run `spec` (see contenders.py) in a new Python process; return its result dict.

    On failure the dict has an "error" key (the child's last stderr lines, "rss cap exceeded", or
    "timed out") and no timings. `in_process=True` runs it in this process instead (fast, for smoke
    tests: peak RSS is then this process's, shared by every run, and no cap or timeout applies).
    """
    if in_process:
        if spec.get("source"):
            raise ValueError("a spec with its own source runs in its own process, not in_process")
        import contenders

        try:
            return contenders.run(spec)
        except Exception as error:
            return {"error": f"{type(error).__name__}: {error}"}
    with tempfile.TemporaryDirectory(prefix="bench-run-") as folder:
        spec_path, result_path = Path(folder) / "spec.json", Path(folder) / "result.json"
        spec_path.write_text(json.dumps(spec))
        stderr_path = Path(folder) / "stderr.txt"
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore")
        if spec.get("source"):  # another revision of the package, found before the installed one
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [spec["source"], env.get("PYTHONPATH")]))
        with open(stderr_path, "w") as stderr:
            child = subprocess.Popen(
                [sys.executable, str(CONTENDER_SCRIPT), str(spec_path), str(result_path)],
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env=env,
            )
            started = time.monotonic()
            seen_peak, error = 0.0, None
            try:
                while child.poll() is None:
                    rss = _rss_mib(child.pid)
                    if rss is not None:
                        seen_peak = max(seen_peak, rss)
                    if rss_cap_mib is not None and rss is not None and rss > rss_cap_mib:
                        error = f"rss cap exceeded ({rss:.0f} MiB > {rss_cap_mib:.0f} MiB); run stopped"
                    elif timeout_s is not None and time.monotonic() - started > timeout_s:
                        error = f"timed out after {timeout_s:.0f} s; run stopped"
                    if error:
                        break
                    time.sleep(0.05)
            finally:  # stopped by the cap, the timeout, or the parent being stopped: the child goes too
                if child.poll() is None:
                    child.kill()
                    child.wait()
        wall = time.monotonic() - started
        if error is None and child.returncode != 0:
            tail = stderr_path.read_text(errors="replace").strip().splitlines()[-15:]
            error = f"exit code {child.returncode}: " + "\n".join(tail)
        if error is not None:
            return {"error": error, "seen_peak_rss_mib": seen_peak, "process_wall_s": wall}
        result = json.loads(result_path.read_text())
        result["process_wall_s"] = wall
        return result

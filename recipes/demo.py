"""``make demo``: start a local Phoenix, run the disagreement recipe on the demo data, show where to look.

    python -m recipes.demo               # keeps Phoenix up until Ctrl-C
    DEMO_ONCE=1 python -m recipes.demo   # exits after the run (CI, smoke checks)

Phoenix runs from its own virtual environment (created on first use, which takes a few minutes) on
127.0.0.1 only, with its SQLite database in ``runs/demo/phoenix``. The LLM judge is the local one by
default: Gemma 3 270M on transformers (the judge extra), started on 127.0.0.1 for the run and stopped after it,
reached through the same variables a provider is (``BERTSCORE_JUDGE_BASE_URL`` / ``_MODEL``). With
``BERTSCORE_JUDGE_MODEL`` already set, that judge is used instead; ``DEMO_JUDGE=none`` runs without a judge
(the offline faithfulness stands in). Extra arguments go to ``recipes.disagreement``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import sys
import time
from pathlib import Path

from recipes import disagreement

DEMO_DATA = Path(__file__).with_name("demo_data.jsonl")
DEMO_PROJECT = "bertscore-demo"


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Start Phoenix, run the recipe, print where to look; wait for Ctrl-C unless DEMO_ONCE=1."""
    parser = argparse.ArgumentParser(prog="python -m recipes.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=6006, help="Phoenix HTTP port (a free one if taken)")
    parser.add_argument("--out", default="runs/demo", help="output folder (default runs/demo)")
    args, recipe_args = parser.parse_known_args(argv)
    once = os.environ.get("DEMO_ONCE", "") not in ("", "0")

    from bertscore_plugins.tools.phoenix_server import PhoenixServer

    out = Path(args.out)
    port = args.port if _port_is_free(args.port) else None
    # Phoenix runs in its own session (so Ctrl-C reaches only us): turn SIGTERM into a normal exit so the
    # `with` block below stops the server instead of leaving it running.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    print(
        "Starting Phoenix on 127.0.0.1 (the first start installs it into its own environment: minutes) ...",
        flush=True,
    )
    with PhoenixServer(port=port, workdir=out / "phoenix") as server, _local_judge(out) as judge_line:
        print(f"Phoenix is up at {server.base_url} (pid {server.pid})", flush=True)
        print(judge_line, flush=True)
        code = disagreement.main(
            [
                str(DEMO_DATA),
                "--out",
                str(out / "recipe"),
                "--phoenix-url",
                server.base_url,
                "--project",
                DEMO_PROJECT,
                # the judge sees only the rows the offline signals cannot settle; the local judge ranks the
                # development sets near chance (QUALITY.md section 9), so it never decides the quadrants: the
                # offline faithfulness does, the report shows the judge's verdict beside it, and the run says so
                "--judge-rows",
                "unsettled",
                *recipe_args,
            ]
        )
        print(
            f"\nWhere to look:\n  Phoenix:     {server.base_url}  (project {DEMO_PROJECT!r}, and Datasets)\n"
            f"  HTML report: {out / 'recipe' / 'report' / disagreement.HTML_NAME}\n"
            f"  scatter:     {out / 'recipe' / 'report' / disagreement.PNG_NAME}",
            flush=True,
        )
        if code != disagreement.EXIT_OK or once:
            return code
        print("\nPhoenix stays up; press Ctrl-C to stop it.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("\nStopping Phoenix ...", flush=True)
    return code


@contextlib.contextmanager
def _local_judge(out: Path):
    """The demo's judge for the run: the local server (stopped by pid afterwards), the user's own, or none."""
    if os.environ.get("DEMO_JUDGE", "").strip().lower() == "none":
        yield "No LLM judge (DEMO_JUDGE=none): the offline faithfulness is the faithfulness signal."
        return
    if os.environ.get("BERTSCORE_JUDGE_MODEL", "").strip():
        yield f"LLM judge: {os.environ['BERTSCORE_JUDGE_MODEL']} (from BERTSCORE_JUDGE_*)"
        return
    from bertscore_plugins.judge.server import JudgeServer

    print("Starting the local LLM judge (Gemma 3 270M on transformers, 127.0.0.1) ...", flush=True)
    with JudgeServer(workdir=out / "judge") as server:
        previous = {name: os.environ.get(name) for name in server.environment()}
        os.environ.update(server.environment())
        try:
            yield f"LLM judge: the local {server.environment()['BERTSCORE_JUDGE_MODEL']} at {server.base_url} (pid {server.pid})"
        finally:
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


if __name__ == "__main__":
    sys.exit(main())

"""``make demo``: start a local Phoenix, run the disagreement recipe on the demo data, show where to look.

    python -m recipes.demo               # keeps Phoenix up until Ctrl-C
    DEMO_ONCE=1 python -m recipes.demo   # exits after the run (CI, smoke checks)

Phoenix runs from its own virtual environment (created on first use, which takes a few minutes) on
127.0.0.1 only, with its SQLite database in ``runs/demo/phoenix``. With ``BERTSCORE_JUDGE_*`` (or
``OPENAI_API_KEY`` + ``BERTSCORE_JUDGE_MODEL``) set, Phoenix's LLM faithfulness judge scores the rows;
without, groundedness combined with the fact check stands in for it. Extra arguments go to ``recipes.disagreement``.
"""

from __future__ import annotations

import argparse
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
        "Starting Phoenix on 127.0.0.1 (its first start creates .phoenix-venv and can take minutes) ...",
        flush=True,
    )
    with PhoenixServer(port=port, workdir=out / "phoenix") as server:
        print(f"Phoenix is up at {server.base_url} (pid {server.pid})", flush=True)
        code = disagreement.main(
            [
                str(DEMO_DATA),
                "--out",
                str(out / "recipe"),
                "--phoenix-url",
                server.base_url,
                "--project",
                DEMO_PROJECT,
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


if __name__ == "__main__":
    sys.exit(main())

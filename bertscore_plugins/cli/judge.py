"""`bertscore-plugins judge serve|stop`: the local LLM judge (bertscore_plugins.judge.server), on loopback."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from bertscore_plugins.cli.conventions import sigterm_as_ctrl_c


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="the local LLM judge: an OpenAI-compatible server on 127.0.0.1 (serve), or stop one (stop)",
        description="The local faithfulness judge: Gemma 3 270M (the judge extra, on transformers) behind an "
        "OpenAI-compatible /v1 on 127.0.0.1, the same door a provider is. `serve` prints the variables that "
        "point the judge at it and runs until Ctrl-C or SIGTERM; `stop` stops the server a pid file names.",
    )
    actions = parser.add_subparsers(dest="judge_command", metavar="ACTION")
    serve = actions.add_parser("serve", help="start the local judge and keep it up until Ctrl-C")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free one)")
    serve.add_argument("--host", default="127.0.0.1", help="a loopback address: 127.0.0.1 (default) or ::1")
    serve.add_argument(
        "--workdir",
        default=None,
        help="pid file and log (default: judge-server in the cache home, ~/.cache/bertscore-plugins)",
    )
    serve.add_argument("--threads", type=int, default=None, help="CPU threads (default: every core)")
    serve.add_argument(
        "--context-tokens", type=int, default=None, help="the model's window in tokens (default 2048)"
    )
    stop = actions.add_parser("stop", help="stop the local judge a pid file names")
    stop.add_argument(
        "--workdir",
        default=None,
        help="where its pid file is (default: judge-server in the cache home, ~/.cache/bertscore-plugins)",
    )
    parser.set_defaults(func=run)
    serve.set_defaults(func=run)
    stop.set_defaults(func=run)


@sigterm_as_ctrl_c
def run(args: argparse.Namespace) -> int:
    from bertscore_plugins.errors import UsageError
    from bertscore_plugins.judge.local_model import quality_line
    from bertscore_plugins.judge.prompt import CONTEXT_TOKENS
    from bertscore_plugins.judge.server import JudgeServer, stop_recorded

    action = getattr(args, "judge_command", None)
    if action == "stop":
        pid = stop_recorded(args.workdir)
        print(f"stopped the judge server (pid {pid})" if pid else "no judge server was running")
        return 0
    if action != "serve":
        raise UsageError("usage: bertscore-plugins judge serve [--port N] | judge stop")
    for name in ("port", "threads", "context_tokens"):
        value = getattr(args, name)
        if value is not None and not (0 <= value <= 65535 if name == "port" else value >= 1):
            raise UsageError(f"--{name.replace('_', '-')} is out of range: {value}")
    server = JudgeServer(
        port=args.port or None,
        host=args.host,
        workdir=args.workdir,
        threads=args.threads,
        context_tokens=args.context_tokens or CONTEXT_TOKENS,
    )
    started = time.perf_counter()
    server.start()  # JudgeServerError (a busy port, a live server, a missing extra): one line, exit 2
    print(
        f"The local judge is up in {time.perf_counter() - started:.1f} s (pid {server.pid}). Point the judge at it:"
    )
    for name, value in server.environment().items():
        print(f"  export {name}={value}")
    print(quality_line())
    print(f"log: {server.log_path}\nPress Ctrl-C to stop.", flush=True)
    try:
        while server.process is not None and server.process.poll() is None:
            time.sleep(0.5)
        code = server.process.returncode if server.process is not None else None
        if code == 0:  # it exits 0 only when SIGTERM shut it down: `judge stop` (or a kill by pid)
            print(f"the judge server (pid {server.pid}) was stopped; judge serve ends", flush=True)
            return 0
        print(f"the judge server exited on its own (code {code}); log: {server.log_path}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        server.stop()

"""`bertscore-plugins phoenix serve`: a local Phoenix server on 127.0.0.1 until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "phoenix",
        help="run a local Arize Phoenix server (dashboard for the Phoenix integration)",
        description="Arize Phoenix helpers. The server runs from its own virtual environment "
        "(.phoenix-venv or $BERTSCORE_PHOENIX_VENV, created on first use) and listens on 127.0.0.1 only.",
    )
    actions = parser.add_subparsers(dest="phoenix_command", metavar="ACTION")
    serve = actions.add_parser(
        "serve",
        help="start Phoenix on 127.0.0.1 and keep it up until Ctrl-C",
        description="Start Phoenix (HTTP and OTLP gRPC on 127.0.0.1; SQLite in --workdir unless "
        "--database-url) and keep it running until Ctrl-C or SIGTERM; then stop it and remove its PID files.",
    )
    serve.add_argument(
        "--port", type=int, default=6006, help="HTTP port: UI, REST, OTLP/HTTP (default 6006; 0 = any free)"
    )
    serve.add_argument(
        "--grpc-port", type=int, default=4317, help="OTLP gRPC port (default 4317; 0 = any free)"
    )
    serve.add_argument(
        "--workdir",
        default=None,
        help="working folder: SQLite database, log, PID file (default .phoenix-data or "
        "$BERTSCORE_PHOENIX_WORKDIR)",
    )
    serve.add_argument(
        "--database-url",
        default=None,
        help="postgresql://user:password@host/db instead of SQLite in the working folder",
    )
    serve.add_argument("--venv", default=None, help="Phoenix virtual environment (default .phoenix-venv)")
    serve.add_argument("--startup-timeout", type=float, default=240.0, help="seconds to wait for /healthz")
    parser.set_defaults(func=run)
    serve.set_defaults(func=run)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    if getattr(args, "phoenix_command", None) != "serve":
        print(
            "usage: bertscore-plugins phoenix serve [--port N --grpc-port N --workdir DIR --database-url URL]",
            file=sys.stderr,
        )
        return 2
    from bertscore_plugins.phoenix.server import PhoenixServer, PhoenixServerError

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    server = PhoenixServer(
        port=args.port or None,
        grpc_port=args.grpc_port or None,
        workdir=args.workdir,
        database_url=args.database_url,
        venv=args.venv,
        startup_timeout=args.startup_timeout,
    )
    # SIGTERM ends the wait below like Ctrl-C does, so the server is always stopped by pid.
    signal.signal(signal.SIGTERM, _interrupt)
    started = time.perf_counter()
    try:
        server.start()
    except (PhoenixServerError, ValueError) as error:
        print(f"phoenix serve: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        server.stop()
        return 130
    print(f"Phoenix {server.version()} is up in {time.perf_counter() - started:.0f} s (pid {server.pid})")
    print(f"  UI / REST / GraphQL: {server.base_url}")
    print(f"  OTLP HTTP:           {server.otlp_http_endpoint}")
    print(f"  OTLP gRPC:           {server.host}:{server.grpc_port}")
    print(f"  data:                {args.database_url or server.workdir / 'phoenix.db'}")
    print(f"  log:                 {server.log_path}")
    print("Press Ctrl-C to stop.", flush=True)
    try:
        code = server.wait()
        print(f"Phoenix exited on its own (code {code}); log: {server.log_path}", file=sys.stderr)
        server.stop()
        return 1
    except KeyboardInterrupt:
        print("stopping Phoenix ...", file=sys.stderr)
        server.stop()
        return 0

"""`bertscore-plugins phoenix serve|evaluate`: a local Phoenix server; annotate a project's traces."""

from __future__ import annotations

import argparse
import functools
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable

from bertscore_plugins.commands.common import add_model_arguments, check_output_path, config_from_args
from bertscore_plugins.commands.conventions import add_output, seconds_between, write_result


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "phoenix",
        help="Arize Phoenix: annotate a project's traces (evaluate), or run a local server (serve)",
        description="Arize Phoenix helpers. `evaluate` annotates the traces of an instrumented application; "
        "`serve` runs a development server. The server runs from its own virtual environment "
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
    _register_evaluate(actions)


def _register_evaluate(actions) -> None:
    evaluate = actions.add_parser(
        "evaluate",
        help="annotate a project's traces: groundedness, similarity, faithfulness judge, disagreement",
        description="Read the spans of a Phoenix project (page by page), evaluate the root span of each "
        "trace (or spans of --span-kind), and log span annotations back. Incremental: spans already "
        "annotated with this configuration are skipped; results are kept in a local store before they are "
        "logged, so an interrupted run is completed by the next one without rescoring. The faithfulness "
        "judge runs when BERTSCORE_JUDGE_MODEL (and friends) are set.",
    )
    evaluate.add_argument("--project", required=True, help="Phoenix project name or id")
    evaluate.add_argument(
        "--base-url",
        default=None,
        help="Phoenix URL (default: $PHOENIX_COLLECTOR_ENDPOINT / $PHOENIX_BASE_URL / http://localhost:6006)",
    )
    evaluate.add_argument(
        "--span-kind",
        default="root",
        help="which spans: 'root' (the root span of each trace, default) or an OpenInference kind (LLM, CHAIN, ...)",
    )
    evaluate.add_argument(
        "--where", default=None, help="Phoenix filter string narrowing the spans (as in the UI filter bar)"
    )
    evaluate.add_argument(
        "--since", default=None, help="only spans started since: 30m, 2h, 7d or an ISO time"
    )
    reference = evaluate.add_mutually_exclusive_group()
    reference.add_argument(
        "--reference-key", default=None, help="the reference: metadata.<key> or a span attribute name"
    )
    reference.add_argument(
        "--reference-dataset",
        default=None,
        help="Phoenix dataset whose examples' expected output is the reference",
    )
    evaluate.add_argument(
        "--example-id-key",
        default="metadata.example_id",
        help="span metadata key / attribute holding the dataset example id (default metadata.example_id)",
    )
    evaluate.add_argument(
        "--reference-field", default=None, help="key of the reference in the example output"
    )
    evaluate.add_argument("--similarity-threshold", type=float, default=None, help="F1 cut for 'similar'")
    evaluate.add_argument(
        "--groundedness-threshold", type=float, default=None, help="precision cut for 'grounded'"
    )
    evaluate.add_argument(
        "--no-judge", action="store_true", help="do not run the LLM judge even if configured"
    )
    evaluate.add_argument(
        "--judge-concurrency", type=int, default=4, help="judge requests in flight (default 4)"
    )
    evaluate.add_argument(
        "--store",
        default=None,
        help="local result store (default $BERTSCORE_PHOENIX_STORE or the user cache)",
    )
    evaluate.add_argument(
        "--page-size", type=int, default=500, help="spans read and scored per page (default 500)"
    )
    evaluate.add_argument("--follow", action="store_true", help="keep polling for new traces until Ctrl-C")
    evaluate.add_argument(
        "--interval",
        type=seconds_between(0.0, 86400.0),
        default=30.0,
        help="seconds between polls with --follow (at most a day)",
    )
    add_output(
        evaluate,
        formats=("text", "json"),
        default_format="text",
        summary=None,
        what="final report",
        json_switch=True,
    )
    # a retrieved context is read whole (see evaluate_project); --idf is refused there (it would be per page)
    add_model_arguments(evaluate, long_text="window")
    evaluate.set_defaults(func=run_evaluate)


def _sigterm_as_ctrl_c(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """SIGTERM ends the command as Ctrl-C does (a server is stopped by pid, the report is printed).

    The caller's handler is put back afterwards: ``cli.main`` run in-process (a test, a notebook) must
    not leave a handler that turns a later SIGTERM, e.g. a process pool's shutdown of its forked
    workers, into KeyboardInterrupt (that deadlocked a multiprocessing pool in the test suite)."""

    @functools.wraps(command)
    def wrapped(args: argparse.Namespace) -> int:
        if threading.current_thread() is not threading.main_thread():
            return command(args)  # only the main thread may set signal handlers
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            return command(args)
        finally:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)

    return wrapped


@_sigterm_as_ctrl_c
def run_evaluate(args: argparse.Namespace) -> int:
    from bertscore_plugins import get_scorer
    from bertscore_plugins.cli import describe
    from bertscore_plugins.phoenix.judge import JUDGE_SETUP_HINT, judge_llm_from_env
    from bertscore_plugins.phoenix.trace_evaluation import TraceEvaluationError, evaluate_project, parse_since

    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    # a bad setting, variable or store file raises here and is one "error:" line (exit 2) from cli.main
    check_output_path(args.output, "-o/--output")
    since = parse_since(args.since) if args.since else None
    config = config_from_args(args)
    llm = None if args.no_judge else judge_llm_from_env()
    if llm is None and not args.no_judge:
        print(JUDGE_SETUP_HINT.splitlines()[0] + " (see `phoenix evaluate --help`)", file=sys.stderr)
    latest: list = []

    def on_poll(report) -> None:
        latest[:] = [report]
        if args.follow:
            print(
                f"poll {report.polls}: evaluated {report.evaluated} spans, logged {report.logged} "
                "annotations so far",
                flush=True,
            )

    try:
        report = evaluate_project(
            args.project,
            base_url=args.base_url,
            span_kind=args.span_kind,
            where=args.where,
            since=since,
            reference_key=args.reference_key,
            reference_dataset=args.reference_dataset,
            example_id_key=args.example_id_key,
            reference_field=args.reference_field,
            llm=llm,
            similarity_threshold=args.similarity_threshold,
            groundedness_threshold=args.groundedness_threshold,
            judge_concurrency=args.judge_concurrency,
            store=args.store,
            page_size=args.page_size,
            follow=args.follow,
            interval=args.interval,
            on_poll=on_poll,
            scorer=get_scorer(config),
        )
    except TraceEvaluationError as error:  # Phoenix failed mid-run: nothing to change in the command
        print(describe(error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if not latest:
            raise  # cli.main: one "interrupted" line, exit 130
        report = latest[0]
    text = json.dumps(report.to_dict()) if args.format == "json" else report.summary()
    write_result(text + "\n", args.output, None, None)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@_sigterm_as_ctrl_c
def run(args: argparse.Namespace) -> int:
    if getattr(args, "phoenix_command", None) != "serve":
        print(
            "usage: bertscore-plugins phoenix serve [--port N --grpc-port N --workdir DIR --database-url URL]\n"
            "       bertscore-plugins phoenix evaluate --project NAME [--follow ...]",
            file=sys.stderr,
        )
        return 2
    from bertscore_plugins.phoenix.dev_server import PhoenixServer, PhoenixServerError

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    server = PhoenixServer(
        port=args.port or None,
        grpc_port=args.grpc_port or None,
        workdir=args.workdir,
        database_url=args.database_url,
        venv=args.venv,
        startup_timeout=args.startup_timeout,
    )
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

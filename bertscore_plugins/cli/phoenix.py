"""`bertscore-plugins phoenix serve|evaluate`: a local Phoenix server; annotate a project's traces."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time

from bertscore_plugins.cli.common import add_model_arguments, config_from_args
from bertscore_plugins.cli.conventions import add_output, sigterm_as_ctrl_c, write_result
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.files import check_outputs
from bertscore_plugins.integrations.phoenix.trace_settings import LONG_TEXT, TraceSettings
from bertscore_plugins.settings import add_flags, values_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "phoenix",
        help="Arize Phoenix: annotate a project's traces (evaluate), or run a local server (serve)",
        description="Arize Phoenix helpers. `evaluate` annotates the traces of an instrumented application; "
        "`serve` runs a development server. The server runs from its own virtual environment "
        "($BERTSCORE_PHOENIX_VENV, else phoenix-venv in ~/.cache/bertscore-plugins or $XDG_CACHE_HOME's, "
        "created on first use) and listens on 127.0.0.1 only.",
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
        help="working folder: SQLite database, log, PID file (default .phoenix-data in the current folder, "
        "or $BERTSCORE_PHOENIX_WORKDIR)",
    )
    serve.add_argument(
        "--database-url",
        default=None,
        help="postgresql://user:password@host/db instead of SQLite in the working folder",
    )
    serve.add_argument(
        "--venv",
        default=None,
        help="Phoenix virtual environment (default $BERTSCORE_PHOENIX_VENV, else phoenix-venv in the user's "
        "cache: ~/.cache/bertscore-plugins or $XDG_CACHE_HOME/bertscore-plugins)",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="a loopback address to listen on: 127.0.0.1 (default), ::1 or localhost; nothing else is accepted",
    )
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
        "--store",
        default=None,
        help="local result store (default $BERTSCORE_PHOENIX_STORE or the user cache)",
    )
    evaluate.add_argument(
        "--no-judge", action="store_true", help="do not run the LLM judge even if configured"
    )
    add_output(
        evaluate,
        formats=("text", "json"),
        default_format="text",
        summary=None,
        what="final report",
    )
    # the flags below are derived from the settings' declarations (TraceSettings, EvaluationConfig)
    add_flags(evaluate.add_argument_group("which spans, and polling"), TraceSettings)
    add_flags(
        evaluate.add_argument_group("evaluation (all that change a result are in the configuration's id)"),
        EvaluationConfig,
        skip=("thresholds_from_data",),  # a span's label must not depend on the page it was read in
    )
    # a retrieved context is read whole (see evaluate_project); --idf is refused there (it would be per page)
    add_model_arguments(evaluate, long_text=LONG_TEXT)
    evaluate.set_defaults(func=run_evaluate)


def _evaluation_config(args: argparse.Namespace) -> EvaluationConfig:
    """The command's settings as the evaluation's one configuration; the judge from the environment
    unless --no-judge (without one, a line says how to configure it)."""
    from bertscore_plugins.judge.environment import NO_JUDGE_LINE, judge_from_env

    judge = None if args.no_judge else judge_from_env()
    config = EvaluationConfig(
        score=config_from_args(args),
        judge=judge,
        **values_from_args(args, EvaluationConfig),
    )
    # after the settings hold: a bad one is the command's one line, not the second after this hint
    if judge is None and not args.no_judge:
        print(NO_JUDGE_LINE + " (see `phoenix evaluate --help`)", file=sys.stderr)
    return config


@sigterm_as_ctrl_c
def run_evaluate(args: argparse.Namespace) -> int:
    from bertscore_plugins.cli.main import describe
    from bertscore_plugins.errors import TraceEvaluationError
    from bertscore_plugins.integrations.phoenix.trace_evaluation import check_project, evaluate_project

    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    # a bad setting, variable or store file raises here and is one "error:" line (exit 2) from cli.main
    check_outputs({"-o/--output": args.output})
    check_project(args.project)  # a name REST paths cannot carry: refused before the model loads
    config = _evaluation_config(args)
    from bertscore_plugins.core.scorer import get_scorer  # torch: loaded only once the settings hold

    latest: list = []

    def on_poll(report) -> None:
        latest[:] = [report]
        if args.follow:  # progress, not the result: stdout holds only the final report (--format json)
            print(
                f"poll {report.polls}: evaluated {report.evaluated} spans, logged {report.logged} "
                "annotations so far",
                file=sys.stderr,
                flush=True,
            )

    try:
        report = evaluate_project(
            args.project,
            config=config,
            base_url=args.base_url,
            store=args.store,
            on_poll=on_poll,
            scorer=get_scorer(config.score),
            **values_from_args(args, TraceSettings),
        )
    except TraceEvaluationError as error:  # Phoenix failed mid-run: nothing to change in the command
        print(describe(error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if not latest:
            raise  # cli.main: one "interrupted" line, exit 130
        report = latest[0]
    if report.judge_calls["saved"]:
        print(
            f"judge triage: {report.judge_calls['judged']} of "
            f"{report.judge_calls['judged'] + report.judge_calls['saved']} rows sent to the judge; "
            f"{report.judge_calls['saved']} calls saved (the offline signals settled those rows)",
            file=sys.stderr,
        )
    text = json.dumps(report.to_dict()) if args.format == "json" else report.summary()
    write_result(text + "\n", args.output, None, None)
    return 0


@sigterm_as_ctrl_c
def run(args: argparse.Namespace) -> int:
    if getattr(args, "phoenix_command", None) != "serve":
        print(
            "usage: bertscore-plugins phoenix serve [--port N --grpc-port N --workdir DIR --database-url URL]\n"
            "       bertscore-plugins phoenix evaluate --project NAME [--follow ...]",
            file=sys.stderr,
        )
        return 2
    from bertscore_plugins.errors import PhoenixServerError
    from bertscore_plugins.tools.phoenix_server import PhoenixServer

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    server = PhoenixServer(
        port=args.port or None,
        grpc_port=args.grpc_port or None,
        workdir=args.workdir,
        database_url=args.database_url,
        venv=args.venv,
        host=args.host,
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
    print(f"  OTLP gRPC:           {server.grpc_address}")
    print(f"  data:                {args.database_url or server.workdir / 'phoenix.db'}")
    print(f"  log:                 {server.log_path}")
    print(f"  environment:         {server.venv}")
    try:
        # announced inside the try: a SIGTERM sent the moment this line is read still stops the server
        # cleanly (exit 0), instead of interrupting the return from print() outside it (exit 130)
        print("Press Ctrl-C to stop.", flush=True)
        code = server.wait()
        print(f"Phoenix exited on its own (code {code}); log: {server.log_path}", file=sys.stderr)
        server.stop()
        return 1
    except KeyboardInterrupt:
        print("stopping Phoenix ...", file=sys.stderr)
        server.stop()
        return 0

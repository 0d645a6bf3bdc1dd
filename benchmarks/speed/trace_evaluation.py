"""Peak memory and time shares of `evaluate_project` as the project grows (bounded memory check).

For each size, a project of N traces (a CHAIN root span with question, answer and ``metadata.reference``,
plus a RETRIEVER span with two documents: the attributes OpenInference instrumentors emit) is sent to
a loopback Phoenix server; then a fresh child process evaluates it (``evaluate_project``, default page
size) and reports its peak RSS (``ru_maxrss``), its RSS once the model is loaded, and the time spent
reading spans, scoring, judging, storing and writing annotations. Then (after the peak is read) the same
process scores the same texts for up to 2,000 spans in two direct core calls (the groundedness and the
similarity pairs, with explanations, as the evaluators ask for them): the core's batch speed, beside
the trace evaluation's scoring time per span. Prints one JSON object.

    python benchmarks/speed/trace_evaluation.py [--spans 2000 20000] [--judge] [--page-size 500] [--layer N]
        [--server http://127.0.0.1:6006]  # a running Phoenix instead of a fresh loopback one

``--layer`` (a core setting: fewer encoder layers run) makes scoring cheaper on a busy CPU without
changing what is held per page (the hidden size and the page size are the same).

The judge (``--judge``) is the loopback stub of tests/support/stub_judge.py through Phoenix's own
FaithfulnessEvaluator and OpenAI adapter, so its share is the adapter's, mostly the client-side rate
limiter of ``phoenix.evals.LLM`` (5 requests/s at first), not a real LLM's latency.
Texts: WMT16 pairs from the shared evaluation data when present, else the project's own sentences.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def send_traces(endpoint: str, base_url: str, project: str, count: int, pool: int, block: int = 500) -> None:
    """``count`` RAG traces (root CHAIN + RETRIEVER span) cycling over ``pool`` text pairs, batched export.

    Sent in blocks of ``block`` traces, each flushed and waited for until Phoenix has stored it: sent all
    at once, 20,000 traces overflow the exporter's queue (spans dropped) and Phoenix answers 503.
    Every size cycles over the same pool, so the longest texts (which set the largest batch tensors) are
    the same for all sizes and any memory difference comes from the project's size."""
    from openinference.semconv.trace import DocumentAttributes, SpanAttributes
    from phoenix.otel import register
    from texts import wmt16_pairs

    pairs = wmt16_pairs(pool)
    provider = register(
        project_name=project, endpoint=endpoint, batch=True, verbose=False, set_global_tracer_provider=False
    )
    tracer = provider.get_tracer("bench-app")
    documents_key = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{{}}.{DocumentAttributes.DOCUMENT_CONTENT}"
    n = len(pairs.candidates)
    block_started, stored = datetime.now(timezone.utc), 0
    for i in range(count):
        answer, reference = pairs.candidates[i % n], pairs.references[i % n]
        question = f"Question {i}: what does the source say?"
        with tracer.start_as_current_span("rag_query", openinference_span_kind="chain") as root:
            root.set_input(question)
            root.set_attribute(SpanAttributes.METADATA, json.dumps({"reference": reference}))
            with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as retriever:
                retriever.set_input(question)
                retriever.set_attribute(documents_key.format(0), reference)
                retriever.set_attribute(documents_key.format(1), pairs.references[(i + 1) % n])
            root.set_output(answer)
        if (i + 1) % block == 0 or i + 1 == count:
            provider.force_flush()
            # count only this block's roots: counting the whole project each time is quadratic
            wait_for_roots(base_url, project, i + 1 - stored, since=block_started)
            block_started, stored = datetime.now(timezone.utc), i + 1
    provider.shutdown()


def wait_for_roots(
    base_url: str, project: str, count: int, since: datetime | None = None, stall: float = 120
) -> float:
    """Seconds until Phoenix holds ``count`` root spans of ``project`` (started at or after ``since``);
    raises when the count stops growing for ``stall`` seconds (spans were dropped on the way)."""
    import httpx

    started = last_change = time.monotonic()
    last_seen = -1
    with httpx.Client(base_url=base_url, timeout=60) as http:
        while True:
            seen, cursor = 0, None
            while True:
                params = {"limit": 1000, "parent_id": "null", **({"cursor": cursor} if cursor else {})}
                if since is not None:
                    params["start_time"] = since.isoformat()
                reply = http.get(f"/v1/projects/{project}/spans", params=params)
                if reply.status_code != 200:  # the project appears with its first span
                    break
                body = reply.json()
                seen += len(body.get("data") or [])
                cursor = body.get("next_cursor")
                if not cursor:
                    break
            if seen >= count:
                return time.monotonic() - started
            if seen != last_seen:
                last_seen, last_change = seen, time.monotonic()
            elif time.monotonic() - last_change > stall:
                raise TimeoutError(f"{project}: {seen} of {count} root spans, no new one for {stall:.0f} s")
            time.sleep(2)


def child(args: argparse.Namespace) -> None:
    """Evaluate one project in this (fresh) process; print the report and memory figures."""
    import bertscore_plugins
    from bertscore_plugins.evaluation.names import SIMILARITY
    from bertscore_plugins.integrations.phoenix import evaluate_project

    # the settings evaluate_project uses by default (long contexts windowed; the benchmark's are short)
    settings = {"long_text": "window", **({"layer": args.layer} if args.layer else {})}
    scorer = bertscore_plugins.get_scorer(**settings)
    scorer.score(["warm up"], ["warm up"])
    rss_setup = _rss_mb()
    llm = None
    stub = None
    if args.judge:
        from tests.support.stub_judge import StubJudge

        stub = StubJudge().start()
        llm = stub.llm()
    started = time.perf_counter()
    report = evaluate_project(
        args.project,
        base_url=args.base_url,
        reference_key="metadata.reference",
        store=args.store,
        page_size=args.page_size,
        llm=llm,
        scorer=scorer,
    )
    wall = time.perf_counter() - started
    if stub is not None:
        stub.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the core check below
    scored = report.results.get(SIMILARITY, 0) or 1
    print(
        json.dumps(
            {
                "report": report.to_dict(),
                "wall_s": round(wall, 1),
                "rss_after_model_mb": round(rss_setup, 1),
                "peak_rss_mb": round(peak, 1),
                "score_ms_per_span": round(1000 * report.seconds["score"] / scored, 2),
                "core_score_ms_per_span": round(core_ms_per_span(scorer, args.pool, min(scored, 2000)), 2),
            }
        )
    )


def core_ms_per_span(scorer, pool: int, spans: int) -> float:
    """The core's time per span for the same work: the groundedness pairs (answer vs the two joined
    documents) and the similarity pairs (answer vs reference), each one batch call with explanations."""
    from texts import wmt16_pairs

    from bertscore_plugins.faithfulness import CONTEXT_SEPARATOR

    pairs = wmt16_pairs(pool)
    n = len(pairs.candidates)
    answers = [pairs.candidates[i % n] for i in range(spans)]
    references = [pairs.references[i % n] for i in range(spans)]
    contexts = [
        CONTEXT_SEPARATOR.join([pairs.references[i % n], pairs.references[(i + 1) % n]]) for i in range(spans)
    ]
    started = time.perf_counter()
    scorer.score(answers, contexts, explain=True, progress=False)
    scorer.score(answers, references, explain=True, progress=False)
    return 1000 * (time.perf_counter() - started) / spans


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, nargs="+", default=[2000, 20000], help="root spans per project")
    parser.add_argument("--judge", action="store_true", help="also run the (stub) faithfulness judge")
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--layer", type=int, default=None, help="core layer setting (default: the model's)")
    parser.add_argument(
        "--text-pool", type=int, default=None, help="text pairs cycled (default: smallest size)"
    )
    parser.add_argument(
        "--server", default=None, help="a running Phoenix's URL (default: start one on loopback)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--project", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--pool", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0

    from bertscore_plugins.tools.phoenix_server import PhoenixServer

    # a SIGTERM (kill, a time limit) unwinds like Ctrl-C: the server started here is stopped by its pid
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    with tempfile.TemporaryDirectory(prefix="trace-bench-") as tmp:
        if args.server:  # a running Phoenix (its OTLP/HTTP receiver is on the same port)
            running = SimpleNamespace(base_url=args.server, otlp_http_endpoint=f"{args.server}/v1/traces")
            serving: Any = contextlib.nullcontext(running)
        else:
            serving = PhoenixServer(workdir=Path(tmp) / "px")
        with serving as server:
            results = [measure(args, server, Path(tmp), count) for count in args.spans]
    summary = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "page_size": args.page_size,
        "judge": args.judge,
        "layer": args.layer,
        "text_pool": args.text_pool or min(args.spans),
        "runs": results,
        "peak_rss_ratio_largest_vs_smallest": round(
            results[-1]["peak_rss_mb"] / results[0]["peak_rss_mb"], 3
        ),
    }
    print(json.dumps(summary, indent=1))
    return 0


def measure(args: argparse.Namespace, server: Any, tmp: Path, count: int) -> dict:
    """Send `count` traces to a new project, evaluate it in a fresh process, return its figures."""
    project = f"bench-{count}-{os.getpid()}"  # new on a shared server too
    pool = args.text_pool or min(args.spans)
    started = time.perf_counter()
    send_traces(server.otlp_http_endpoint, server.base_url, project, count, pool)
    sent = time.perf_counter() - started  # includes waiting for Phoenix to store each block
    command = [
        sys.executable, __file__, "--child", "--project", project, "--base-url", server.base_url,
        "--store", str(tmp / f"store-{count}.sqlite"), "--page-size", str(args.page_size), "--pool", str(pool),
        *(["--judge"] if args.judge else []),
        *(["--layer", str(args.layer)] if args.layer else []),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"evaluating {project} failed:\n{done.stderr[-4000:]}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    seconds = row["report"]["seconds"]
    total = sum(seconds.values()) or 1.0
    row.update(
        spans=count,
        send_s=round(sent, 1),
        shares={k: round(v / total, 3) for k, v in seconds.items()},
        spans_per_s=round(count / row["wall_s"], 1),
    )
    shown = ("spans", "peak_rss_mb", "wall_s", "shares", "score_ms_per_span", "core_score_ms_per_span")
    print(json.dumps({k: row[k] for k in shown}), file=sys.stderr)
    return row


if __name__ == "__main__":
    sys.exit(main())

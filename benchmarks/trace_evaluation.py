"""Peak memory and time shares of `evaluate_project` as the project grows (bounded memory check).

For each size, a project of N traces (a CHAIN root span with question, answer and ``metadata.reference``,
plus a RETRIEVER span with two documents: the attributes OpenInference instrumentors emit) is sent to
a loopback Phoenix server; then a fresh child process evaluates it (``evaluate_project``, default page
size) and reports its peak RSS (``ru_maxrss``), its RSS once the model is loaded, and the time spent
reading spans, scoring, judging, storing and writing annotations. Prints one JSON object.

    python benchmarks/trace_evaluation.py [--spans 2000 20000] [--judge] [--page-size 500] [--layer N]

``--layer`` (a core setting: fewer encoder layers run) makes scoring cheaper on a busy CPU without
changing what is held per page (the hidden size and the page size are the same).

The judge (``--judge``) is the loopback stub of tests/support/stub_judge.py through Phoenix's own
FaithfulnessEvaluator and OpenAI adapter, so its share is the adapter's overhead, not a real LLM's.
Texts: WMT16 pairs from the shared evaluation data when present, else the project's own sentences.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def send_traces(endpoint: str, project: str, count: int, pool: int) -> None:
    """``count`` RAG traces (root CHAIN + RETRIEVER span) cycling over ``pool`` text pairs, batched export.

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
    provider.force_flush()
    provider.shutdown()


def wait_for_roots(base_url: str, project: str, count: int, timeout: float = 1800) -> float:
    import httpx

    started = time.monotonic()
    with httpx.Client(base_url=base_url, timeout=60) as http:
        while True:
            seen, cursor = 0, None
            while True:
                params = {"limit": 1000, "parent_id": "null", **({"cursor": cursor} if cursor else {})}
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
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{project}: {seen} of {count} root spans after {timeout:.0f} s")
            time.sleep(2)


def child(args: argparse.Namespace) -> None:
    """Evaluate one project in this (fresh) process; print the report and memory figures."""
    import bertscore_plugins
    from bertscore_plugins.phoenix import evaluate_project

    scorer = bertscore_plugins.get_scorer(**({"layer": args.layer} if args.layer else {}))
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
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "report": report.to_dict(),
                "wall_s": round(wall, 1),
                "rss_after_model_mb": round(rss_setup, 1),
                "peak_rss_mb": round(peak, 1),
            }
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, nargs="+", default=[2000, 20000], help="root spans per project")
    parser.add_argument("--judge", action="store_true", help="also run the (stub) faithfulness judge")
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--layer", type=int, default=None, help="core layer setting (default: the model's)")
    parser.add_argument(
        "--text-pool", type=int, default=None, help="text pairs cycled (default: smallest size)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--project", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0

    from bertscore_plugins.phoenix.dev_server import PhoenixServer

    results = []
    with (
        tempfile.TemporaryDirectory(prefix="trace-bench-") as tmp,
        PhoenixServer(workdir=Path(tmp) / "px") as server,
    ):
        for count in args.spans:
            project = f"bench-{count}"
            started = time.perf_counter()
            send_traces(server.otlp_http_endpoint, project, count, args.text_pool or min(args.spans))
            sent = time.perf_counter() - started
            ingest = wait_for_roots(server.base_url, project, count)
            command = [
                sys.executable, __file__, "--child", "--project", project, "--base-url", server.base_url,
                "--store", str(Path(tmp) / f"store-{count}.sqlite"), "--page-size", str(args.page_size),
                *(["--judge"] if args.judge else []),
                *(["--layer", str(args.layer)] if args.layer else []),
            ]  # fmt: skip
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
            done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                print(done.stderr[-4000:], file=sys.stderr)
                return 1
            row = json.loads(done.stdout.strip().splitlines()[-1])
            seconds = row["report"]["seconds"]
            total = sum(seconds.values()) or 1.0
            row.update(
                spans=count,
                send_s=round(sent, 1),
                ingest_wait_s=round(ingest, 1),
                shares={k: round(v / total, 3) for k, v in seconds.items()},
                spans_per_s=round(count / row["wall_s"], 1),
            )
            results.append(row)
            print(
                json.dumps({k: row[k] for k in ("spans", "peak_rss_mb", "wall_s", "shares")}), file=sys.stderr
            )
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


if __name__ == "__main__":
    sys.exit(main())

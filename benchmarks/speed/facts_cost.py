"""What the offline faithfulness adds to groundedness on the same rows (a ratio; the acceptance bound is +30%).

    python benchmarks/speed/facts_cost.py                  # SummEval, first 10 documents x 16 systems
    python benchmarks/speed/facts_cost.py --docs 4 --repeats 5
    python benchmarks/speed/facts_cost.py --demo           # the demo rows (no eval data needed)
    python benchmarks/speed/facts_cost.py --scaling        # linear time and flat memory (ratios, one run)
    python benchmarks/speed/facts_cost.py --doubling       # the fact check's time over doubling lengths of
                                                           # an output and a source that conflict everywhere

Four timings per repeat, interleaved so machine load hits them alike, best of the repeats kept:
  groundedness           scorer.score(outputs, contexts)                (a plain core call)
  groundedness+alignment scorer.score(..., explain=True)                (what the Phoenix evaluator runs)
  offline faithfulness   facts.offline_faithfulness(outputs, contexts)  (groundedness + alignment + parts)
  parts on the alignment facts.evaluate_pair per row, on a kept alignment (the signal's own work: no model,
                         so the steadiest figure on a shared CPU)
Sources are read whole (long_text="window"), as the faithfulness command reads them.
Writes benchmarks/results/facts_cost.json.

--doubling measures (benchmarks/results/facts_doubling.json) the fact check alone (facts.check_pair) on one
output against one source that grow together, every passage of the output contradicting the source's
(other dates, streets, names, times, counts; "did not open" against "opened"; "free" against "not free"),
on the words alone and on a kept alignment (the model's work done before the clock), best CPU seconds
of --repeats, each from a collected heap with the objects already there (the model's) frozen out of the
collector's passes. The target is at most 2.5x per doubling (4x is quadratic).
On the same alignment, the whole signal (faithfulness.evaluate_pair: the fact check and every part) and
its parts alone (faithfulness.parts.parts, the fact check's carried words found before the clock), with
the same target; what stays above linear there is one pass over the n x m similarity matrix the model made.

--scaling measures instead, in one run (benchmarks/results/facts_scaling.json; QUALITY.md section 7 quotes it):
  time   the fact check and the signal's parts (facts.evaluate_pair) on one output against one source, on
         the words alone and on a kept alignment (the model runs before the clock), the output 1x and 4x as
         long (400 and 1,600 sentences by default), best CPU seconds of interleaved repeats, each from a
         collected heap: the ratio is ~4 when linear (the target is <= 4.5), 16 when quadratic;
  memory the peak resident memory of facts.offline_faithfulness on 2,500 and on 10,000 rows (--rows and 4x;
         the demo rows, made unique), each in a fresh process: the ratio is ~1 when memory is flat (the
         target is <= 1.1).
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import json
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_sections import markers, write_section

RESULTS = Path(__file__).resolve().parents[1] / "results" / "facts_cost.json"
SCALING = RESULTS.with_name("facts_scaling.json")
#: one RAG-style passage of the output that grows (each copy numbered, so no sentence repeats)
GROWING = (
    "On {k} March the clinic on Elm Street did not open before 9 am, and Dr. Maria Olsen saw {n} patients. "
    "Parking was free for patients, but the 8:15 train was delayed by {m} minutes. "
)
DOUBLING = RESULTS.with_name("facts_doubling.json")
#: one passage of the output and its source's passage, which contradicts it fact by fact
CONFLICT_OUTPUT = (
    "On {k} March the clinic on Elm Street did not open before 9 am, and Dr. Maria Olsen saw {n} patients. "
    "Parking was free for patients, but the 8:15 train was delayed by {m} minutes. "
)
CONFLICT_SOURCE = (
    "On {k} April the clinic on Oak Street opened before 8 am, and Dr. John Berg saw {n} patients. "
    "Parking was not free for patients, and the 9:40 train was on time after {m} minutes. "
)
DEMO = Path(__file__).resolve().parents[2] / "recipes" / "demo_data.jsonl"


def rows(args: argparse.Namespace) -> tuple[str, list[str], list[str]]:
    if args.demo:
        records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
        return (
            f"recipes/demo_data.jsonl ({len(records)} rows)",
            [r["output"] for r in records],
            [r["context"] for r in records],
        )
    from benchmarks.quality.quality_data import eval_data_dir, load_summeval

    summeval = load_summeval(eval_data_dir(), args.docs)
    return (
        f"SummEval, first {args.docs} documents x 16 systems ({len(summeval)} rows)",
        [r.summary for r in summeval],
        [r.source for r in summeval],
    )


def growing_output(sentences: int) -> str:
    return "".join(GROWING.format(k=k % 28 + 1, n=k + 3, m=k % 50 + 5) for k in range(sentences // 2))


def time_ratio(sentences: int, repeats: int) -> dict:
    """Best seconds of evaluate_pair (the fact check and every part) at 1x and 4x the output's length:
    on the words alone, and on a kept alignment (the model's work done once, before the clock)."""
    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import extract
    from bertscore_plugins.faithfulness import evaluate_pair

    source = growing_output(40)
    sizes = (sentences, 4 * sentences)
    outputs = {size: growing_output(size) for size in sizes}
    scorer = get_scorer(long_text="window")
    kept = {size: scorer.score([outputs[size]], [source], explain=True) for size in sizes}
    runs = {
        "words alone": lambda size: evaluate_pair(outputs[size], source, groundedness=0.9),
        "on the alignment": lambda size: evaluate_pair(
            outputs[size], source, kept[size].explanations[0], float(kept[size].precision[0])
        ),
    }
    best = {(label, size): float("inf") for label in runs for size in sizes}
    for _ in range(repeats):
        for label, run in runs.items():
            for size in sizes:
                extract.cache_clear()
                # from a collected heap: a full collection of the model's ~400,000 objects that an earlier
                # run left pending would otherwise land in whichever run crosses the threshold
                gc.collect()
                started = time.process_time()  # this process's CPU seconds: other jobs on a shared CPU
                run(size)  # do not count (no model runs here; numpy is single-threaded)
                best[label, size] = min(best[label, size], time.process_time() - started)
    return {
        "sentences": list(sizes),
        "best_seconds": {label: [best[label, size] for size in sizes] for label in runs},
        "ratio_for_4x_text": {label: best[label, sizes[1]] / best[label, sizes[0]] for label in runs},
    }


def within_target(series: dict[str, dict[int, float]], labels: tuple[str, ...], steps: list) -> bool:
    """Every doubling of these series at most 2.5x (from a time of 0.05 s: below, the clock's noise)."""
    return all(
        series[label][b] / series[label][a] <= 2.5
        for label in labels
        for a, b in steps
        if a in series[label] and b in series[label] and series[label][a] >= 0.05
    )


def conflicting(template: str, passages: int, shift: int) -> str:
    return "".join(template.format(k=k % 28 + 1, n=k + shift, m=k % 50 + shift) for k in range(passages))


def parts_alone(explanation: Any) -> Callable[[], Any]:
    """The signal's parts without the fact check (faithfulness.parts on the alignment): the fact check's
    carried words found before the clock, the texts then read afresh, so the parts' own reading of them
    (stems, passages) is timed."""
    from bertscore_plugins.facts import check_extracted, extract
    from bertscore_plugins.faithfulness.parts import parts

    output, source = explanation.candidate_text.strip(), explanation.reference_text.strip()
    carried = check_extracted(extract(output), extract(source), explanation).supported_words
    extract.cache_clear()
    out, ctx = extract(output), extract(source)
    return functools.partial(parts, out, ctx, explanation, carried)


def doubling(args: argparse.Namespace) -> int:
    """The fact check's best CPU seconds per length, output and source doubling together."""
    import torch

    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import check_pair, extract
    from bertscore_plugins.faithfulness import evaluate_pair

    scorer = get_scorer(long_text="window")
    sizes = [args.passages * 2**k for k in range(args.doublings + 1)]
    series: dict[str, dict[int, float]] = {
        "words alone": {},
        "on the alignment": {},
        "signal's parts": {},
        "parts alone": {},
    }
    unsupported: dict[int, int] = {}
    for size in sizes:
        output = conflicting(CONFLICT_OUTPUT, size, 3)
        source = conflicting(CONFLICT_SOURCE, size, 7)
        # per series: (what runs before the clock, returning what the clock times; its arguments)
        runs: dict[str, tuple] = {"words alone": (functools.partial, check_pair, output, source, None, False)}
        if size <= args.aligned_up_to:  # the model's alignment of two long texts: a matrix of their tokens
            kept = scorer.score([output], [source], explain=True)
            explanation = kept.explanations[0]
            runs["on the alignment"] = (functools.partial, check_pair, output, source, explanation, False)
            runs["signal's parts"] = (
                functools.partial,
                evaluate_pair,
                output,
                source,
                explanation,
                float(kept.precision[0]),
            )
            runs["parts alone"] = (parts_alone, explanation)
        for label, (prepare, *arguments) in runs.items():
            best = float("inf")
            for _ in range(args.repeats):
                extract.cache_clear()
                run = prepare(*arguments)
                gc.collect()
                gc.freeze()  # the model's ~400,000 objects are no part of the check: collections skip them
                started = time.process_time()
                found = run()
                best = min(best, time.process_time() - started)
                gc.unfreeze()
            series[label][size] = best
            if label == "words alone":
                unsupported[size] = len(found.unsupported)
        shown = {label: times.get(size) for label, times in series.items()}
        print(json.dumps({"passages": size, "characters": len(output) + len(source), **shown}), flush=True)
        runs = kept = explanation = None
    steps = list(itertools.pairwise(sizes))
    result = {
        "passages": sizes,
        "characters_output_and_source": [
            len(conflicting(CONFLICT_OUTPUT, n, 3)) + len(conflicting(CONFLICT_SOURCE, n, 7)) for n in sizes
        ],
        "unsupported_facts_found": [unsupported[n] for n in sizes],
        "best_cpu_seconds": {label: [times.get(n) for n in sizes] for label, times in series.items()},
        "ratio_per_doubling": {
            label: [times[b] / times[a] for a, b in steps if a in times and b in times]
            for label, times in series.items()
        },
        "target_ratio_per_doubling": 2.5,
        "fact_check_within_target": within_target(series, ("words alone", "on the alignment"), steps),
        "signal_within_target": within_target(series, ("signal's parts", "parts alone"), steps),
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, shared CPU",
    }
    print(json.dumps(result, indent=2))
    if not args.no_write:
        DOUBLING.parent.mkdir(parents=True, exist_ok=True)
        DOUBLING.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        write_section("doubling", doubling_section(result))
    return 0


def _range(ratios: list[float]) -> str:
    return f"{min(ratios):.2f}-{max(ratios):.2f}x"


def doubling_section(result: dict) -> str:
    """QUALITY.md's doubling section, from facts_doubling.json (``--doubling --report`` renders it again)."""
    begin, end = markers("doubling")
    seconds, ratios, sizes = result["best_cpu_seconds"], result["ratio_per_doubling"], result["passages"]
    aligned = [n for n, t in zip(sizes, seconds["on the alignment"], strict=True) if t is not None]
    characters = result["characters_output_and_source"]

    def span(label: str) -> str:
        times = [t for t in seconds[label] if t is not None]
        return f"**{_range(ratios[label])} per doubling** ({times[0]:.3f} s to {times[-1]:.2f} s)"

    whole = span("signal's parts")
    verdict = "within" if result["fact_check_within_target"] else "NOT within"
    signal = "within" if result["signal_within_target"] else "not everywhere within"
    return "\n".join(
        [
            begin,
            "### The fact check over doubling lengths",
            "",
            f"`benchmarks/speed/facts_cost.py --doubling` (`benchmarks/results/facts_doubling.json`): one output "
            "against one source that contradicts it in every passage (dates, streets, names, times, counts, "
            "negations), both doubling together from "
            f"{sizes[0]:,} to {sizes[-1]:,} passages ({characters[0]:,} to {characters[-1]:,} characters), "
            f"best CPU seconds of the runs ({result['machine']}). The fact check: {span('words alone')} on the "
            f"words alone, {span('on the alignment')} on a kept alignment (up to {aligned[-1]:,} passages): "
            f"{verdict} the target of {result['target_ratio_per_doubling']}x (quadratic is 4x). The whole "
            f"offline signal on the same alignment (the fact check and every part): {whole}, "
            f"{signal} the target: what stays above linear is one pass over the n x m similarity matrix the model "
            "made (each output token's best similarity in each source sentence); its parts alone "
            f"{span('parts alone')}. Numbers unchanged by the speed-up: `tests/faithfulness/test_parts_exact.py`.",
            end,
        ]
    )


def peak_memory(rows: int) -> dict:
    """In this (fresh) process: resident memory after the model's first call, and the peak over
    offline_faithfulness on ``rows`` rows."""
    from bertscore_plugins import get_scorer
    from bertscore_plugins.faithfulness import offline_faithfulness

    records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    scorer = get_scorer(long_text="window")
    offline_faithfulness(["warm up"], ["warm up"], scorer=scorer)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    outputs = [f"{records[k % len(records)]['output']} (row {k})" for k in range(rows)]
    contexts = [f"{records[k % len(records)]['context']} (row {k})" for k in range(rows)]
    started = time.perf_counter()
    offline_faithfulness(outputs, contexts, scorer=scorer, progress=False)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rows": rows, "mb_after_model": before, "peak_mb": peak, "seconds": time.perf_counter() - started}


def scaling(args: argparse.Namespace) -> int:
    import torch

    timing = time_ratio(args.sentences, args.repeats)
    print(json.dumps(timing), flush=True)
    memory = []
    for rows in (args.rows, 4 * args.rows):  # each in a fresh process: ru_maxrss is a peak over its life
        child = [sys.executable, __file__, "--memory-child", str(rows)]
        memory.append(json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout))
        print(json.dumps(memory[-1]), flush=True)
    small, large = memory
    result = {
        "time": timing,
        "memory": memory,
        "time_ratio_for_4x_text": max(timing["ratio_for_4x_text"].values()),
        "peak_memory_ratio_for_4x_rows": large["peak_mb"] / small["peak_mb"],
        "growth_mb_over_the_model": [row["peak_mb"] - row["mb_after_model"] for row in memory],
        "targets": {"time_ratio_for_4x_text": 4.5, "peak_memory_ratio_for_4x_rows": 1.1},
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, shared CPU",
    }
    print(json.dumps(result, indent=2))
    if not args.no_write:
        SCALING.parent.mkdir(parents=True, exist_ok=True)
        SCALING.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--scaling", action="store_true", help="linear time and flat memory, as ratios")
    parser.add_argument("--sentences", type=int, default=400, help="--scaling: the 1x output's sentences")
    parser.add_argument("--rows", type=int, default=2500, help="--scaling: the 1x rows for peak memory")
    parser.add_argument("--doubling", action="store_true", help="the fact check's time over doubling lengths")
    parser.add_argument("--passages", type=int, default=50, help="--doubling: the shortest text's passages")
    parser.add_argument("--doublings", type=int, default=5, help="--doubling: how many times it doubles")
    parser.add_argument(
        "--aligned-up-to", type=int, default=400, help="--doubling: the longest text timed on an alignment"
    )
    parser.add_argument("--report", action="store_true", help="--doubling: render QUALITY.md's section again")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(peak_memory(args.memory_child)))
        return 0
    if args.scaling:
        return scaling(args)
    if args.doubling and args.report:
        write_section("doubling", doubling_section(json.loads(DOUBLING.read_text(encoding="utf-8"))))
        return 0
    if args.doubling:
        return doubling(args)

    import torch

    from bertscore_plugins import get_scorer
    from bertscore_plugins.facts import extract
    from bertscore_plugins.faithfulness import evaluate_pair, offline_faithfulness

    name, outputs, contexts = rows(args)
    scorer = get_scorer(long_text="window")  # sources read whole, as the faithfulness command does
    offline_faithfulness(outputs[:4], contexts[:4], scorer=scorer)  # model load and first-call costs
    timings: dict[str, list[float]] = {
        "groundedness": [],
        "groundedness+alignment": [],
        "offline faithfulness": [],
        "parts on the alignment": [],
    }
    kept = scorer.score(outputs, contexts, explain=True)

    def parts_only() -> None:
        for output, context, precision, explanation in zip(
            outputs, contexts, kept.precision, kept.explanations, strict=True
        ):
            evaluate_pair(output, context, explanation, float(precision))

    for _ in range(args.repeats):
        for label, run in (
            ("groundedness", lambda: scorer.score(outputs, contexts)),
            ("groundedness+alignment", lambda: scorer.score(outputs, contexts, explain=True)),
            ("offline faithfulness", lambda: offline_faithfulness(outputs, contexts, scorer=scorer)),
            ("parts on the alignment", parts_only),
        ):
            extract.cache_clear()  # every unique text is read once per run, as in a fresh job
            started = time.perf_counter()
            run()
            timings[label].append(time.perf_counter() - started)
    best = {label: min(values) for label, values in timings.items()}
    result = {
        "rows": name,
        "repeats": args.repeats,
        "best_seconds": best,
        "all_seconds": timings,
        "added_over_groundedness": best["offline faithfulness"] / best["groundedness"] - 1.0,
        "parts_over_groundedness": best["parts on the alignment"] / best["groundedness"],
        "added_over_groundedness_with_alignment": best["offline faithfulness"]
        / best["groundedness+alignment"]
        - 1.0,
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, shared CPU",
    }
    print(json.dumps(result, indent=2))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

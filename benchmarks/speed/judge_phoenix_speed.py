"""Seconds per row on `bertscore-plugins judge serve`: Phoenix's own evaluators beside the yes/no judge.

    python benchmarks/speed/judge_phoenix_speed.py                 # the README's short RAG rows
    python benchmarks/speed/judge_phoenix_speed.py --articles 6    # SummEval / FRANK CNN/DM articles instead

One local judge server (Gemma 3 270M on the package's transformers engine, 127.0.0.1), the same rows
asked three ways, one request at a time, after one untimed warm-up request each. The rows: by default
the four short question/answer/context rows of the README and docs (a clinic's hours, a discharge day:
what a RAG trace holds); ``--articles N`` the first SummEval and FRANK CNN/DM rows of
benchmarks/speed/judge_engines.py (news articles of about 700 tokens: the prompt's length then dominates
every path). Results go to results/judge_phoenix_speed.json. The paths:

- ``yes-no``: the project's judge (``YesNoJudge``): one token, p(yes) from its alternatives, a source
  longer than the window shown as its aligned passages;
- ``phoenix-faithfulness``: arize-phoenix-evals' ``FaithfulnessEvaluator`` through ``phoenix.evals.LLM``
  (provider openai, the server's base URL): Phoenix's template, json_schema structured output, the server
  scoring each label after the prompt;
- ``phoenix-classifier``: a ``create_classifier`` classification evaluator (a short template of our own,
  labels "faithful"/"unfaithful"): the same structured-output path with a smaller prompt.

Reported: seconds per row (mean and median), the rows that failed, the machine's load. The machine is
shared: compare the paths within one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

RESULTS = Path(__file__).resolve().parents[1] / "results" / "judge_phoenix_speed.json"
CLASSIFIER_TEMPLATE = (
    "Context:\n{context}\n\nAnswer:\n{output}\n\n"
    "Is every claim of the answer supported by the context? Label it faithful or unfaithful."
)


SHORT_ROWS = [
    {
        "input": "When does the clinic open?",
        "summary": "The clinic opens at 8 am on weekdays.",
        "source": "The clinic opens at 8 am on weekdays. Parking at the clinic is free for patients.",
    },
    {
        "input": "When does the clinic open?",
        "summary": "The clinic opens at 10 pm on Sundays.",
        "source": "The clinic opens at 8 am on weekdays. Parking at the clinic is free for patients.",
    },
    {
        "input": "When was the patient discharged?",
        "summary": "The patient was discharged on Tuesday.",
        "source": "The patient was admitted on Monday and discharged on Tuesday after treatment for pneumonia.",
    },
    {
        "input": "When was the patient discharged?",
        "summary": "The patient was discharged on Thursday.",
        "source": "The patient was admitted on Monday and discharged on Tuesday after treatment for pneumonia.",
    },
]
WARM_UP = {"input": "Is it open?", "summary": "It is open.", "source": "The shop is open."}


def rows(articles: int) -> list[dict]:
    if not articles:
        return SHORT_ROWS
    from benchmarks.speed.judge_engines import development_rows

    count = articles
    chosen = development_rows()
    half = count // 2
    summeval = [r for r in chosen if r["set"] == "summeval"][:half]
    frank = [r for r in chosen if r["set"] == "frank_cnndm"][: count - half]
    return [{"input": "Summarise the article.", **r} for r in summeval + frank]


def timed(ask, asked: list[dict]) -> dict:
    """Seconds per row of ``ask(row) -> bool`` (True: the row got a verdict), after one warm-up request."""
    ask(WARM_UP)
    seconds, failed = [], 0
    for row in asked:
        started = time.perf_counter()
        failed += not ask(row)
        seconds.append(time.perf_counter() - started)
    return {
        "rows": len(asked),
        "failed": failed,
        "seconds_per_row": round(statistics.mean(seconds), 2),
        "seconds_per_row_median": round(statistics.median(seconds), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--articles", type=int, default=0, help="development rows instead of the short ones")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    from phoenix.evals import LLM, create_classifier
    from phoenix.evals.metrics import FaithfulnessEvaluator

    from bertscore_plugins.evaluation.judge import JudgeRow
    from bertscore_plugins.judge.endpoint import Endpoint
    from bertscore_plugins.judge.local_model import LOCAL_MODEL
    from bertscore_plugins.judge.server import JudgeServer
    from bertscore_plugins.judge.yes_no import YesNoJudge

    asked = rows(args.articles)
    load_before = os.getloadavg()[0]
    report: dict = {
        "rows": "articles" if args.articles else "short",
        "count": len(asked),
        "threads": args.threads,
        "cpu_count": os.cpu_count(),
        "paths": {},
    }
    with (
        tempfile.TemporaryDirectory() as workdir,
        JudgeServer(threads=args.threads, workdir=workdir, startup_timeout=1200) as server,
    ):
        judge = YesNoJudge(Endpoint(server.base_url, LOCAL_MODEL, timeout=600))

        def yes_no(row: dict) -> bool:
            asking = JudgeRow("r", None, row["summary"], row["source"])
            return judge.verdicts([asking], concurrency=1, max_retries=0)[0].cell is not None

        llm = LLM(
            provider="openai",
            base_url=server.base_url,
            model=LOCAL_MODEL,
            api_key="sk-local",
            initial_per_second_request_rate=1000.0,  # loopback: no rate limit to find
        )
        evaluators = {
            "phoenix-faithfulness": FaithfulnessEvaluator(llm=llm),
            "phoenix-classifier": create_classifier(
                name="faithful",
                prompt_template=CLASSIFIER_TEMPLATE,
                llm=llm,
                choices=["faithful", "unfaithful"],
            ),
        }

        def phoenix(evaluator):
            def ask(row: dict) -> bool:
                given = {
                    "input": row["input"],
                    "output": row["summary"],
                    "context": row["source"],
                }
                scores = evaluator.evaluate(given)
                return bool(scores) and scores[0].label in ("faithful", "unfaithful")

            return ask

        report["paths"]["yes-no"] = timed(yes_no, asked)
        for name, evaluator in evaluators.items():
            report["paths"][name] = timed(phoenix(evaluator), asked)
    base = report["paths"]["yes-no"]["seconds_per_row"]
    for entry in report["paths"].values():
        entry["times_the_yes_no_path"] = round(entry["seconds_per_row"] / base, 1) if base else None
    report["load_average"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

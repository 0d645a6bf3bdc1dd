"""Similarity vs faithfulness: score a RAG table, find where the two disagree, log it all to Phoenix.

    python -m recipes.disagreement answers.jsonl --out runs/answers --phoenix-url http://127.0.0.1:6006

From a CSV / JSONL / JSON / parquet file or a Hugging Face dataset saved to disk, with question, context,
output (the answer) and reference (the gold answer) columns, this recipe:

1. scores every row (BERTScore F1 against the reference, groundedness against the context, and Phoenix's
   LLM faithfulness judge when one is configured) and names the disagreements (``agree``,
   ``high_sim_unfaithful``, ``low_sim_faithful``); the scored table goes to ``--out`` FIRST, with a state
   file;
2. writes a report: a PNG scatter of similarity vs faithfulness with the quadrants, and a self-contained
   HTML page listing the top disagreements with each answer's tokens shaded by how well they matched;
3. logs to Phoenix: one trace per row (root span with question and answer, retriever child with the
   context), span annotations, a dataset and an experiment;
4. prints counts per quadrant, ready-made filter strings and the dashboard URLs.

Resumable: when the Phoenix server or the judge is down, the scores stay on disk, the recipe exits
non-zero saying so, and running the same command again finishes the job without scoring again (only the
judge is asked again, for the rows it failed on). Exit codes: 0 done, 2 bad input or arguments,
3 Phoenix logging incomplete, 4 judge failed on some rows.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from bertscore_plugins.errors import BertScorePluginsError
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import DISAGREEMENT, SIMILARITY, score_column
from bertscore_plugins.settings import add_flags, values_from_args
from recipes import phoenix_logging, report
from recipes.rows import TEXT_COLUMNS, ColumnNames, normalise_rows, read_table
from recipes.run_state import DamagedRunFolder, OutputFolder, RunState, input_digest, now

EXIT_OK, EXIT_BAD_INPUT, EXIT_PHOENIX, EXIT_JUDGE = 0, 2, 3, 4
DEFAULT_PROJECT = "bertscore-disagreement"
DEFAULT_PHOENIX_URL = "http://127.0.0.1:6006"
PNG_NAME, HTML_NAME = "similarity_vs_faithfulness.png", "disagreements.html"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m recipes.disagreement", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "input", help="CSV/TSV/JSONL/JSON/parquet file, or a folder from datasets' save_to_disk"
    )
    parser.add_argument("--out", default=None, help="output folder (default: runs/<input name>)")
    parser.add_argument("--split", default=None, help="split of a saved DatasetDict")
    parser.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default="jsonl",
        dest="table_format",
        help="format of the scored table (default jsonl)",
    )
    for field, default in (
        ("question", "question"),
        ("context", "context"),
        ("output", "output"),
        ("reference", "reference"),
        ("id", "id"),
    ):
        parser.add_argument(
            f"--{field}-column", default=default, help=f"column holding the {field} (default {default!r})"
        )
    parser.add_argument("--limit", type=int, default=None, help="use only the first N rows")
    parser.add_argument(
        "--model",
        default="default",
        help="encoder: 'default' (packaged all-MiniLM-L6-v2), a Hugging Face id or a local model folder",
    )
    # thresholds, judge rows and concurrency: the evaluation configuration's own flags
    add_flags(
        parser,
        EvaluationConfig,
        skip=(
            "annotation_identifier",
            "reference_key",
            "reference_dataset",
            "example_id_key",
            "reference_field",
        ),
    )
    parser.add_argument(
        "--phoenix-url",
        default=os.environ.get("PHOENIX_BASE_URL", DEFAULT_PHOENIX_URL),
        help=f"Phoenix server (default $PHOENIX_BASE_URL or {DEFAULT_PHOENIX_URL})",
    )
    parser.add_argument(
        "--project", default=DEFAULT_PROJECT, help=f"Phoenix project (default {DEFAULT_PROJECT})"
    )
    parser.add_argument("--no-phoenix", action="store_true", help="score and report only; log nothing")
    parser.add_argument("--top", type=int, default=20, help="disagreements listed in the HTML report")
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="discard the scores in --out and score again (otherwise they are reused)",
    )
    args = parser.parse_args(argv)
    for flag, value in (
        ("--limit", args.limit),
        ("--top", args.top),
        ("--judge-concurrency", args.judge_concurrency),
    ):
        if value is not None and value < 1:  # head(-1) would silently drop the last row
            parser.error(f"{flag} must be at least 1, got {value}")
    if args.out is None:
        args.out = str(Path("runs") / Path(args.input.rstrip("/")).stem)
    args.phoenix_url = args.phoenix_url.rstrip("/")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the recipe; returns the exit code (see the module docstring)."""
    args = parse_args(argv)
    try:
        return Recipe(args).run()
    except (BertScorePluginsError, SettingsChanged) as error:  # bad input, output folder or setting
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


class SettingsChanged(BertScorePluginsError, ValueError):
    """The output folder holds scores of another input or other settings."""


class Recipe:
    """One run of the recipe over one input and one output folder."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.folder = OutputFolder(args.out)
        self._scorer: Any = None

    # -- scoring -------------------------------------------------------------------------------------

    def run(self) -> int:
        from bertscore_plugins.integrations.phoenix import JUDGE_SETUP_HINT
        from bertscore_plugins.integrations.phoenix.phoenix_judge import judge_from_environment

        args = self.args
        columns = ColumnNames(
            args.question_column,
            args.context_column,
            args.output_column,
            args.reference_column,
            args.id_column,
        )
        rows = normalise_rows(read_table(args.input, args.split), columns)
        if args.limit is not None:
            rows = rows.head(args.limit).reset_index(drop=True)
        self.folder.check_writable({"input": args.input}, (PNG_NAME, HTML_NAME))
        llm = judge_from_environment()  # the engine's Judge (the yes/no judge, or Phoenix's), or None
        if llm is None:
            print(JUDGE_SETUP_HINT + "\n")
        settings = self.settings(llm)
        digest = input_digest(rows, ("row_id", *TEXT_COLUMNS))

        state = None if args.rescore else self.folder.load_state()
        if state is not None and (state.input_digest, state.settings) != (digest, settings):
            raise SettingsChanged(
                f"{self.folder.path} holds scores of a different input or different settings "
                f"({_what_changed(state, digest, settings)}); pass --rescore to replace them or use another --out"
            )
        if state is not None and self.folder.table_path(state.table_format).exists():
            table = self.folder.load_table(
                state.table_format,
                rows=state.rows,
                row_ids=list(rows["row_id"]),
                columns=self.saved_columns(state),
            )
            unknown = sorted(set(state.judge_failed_rows) - set(table["row_id"]))
            if unknown:
                raise DamagedRunFolder(
                    self.folder.state_path, f"judge_failed_rows names rows the table lacks ({unknown[:3]})"
                )
            print(
                f"Loaded {len(table)} scored rows from {self.folder.table_path(state.table_format)} "
                f"(scored {state.scored_at}); nothing is scored again."
            )
            if state.judge_failed_rows and llm is not None:
                table = self.retry_judge(table, state, llm)
        else:
            state, table = self.score(rows, llm, digest, settings)

        self.write_report(table, state)
        if state.judge_failed_rows:
            print(self.judge_failure_message(table, state), file=sys.stderr)
            return EXIT_JUDGE
        if args.no_phoenix:
            self.print_summary(table, state, urls={})
            return EXIT_OK
        try:
            urls = self.log_to_phoenix(table, state)
        except phoenix_logging.PhoenixUnavailable as error:
            self.print_summary(table, state, urls={})
            print(f"\nerror: {error}", file=sys.stderr)
            return EXIT_PHOENIX
        self.print_summary(table, state, urls)
        return EXIT_OK

    @staticmethod
    def saved_columns(state: RunState) -> tuple[str, ...]:
        """The columns a saved table must hold; the judge's (and the disagreement that needs it) only once
        the judge has answered every row: a run stopped before the judge saved the table without them."""
        names = [SIMILARITY] + ([] if state.judge_failed_rows else [state.faithfulness_signal, DISAGREEMENT])
        return (*TEXT_COLUMNS, *(score_column(name) for name in names))

    def config(self, llm: Any) -> EvaluationConfig:
        """The evaluation configuration the flags describe (the judge: Phoenix's with ``llm``, or none)."""
        from bertscore_plugins import ScoreConfig
        from bertscore_plugins.integrations.phoenix.phoenix_judge import as_judge

        return EvaluationConfig(
            score=ScoreConfig(model=self.args.model),
            judge=as_judge(llm),
            **values_from_args(self.args, EvaluationConfig),
        )

    def settings(self, llm: Any) -> dict[str, Any]:
        """Everything that changes a stored number (a re-run with other settings must rescore): the
        configuration's signed settings, the judge's model and the core's signature (which covers the
        model's weights and the library versions, so an upgrade that could move a score is caught too)."""
        from bertscore_plugins.settings import signed_names

        config = self.config(llm)
        judge = (
            None
            if llm is None
            else {"provider": getattr(llm, "provider", None), "model": getattr(llm, "model", None)}
        )
        signed = {
            name: getattr(config, name)
            for name in signed_names(EvaluationConfig)
            if name != "judge" and not name.endswith("_name") and name in vars(self.args)
        }
        return {"model": self.args.model, "signature": str(self.scorer().signature), **signed, "judge": judge}

    def scorer(self) -> Any:
        if self._scorer is None:
            from bertscore_plugins import ScoreConfig, get_scorer

            self._scorer = get_scorer(ScoreConfig(model=self.args.model))
        return self._scorer

    def score(
        self, rows: pd.DataFrame, llm: Any, digest: str, settings: dict[str, Any]
    ) -> tuple[RunState, pd.DataFrame]:
        """Score every row, save the table and the state, and return both."""
        from bertscore_plugins.integrations.phoenix import OFFLINE_FAITHFULNESS, evaluate_rows

        started = time.perf_counter()
        print(
            f"Scoring {len(rows)} rows (similarity, groundedness, fact check"
            + (", LLM faithfulness judge)" if llm is not None else ")")
            + " ...",
            flush=True,
        )
        if llm is not None:
            return self.score_then_judge(rows, llm, digest, settings, started)
        table = evaluate_rows(rows, config=self.config(None), scorer=self.scorer())
        state = RunState(
            input_digest=digest,
            table_format=self.args.table_format,
            settings=settings,
            rows=len(table),
            faithfulness_signal=OFFLINE_FAITHFULNESS,
        )
        state.thresholds = self.thresholds_of(table)
        table = self.add_matches(table, state)
        state.scored_at = now()
        path = self.folder.save_table(table, state.table_format)
        self.folder.save_state(state)
        print(f"Scored {len(table)} rows in {time.perf_counter() - started:.1f} s; saved to {path}")
        return state, table

    def with_disagreement(self, table: pd.DataFrame, config: EvaluationConfig) -> pd.DataFrame:
        """The disagreement over the whole table, at the configured cuts or this data's medians (the
        fixed cuts while the data has no row with both scores, e.g. the judge failed on every row)."""
        from bertscore_plugins.integrations.phoenix import Thresholds, add_disagreement

        names = {
            "similarity": config.similarity_name,
            "faithfulness": config.faithfulness_name,
            "name": config.disagreement_name,
        }
        if config.thresholds_from_data:
            try:
                return add_disagreement(table, "quantile", **names)
            except ValueError as error:
                print(f"warning: thresholds not set from the data yet ({error})", file=sys.stderr)
        fixed = Thresholds(similarity=config.similarity_threshold, faithfulness=config.faithfulness_cut)
        return add_disagreement(table, fixed, **names)

    def score_then_judge(
        self, rows: pd.DataFrame, llm: Any, digest: str, settings: dict[str, Any], started: float
    ) -> tuple[RunState, pd.DataFrame]:
        """Similarity, groundedness and the offline faithfulness first, saved to disk, then the judge
        (which may be slow or die) on the rows it must see.

        The saved state lists every row as awaiting the judge, so a run killed while judging resumes with
        the judge only: nothing BERTScore computed is lost or computed again.
        """
        from bertscore_plugins.integrations.phoenix import evaluate_rows

        table = evaluate_rows(
            rows, config=self.config(None).replace(thresholds_from_data=False), scorer=self.scorer()
        )
        state = RunState(
            input_digest=digest,
            table_format=self.args.table_format,
            settings=settings,
            rows=len(table),
            faithfulness_signal=self.config(llm).faithfulness_name,
            judge_failed_rows=[str(row_id) for row_id in table["row_id"]],
        )
        state.scored_at = now()
        path = self.folder.save_table(table, state.table_format)
        self.folder.save_state(state)
        print(
            f"Scored {len(table)} rows (similarity, groundedness, fact check) in "
            f"{time.perf_counter() - started:.1f} s; saved to {path}",
            flush=True,
        )
        return state, self.retry_judge(table, state, llm, first=True)

    @staticmethod
    def thresholds_of(table: pd.DataFrame) -> dict[str, Any]:
        """The cuts actually used, read back from the disagreement cells' metadata."""
        from bertscore_plugins.integrations.phoenix import DISAGREEMENT

        for cell in table[f"{DISAGREEMENT}_score"]:
            if isinstance(cell, dict):
                meta = cell.get("metadata") or {}
                return {
                    "similarity": meta.get("similarity_threshold"),
                    "faithfulness": meta.get("faithfulness_threshold"),
                    "source": meta.get("threshold_source", "fixed"),
                }
        return {}

    @staticmethod
    def failed_judge_rows(table: pd.DataFrame, faith_name: str) -> list[str]:
        from bertscore_plugins.integrations.phoenix import FAITHFULNESS

        if faith_name != FAITHFULNESS:
            return []
        details = table.get(f"{FAITHFULNESS}_execution_details", pd.Series([None] * len(table)))
        scores = table.get(f"{FAITHFULNESS}_score", pd.Series([None] * len(table)))
        return [
            row_id
            for row_id, detail, cell in zip(table["row_id"], details, scores, strict=True)
            if not isinstance(cell, dict) or (isinstance(detail, dict) and detail.get("status") == "FAILED")
        ]

    def retry_judge(
        self, table: pd.DataFrame, state: RunState, llm: Any, first: bool = False
    ) -> pd.DataFrame:
        """Ask the judge about the rows it has no answer for (with --judge-rows unsettled, only those the
        offline signals cannot settle: `evaluate_batch` decides), then redo the (cheap) disagreement."""
        from bertscore_plugins.evaluation.batch import evaluate_batch
        from bertscore_plugins.evaluation.dataframe import COLUMNS, rows_of
        from bertscore_plugins.integrations.phoenix import FAITHFULNESS, OFFLINE_FAITHFULNESS

        waiting = {str(row_id) for row_id in state.judge_failed_rows}
        positions = [i for i, row_id in enumerate(table["row_id"]) if str(row_id) in waiting]
        print(
            f"Asking the judge about {len(positions)} rows ..."
            if first
            else f"Asking the judge again for the {len(positions)} rows it has no answer for "
            "(no BERTScore rescoring) ...",
            flush=True,
        )
        subset = table.iloc[positions]
        rows = rows_of(
            subset, COLUMNS, needs_input=True, known={OFFLINE_FAITHFULNESS: f"{OFFLINE_FAITHFULNESS}_score"},
            wants=frozenset({FAITHFULNESS}),
        )  # fmt: skip
        result = evaluate_batch(rows, self.config(llm), scorer=self.scorer())
        for column, values in (
            (f"{FAITHFULNESS}_score", result.cells),
            (f"{FAITHFULNESS}_execution_details", result.details),
        ):
            cells = list(table[column]) if column in table else [None] * len(table)
            for position, cell in zip(positions, values[FAITHFULNESS], strict=True):
                cells[position] = cell
            table[column] = cells
        self.count_judge_calls(state, result.triage)
        if state.thresholds.get("similarity") is not None:
            from bertscore_plugins.integrations.phoenix import (
                DISAGREEMENT,
                SIMILARITY,
                Thresholds,
                add_disagreement,
            )

            kept = Thresholds(
                state.thresholds["similarity"],
                state.thresholds["faithfulness"],
                state.thresholds.get("source", "fixed"),
            )
            table = add_disagreement(
                table, kept, similarity=SIMILARITY, faithfulness=state.faithfulness_signal, name=DISAGREEMENT
            )
        else:
            table = self.with_disagreement(table, self.config(llm))
        state.thresholds = self.thresholds_of(table)
        state.judge_failed_rows = self.failed_judge_rows(table, FAITHFULNESS)
        state.judge_tries += 1
        table = self.add_matches(table, state)
        self.folder.save_table(table, state.table_format)
        self.folder.save_state(state)
        return table

    @staticmethod
    def count_judge_calls(state: RunState, triage: dict[str, Any]) -> None:
        """Add this pass's judge calls to the state, and say what triage saved."""
        calls = state.judge_calls or {"rows": 0, "judged": 0, "saved": 0, "mode": triage.get("mode")}
        for key in ("judged", "saved"):
            calls[key] = calls.get(key, 0) + triage.get(key, 0)
        calls["rows"] = state.rows
        state.judge_calls = calls
        if triage.get("mode") == "unsettled":
            print(
                f"Judge triage: {triage['judged']} of {triage['rows']} rows sent to the judge; "
                f"{triage['saved']} calls saved (the offline signals settled those rows)",
                flush=True,
            )

    def judge_failure_message(self, table: pd.DataFrame, state: RunState) -> str:
        from bertscore_plugins.integrations.phoenix import FAITHFULNESS

        first = next(
            (
                d
                for d in table.get(f"{FAITHFULNESS}_execution_details", [])
                if isinstance(d, dict) and d.get("exceptions")
            ),
            {},
        )
        errors = (first.get("exceptions") or ["no detail"]) if first else ["no detail"]
        return (
            f"error: the faithfulness judge failed on {len(state.judge_failed_rows)} of {len(table)} rows "
            f"(rows {', '.join(state.judge_failed_rows[:10])}{' ...' if len(state.judge_failed_rows) > 10 else ''};"
            f" first error: {str(errors[-1])[:300]}).\n"
            f"Nothing is lost: every BERTScore score is saved in {self.folder.table_path(state.table_format)}. "
            "Check the judge (BERTSCORE_JUDGE_* settings, server up) and run the same command again: it asks "
            "the judge for those rows only, then logs everything to Phoenix."
        )

    def add_matches(self, table: pd.DataFrame, state: RunState) -> pd.DataFrame:
        """Store the token matches (answer vs reference) of the rows the HTML report will list.

        Computed once, at scoring time, for the report's top rows and for the rows the judge failed on
        (a retry may make them disagreements); a re-run reuses them."""
        from bertscore_plugins.integrations.phoenix import DISAGREEMENT, SIMILARITY

        rows = report.report_rows(table, SIMILARITY, state.faithfulness_signal, DISAGREEMENT)
        top = report.top_disagreements(
            rows, state.thresholds or {"similarity": 0, "faithfulness": 0}, self.args.top
        )
        matches = list(table["similarity_matches"]) if "similarity_matches" in table else [None] * len(table)
        position = {row_id: i for i, row_id in enumerate(table["row_id"])}
        wanted = [position[row.row_id] for row in top] + [position[r] for r in state.judge_failed_rows]
        needed = sorted({i for i in wanted if matches[i] is None})
        if needed:
            result = self.scorer().score(
                [table["output"][i] for i in needed], [table["reference"][i] for i in needed], explain=True
            )
            for i, explanation in zip(needed, result.explanations, strict=True):
                matches[i] = [
                    [m.token, m.matched_token, round(float(m.similarity), 4)]
                    for m in explanation.candidate_matches
                ]
        table["similarity_matches"] = matches
        return table

    # -- report and summary --------------------------------------------------------------------------

    def write_report(self, table: pd.DataFrame, state: RunState) -> tuple[Path, Path]:
        from bertscore_plugins.integrations.phoenix import DISAGREEMENT, FAITHFULNESS, SIMILARITY

        rows = report.report_rows(table, SIMILARITY, state.faithfulness_signal, DISAGREEMENT)
        thresholds = state.thresholds or {"similarity": 0.0, "faithfulness": 0.0}
        png = report.plot_scatter(
            rows,
            thresholds,
            self.folder.report_dir / PNG_NAME,
            faithfulness_name=state.faithfulness_signal,
            binary_faithfulness=state.faithfulness_signal == FAITHFULNESS,
        )
        filters = _filters(state)
        html_path = report.write_html(
            rows,
            report.top_disagreements(rows, thresholds, self.args.top),
            thresholds,
            self.folder.report_dir / HTML_NAME,
            png=png,
            faithfulness_name=state.faithfulness_signal,
            title=f"Similarity vs {state.faithfulness_signal}: {Path(self.args.input).name}",
            summary_lines=[
                f"{len(table)} rows scored {state.scored_at}",
                f"model: {self.args.model}; faithfulness signal: {state.faithfulness_signal}",
                f"scores: {self.folder.table_path(state.table_format)}",
            ],
            filters=filters,
        )
        self.report_paths = (png, html_path)
        return png, html_path

    def print_summary(self, table: pd.DataFrame, state: RunState, urls: dict[str, str]) -> None:
        from bertscore_plugins.integrations.phoenix import DISAGREEMENT

        counts = Counter(
            (cell or {}).get("label", "not scored") if isinstance(cell, dict) else "not scored"
            for cell in table[f"{DISAGREEMENT}_score"]
        )
        t = state.thresholds
        lines = [
            "",
            f"Similarity vs {state.faithfulness_signal} on {len(table)} rows",
            (
                f"  thresholds: similarity >= {_cut(t.get('similarity'))}, {state.faithfulness_signal} >= "
                f"{_cut(t.get('faithfulness'))} ({t.get('source')})"
            ),
        ]
        for label in ("agree", "high_sim_unfaithful", "low_sim_faithful", "not scored"):
            if counts.get(label) or label != "not scored":
                lines.append(f"  {label:<22}{counts.get(label, 0):>6}")
        png, html_path = self.report_paths
        lines += [
            f"Scores:  {self.folder.table_path(state.table_format)}",
            f"Report:  {html_path}",
            f"         {png}",
        ]
        if urls:
            lines += [f"Phoenix: {urls.get('project', '')}"]
            if urls.get("experiment"):
                lines.append(f"         {urls['experiment']}")
        lines.append("Filters:")
        lines += [f"  {name}:\n    {text}" for name, text in _filters(state).items()]
        print("\n".join(lines), flush=True)

    # -- Phoenix -------------------------------------------------------------------------------------

    def log_to_phoenix(self, table: pd.DataFrame, state: RunState) -> dict[str, str]:
        """Traces, annotation configs, span annotations, dataset, experiment; each step recorded when done."""
        from phoenix.client import Client

        from bertscore_plugins.integrations.phoenix import (
            ensure_annotation_configs,
            experiment_url,
            log_experiment,
            log_span_annotations,
            project_url,
        )
        from bertscore_plugins.integrations.phoenix.experiments import create_dataset

        url, project = self.args.phoenix_url, self.args.project
        table = phoenix_logging.with_span_ids(table, f"{state.run_key}/{project}")
        version = phoenix_logging.check_server(url)
        client = Client(base_url=url)
        state.logging_attempts += 1
        self.folder.save_state(state)
        print(f"Logging to Phoenix {version} at {url}, project {project!r} ...", flush=True)

        def done(step: str, value: Any) -> None:
            state.logged[step] = value
            self.folder.save_state(state)

        step = "traces"
        try:
            sent = phoenix_logging.send_traces(client, url, table, project)
            if sent or state.logged.get("traces", {}).get("project") != project:
                # New spans (a first run, or a server that lost them): all that hangs on them is redone.
                state.logged = {}
                done("traces", {"project": project, "rows": len(table), "at": now()})
            print(f"  traces: {sent} sent, {len(table) - sent} already on the server", flush=True)
            step = "annotation configs"
            if "annotation_configs" not in state.logged:
                done("annotation_configs", ensure_annotation_configs(client, project=project))
            step = "span annotations"
            if "span_annotations" not in state.logged:
                by_span = table.drop(columns=["span_id", "retriever_span_id"]).set_index(
                    pd.Index(table["span_id"], name="context.span_id")
                )
                done("span_annotations", {"annotations": log_span_annotations(client, by_span), "at": now()})
            print(
                f"  span annotations: {state.logged['span_annotations']['annotations']} on the server",
                flush=True,
            )
            step = "dataset"
            if "dataset" not in state.logged:
                name = f"{project}-{state.run_key[:8]}"
                # a run stopped right after creating it: the server has it, the state file does not yet
                dataset = _existing_dataset(client, name) or create_dataset(
                    client,
                    table,
                    name=name,
                    span_id_column="span_id",
                    description=f"rows of {Path(self.args.input).name} (recipes.disagreement)",
                )
                done("dataset", {"id": _get(dataset, "id"), "name": _get(dataset, "name")})
            step = "experiment"
            if "experiment" not in state.logged:
                dataset_id = state.logged["dataset"]["id"]
                _drop_earlier_experiments(client, dataset_id, state.run_key)
                dataset = client.datasets.get_dataset(dataset=dataset_id, timeout=30)
                _, experiment = log_experiment(
                    client,
                    table,
                    dataset_name=state.logged["dataset"]["name"],
                    dataset=dataset,
                    experiment_name=f"bertscore-vs-{state.faithfulness_signal}",
                    experiment_metadata={
                        "thresholds": state.thresholds,
                        "model": self.args.model,
                        "faithfulness_signal": state.faithfulness_signal,
                        "run_key": state.run_key,
                    },
                )
                done("experiment", {"id": _get(experiment, "experiment_id"), "at": now()})
            print("  dataset and experiment: on the server", flush=True)
        except Exception as error:
            down = not phoenix_logging.server_is_up(url)
            cause = "the server stopped answering" if down else "the server answered with an error"
            if isinstance(error, phoenix_logging.PhoenixUnavailable) and not down:
                cause = "the server did not take the traces"
            finished = ", ".join(state.logged) or "nothing yet"
            raise phoenix_logging.PhoenixUnavailable(
                f"Phoenix logging stopped at step '{step}': {cause} ({type(error).__name__}: {str(error)[:300]}).\n"
                f"Nothing is lost: all {len(table)} scored rows are in {self.folder.table_path(state.table_format)}"
                f" and {self.folder.state_path} records what was logged ({finished}).\n"
                f"When the server at {url} is back, run the same command again: it logs the rest without "
                "scoring again."
            ) from error
        urls = {}
        pid = phoenix_logging.project_id(client, project)
        if pid:
            urls["project"] = project_url(url, pid)
        urls["experiment"] = experiment_url(
            url, state.logged["dataset"]["id"], state.logged["experiment"]["id"]
        )
        done("urls", urls)
        return urls


def _existing_dataset(client: Any, name: str) -> Any:
    """The dataset called `name` on the server, or None."""
    try:
        return client.datasets.get_dataset(dataset=name, timeout=30)
    except Exception:
        return None


def _drop_earlier_experiments(client: Any, dataset_id: str, run_key: str) -> None:
    """Delete experiments an interrupted earlier attempt of this run left on its dataset (killed after
    the server created them, before the state file recorded them), so a re-run never adds a duplicate.
    One made by an attempt that was killed may lack runs or evaluations, so none is reused."""
    for experiment in client.experiments.list(dataset_id=dataset_id):
        if (experiment.get("metadata") or {}).get("run_key") == run_key:
            client.experiments.delete(experiment_id=experiment["id"])


def _cut(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _what_changed(state: RunState, digest: str, settings: dict[str, Any]) -> str:
    """The differences in words: the input, the signature's settings, the recipe's settings."""
    from bertscore_plugins.core.signature import Signature

    changes = [] if state.input_digest == digest else ["the input rows changed"]
    saved = dict(state.settings)
    saved_signature, signature = saved.pop("signature", None), settings.get("signature")
    if saved_signature is None:
        changes.append("the saved run has no signature (made by an older version)")
    elif saved_signature != signature:
        changes.append(Signature.parse(saved_signature).describe_diff(signature))
    changes += [
        f"{name} {saved.get(name)!r} -> {value!r}"
        for name, value in settings.items()
        if name != "signature" and saved.get(name) != value
    ]
    return "; ".join(changes)


def _filters(state: RunState) -> dict[str, str]:
    """The integration's ready-made filter strings for this run, flattened to {"spans / name": text}."""
    from bertscore_plugins.integrations.phoenix import FAITHFULNESS, disagreement_filters

    judged = state.faithfulness_signal == FAITHFULNESS
    filters = disagreement_filters(
        faithfulness=state.faithfulness_signal,
        similarity_threshold=state.thresholds.get("similarity") if judged else None,
    )
    flat: dict[str, str] = {}
    for group, entries in filters.items():
        if isinstance(entries, dict):
            flat.update({f"{group} / {name}": str(text) for name, text in entries.items()})
        else:
            flat[group] = str(entries)
    return flat


if __name__ == "__main__":
    sys.exit(main())

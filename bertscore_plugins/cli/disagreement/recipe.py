"""The disagreement recipe as wiring: table source -> the one pipeline (engine + store + judge retry) -> sinks.

Source: the user's table (:mod:`.rows`). Engine, store and judge retry:
:func:`bertscore_plugins.evaluation.pipeline.evaluate_stored` over ``OUT/results.sqlite`` (the same as
trace evaluation's), each row keyed by its id and a digest of its texts, under the id of the
configuration minus its thresholds (so new thresholds are re-applied to stored scores, never rescored). Sinks: the
scores table and summary (:mod:`.folder`), the report (:mod:`.html_report`, :mod:`.scatter`), Phoenix
(:mod:`bertscore_plugins.integrations.phoenix.run_logging`), the summary on stdout (:mod:`.printed`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from bertscore_plugins.cli.disagreement import printed
from bertscore_plugins.cli.disagreement.exits import EXIT_JUDGE, EXIT_OK, EXIT_PHOENIX, HTML_NAME, PNG_NAME
from bertscore_plugins.cli.disagreement.folder import OutputFolder, RunState, now
from bertscore_plugins.cli.disagreement.rows import normalise_rows, read_table, row_name
from bertscore_plugins.evaluation.batch import BatchRow
from bertscore_plugins.evaluation.cells import Cell
from bertscore_plugins.evaluation.dataframe import Columns, row_key, rows_of
from bertscore_plugins.evaluation.evaluation_config import EvaluationConfig
from bertscore_plugins.evaluation.names import score_column
from bertscore_plugins.evaluation.pipeline import PassOptions, StoredRun, bertscore_names, evaluate_stored
from bertscore_plugins.evaluation.score_table import flat_row, summary
from bertscore_plugins.evaluation.store import ResultStore
from bertscore_plugins.evaluation.store_keys import StoreKeys, scorer_identity
from bertscore_plugins.evaluation.store_keys import store_keys as signal_keys

#: a row's cells, by signal name
RowCells = Mapping[str, Cell]


def run_recipe(args: argparse.Namespace) -> int:
    """One run over one input and one output folder; returns the exit code."""
    table, rows = _read_rows(args)
    folder = OutputFolder(args.out)
    folder.check_writable({"input": args.input}, (PNG_NAME, HTML_NAME))
    config = _configuration(args)
    if args.rescore:
        _discard(folder)
    previous = folder.load_state()  # a damaged one is named before any work
    engine_rows = batch_rows(rows)
    keys = [str(row.key) for row in engine_rows]
    found, store_keys = _evaluate(args, folder, config, engine_rows)
    signature = _signature(found, config, previous, folder)
    cells = [found.cells[key] for key in keys]
    state = _state(
        folder, previous, signature, keys, found, config, rows, store_keys.of(config.disagreement_name)
    )
    flat = _scores_table(table, rows, cells, config, args.id_column)
    paths = printed.Paths(
        folder.save_table(flat, args.table_format),
        folder.store_path,
        *_report(args, folder, rows, cells, state),
    )
    folder.save_summary(
        {
            **summary(flat.to_dict(orient="records")),
            "thresholds": state.thresholds,
            "configuration": store_keys.of(config.disagreement_name),
            "store_keys": dict(store_keys.by_name),
        }
    )
    if state.judge_failed_rows:
        print(printed.judge_failure(found, rows, keys, state, paths), file=sys.stderr)
        return EXIT_JUDGE
    if args.no_phoenix:
        printed.summary(flat, state, paths, urls={})
        return EXIT_OK
    from bertscore_plugins.errors import PhoenixServerError

    try:
        urls = _log_to_phoenix(args, folder, state, rows, cells)
    except PhoenixServerError as error:
        printed.summary(flat, state, paths, urls={})
        print(
            f"\nerror: {error}\n{printed.nothing_lost(len(rows), folder, args.phoenix_url)}", file=sys.stderr
        )
        return EXIT_PHOENIX
    printed.summary(flat, state, paths, urls)
    return EXIT_OK


def _read_rows(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The user's table (its first ``--limit`` rows) and its rows in the recipe's columns (:mod:`.rows`)."""
    columns = Columns(
        input=args.question_column,
        output=args.output_column,
        context=args.context_column,
        reference=args.reference_column,
    )
    wanted = {
        user: f"--{ {'input': 'question'}.get(ours, ours) }-column"
        for ours, user in columns.as_dict().items()
    }
    table = read_table(args.input, args.split, args.input_format, {args.id_column: "--id-column", **wanted})
    if args.limit is not None:
        table = table.head(args.limit).reset_index(drop=True)
    return table, normalise_rows(table, columns, args.id_column)


def _evaluate(
    args: argparse.Namespace, folder: OutputFolder, config: EvaluationConfig, engine_rows: list[BatchRow]
) -> tuple[StoredRun, StoreKeys]:
    """What the folder's store lacks, computed and stored (the pipeline's one resume rule): the run, and the
    keys its results are kept under."""
    # each signal under its own key (a fixed judge name asks only the judge); the model loads only when a
    # row is scored, never for a run that reads the store
    store_keys = signal_keys(config, scorer_identity(config.score))
    options = PassOptions(
        progress=False if args.quiet else None,
        say=lambda line: print(line, flush=True),
        compute=not args.thresholds_only,
    )
    with ResultStore(folder.store_path) as store:
        return evaluate_stored(engine_rows, config, store, store_keys, options=options), store_keys


def _configuration(args: argparse.Namespace) -> EvaluationConfig:
    """The evaluation configuration the flags and ``BERTSCORE_JUDGE_*`` describe (no model is loaded)."""
    from bertscore_plugins.core.score_config import ScoreConfig
    from bertscore_plugins.judge.environment import JUDGE_SETUP_HINT, judge_from_env
    from bertscore_plugins.settings import values_from_args

    judge = judge_from_env()  # the one choice of judge from BERTSCORE_JUDGE_* (the judge's own home)
    if judge is None:
        print(JUDGE_SETUP_HINT + "\n")
    return EvaluationConfig(
        score=ScoreConfig(model=args.model), judge=judge, **values_from_args(args, EvaluationConfig)
    )


def _signature(
    found: StoredRun, config: EvaluationConfig, state: RunState | None, folder: OutputFolder
) -> str:
    """The signature of the scorer that made the stored scores: this run's when it scored (said when it
    differs from the one before), else the one the state recorded."""
    if not any(name in found.computed for name in bertscore_names(config)):
        return state.signature if state is not None else ""
    from bertscore_plugins.core.scorer import get_scorer

    signature = str(get_scorer(config.score).signature)  # loaded by the pass: the process's cached scorer
    _say_if_the_scorer_changed(state, signature, folder)
    return signature


def _say_if_the_scorer_changed(state: RunState | None, signature: str, folder: OutputFolder) -> None:
    """A scorer of other weights or library versions keys new scores: say what changed."""
    if state is not None and state.signature and state.signature != signature:
        from bertscore_plugins.core.signature import Signature

        print(
            f"The scores in {folder.path} were made by another scorer "
            f"({Signature.parse(state.signature).describe_diff(signature)}): they stay in the store, and "
            "these rows were scored again under this one.",
            flush=True,
        )


def batch_rows(rows: pd.DataFrame) -> list[BatchRow]:
    """The engine's rows (the DataFrame adapter's, :func:`~bertscore_plugins.evaluation.dataframe.rows_of`):
    keyed by their store identity (their id and a digest of their texts, ``row_key``), named in warnings as
    the user counts them."""
    by_id = rows.set_index("row_id", drop=False)
    found = rows_of(by_id, needs_input=True)
    return [
        replace(
            row,
            key=row_key(row),
            named=row_name(position, None if row.key == str(position + 1) else row.key),
        )
        for position, row in enumerate(found)
    ]


def _discard(folder: OutputFolder) -> None:
    """--rescore: the store and the state go; the next steps start from nothing."""
    for path in (
        folder.state_path,
        folder.store_path,
        *(Path(f"{folder.store_path}{s}") for s in ("-wal", "-shm")),
    ):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _state(
    folder: OutputFolder,
    state: RunState | None,
    signature: str,
    keys: list[str],
    found: StoredRun,
    config: EvaluationConfig,
    rows: pd.DataFrame,
    store_id: str,
) -> RunState:
    """The run's state: kept (with the Phoenix steps done) while the rows and configuration are the same
    (``store_id``: the key of the disagreement, which reads every signal)."""
    run = store_id + "/" + hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]
    if state is None or state.run != run:
        state = RunState(run=run, signature=signature)
    judge = config.judge.name if config.judge is not None else None
    failed = {key for key in keys if judge is not None and judge in found.failures.get(key, {})}
    state.judge_failed_rows = [
        row_id for key, row_id in zip(keys, rows["row_id"], strict=True) if key in failed
    ]
    state.rows, state.scored_at = len(keys), now()
    state.faithfulness_signal = config.faithfulness_name
    state.thresholds = found.thresholds.to_dict() if found.thresholds is not None else {}
    if found.triage.get("mode") == "unsettled" and found.triage.get("rows"):
        calls = state.judge_calls or {"rows": 0, "judged": 0, "saved": 0, "mode": "unsettled"}
        state.judge_calls = {
            **calls,
            "rows": len(keys),
            **{k: calls[k] + _count(found.triage[k]) for k in ("judged", "saved")},
        }
        print(printed.triage(found.triage), flush=True)
    folder.save_state(state)
    return state


def _count(value: int | str) -> int:
    return value if isinstance(value, int) else 0


def _scores_table(
    table: pd.DataFrame,
    rows: pd.DataFrame,
    cells: Sequence[RowCells],
    config: EvaluationConfig,
    id_column: str,
) -> pd.DataFrame:
    """The user's table (their columns, their names; ``row_id``, the row counted from 1, when it has no id
    column) with the flat score columns."""
    flat = pd.DataFrame(
        [flat_row({n: c[n] for n in config.names if n in c}) for c in cells], index=table.index
    )
    user = table.drop(columns=[c for c in flat.columns if c in table.columns])
    if id_column not in user.columns:
        user = user.assign(row_id=list(rows["row_id"]))
    return pd.concat([user, flat], axis=1)


def records(rows: pd.DataFrame, cells: Sequence[RowCells]) -> list[dict[str, object]]:
    """Each row's fields with its ``<name>_score`` cells as ``Score.to_dict()`` dicts: the DataFrame Phoenix
    reads (one of the three edges where a cell is a dict)."""
    return [
        {**row, **{score_column(name): cell.to_dict() for name, cell in found.items()}}
        for row, found in zip(rows.to_dict(orient="records"), cells, strict=True)
    ]


def _report(
    args: argparse.Namespace,
    folder: OutputFolder,
    rows: pd.DataFrame,
    cells: Sequence[RowCells],
    state: RunState,
) -> tuple[Path, Path]:
    from bertscore_plugins.cli.disagreement import html_report, scatter
    from bertscore_plugins.evaluation.names import DISAGREEMENT, FAITHFULNESS, SIMILARITY

    names = html_report.Names(SIMILARITY, state.faithfulness_signal, DISAGREEMENT)
    found = html_report.report_rows(rows.to_dict(orient="records"), cells, names)
    thresholds = state.thresholds or {"similarity": 0.0, "faithfulness": 0.0}
    png = scatter.plot_scatter(
        found,
        thresholds,
        folder.report_dir / PNG_NAME,
        faithfulness_name=state.faithfulness_signal,
        binary_faithfulness=state.faithfulness_signal == FAITHFULNESS,
    )
    page = html_report.Page(
        title=f"Similarity vs {state.faithfulness_signal}: {Path(args.input).name}",
        faithfulness_name=state.faithfulness_signal,
        summary_lines=[
            f"{len(rows)} rows scored {state.scored_at}",
            f"model: {args.model}; faithfulness signal: {state.faithfulness_signal}",
            f"scores: {folder.table_path(args.table_format)}",
        ],
        filters=printed.filters(state),
        png=png,
    )
    top = html_report.top_disagreements(found, thresholds, args.top)
    return png, html_report.write_html(found, top, thresholds, folder.report_dir / HTML_NAME, page)


def _log_to_phoenix(
    args: argparse.Namespace,
    folder: OutputFolder,
    state: RunState,
    rows: pd.DataFrame,
    cells: Sequence[RowCells],
) -> dict[str, str]:
    from bertscore_plugins.integrations.phoenix.run_logging import RunLog, log_run

    state.logging_attempts += 1
    folder.save_state(state)
    signal = state.faithfulness_signal
    run = RunLog(
        url=args.phoenix_url,
        project=args.project,
        run_key=state.run_key,
        logged=state.logged,
        save=lambda: folder.save_state(state),
        description=f"rows of {Path(args.input).name} (bertscore-plugins disagreement)",
        experiment_name=f"bertscore-vs-{signal}",
        experiment_metadata={
            "thresholds": state.thresholds,
            "model": args.model,
            "faithfulness_signal": signal,
        },
    )
    return log_run(pd.DataFrame(records(rows, cells)), run, say=lambda line: print(line, flush=True))

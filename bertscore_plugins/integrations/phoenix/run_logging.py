"""A scored table sent to Phoenix, step by step, each step recorded once done: the Phoenix sink of a run.

Traces (:mod:`.table_traces`), annotation configs, span annotations, a dataset of the rows and an
experiment whose evaluators return the stored cells (nothing is scored again). Every step can be
repeated: an interrupted run is finished by running it again, and what a killed attempt left on the
server (a dataset, an experiment the record does not know of yet) is reused or replaced, never doubled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from bertscore_plugins.errors import PhoenixServerError
from bertscore_plugins.integrations.phoenix import annotation_sink, experiments, gateway, table_traces

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunLog:
    """Where a run goes and what it is: the server, the project, the run's key (its span ids derive from
    it), the steps done so far (``logged``, updated in place) and ``save`` (called after each step)."""

    url: str
    project: str
    run_key: str
    logged: MutableMapping[str, Any]  # the run's JSON record, read back as it was written
    save: Callable[[], None]
    description: str = ""
    experiment_name: str = "bertscore"
    experiment_metadata: dict[str, object] | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def log_run(table: pd.DataFrame, run: RunLog, say: Callable[[str], None] = print) -> dict[str, str]:
    """Send ``table`` (``row_id``, ``input``, ``context``, ``output``, ``reference`` and ``<name>_score``
    cells) to Phoenix; returns the dashboard URLs ({"project", "experiment"}).

    Raises :class:`PhoenixServerError` naming the step it stopped at, why, and that a re-run finishes."""
    from phoenix.client import Client

    table = table_traces.with_span_ids(table, f"{run.run_key}/{run.project}")
    version = table_traces.check_server(run.url)
    client = Client(base_url=run.url)
    say(f"Logging to Phoenix {version} at {run.url}, project {run.project!r} ...")
    steps = _Steps(client, table, run, say)
    try:
        steps.all()
    except Exception as error:
        down = not table_traces.server_is_up(run.url)
        cause = "the server stopped answering" if down else "the server answered with an error"
        if isinstance(error, PhoenixServerError) and not down:
            cause = "the server did not take the traces"
        finished = ", ".join(run.logged) or "nothing yet"
        raise PhoenixServerError(
            f"Phoenix logging stopped at step '{steps.step}': {cause} ({type(error).__name__}: "
            f"{str(error)[:300]}); done: {finished}"
        ) from error
    urls = {}
    try:  # the one project lookup (gateway.project_id); a link is not worth failing the run for
        urls["project"] = annotation_sink.project_url(run.url, gateway.project_id(client, run.project))
    except Exception as error:
        logger.warning("could not read the id of project %r: %s", run.project, error)
    urls["experiment"] = experiments.experiment_url(
        run.url, run.logged["dataset"]["id"], run.logged["experiment"]["id"]
    )
    steps.done("urls", urls)
    return urls


class _Steps:
    def __init__(
        self, client: gateway.PhoenixClient, table: pd.DataFrame, run: RunLog, say: Callable[[str], None]
    ) -> None:
        self.client, self.table, self.run, self.say = client, table, run, say
        self.step = "traces"

    def done(self, step: str, value: Any) -> None:
        self.run.logged[step] = value
        self.run.save()

    def all(self) -> None:
        run, table = self.run, self.table
        sent = table_traces.send_traces(self.client, run.url, table, run.project)
        if sent or run.logged.get("traces", {}).get("project") != run.project:
            # new spans (a first run, or a server that lost them): all that hangs on them is redone
            run.logged.clear()
            self.done("traces", {"project": run.project, "rows": len(table), "at": _now()})
        self.say(f"  traces: {sent} sent, {len(table) - sent} already on the server")
        self.step = "annotation configs"
        if "annotation_configs" not in run.logged:
            self.done(
                "annotation_configs",
                annotation_sink.ensure_annotation_configs(self.client, project=run.project),
            )
        self.step = "span annotations"
        if "span_annotations" not in run.logged:
            by_span = table.drop(columns=["span_id", "retriever_span_id"]).set_index(
                pd.Index(table["span_id"], name="context.span_id")
            )
            count = annotation_sink.log_span_annotations(self.client, by_span)
            self.done("span_annotations", {"annotations": count, "at": _now()})
        self.say(f"  span annotations: {run.logged['span_annotations']['annotations']} on the server")
        self.step = "dataset"
        if "dataset" not in run.logged:
            self.dataset()
        self.step = "experiment"
        if "experiment" not in run.logged:
            self.experiment()
        self.say("  dataset and experiment: on the server")

    def dataset(self) -> None:
        name = f"{self.run.project}-{self.run.run_key[:8]}"
        # a run stopped right after creating it: the server has it, the record does not yet
        dataset = _existing_dataset(self.client, name) or experiments.create_dataset(
            self.client, self.table, name=name, span_id_column="span_id", description=self.run.description
        )
        self.done("dataset", {"id": _get(dataset, "id"), "name": _get(dataset, "name")})

    def experiment(self) -> None:
        run = self.run
        dataset_id = run.logged["dataset"]["id"]
        _drop_earlier_experiments(self.client, dataset_id, run.run_key)
        dataset = self.client.datasets.get_dataset(dataset=dataset_id, timeout=30)
        _, experiment = experiments.log_experiment(
            self.client,
            self.table,
            dataset_name=run.logged["dataset"]["name"],
            dataset=dataset,
            experiment_name=run.experiment_name,
            experiment_metadata={**(run.experiment_metadata or {}), "run_key": run.run_key},
        )
        self.done("experiment", {"id": _get(experiment, "experiment_id"), "at": _now()})


def _existing_dataset(client: gateway.PhoenixClient, name: str) -> Any:
    """The dataset called `name` on the server, or None."""
    try:
        return client.datasets.get_dataset(dataset=name, timeout=30)
    except Exception:
        return None


def _drop_earlier_experiments(client: gateway.PhoenixClient, dataset_id: str, run_key: str) -> None:
    """Delete experiments an interrupted earlier attempt of this run left on its dataset (killed after
    the server created them, before the record named them), so a re-run never adds a duplicate. One made
    by an attempt that was killed may lack runs or evaluations, so none is reused."""
    for experiment in client.experiments.list(dataset_id=dataset_id):
        if (experiment.get("metadata") or {}).get("run_key") == run_key:
            client.experiments.delete(experiment_id=experiment["id"])


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

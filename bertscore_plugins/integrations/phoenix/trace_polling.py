"""Passes over a project: one, or (``follow``) one every ``interval`` seconds until Ctrl-C.

Before the first pass the project must exist and get our annotation configs (types, labels and
directions for the UI). Following, a missing project is waited for and an unreachable server retried at
the next poll; a single pass turns either into one error naming the server or the store.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from bertscore_plugins.errors import ResultStoreError, SettingError, TraceEvaluationError
from bertscore_plugins.integrations.phoenix import gateway
from bertscore_plugins.integrations.phoenix.trace_pass import OnePass, TraceJob
from bertscore_plugins.integrations.phoenix.trace_report import EvaluationReport

logger = logging.getLogger(__name__)


@dataclass
class _Reach:
    """What the polls have established so far."""

    reached: bool = False  # the server answered once
    configs_ready: bool = False  # the project exists and has our annotation configs


def poll(run: OnePass, on_poll: Callable[[EvaluationReport], None] | None) -> EvaluationReport:
    """One pass over the project, or (following) one every ``interval`` seconds; returns the report."""
    job, settings = run.job, run.job.settings
    reach = _Reach()
    poll_since = settings.since
    while True:
        poll_started = datetime.now(timezone.utc)
        # counted when it starts: a report taken at Ctrl-C mid-poll already holds that poll's annotations
        job.report.polls += 1
        _one_poll(run, poll_since, reach)
        if on_poll is not None:
            on_poll(job.report)
        if not settings.follow or (settings.max_polls is not None and job.report.polls >= settings.max_polls):
            return job.report
        window_start = poll_started - max(settings.lookback, timedelta(seconds=2 * settings.interval))
        poll_since = window_start if settings.since is None else max(settings.since, window_start)
        time.sleep(settings.interval)


def _one_poll(run: OnePass, since: datetime | None, reach: _Reach) -> None:
    import httpx

    job = run.job
    try:
        if not reach.configs_ready:
            reach.configs_ready = _prepare_project(job, reach)
        if reach.configs_ready:
            for page in run.pages(since):
                run.page(page)
    except ResultStoreError:
        raise  # the local file, not Phoenix: retrying would not help
    except (httpx.HTTPError, OSError) as error:
        if not job.settings.follow:
            raise _phoenix_failed(job, error, reached=reach.reached) from error
        logger.warning("Phoenix unreachable (%s); retrying in %g s", error, job.settings.interval)


def _prepare_project(job: TraceJob, reach: _Reach) -> bool:
    """True once the project exists and has our annotation configs."""
    from bertscore_plugins.integrations.phoenix.annotation_sink import (
        annotation_configs,
        ensure_annotation_configs,
    )

    exists = gateway.project_exists(job.client, job.project)
    reach.reached = True
    if exists:
        config = job.config
        configs = annotation_configs(
            similarity=config.similarity_name,
            groundedness=config.groundedness_name,
            offline_faithfulness=config.offline_name,
            disagreement=config.disagreement_name,
            **({"faithfulness": config.judge.name} if config.judge is not None else {}),
        )
        ensure_annotation_configs(job.client, configs, project=job.project)
        return True
    if not job.settings.follow:
        raise SettingError(
            "project",
            f"Phoenix at {gateway.base_url_of(job.client)} has no project {job.project!r} "
            f"(it has {_project_list(job)})",
        )
    if job.report.polls == 1:  # the first poll (counted when it starts)
        logger.warning("no project %r yet; waiting for its first traces", job.project)
    return False


def _project_list(job: TraceJob, most: int = 10) -> str:
    import httpx

    try:
        names = gateway.project_names(job.client)
    except httpx.HTTPError:
        names = []
    shown = ", ".join(repr(name) for name in names[:most]) + (", ..." if len(names) > most else "")
    return f"projects {shown}" if names else "no projects"


def _phoenix_failed(job: TraceJob, error: Exception, *, reached: bool) -> TraceEvaluationError:
    if not reached:
        return TraceEvaluationError(
            f"Phoenix at {gateway.base_url_of(job.client)} failed the first request ({type(error).__name__}: "
            f"{error}); is it running there? (--base-url, PHOENIX_COLLECTOR_ENDPOINT)"
        )
    return TraceEvaluationError(
        f"Phoenix failed during the run ({type(error).__name__}: {error}); "
        f"{job.store.count(job.configuration)} results of this configuration are in "
        f"{job.store.path}: run again to log them without rescoring"
    )

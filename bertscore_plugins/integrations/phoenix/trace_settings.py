"""How a trace evaluation reads spans: :class:`TraceSettings` (which spans, paging and polling; each
setting declared once: its default, help and flag), the Phoenix integration's one configuration object.

How spans are evaluated is :class:`~bertscore_plugins.evaluation.evaluation_config.EvaluationConfig`'s (which holds
the core's ``ScoreConfig``); the two are composed by :func:`.trace_evaluation.evaluate_project`, never
layered. What a run did is :class:`.trace_report.EvaluationReport` (re-exported here)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from openinference.semconv.trace import OpenInferenceSpanKindValues

from bertscore_plugins.core.score_config import finite_number, whole_number
from bertscore_plugins.errors import ArgumentError, SettingError
from bertscore_plugins.integrations.phoenix.span_source import ROOT
from bertscore_plugins.settings import document, setting

LONG_TEXT = "window"
"""The core's ``long_text`` for spans unless the caller sets it: a retrieved context is read whole (with
a sliding window), not cut at the model's 512 tokens. One home: the CLI's default and the Python API's."""

DEFAULT_LOOKBACK = timedelta(minutes=10)
"""How far back each ``follow`` poll re-reads: a trace's root span is exported when the trace ends,
with the trace's start time, so a slow request shows up with a start time before the last poll."""


@dataclass(frozen=True)
class TraceSettings:
    """Which spans are read and how: selection, paging and polling (no result depends on these)."""

    span_kind: str = setting(
        ROOT,
        "which spans: 'root' (the root span of each trace) or an OpenInference kind (LLM, CHAIN, ...)",
        signed=False,
    )
    where: str | None = setting(
        None, "a Phoenix filter string narrowing the spans (as in the UI filter bar)", signed=False
    )
    since: datetime | None = setting(
        None,
        "only spans started since: 30m, 2h, 7d or an ISO time",
        signed=False,
        parse=lambda text: _since_flag(text),
    )
    page_size: int = setting(500, "spans read (and scored) per page; memory is bounded by it", signed=False)
    log_batch_size: int = setting(100, "annotations per logging request", signed=False)
    follow: bool = setting(False, "keep polling for new traces until Ctrl-C", signed=False)
    interval: float = setting(
        30.0,
        "seconds between polls with --follow (at most a day)",
        signed=False,
        parse=lambda text: _interval_flag(text),
    )
    lookback: timedelta = setting(
        DEFAULT_LOOKBACK, "how far back each poll re-reads (slow traces end late)", signed=False, flag=None
    )
    max_polls: int | None = setting(None, "stop following after this many polls", signed=False, flag=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "span_kind", _span_kind(self.span_kind))
        for name in ("page_size", "log_batch_size", *(("max_polls",) if self.max_polls is not None else ())):
            whole_number(name, getattr(self, name), 1, "a whole number of at least 1")
        # at most a day: 1e300 seconds would overflow the sleep between polls
        finite_number(
            "interval",
            self.interval,
            "a positive number of seconds, at most a day",
            above=0.0,
            at_most=86400.0,
        )


TraceSettings.__doc__ = (TraceSettings.__doc__ or "") + document(TraceSettings)


def _interval_flag(text: str) -> float:
    """--interval for argparse: seconds in (0, a day] (1e300 would overflow the sleep; nan never compares)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0.0 < value <= 86400.0:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 seconds (a day), got {text}")
    return value


def _since_flag(text: str) -> datetime:
    """`parse_since` for argparse, which shows an ArgumentTypeError's own message."""
    import argparse

    try:
        return parse_since(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _span_kind(span_kind: Any) -> str:
    """The span kind as Phoenix spells it; SettingError for one that would select nothing."""
    kinds = [kind.value for kind in OpenInferenceSpanKindValues]
    kind = span_kind.strip() if isinstance(span_kind, str) else span_kind
    if kind != ROOT and (not isinstance(kind, str) or kind.upper() not in kinds):
        raise SettingError(
            "span_kind",
            f"span_kind must be {ROOT!r} or an OpenInference span kind {kinds}, got {span_kind!r}",
        )
    return kind if kind == ROOT else kind.upper()


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """``"2h"``, ``"30m"``, ``"45s"``, ``"7d"`` (ago) or an ISO 8601 time; naive times are UTC.

    Raises:
        ValueError: anything else (the message says what is accepted).
    """
    now = now or datetime.now(timezone.utc)
    value = text.strip()
    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
    if value[-1:] in units and value[:-1].replace(".", "", 1).isdigit():
        try:
            return now - timedelta(**{units[value[-1]]: float(value[:-1])})
        except OverflowError:  # 1000000d reaches before year 1
            raise ArgumentError(
                f"--since {text!r} reaches back before the year 1; give a shorter duration"
            ) from None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise ArgumentError(
            f"--since must be a duration ago (30m, 2h, 7d) or an ISO time (2026-01-31T12:00), got {text!r}"
        ) from error
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

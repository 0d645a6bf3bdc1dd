"""Choosing the judge from the environment: one function, one set of variables, every bad value refused by
the variable's name (one line; exit 2 on the command line), never a traceback or a silent default."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bertscore_plugins.errors import ArgumentError
from bertscore_plugins.judge.environment import JudgeSettings, judge_from_env
from bertscore_plugins.judge.local_model import LOCAL_MODEL, MEASURED_AUC, MEASURED_AUC_BY_SET
from bertscore_plugins.judge.yes_no import YesNoJudge

LOCAL = {"BERTSCORE_JUDGE_MODEL": "local", "BERTSCORE_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"}


def test_no_model_configured_is_no_judge():
    assert judge_from_env({}) is None
    assert judge_from_env({"BERTSCORE_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"}) is None


def test_the_default_judge_is_the_yes_no_judge_over_the_configured_endpoint():
    judge = judge_from_env(
        {**LOCAL, "BERTSCORE_JUDGE_TIMEOUT": "7", "BERTSCORE_JUDGE_CONTEXT_TOKENS": "4096"}
    )
    assert isinstance(judge, YesNoJudge)
    assert judge.endpoint.base_url == "http://127.0.0.1:9/v1" and judge.endpoint.model == "local"
    assert judge.endpoint.timeout == 7.0 and judge.context_tokens == 4096


def test_the_phoenix_style_is_phoenixs_evaluator_over_the_same_endpoint():
    judge = judge_from_env({**LOCAL, "BERTSCORE_JUDGE_STYLE": "phoenix"})
    assert judge.name == "faithfulness"
    assert judge.model == "openai/local"


def _start_rate(judge) -> float:
    return judge.evaluator.llm._rate_limiters[0]._throttler.rate  # Phoenix's adaptive token bucket


def test_phoenixs_judge_starts_at_the_request_rate_asked_for():
    phoenix = {**LOCAL, "BERTSCORE_JUDGE_STYLE": "phoenix"}
    assert _start_rate(judge_from_env(phoenix)) == 5.0  # Phoenix's default
    assert _start_rate(judge_from_env({**phoenix, "BERTSCORE_JUDGE_RATE": "40"})) == 40.0


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "fast", "1e999"])
def test_judge_rates_that_are_not_positive_and_finite_are_refused_by_name(value):
    with pytest.raises(
        ArgumentError, match=f"BERTSCORE_JUDGE_RATE must be a positive, finite number.*{value!r}"
    ):
        judge_from_env({"BERTSCORE_JUDGE_MODEL": "m", "BERTSCORE_JUDGE_RATE": value})


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "fast", "1e999", "1e-320", "0.001", "1e6"])
def test_a_timeout_that_is_not_a_deadline_in_seconds_is_refused_by_name(value):
    says = "BERTSCORE_JUDGE_TIMEOUT must be a number of seconds from 0.01 to 86400 (one request, all of it)"
    with pytest.raises(ArgumentError, match=f"^{re.escape(says)}, got {re.escape(repr(value))}$"):
        judge_from_env({"BERTSCORE_JUDGE_MODEL": "m", "BERTSCORE_JUDGE_TIMEOUT": value})


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("http://127.0.0.1:abc/v1", "is not a URL (Port could not be cast to integer value as 'abc')"),
        ("http://127.0.0.1:99999/v1", "is not a URL (Port out of range 0-65535)"),
        ("http://[::1/v1", "is not a URL (Invalid IPv6 URL)"),
        ("http://a b/v1", "has a blank or a control character in it"),
        ("http://:80/v1", "names no host"),
        ("ftp://host/v1", "must be an http(s) URL"),
    ],
)
def test_a_base_url_that_cannot_be_asked_is_refused_by_name_at_start(value, says):
    with pytest.raises(ArgumentError, match=f"^BERTSCORE_JUDGE_BASE_URL {re.escape(says)}, got"):
        JudgeSettings.from_env({"BERTSCORE_JUDGE_MODEL": "m", "BERTSCORE_JUDGE_BASE_URL": value})


@pytest.mark.parametrize("value", ["²", "2048²", "٢٠٤٨", "9" * 5000, "20480000000"])
def test_context_tokens_that_are_not_ascii_digits_of_a_sane_size_are_refused_by_name(value):
    says = "BERTSCORE_JUDGE_CONTEXT_TOKENS must be a whole number of tokens from 512 to 10,000,000, got"
    with pytest.raises(ArgumentError, match=f"^{re.escape(says)}"):
        JudgeSettings.from_env({"BERTSCORE_JUDGE_MODEL": "m", "BERTSCORE_JUDGE_CONTEXT_TOKENS": value})


def test_an_api_key_that_cannot_go_into_a_header_is_refused_by_name():
    with pytest.raises(ArgumentError, match=r"^BERTSCORE_JUDGE_API_KEY must be printable ASCII"):
        JudgeSettings.from_env({"BERTSCORE_JUDGE_MODEL": "m", "BERTSCORE_JUDGE_API_KEY": "sk-a\nX-Evil: 1"})


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("BERTSCORE_JUDGE_CONTEXT_TOKENS", "0", "from 512"),
        ("BERTSCORE_JUDGE_CONTEXT_TOKENS", "-2048", "from 512"),
        ("BERTSCORE_JUDGE_CONTEXT_TOKENS", "2k", "a whole number of tokens"),
        ("BERTSCORE_JUDGE_MODEL_SHA256", "abc", "64 hex digits"),
        ("BERTSCORE_JUDGE_STYLE", "llama", "'yes-no' or 'phoenix'"),
    ],
)
def test_other_unusable_values_are_refused_by_name(name, value, says):
    with pytest.raises(ArgumentError, match=f"^{name} must be.*{re.escape(says)}"):
        JudgeSettings.from_env({"BERTSCORE_JUDGE_MODEL": "m", name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BERTSCORE_JUDGE_TIMEOUT", "1e-320"),
        ("BERTSCORE_JUDGE_CONTEXT_TOKENS", "2048²"),
        ("BERTSCORE_JUDGE_CONTEXT_TOKENS", "9" * 5000),
        ("BERTSCORE_JUDGE_BASE_URL", "http://[::1/v1"),
        ("BERTSCORE_JUDGE_BASE_URL", "http://a b/v1"),
    ],
)
def test_a_bad_judge_variable_on_the_command_line_is_one_line_and_exit_2(tmp_path, name, value):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **LOCAL, name: value}
    done = subprocess.run(
        [sys.executable, "-m", "bertscore_plugins.cli", "phoenix", "evaluate", "--project", "p"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {name} ") and done.stderr.count("\n") == 1, done.stderr


def test_the_packaged_models_measured_quality_is_the_shipped_engines_run_in_quality_section_9():
    import json
    from pathlib import Path

    results = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "judge_quality.json"
    measured = json.loads(results.read_text())
    names = {"summeval": "SummEval", "frank_cnndm": "FRANK CNN/DM", "frank_bbc": "FRANK XSum"}
    assert {
        name: round(measured["sets"][key]["judge_auc"], 3) for key, name in names.items()
    } == MEASURED_AUC_BY_SET
    assert measured["engine"] == "transformers"
    section = (results.parents[1] / "QUALITY.md").read_text().split("<!-- judge:begin -->")[1]
    section = section.split("<!-- judge:end -->")[0]
    assert "llama.cpp" not in section and "transformers engine" in section
    for name, auc in MEASURED_AUC_BY_SET.items():
        assert f"| {name} | " in section and f" | {auc:.3f} | " in section


def test_the_packaged_models_judge_carries_its_measured_quality_and_whether_it_is_near_chance():
    local = judge_from_env(
        {"BERTSCORE_JUDGE_MODEL": LOCAL_MODEL, "BERTSCORE_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert local.measured_auc == MEASURED_AUC == round(sum(MEASURED_AUC_BY_SET.values()) / 3, 3)
    assert local.near_chance is (abs(MEASURED_AUC - 0.5) <= 0.1)
    provider = judge_from_env({"BERTSCORE_JUDGE_MODEL": "gpt-4o-mini"})
    assert provider.measured_auc is None and provider.near_chance is False

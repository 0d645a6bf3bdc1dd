"""The sanity checklist: `bertscore-plugins sanity` on the default model, other settings, a user's own model."""

from __future__ import annotations

import json

import pytest

from bertscore_plugins import ScoreConfig, get_scorer
from bertscore_plugins.analysis.sanity import BLIND_SPOTS, FAIL, PASS, WARN, SanityReport, run_sanity
from bertscore_plugins.cli.main import main

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

MUST_PASS = (
    "exact copy scores 1",
    "empty candidate scores 0",
    "empty reference scores 0",
    "row order does not change scores",
    "paraphrase beats off-topic",
)
BLIND_SPOT_CHECKS = tuple(f"blind spot: {name}" for name, _, _ in BLIND_SPOTS)
# each blind spot is followed by the offline fact check's verdict on the same candidate
FACT_CHECKS = tuple(f"fact check: {name}" for name, _, _ in BLIND_SPOTS)
BLIND_SPOT_ROWS = tuple(row for pair in zip(BLIND_SPOT_CHECKS, FACT_CHECKS, strict=True) for row in pair)


def table_rows(output: str) -> dict[str, list[str]]:
    """Parse the printed Markdown table into {check: [status, score, what it shows]}."""
    rows = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4 and cells[0] != "check":
            rows[cells[0]] = cells[1:]
    return rows


def test_sanity_command_on_the_default_model_prints_the_table(capsys) -> None:
    assert main(["sanity"]) == 0
    output = capsys.readouterr().out
    rows = table_rows(output)
    assert list(rows) == list(MUST_PASS + BLIND_SPOT_ROWS)
    for check in MUST_PASS:
        assert rows[check][0] == PASS, (check, rows[check])
    assert rows["exact copy scores 1"][1] == "1.0000"
    assert rows["empty candidate scores 0"][1] == "0.0000"
    assert rows["empty reference scores 0"][1] == "0.0000"
    assert rows["paraphrase beats off-topic"][2].startswith("6/6 paraphrases above")
    # The blind spots are shown as what they are: one changed fact still scores above 0.9, above
    # every correct paraphrase.
    for check in BLIND_SPOT_CHECKS:
        status, score, meaning = rows[check]
        assert status == WARN, (check, rows[check])
        assert float(score) > 0.9
        assert meaning.startswith("scores above 6/6 correct paraphrases")
    for check in FACT_CHECKS:
        assert rows[check][0] == PASS and rows[check][2].startswith("caught: "), (check, rows[check])
    assert rows["fact check: wrong date"][2] == "caught: Thursday: context says Tuesday"
    assert "all checks pass; 4 known blind spot(s) shown as warn" in output
    assert "model:sentence-transformers/all-MiniLM-L6-v2@1110a24" in output
    assert "layer:4" in output


def test_sanity_json_and_other_settings_share_the_loaded_model(capsys) -> None:
    assert main(["sanity", "--layer", "2", "--idf", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True
    assert "layer:2" in report["signature"] and "idf:" in report["signature"]
    assert "idf:off" not in report["signature"]
    statuses = {row["check"]: row["status"] for row in report["rows"]}
    assert all(statuses[check] == PASS for check in MUST_PASS)


@pytest.mark.slow
def test_run_sanity_api_accepts_config_scorer_or_settings() -> None:
    by_settings = run_sanity(layer=4)
    by_config = run_sanity(ScoreConfig(layer=4))
    by_scorer = run_sanity(get_scorer(ScoreConfig()))
    assert isinstance(by_settings, SanityReport)
    assert by_settings.rows == by_config.rows == by_scorer.rows
    assert by_settings.statuses()["blind spot: wrong date"] == WARN
    with pytest.raises(TypeError, match="BERTScorer, a ScoreConfig or None"):
        run_sanity("default")


def test_sanity_runs_on_a_users_own_model_and_reports_what_fails(tiny_model, capsys) -> None:
    """A random 2-layer BERT: exactness checks still pass; the table shows whether meaning is captured."""
    code = main(["sanity", "--model", tiny_model, "--layer", "2"])
    rows = table_rows(capsys.readouterr().out)
    for check in (
        "exact copy scores 1",
        "empty candidate scores 0",
        "empty reference scores 0",
        "row order does not change scores",
    ):
        assert rows[check][0] == PASS, (check, rows[check])
    assert set(rows) == set(MUST_PASS + BLIND_SPOT_ROWS)
    assert all(status in (PASS, WARN, FAIL) for status, _, _ in rows.values())
    assert code == (1 if any(status == FAIL for status, _, _ in rows.values()) else 0)


def test_sanity_command_reports_a_missing_model_cleanly(tmp_path, capsys) -> None:
    assert main(["sanity", "--model", str(tmp_path / "nowhere")]) == 2
    assert "error:" in capsys.readouterr().err


def test_sanity_with_the_shipped_baseline_checks_raw_exactness(capsys) -> None:
    assert main(["sanity", "--rescale"]) == 0
    output = capsys.readouterr().out
    rows = table_rows(output)
    assert rows["exact copy scores 1"][0] == PASS and "(rescaled too)" in rows["exact copy scores 1"][2]
    # empty rows are checked on the raw scale: rescaled they would be -b/(1-b), by design
    assert rows["empty candidate scores 0"][:2] == [PASS, "0.0000"]
    assert rows["paraphrase beats off-topic"][0] == PASS
    assert "-rescaled" in output

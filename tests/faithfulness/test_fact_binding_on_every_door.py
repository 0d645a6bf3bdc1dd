"""A value bound to the wrong thing, and a wrong value named by the right source fact, through every door
a user meets: the faithfulness command, the disagreement recipe and ``evaluate_rows`` (the traces' door is
tests/integrations/phoenix/test_fact_binding_on_traces.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.support.bound_facts import BOUND_RIGHT, BOUND_WRONG

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run


def test_the_faithfulness_command_names_the_source_fact_about_the_same_thing(tmp_path, capsys):
    from bertscore_plugins.cli.main import main

    rows = BOUND_WRONG + [(*row, None) for row in BOUND_RIGHT]
    (tmp_path / "outputs.txt").write_text("".join(r[3] + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "sources.txt").write_text("".join(r[2] + "\n" for r in rows), encoding="utf-8")
    assert (
        main(["faithfulness", "-c", str(tmp_path / "outputs.txt"), "-s", str(tmp_path / "sources.txt")]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    got = [line.split("\t") for line in out[1:]]
    assert [(r[2], r[6]) for r in got] == [
        *(("unfaithful", r[5]) for r in BOUND_WRONG),
        *(("faithful", "") for _ in BOUND_RIGHT),
    ]


def test_evaluate_rows_and_the_disagreement_recipe_name_the_source_fact_about_the_same_thing(tmp_path):
    from bertscore_plugins.cli import disagreement
    from bertscore_plugins.evaluation.dataframe import evaluate_rows

    rows = BOUND_WRONG + [(*row, None) for row in BOUND_RIGHT]
    frame = pd.DataFrame(
        [{"id": r[0], "input": r[1], "context": r[2], "output": r[3], "reference": r[4]} for r in rows]
    ).set_index("id")
    evaluated = evaluate_rows(frame)
    offline = evaluated["offline_faithfulness_score"]
    for key, *_, named in rows:
        if named is None:
            assert offline[key]["label"] == "faithful", offline[key]
        else:
            assert offline[key]["label"] == "unfaithful"
            assert offline[key]["explanation"].endswith(f"facts: {named}"), offline[key]["explanation"]
            assert evaluated["sim_faith_disagreement_score"][key]["label"] != "agree" or (
                evaluated["bertscore_score"][key]["label"] != "similar"
            )

    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": r[0], "question": r[1], "context": r[2], "output": r[3], "reference": r[4]})
            + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert disagreement.main([str(data), "--out", str(out), "--no-phoenix"]) == disagreement.EXIT_OK
    table = pd.read_json(out / "scores.jsonl", lines=True, dtype=False).set_index("id")
    text = json.dumps(table.to_dict(orient="index"))
    for key, *_, named in rows:
        assert table.loc[key, "offline_faithfulness_label"] == ("faithful" if named is None else "unfaithful")
        if named is not None:
            assert named in text

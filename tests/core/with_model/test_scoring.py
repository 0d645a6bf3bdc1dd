"""The seed example, explanations, signatures, idf tables, the reference cache and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from bertscore_plugins import IdfTable, ScoreConfig, get_scorer, score
from bertscore_plugins.cli.main import main

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

REFERENCE = "The patient was discharged on Tuesday."
THURSDAY = "The patient was discharged on Thursday."
PARAPHRASE = "The patient left hospital on Tuesday."
OFF_TOPIC = "I like turtles and long walks on the beach."


def test_seed_example_ranks_and_explains_the_wrong_day():
    scores = get_scorer().score([THURSDAY, PARAPHRASE, OFF_TOPIC], [REFERENCE] * 3, explain=True)
    assert scores.f1[0] > scores.f1[1] > scores.f1[2]
    worst = scores.explanations[0].worst(1)[0]
    assert (worst.token, worst.matched_token) == ("Thursday", "Tuesday")
    assert scores.explanations[0].summary(1).startswith("Thursday -> Tuesday 0.")
    assert np.round(scores.f1, 4).tolist() == pytest.approx(
        [0.9735, 0.8271, 0.3294], abs=2e-4
    )  # bert_score 0.3.13 gives the same


def test_exact_copy_scores_one():
    scores = get_scorer().score([REFERENCE], [REFERENCE])
    for column in (scores.precision, scores.recall, scores.f1):
        assert column[0] == pytest.approx(1.0, abs=1e-6)


def test_signature_fields():
    signature = get_scorer().signature
    for field in (
        "bertscore_plugins:0.1.0",
        "model:sentence-transformers/all-MiniLM-L6-v2@1110a24;sha256:53aa5117;files:185dff54|",
        "layer:4",
        "idf:off",
        "multiref:max",
        "maxlen:512",
        "long:truncate",
        "dtype:float32",
        "transformers:",
        "torch:",
    ):
        assert field in signature
    assert not signature.endswith("-rescaled")


def test_idf_per_call_records_the_corpus_and_tables_are_reusable():
    refs_a = ["the cat sat on the mat", "a dog barked loudly", "the sun is shining"]
    refs_b = ["the cat sat on the mat", "birds sing at dawn", "it rained all day"]
    cands = ["the cat sat on a mat", "a dog barked", "sunshine today"]
    scorer = get_scorer(ScoreConfig(idf=True))
    first, second = scorer.score(cands, refs_a), scorer.score(cands, refs_b)
    assert first.signature != second.signature  # corpus digest differs
    assert "idf:refs@" in first.signature
    table = scorer.fit_idf(refs_a)
    assert isinstance(table, IdfTable) and table.num_documents == 3
    with_table = get_scorer(ScoreConfig(idf=table)).score(cands, refs_a)
    np.testing.assert_allclose(with_table.f1, first.f1, atol=1e-7)
    assert f"idf:table@{table.digest}" in with_table.signature


def test_multi_ref_rules():
    refs = [["I am proud of you.", "I love lemons.", "Go go go."]]
    best = get_scorer().score(["I like lemons."], ["I love lemons."])
    by_max = get_scorer().score(["I like lemons."], refs)
    by_f1 = get_scorer(ScoreConfig(multi_ref="best_f1")).score(["I like lemons."], refs)
    # "I love lemons." is encoded padded beside longer references here and alone above: float32 results
    # then differ in the last bits (1-2 ulp, 6e-8 each near 0.9), so compare at the invariance tolerance
    assert by_max.f1[0] == pytest.approx(best.f1[0], abs=1e-6)
    assert by_f1.f1[0] == pytest.approx(best.f1[0], abs=1e-6)
    assert by_f1.precision[0] == pytest.approx(best.precision[0], abs=1e-6)


def test_reference_cache_in_memory_and_on_disk_and_turned_off_again(tmp_path):
    refs = ["The bridge is closed until March.", "Sales rose 12% this quarter."]
    candidates = ["Bridge shut till March.", "Sales grew 12 percent."]
    fresh = get_scorer().score(candidates, refs)
    cached_scorer = get_scorer(ScoreConfig(batch_tokens=8192))
    reread = get_scorer(ScoreConfig(batch_tokens=4096))
    try:
        cache = cached_scorer.enable_reference_cache(disk_dir=str(tmp_path))
        cached_scorer.score(["x", "y"], refs)
        assert cache.misses == 2 and len(list(tmp_path.rglob("*.safetensors"))) == 2
        again = cached_scorer.score(candidates, refs)
        assert cache.hits == 2
        np.testing.assert_allclose(again.f1, fresh.f1, atol=1e-6)
        # a new scorer reads the disk copy
        disk_cache = reread.enable_reference_cache(disk_dir=str(tmp_path))
        from_disk = reread.score(candidates, refs)
        assert disk_cache.hits == 2 and disk_cache.misses == 0
        np.testing.assert_allclose(from_disk.f1, fresh.f1, atol=1e-6)
        # turned off: the references are encoded again, the cache is not consulted, the disk keeps its entries
        cached_scorer.disable_reference_cache()
        assert cached_scorer.reference_cache is None
        uncached = cached_scorer.score(candidates, refs)
        assert (cache.hits, cache.misses) == (2, 2)
        np.testing.assert_allclose(uncached.f1, fresh.f1, atol=1e-6)
        assert len(list(tmp_path.rglob("*.safetensors"))) == 2
    finally:  # the process-wide scorers go back as they were
        cached_scorer.disable_reference_cache()
        reread.disable_reference_cache()


def test_second_scorer_for_the_same_model_does_not_reload():
    loaded = get_scorer()._model
    assert get_scorer(ScoreConfig(idf=True))._model is loaded
    assert get_scorer(ScoreConfig(rescale=True, multi_ref="best_f1"))._model is loaded
    assert get_scorer(ScoreConfig(layer=3))._model is not loaded  # another truncation


def test_plot_example_writes_a_heatmap(tmp_path):
    path = tmp_path / "heatmap.png"
    get_scorer().plot_example(THURSDAY, REFERENCE, path=str(path))
    assert path.stat().st_size > 5000


def test_score_function_and_convenience():
    scores = score([THURSDAY], [REFERENCE], layer=4)
    assert scores.to_dict()["f1"][0] == pytest.approx(float(scores.f1[0]))


def test_cli_score_writes_rows_and_summary(tmp_path):
    cands, refs, refs2 = tmp_path / "c.txt", tmp_path / "r.txt", tmp_path / "r2.txt"
    cands.write_text(f"{THURSDAY}\n{OFF_TOPIC}\n")
    refs.write_text(f"{REFERENCE}\n{REFERENCE}\n")
    refs2.write_text(f"{PARAPHRASE}\nI enjoy walks on the beach.\n")
    out, summary = tmp_path / "rows.jsonl", tmp_path / "summary.json"
    assert (
        main(
            [
                "score",
                "-c",
                str(cands),
                "-r",
                str(refs),
                "-r",
                str(refs2),
                "--format",
                "jsonl",
                "-o",
                str(out),
                "--summary",
                str(summary),
                "--explain",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["row"] for row in rows] == [0, 1]
    expected = get_scorer().score(
        [THURSDAY, OFF_TOPIC], [[REFERENCE, PARAPHRASE], [REFERENCE, "I enjoy walks on the beach."]]
    )
    assert rows[1]["f1"] == pytest.approx(float(expected.f1[1]), abs=1e-6)
    data = json.loads(summary.read_text())
    assert data["rows"] == 2 and data["signature"] == expected.signature


def test_cli_help_explains_every_flag():
    result = subprocess.run(
        [sys.executable, "-m", "bertscore_plugins.cli", "score", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for flag in (
        "--candidates",
        "--references",
        "--model",
        "--layer",
        "--idf",
        "--rescale",
        "--baseline-path",
        "--long-text",
        "--multi-ref",
        "--dtype",
        "--device",
        "--batch-tokens",
        "--format",
        "--summary",
    ):
        assert flag in result.stdout


def test_score_layers_equals_one_scorer_per_layer():
    candidates = [THURSDAY, PARAPHRASE, OFF_TOPIC, "A 12% rise in sales."]
    references = [REFERENCE, REFERENCE, [REFERENCE, "Walks on the beach."], "Sales rose 12 percent."]
    by_layer = get_scorer().score_layers(candidates, references, layers=[0, 3, 6])
    assert sorted(by_layer) == [0, 3, 6]
    for layer, scores in by_layer.items():
        single = get_scorer(ScoreConfig(layer=layer)).score(candidates, references)
        np.testing.assert_allclose(scores.f1, single.f1, atol=1e-6)
        np.testing.assert_allclose(scores.recall, single.recall, atol=1e-6)
        assert scores.signature == single.signature


def test_bounded_reference_cache_keeps_the_most_recent(tmp_path):
    # one reference's embedding here is tokens x 384 float32; a bound of ~2.5 of them keeps the two
    # most recently used, the oldest leaves first, and scores never change
    scorer = get_scorer()
    refs = ["The bridge is closed until March.", "Sales rose 12% this quarter.", "Rain is expected today."]
    fresh = scorer.score(["a"] * 3, refs)
    sizes = [len(tokens.ids) * 384 * 4 for tokens in scorer.tokenizer.encode(refs)]
    assert scorer.reference_cache is None
    cache = scorer.enable_reference_cache(max_bytes=sizes[1] + sizes[2] + sizes[0] // 2)
    try:
        again = scorer.score(["a"] * 3, refs)
        assert len(cache) == 2 and refs[0] not in cache._memory and cache.nbytes == sizes[1] + sizes[2]
        scorer.score(["b"], [refs[1]])  # refs[1] becomes the most recent; refs[2] is next to leave
        assert cache.hits == 1 and list(cache._memory) == [refs[2], refs[1]]
    finally:
        scorer.disable_reference_cache()
    np.testing.assert_allclose(again.f1, fresh.f1, atol=1e-6)

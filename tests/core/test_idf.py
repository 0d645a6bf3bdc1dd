"""idf weights: bert_score's formula, duplicates counted, digests that name the content (no model)."""

from __future__ import annotations

import math
import pickle
import re

import pytest

from bertscore_plugins.core.idf import IdfTable, idf_from_token_ids


def test_idf_is_log_of_documents_plus_one_over_frequency_plus_one():
    table = idf_from_token_ids([[101, 7, 8, 102], [101, 7, 7, 102], [101, 9, 102]])
    assert table.num_documents == 3
    assert table.weight(7) == pytest.approx(math.log(4 / 3))  # in 2 documents (counted once in the 2nd)
    assert table.weight(9) == pytest.approx(math.log(4 / 2))
    assert table.weight(101) == pytest.approx(0.0)  # in every document
    assert table.weight(555) == pytest.approx(math.log(4))  # never seen
    assert table.weights_for([7, 555]) == [table.weight(7), math.log(4)]


def test_duplicate_documents_are_counted():
    once = idf_from_token_ids([[1, 2], [1, 3]])
    twice = idf_from_token_ids([[1, 2], [1, 2], [1, 3]])
    assert twice.num_documents == 3 and twice.weight(2) != once.weight(2)


def test_the_digest_follows_content_and_model_and_survives_pickling():
    table = idf_from_token_ids([[1, 2], [1, 3]], "model-a")
    same = idf_from_token_ids([[1, 3], [1, 2]], "model-a")
    assert table == same and hash(table) == hash(same)
    assert table.digest != idf_from_token_ids([[1, 2], [1, 3]], "model-b").digest
    assert table.digest != idf_from_token_ids([[1, 2], [1, 2]], "model-a").digest
    restored = pickle.loads(pickle.dumps(table))
    assert restored == table and restored.as_dict() == table.as_dict() and isinstance(restored, IdfTable)


@pytest.mark.parametrize("key", [3.7, 3.0, True, -1, "x", None])
def test_a_key_that_is_not_a_whole_token_id_is_refused_naming_it(key):
    """int(3.7) would silently give token 3 another token's weight."""
    from bertscore_plugins.errors import IdfWeightError

    with pytest.raises(IdfWeightError, match=rf"IdfTable key {re.escape(repr(key))}.* is not a token id"):
        IdfTable({key: 1.0}, 1.0)


def test_integer_keys_of_any_kind_and_their_decimal_text_are_token_ids():
    import numpy as np

    assert IdfTable({np.int64(3): 1.0, "7": 2.0, 9: 0.5}, 1.0).as_dict() == {3: 1.0, 7: 2.0, 9: 0.5}

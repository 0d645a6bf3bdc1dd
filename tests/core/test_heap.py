"""A long call's memory is one chunk's: the scorer hands the heap pages a chunk freed back to the system
before the next chunk (core/heap.py), and doing so changes no number."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from bertscore_plugins.core import heap
from bertscore_plugins.core import scorer as scorer_module
from tests.support.tiny_models import tiny_bert

CANDIDATES = [f"The patient was discharged on day {n} after a short stay." for n in range(12)]
REFERENCES = [f"Discharge came on day {n}, the stay was short." for n in range(12)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim is Linux's")
def test_freed_memory_goes_back_where_the_c_library_can_do_it():
    assert heap.release_freed_memory() is True


@pytest.mark.model
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_large_blocks_stay_mapped_once_a_scorer_has_scored(tmp_path):
    """The threshold is pinned before the first chunk (glibc says so by mallopt's 1), once per process."""
    scorer = scorer_module.get_scorer(model=tiny_bert(tmp_path / "tiny"), layer=1)
    scorer.score(CANDIDATES[:2], REFERENCES[:2])
    assert heap.keep_large_blocks_mapped.cache_info().currsize == 1
    assert heap.keep_large_blocks_mapped() is True
    assert heap.MMAP_THRESHOLD_BYTES == 1 << 20


@pytest.mark.model
def test_every_chunk_gives_its_memory_back_and_the_numbers_do_not_change(tmp_path, monkeypatch):
    scorer = scorer_module.get_scorer(model=tiny_bert(tmp_path / "tiny"), layer=1, chunk_pairs=5)
    released = []
    monkeypatch.setattr(
        scorer_module, "release_freed_memory", lambda: released.append(heap.release_freed_memory())
    )
    given_back = scorer.score(CANDIDATES, REFERENCES)
    assert len(released) == 3  # 12 rows in chunks of 5: 5, 5, 2
    monkeypatch.setattr(scorer_module, "release_freed_memory", lambda: False)
    kept = scorer.score(CANDIDATES, REFERENCES)
    for name in ("precision", "recall", "f1"):
        assert np.array_equal(getattr(given_back, name), getattr(kept, name))

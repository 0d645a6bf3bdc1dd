"""Long-text windows and how their embeddings are stitched back together (no model)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from bertscore_plugins.core.embed import owned_spans
from bertscore_plugins.core.tokenize import content_windows


@pytest.mark.parametrize("length", [1, 9, 10, 11, 37, 100])
@pytest.mark.parametrize("stride", [None, 1, 4, 10])
def test_windows_cover_every_token_within_the_size(length, stride):
    windows = content_windows(length, 10, stride)
    assert windows[0][0] == 0 and windows[-1][1] == length
    assert all(0 < end - start <= 10 for start, end in windows)
    assert all(later[0] <= earlier[1] for earlier, later in pairwise(windows))  # no gap


def test_the_default_stride_overlaps_neighbours_by_an_eighth():
    assert content_windows(30, 16, None) == [(0, 16), (14, 30)]
    assert content_windows(8, 16, None) == [(0, 8)]  # a short text is one window


def test_each_token_is_owned_once_by_the_window_where_it_is_most_central():
    windows = [(0, 16), (8, 24), (14, 30)]
    spans = owned_spans(windows)
    assert spans == [(0, 12), (12, 19), (19, 30)]  # cut in the middle of each overlap
    owned = [token for start, end in spans for token in range(start, end)]
    assert owned == list(range(30))
    assert all(
        window[0] <= start and end <= window[1] for window, (start, end) in zip(windows, spans, strict=True)
    )

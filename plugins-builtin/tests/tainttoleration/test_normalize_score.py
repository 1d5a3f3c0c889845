"""The shared DefaultNormalizeScore helper, from upstream helper/normalize_score_test.go, plus
the invariants every plugin that uses it relies on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.framework import NodeScore
from kubesched_builtin.helper import default_normalize_score


def _normalized(raw: list[int], reverse: bool) -> list[int]:
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    default_normalize_score(scores, reverse=reverse)
    return [s.score for s in scores]


@pytest.mark.parametrize(
    ("reverse", "raw", "want"),
    [
        (False, [1, 2, 3, 4], [25, 50, 75, 100]),
        (True, [1, 2, 3, 4], [75, 50, 25, 0]),
        (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
        (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
        (False, [1, 1, 1, 1], [100, 100, 100, 100]),
        (False, [1000, 1, 1, 1], [100, 0, 0, 0]),
        (True, [0, 1, 1, 1], [100, 0, 0, 0]),
        # all zero: reversed means "nothing disliked anywhere", plain leaves zeros
        (True, [0, 0, 0], [100, 100, 100]),
        (False, [0, 0, 0], [0, 0, 0]),
    ],
)
def test_default_normalize_score(reverse: bool, raw: list[int], want: list[int]) -> None:
    assert _normalized(raw, reverse) == want


def test_custom_maximum() -> None:
    scores = [NodeScore("a", 1), NodeScore("b", 2)]
    default_normalize_score(scores, max_priority=10)
    assert [s.score for s in scores] == [5, 10]


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=20), st.booleans())
def test_results_in_range_and_order_kept(raw: list[int], reverse: bool) -> None:
    out = _normalized(raw, reverse)
    assert all(0 <= s <= 100 for s in out)
    for i in range(len(raw)):
        for j in range(len(raw)):
            if raw[i] <= raw[j]:
                assert (out[i] >= out[j]) if reverse else (out[i] <= out[j])
    if max(raw) > 0:
        best = raw.index(max(raw))
        assert out[best] == (0 if reverse else 100)

"""The histogram of game lengths that simulations return (drawn by the free-play page)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from casino.engine.war.simulation import length_histogram


def test_bins_of_one_nice_width_cover_every_game() -> None:
    bins = length_histogram([3, 7, 7, 48])
    assert [b["high"] - b["low"] + 1 for b in bins] == [2] * len(bins)
    assert bins[0] == {"low": 2, "high": 3, "games": 1}
    assert bins[2] == {"low": 6, "high": 7, "games": 2}
    assert bins[-1] == {"low": 48, "high": 49, "games": 1}
    assert sum(b["games"] for b in bins) == 4
    assert length_histogram([]) == []
    assert length_histogram([12]) == [{"low": 12, "high": 12, "games": 1}]


@given(st.lists(st.integers(min_value=0, max_value=20_000), min_size=1, max_size=300))
def test_histogram_properties(battles: list[int]) -> None:
    bins = length_histogram(battles)
    widths = {b["high"] - b["low"] + 1 for b in bins}
    assert len(widths) == 1 and next(iter(widths)) in {
        step * 10**k for k in range(6) for step in (1, 2, 5)
    }
    assert len(bins) <= 41
    assert bins[0]["low"] <= min(battles) <= bins[0]["high"]
    assert bins[-1]["low"] <= max(battles) <= bins[-1]["high"]
    assert all(a["high"] + 1 == b["low"] for a, b in pairwise(bins))
    for b in bins:
        assert b["games"] == sum(1 for n in battles if b["low"] <= n <= b["high"])

"""A simulation answers with the histogram of its games' lengths (the free-play page's chart)."""

from __future__ import annotations

from .helpers import Api


def test_simulation_histogram_counts_every_game(api: Api) -> None:
    body = {"variant": "classic", "games": 300, "seed": "hist"}
    result = api.post("/api/v1/free-play/simulations", body).get_json()
    bins = result["length_histogram"]
    assert sum(b["games"] for b in bins) == result["games"] == 300
    assert bins[0]["low"] <= result["battles"]["median"]
    assert bins[-1]["low"] <= result["battles"]["max"] <= bins[-1]["high"]
    assert bins[-1]["games"] >= 1 and bins[0]["games"] >= 1
    assert len({b["high"] - b["low"] for b in bins}) == 1

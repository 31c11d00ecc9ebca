"""Stored games keep the rules they began with.

``data/war_records_revision1.json`` holds records written by the engine as it was before rule
revision 2 (no ``revision`` member), mid-game and finished, with the result that engine
reached: a game where a losing last card stood and won a war (multiplayer, last card face
up), Steal War with four seats and random computers, Steal War and pooled won cards with a
fixed return order, the hand of three, classic War, and two Război games with ``lose`` where
every fighter was short and two tied for the most cards (three seats, everyone fighting;
four seats, the tied fighting: see test_war_source_rules.py). Every one must still load,
replay to its digest and play on to the same end; under revision 2 all but the hand of three
and classic War would not.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from casino.engine.war import CorruptRecord, WarGame, new_game
from casino.engine.war.state import RULE_REVISION

FIXTURES = json.loads((Path(__file__).parent / "data" / "war_records_revision1.json").read_text())


@pytest.mark.parametrize("stored", FIXTURES, ids=lambda item: item["seed"])
def test_a_revision_1_record_loads_replays_and_plays_on_as_it_was_played(
    stored: dict[str, Any],
) -> None:
    assert "revision" not in stored["mid"] and "revision" not in stored["final"]
    done = WarGame.from_dict(stored["final"])
    assert done.revision == 1 and done.result is not None
    assert done.result.to_dict() == stored["result"]
    game = WarGame.from_dict(stored["mid"])
    game.advance("end")
    assert game.result is not None and game.result.to_dict() == stored["result"]
    assert game.battles == stored["battles"]
    # Written back, the record still says nothing of a revision: it stays revision 1.
    assert "revision" not in game.to_dict()
    assert WarGame.from_dict(json.loads(json.dumps(game.to_dict()))).result == game.result


def test_the_changed_rules_would_not_replay_these_games() -> None:
    # Proof that the fixtures exercise the revision: read as revision 2, every game that meets
    # a changed rule diverges (the hand of three and classic War meet none).
    diverging = set()
    for stored in FIXTURES:
        record = copy.deepcopy(stored["final"])
        record["revision"] = 2
        try:
            WarGame.from_dict(record)
        except CorruptRecord:
            diverging.add(stored["seed"])
    assert diverging == {stored["seed"] for stored in FIXTURES} - {"hand-0", "classic-0"}


def test_new_games_play_and_record_the_current_revision() -> None:
    game = new_game("steal", {"seats": 3}, seed="revision-2", seats=[{"type": "computer"}] * 3)
    assert game.revision == RULE_REVISION == 2
    game.advance("end")
    record = game.to_dict()
    assert record["revision"] == 2
    assert WarGame.from_dict(record).result == game.result


@pytest.mark.parametrize("bad", [0, 3, "2", None, 2.0, True])
def test_an_unknown_revision_is_a_corrupt_record(bad: object) -> None:
    record = new_game("classic", seed="revision-x").to_dict()
    record["revision"] = bad
    with pytest.raises(CorruptRecord):
        WarGame.from_dict(record)

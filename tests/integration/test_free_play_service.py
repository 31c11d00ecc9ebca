"""Free-play use cases on SQLite and PostgreSQL: storage, the version check, bad records."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from casino.cli import main as cli
from casino.engine.errors import InvalidRules, InvalidSeed
from casino.service import free_play
from casino.service.errors import Conflict, Invalid, NotFound
from casino.store.free_play_models import AWAITING_DECISION, FINISHED, IN_PROGRESS, FreePlayGame
from casino.store.models import utcnow

from .conftest import Svc

HUMAN_VS_GREEDY = [{"type": "human"}, {"type": "computer", "strategy": "greedy"}]
#: game id -> its game token (handed out once, at creation)
TOKENS: dict[str, str] = {}


def new(svc: Svc, variant: str = "hand-of-three", seed: str = "svc") -> str:
    view = svc.run(free_play.create_game, variant, None, seed, HUMAN_VS_GREEDY)
    assert isinstance(view, dict)
    assert view["token"].startswith("gm_")
    TOKENS[view["id"]] = view["token"]
    return str(view["id"])


def mine(game_id: str) -> dict[str, str]:
    return {"token": TOKENS[game_id]}


def row(svc: Svc, game_id: str) -> FreePlayGame:
    with svc.factory() as session:
        found = session.get(FreePlayGame, game_id)
        assert found is not None
        session.expunge(found)
        return found


def test_the_stored_status_follows_the_game(svc: Svc) -> None:
    game_id = new(svc)
    assert row(svc, game_id).status == IN_PROGRESS
    view: Any = svc.run(free_play.autoplay, game_id, "decision", **mine(game_id))
    assert view["status"] == AWAITING_DECISION == row(svc, game_id).status
    svc.run(free_play.autoplay, game_id, "end", **mine(game_id))
    stored = row(svc, game_id)
    assert stored.status == FINISHED
    assert stored.state["finished"] is True and stored.state["moves"]  # greedy stood in
    assert stored.variant == "hand-of-three" and stored.version == 3


def test_a_write_based_on_a_stale_read_is_refused(svc: Svc) -> None:
    """The version counter: a request that read the game before another one changed it
    cannot write its outdated position back (where no row lock serialised them)."""
    game_id = new(svc)
    svc.run(free_play.autoplay, game_id, "decision", **mine(game_id))
    with svc.uow() as slow:
        stale = free_play._require(slow, game_id, TOKENS[game_id], lock=False)
        game = free_play._replay(stale)
        slow.session.commit()  # ends the read transaction, keeps the loaded row (version 2)
        legal = game.pending[0].legal
        view: Any = svc.run(
            free_play.make_move, game_id, dict(legal[0]), **mine(game_id)
        )  # version 3
        game.apply(0, dict(legal[-1]))
        with pytest.raises(Conflict) as caught:
            free_play._store(slow, stale, game)
        assert caught.value.code == "concurrent_update"
    stored = row(svc, game_id)
    assert stored.version == view["version"] == 3
    assert [m["move"] for m in stored.state["moves"]] == [dict(legal[0])]


def test_a_record_that_no_longer_replays_is_a_conflict_not_a_crash(svc: Svc) -> None:
    game_id = new(svc)
    svc.run(free_play.autoplay, game_id, "decision", **mine(game_id))
    broken = dict(row(svc, game_id).state, digest="0" * 64)
    with svc.uow() as uow:
        uow.session.execute(
            update(FreePlayGame).where(FreePlayGame.id == game_id).values(state=broken)
        )
        uow.commit()
    for use_case, args in (
        (free_play.get_game, ()),
        (free_play.autoplay, ("end",)),
        (free_play.make_move, ({"action": "play"},)),
    ):
        with pytest.raises(Conflict) as caught:
            svc.run(use_case, game_id, *args, **mine(game_id))
        assert caught.value.code == "game_unreplayable"


def test_refusals(svc: Svc) -> None:
    with pytest.raises(NotFound):
        svc.run(free_play.get_game, "00000000-0000-4000-8000-000000000000", token="gm_x")
    with pytest.raises(InvalidRules):
        svc.run(free_play.create_game, "no-such-variant")
    with pytest.raises(InvalidSeed):
        svc.run(free_play.create_game, "classic", None, "caf\u00e9")
    game_id = new(svc, "classic")
    with pytest.raises(Invalid) as caught:
        svc.run(free_play.get_game, game_id, 5, **mine(game_id))
    assert caught.value.code == "invalid_seat"
    with pytest.raises(Invalid):
        svc.run(free_play.autoplay, game_id, "forever", **mine(game_id))
    with pytest.raises(Conflict) as illegal:
        svc.run(free_play.make_move, game_id, {"action": "play"}, **mine(game_id))
    assert illegal.value.code == "illegal_move" and illegal.value.extra["legal"] == []
    with svc.uow() as uow:
        count = len(uow.session.scalars(select(FreePlayGame.id)).all())
    assert count == 1  # refused creations stored nothing


def test_simulation_bounds() -> None:
    full = free_play.simulate("three-wars", None, 50, "b")
    assert full["complete"] and full["games"] == 50
    cut = free_play.simulate("three-wars", None, 50, "b", free_play.SimulationLimits(100, 60))
    assert cut["stopped_by"] == "battle_budget" and 1 <= cut["games"] < 50
    with pytest.raises(Invalid):
        free_play.simulate("classic", None, 10_001, "b")
    with pytest.raises(Invalid):
        free_play.simulate("classic", None, True, "b")  # type: ignore[arg-type]


def test_purge_removes_only_games_untouched_for_the_age(svc: Svc, db_url: str) -> None:
    old, recent = new(svc, seed="old"), new(svc, seed="recent")
    with svc.factory() as session:
        session.execute(
            update(FreePlayGame)
            .where(FreePlayGame.id == old)
            .values(updated_at=utcnow() - timedelta(days=31))
        )
        session.commit()
    result = CliRunner().invoke(
        cli, ["purge-free-play", "--older-than", "30d", "--database-url", db_url]
    )
    assert result.exit_code == 0, result.output
    assert "1 free-play game(s) removed" in result.output
    with pytest.raises(NotFound):
        svc.run(free_play.get_game, old, None, **mine(old))
    assert svc.run(free_play.get_game, recent, None, **mine(recent))["id"] == recent
    with pytest.raises(Invalid):
        svc.run(free_play.purge_games, timedelta(0))


def test_a_game_is_its_owners_alone(svc: Svc) -> None:
    """Issue 10 point 11: without the game token, or with another game's, a game does not
    exist; its owner plays on."""
    game_id, other = new(svc), new(svc, seed="other")
    for token in (None, "", TOKENS[other], TOKENS[game_id] + "x"):
        for use_case, args in (
            (free_play.get_game, ()),
            (free_play.autoplay, ("end",)),
            (free_play.make_move, ({"action": "play"},)),
        ):
            with pytest.raises(NotFound) as caught:
                svc.run(use_case, game_id, *args, token=token)
            assert caught.value.code == "game_not_found"
    assert row(svc, game_id).version == 1  # nothing was played
    assert svc.run(free_play.get_game, game_id, **mine(game_id))["id"] == game_id

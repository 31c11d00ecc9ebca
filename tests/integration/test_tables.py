from __future__ import annotations

from fractions import Fraction

import pytest

from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.odds import theoretical_rtp
from casino.service import rounds, tables
from casino.service.errors import Conflict, Invalid, NotFound

from .conftest import Svc, not_tie


def test_demo_tables_listed_with_exact_rtp(svc: Svc, demo_tables: list[str]) -> None:
    with svc.uow() as uow:
        listed = tables.list_tables(uow)
    assert [t.id for t in listed] == sorted(demo_tables)
    classic = next(t for t in listed if t.id == "classic")
    assert classic.currency == "EUR" and classic.active
    assert classic.rules["decks"] == 6 and classic.rules["tie_pays"] == 10
    assert classic.rules["min_ante"] == 100 and classic.rules["max_ante"] == 500_000
    assert set(classic.rtp) == {"war", "surrender", "tie_bet", "bets", "round"}
    expected = theoretical_rtp(TableRules.from_dict(classic.rules))
    for name, value in expected.items():
        assert Fraction(classic.rtp[name]["exact"]) == value
        assert classic.rtp[name]["value"] == pytest.approx(float(value))
    bonus = next(t for t in listed if t.id == "bonus")
    assert bonus.rules["war_tie_bonus"] is True
    assert Fraction(bonus.rtp["war"]["exact"]) > Fraction(classic.rtp["war"]["exact"])


def test_create_get_and_duplicate(svc: Svc) -> None:
    view = svc.run(tables.create_table, "high-roller", "USD", TableRules(min_ante=1000))
    assert view.id == "high-roller" and view.currency == "USD" and view.rules["min_ante"] == 1000
    with svc.uow() as uow:
        assert tables.get_table(uow, "high-roller") == view
    with pytest.raises(Conflict) as caught:
        svc.run(tables.create_table, "high-roller", "USD", TableRules())
    assert caught.value.code == "duplicate_table"


@pytest.mark.parametrize("table_id", ["", "UPPER", "-lead", "trail-", "a" * 65, "sp ace"])
def test_bad_table_ids(svc: Svc, table_id: str) -> None:
    with pytest.raises(Invalid):
        svc.run(tables.create_table, table_id, "EUR", TableRules())


def test_bad_currency(svc: Svc) -> None:
    with pytest.raises(Invalid):
        svc.run(tables.create_table, "t", "eur", TableRules())


def test_unknown_table(svc: Svc) -> None:
    with svc.uow() as uow, pytest.raises(NotFound):
        tables.get_table(uow, "nope")
    with pytest.raises(NotFound):
        svc.run(tables.update_table, "nope", {"active": False})


def test_update_rules_and_state(svc: Svc, demo_tables: list[str]) -> None:
    view = svc.run(tables.update_table, "classic", {"max_ante": 100_000, "tie_pays": 11})
    assert view.rules["max_ante"] == 100_000 and view.rules["tie_pays"] == 11
    assert view.updated_at >= view.created_at
    view = svc.run(tables.update_table, "classic", {"active": False, "currency": "USD"})
    assert view.active is False and view.currency == "USD"
    with svc.uow() as uow:
        assert tables.get_table(uow, "classic").rules["tie_pays"] == 11


@pytest.mark.parametrize(
    "changes",
    [{"no_such_rule": 1}, {"decks": 9}, {"bet_increment": 3}, {"min_ante": 600_000}],
)
def test_invalid_updates_change_nothing(
    svc: Svc, demo_tables: list[str], changes: dict[str, object]
) -> None:
    with pytest.raises(InvalidRules):
        svc.run(tables.update_table, "classic", changes)
    with svc.uow() as uow:
        assert tables.get_table(uow, "classic").rules["decks"] == 6


def test_invalid_active_flag(svc: Svc, demo_tables: list[str]) -> None:
    with pytest.raises(Invalid):
        svc.run(tables.update_table, "classic", {"active": "no"})


def test_a_table_change_never_alters_a_started_round(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, lambda deal: deal.is_tie)
    started = svc.run(rounds.place_bet, pid, "classic", 1000, 100)
    assert started.status == "awaiting_decision"
    svc.run(tables.update_table, "classic", {"tie_pays": 12, "surrender_allowed": False})
    # The round keeps its snapshot: surrender is still allowed for it, payouts by old rules.
    settled = svc.run(rounds.decide, started.id, "surrender", player_id=pid)
    assert settled.rules["tie_pays"] == 10 and settled.rules["surrender_allowed"] is True
    assert settled.payouts == {"ante": 500, "tie_bet": 1100, "raise": 0, "war_tie_bet": 0}
    svc.steer(pid, not_tie)
    later = svc.run(rounds.place_bet, pid, "classic", 1000, 0)
    assert later.rules["tie_pays"] == 12 and later.rules["surrender_allowed"] is False

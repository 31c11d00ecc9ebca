"""Table reports on SQLite and PostgreSQL: every figure against values computed here from the
round rows themselves, the period and currency filters, and the band on 100k rounds: a fair
table passes, a rigged one is flagged."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from fractions import Fraction
from typing import Any, cast

import pytest
from sqlalchemy import select

from casino.engine.casino_war import TableRules
from casino.engine.odds import odds_for
from casino.service import rounds as round_service
from casino.service import tables
from casino.service.errors import Invalid
from casino.service.reports import report_json, table_report
from casino.service.views import RoundView
from casino.store.models import ServerSeed
from harness.synthetic_rounds import Seat, insert_rounds
from harness.synthetic_rounds import rounds as synthetic_rounds

from .conftest import Svc, is_tie

DAY = datetime(2026, 11, 2, tzinfo=UTC)
CLASSIC = TableRules(decks=6, tie_pays=10)
BONUS = TableRules(decks=1, tie_pays=12, war_tie_bonus=True)
NO_SURRENDER = TableRules(decks=8, tie_pays=11, surrender_allowed=False)


def seat(svc: Svc, player_id: str, table_id: str, currency: str, rules: TableRules) -> Seat:
    with svc.factory() as session:
        seed = session.execute(
            select(ServerSeed.id, ServerSeed.seed).where(
                ServerSeed.player_id == player_id, ServerSeed.active
            )
        ).one()
    return Seat(player_id, int(seed[0]), bytes(seed[1]), table_id, currency, rules)


def add_rounds(svc: Svc, rows: list[dict[str, Any]]) -> None:
    with svc.factory() as session:
        insert_rounds(session, iter(rows))
        session.commit()


# ---------------------------------------------------------------- figures computed here


def expected_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Handle, wins... of a set of round rows, and the theoretical RTP from the house edges
    of casino.engine.odds (not from the report's own distribution)."""
    antes = sum(r["ante"] for r in rows)
    raised = sum(r["raise_amount"] for r in rows)
    tie_bets = sum(r["tie_bet"] for r in rows)
    ante_paid = sum(r["ante_payout"] + r["raise_payout"] for r in rows)
    tie_paid = sum(r["tie_bet_payout"] for r in rows)
    ties = [r for r in rows if r["decision"] is not None]
    wars = sum(r["decision"] == "war" for r in ties)
    w = Fraction(wars, len(ties)) if ties else Fraction(1)
    # Per round: E[net] = -ante (w edge_war + (1 - w) edge_surrender) - tie_bet edge_tie;
    # E[handle] = ante (1 + w P(tie)) + tie_bet; E[wins] = E[handle] + E[net].
    e_wins = {"all": Fraction(0), "ante": Fraction(0), "tie": Fraction(0)}
    e_handle = {"all": Fraction(0), "ante": Fraction(0), "tie": Fraction(0)}
    for r in rows:
        rules = r["rules"]
        odds = odds_for(
            rules["decks"], tie_pays=rules["tie_pays"], war_tie_bonus=rules["war_tie_bonus"]
        )
        a, b = r["ante"], r["tie_bet"]
        ante_handle = a * (1 + w * odds.p_tie)
        ante_net = -a * (w * odds.house_edge_war + (1 - w) * odds.house_edge_surrender)
        tie_net = -b * odds.house_edge_tie_bet
        for key, handle, net in (
            ("ante", ante_handle, ante_net),
            ("tie", Fraction(b), tie_net),
            ("all", ante_handle + b, ante_net + tie_net),
        ):
            e_handle[key] += handle
            e_wins[key] += handle + net

    def part(rounds: int, handle: int, wins: int, key: str) -> dict[str, Any]:
        theoretical = e_wins[key] / e_handle[key] if e_handle[key] else None
        return {
            "rounds": rounds,
            "handle": handle,
            "wins": wins,
            "ggr": handle - wins,
            "hold": float(1 - Fraction(wins, handle)) if handle else None,
            "observed_rtp": float(Fraction(wins, handle)) if handle else None,
            "theoretical_rtp_exact": None if theoretical is None else str(theoretical),
        }

    return {
        "rounds": len(rows),
        "all_bets": part(len(rows), antes + raised + tie_bets, ante_paid + tie_paid, "all"),
        "ante_game": part(len(rows), antes + raised, ante_paid, "ante"),
        "tie_bet": part(sum(1 for r in rows if r["tie_bet"]), tie_bets, tie_paid, "tie"),
        "decisions": {
            "ties": len(ties),
            "war": wars,
            "surrender": len(ties) - wars,
            "war_share": wars / len(ties) if ties else None,
            "surrender_share": (len(ties) - wars) / len(ties) if ties else None,
        },
    }


def assert_figures(got: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    expected = expected_figures(rows)
    assert got["rounds"] == expected["rounds"]
    assert got["decisions"] == expected["decisions"]
    for name in ("all_bets", "ante_game", "tie_bet"):
        part, want = got[name], expected[name]
        for key in ("rounds", "handle", "wins", "ggr"):
            assert part[key] == want[key], (name, key)
        for key in ("hold", "observed_rtp"):
            assert part[key] == pytest.approx(want[key], abs=1e-12), (name, key)
        exact = want["theoretical_rtp_exact"]
        assert part["theoretical_rtp_exact"] == (
            None if exact is None else exact if "/" in exact else f"{exact}/1"
        ), name
        if exact is not None:
            assert part["theoretical_rtp"] == pytest.approx(float(Fraction(exact)), abs=1e-15)
            assert part["std_dev"] > 0
            half = 1.959963984540054 * part["std_dev"]
            assert part["band_low"] == pytest.approx(part["theoretical_rtp"] - half, abs=1e-12)
            assert part["band_high"] == pytest.approx(part["theoretical_rtp"] + half, abs=1e-12)
            inside = part["band_low"] <= part["observed_rtp"] <= part["band_high"]
            assert part["outside_band"] is (not inside)
            z = (part["observed_rtp"] - part["theoretical_rtp"]) / part["std_dev"]
            assert part["z_score"] == pytest.approx(z, rel=1e-9, abs=1e-9)
    assert got["flagged"] == any(
        got[n]["outside_band"] for n in ("all_bets", "ante_game", "tie_bet")
    )


# ---------------------------------------------------------------- figures


@pytest.fixture
def world(svc: Svc) -> dict[str, Any]:
    """Three tables (one in USD), three days of rounds with mixed bets and decisions."""
    svc.run(tables.create_table, "classic", "EUR", CLASSIC)
    svc.run(tables.create_table, "bonus", "EUR", BONUS)
    svc.run(tables.create_table, "dollars", "USD", NO_SURRENDER)
    player = svc.player(funds=0)
    rows: list[dict[str, Any]] = []
    specs = [
        ("classic", "EUR", CLASSIC, [(100, 0), (500, 100), (1_000, 0)], 0),
        ("bonus", "EUR", BONUS, [(200, 200), (100, 0)], 10_000),
        ("dollars", "USD", NO_SURRENDER, [(300, 100)], 20_000),
    ]
    for table_id, currency, rules, bets, first in specs:
        place = seat(svc, player, table_id, currency, rules)
        rows += synthetic_rounds(
            place,
            240,
            bets=bets,
            war=lambda i: i % 3 != 0,
            # 80 rounds on each of three days, at different hours.
            when=lambda i: DAY + timedelta(days=i // 80, hours=(i * 7) % 24, seconds=i),
            first_nonce=first,
        )
    add_rounds(svc, rows)
    return {"player": player, "rows": rows}


def group(rows: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[(row["table_id"], row["currency"], row["settled_at"].date().isoformat())].append(row)
    return out


def test_figures_per_table_and_day_match_the_rounds(svc: Svc, world: dict[str, Any]) -> None:
    rows = world["rows"]
    with svc.uow() as uow:
        report = report_json(table_report(uow))
    assert [(t["table_id"], t["currency"]) for t in report["tables"]] == [
        ("bonus", "EUR"),
        ("classic", "EUR"),
        ("dollars", "USD"),
    ]
    per_day = group(rows)
    checked = 0
    for table in report["tables"]:
        mine = [r for r in rows if r["table_id"] == table["table_id"]]
        assert_figures(table["total"], mine)
        assert [d["day"] for d in table["days"]] == ["2026-11-02", "2026-11-03", "2026-11-04"]
        for day in table["days"]:
            assert_figures(day, per_day[(table["table_id"], table["currency"], day["day"])])
            checked += 1
        rules = mine[0]["rules"]
        [played] = table["rules"]
        assert (played["decks"], played["tie_pays"], played["war_tie_bonus"]) == (
            rules["decks"],
            rules["tie_pays"],
            rules["war_tie_bonus"],
        )
        assert played["rounds"] == len(mine)
        odds = odds_for(rules["decks"], tie_pays=rules["tie_pays"])
        assert played["rtp"]["tie_bet"]["exact"] == str(1 - odds.house_edge_tie_bet)
        assert table["open_rounds"] == 0
    assert checked == 9
    dollars = report["tables"][2]["total"]
    # No surrender at that table: every tie went to war.
    assert dollars["decisions"]["surrender"] == 0 and dollars["decisions"]["ties"] > 0


def test_period_and_currency_filters(svc: Svc, world: dict[str, Any]) -> None:
    rows = world["rows"]
    since = DAY + timedelta(days=1)
    until = DAY + timedelta(days=2)
    with svc.uow() as uow:
        report = report_json(table_report(uow, since=since, until=until, currency="EUR"))
    assert report["since"] == since.isoformat() and report["currency"] == "EUR"
    assert [t["table_id"] for t in report["tables"]] == ["bonus", "classic"]
    for table in report["tables"]:
        assert [d["day"] for d in table["days"]] == ["2026-11-03"]
        mine = [
            r
            for r in rows
            if r["table_id"] == table["table_id"] and since <= r["settled_at"] < until
        ]
        assert_figures(table["total"], mine)
    # The bounds are instants: half a day from noon.
    noon = DAY + timedelta(hours=12)
    with svc.uow() as uow:
        report = report_json(table_report(uow, since=noon, until=noon + timedelta(hours=12)))
    for table in report["tables"]:
        mine = [
            r
            for r in rows
            if r["table_id"] == table["table_id"] and noon <= r["settled_at"] < DAY + timedelta(1)
        ]
        assert_figures(table["total"], mine)
    # A naive bound is UTC; another offset is the same instant.
    with svc.uow() as uow:
        aware = report_json(table_report(uow, since=since, until=until))["tables"]
        naive = report_json(table_report(uow, since=since.replace(tzinfo=None), until=until))
        paris = timezone(timedelta(hours=1))
        shifted = report_json(table_report(uow, since=since.astimezone(paris), until=until))
    assert naive["tables"] == aware == shifted["tables"]
    assert naive["since"] == since.isoformat()


def test_a_period_must_run_forwards(svc: Svc) -> None:
    with svc.uow() as uow, pytest.raises(Invalid) as refused:
        table_report(uow, since=DAY, until=DAY)
    assert refused.value.code == "invalid_period"
    with svc.uow() as uow, pytest.raises(Invalid) as refused:
        table_report(uow, currency="eur")
    assert refused.value.code == "invalid_currency"


def test_empty_report(svc: Svc) -> None:
    with svc.uow() as uow:
        report = report_json(table_report(uow))
    assert report["tables"] == [] and report["confidence"] == 0.95


def test_rounds_played_through_the_service_and_open_rounds(svc: Svc) -> None:
    """Rounds made by the real bet and decision use cases, not inserted: same figures."""
    svc.run(tables.create_table, "classic", "EUR", CLASSIC)
    player = svc.player(funds=1_000_000)
    for _ in range(12):
        svc.steer(player, is_tie)  # a tie, so a decision too
        view = cast(RoundView, svc.run(round_service.place_bet, player, "classic", 500, 100))
        action = "war" if _ % 3 else "surrender"
        svc.run(round_service.decide, view.id, action, player_id=player)
    for _ in range(8):
        view = cast(RoundView, svc.run(round_service.place_bet, player, "classic", 300, 0))
        if view.status == "awaiting_decision":
            svc.run(round_service.decide, view.id, "war", player_id=player)
    svc.steer(player, is_tie)
    svc.run(round_service.place_bet, player, "classic", 1_000, 0)  # left open
    with svc.uow() as uow:
        views = round_service.list_rounds(uow, player, "settled", limit=200).items
        report = report_json(table_report(uow))
    rows = [
        {
            "ante": v.bets["ante"],
            "tie_bet": v.bets["tie_bet"],
            "raise_amount": v.bets["raise"],
            "ante_payout": v.payouts["ante"],
            "raise_payout": v.payouts["raise"],
            "tie_bet_payout": v.payouts["tie_bet"],
            "decision": None if v.decision is None else v.decision["action"],
            "rules": v.rules,
        }
        for v in views
    ]
    [table] = report["tables"]
    assert table["open_rounds"] == 1
    assert_figures(table["total"], rows)
    assert len(table["days"]) >= 1


# ---------------------------------------------------------------- the band over 100k rounds


def rig_one_player_win_in_20(nonce: int, deal: Any) -> bool:
    """A dealer who re-deals one player win in 20."""
    return not (deal.player.rank > deal.dealer.rank and nonce % 20 == 0)


@pytest.mark.slow
def test_band_passes_a_fair_table_and_flags_a_rigged_one_over_100k_rounds(svc: Svc) -> None:
    svc.run(tables.create_table, "fair", "EUR", CLASSIC)
    svc.run(tables.create_table, "rigged", "EUR", CLASSIC)
    player = svc.player()
    bets = [(100, 0), (200, 100), (500, 0), (1_000, 100), (300, 300), (100, 100)]
    for table_id, rig in (("fair", None), ("rigged", rig_one_player_win_in_20)):
        # Fixed server seeds: the same 200k deals on every run (a fair table is flagged by
        # chance one run in twenty per figure; these deals are not).
        server_seed = hashlib.sha256(f"report band: {table_id} table".encode()).digest()
        place = replace(seat(svc, player, table_id, "EUR", CLASSIC), server_seed=server_seed)
        with svc.factory() as session:
            insert_rounds(
                session,
                synthetic_rounds(
                    place,
                    100_000,
                    bets=bets,
                    war=lambda i: i % 4 != 0,
                    when=lambda i: DAY + timedelta(seconds=i // 2),
                    rig=rig,
                ),
            )
            session.commit()
    with svc.uow() as uow:
        report = report_json(table_report(uow))
    fair, rigged = (t["total"] for t in report["tables"])
    assert fair["rounds"] == rigged["rounds"] == 100_000
    for name in ("all_bets", "ante_game", "tie_bet"):
        assert not fair[name]["outside_band"], (name, fair[name])
    assert not fair["flagged"]
    # The rig takes about 2.2 % of the ante game's RTP: about 5.5 standard deviations.
    assert rigged["flagged"]
    assert rigged["ante_game"]["outside_band"] and rigged["ante_game"]["z_score"] < -4
    # Diluted by the tie bets' own variance, but still outside on all bets together.
    assert rigged["all_bets"]["outside_band"] and rigged["all_bets"]["z_score"] < -1.96
    assert rigged["ante_game"]["observed_rtp"] < rigged["ante_game"]["band_low"]
    # The tie bet is not rigged, and its band says so.
    assert not rigged["tie_bet"]["outside_band"]

"""Reports over issue 21 tables, on SQLite and PostgreSQL: rounds of several hands, a repeated
war on a ladder table, war tie bets and tie-only rounds, played through the service. What the
report says was wagered less what it says was paid is the house's net in the ledger; the war
tie bets have their own slice; the rules are those of the snapshot; the theoretical RTP is the
one computed here from the table's exact odds (casino.engine.table_odds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select

from casino.engine.casino_war import HandBet, TableRound, TableRules
from casino.engine.odds import theoretical_rtp
from casino.engine.table_odds import table_odds
from casino.service import rounds, seeds, tables
from casino.service.reports import report_json, table_report
from casino.store.models import LedgerTransaction, Posting, Round

from .conftest import Svc

LADDER = TableRules(
    max_hands=3,
    war_ties="repeat",  # type: ignore[arg-type]  # normalised to WarTies by the rules
    tie_ladder=(10, 25, 50, 200),
    max_war_tie_bet=1_000,
    war_tie_pays=11,
    tie_only=True,
)
WAR_TIE_BET = 500
TWO = [HandBet(1_000, 100), HandBet(500, 200)]
TIE_ONLY = [HandBet(0, 300)]
#: hands with an ante and a tie-only hand in one round
MIXED = [HandBet(1_000, 100), HandBet(0, 300), HandBet(500, 0)]


def play_out(game: TableRound) -> TableRound:
    """Every tied hand goes to war with a war tie bet, until the round settles."""
    while game.awaiting:
        game.decide(game.awaiting[0], "war", war_tie_bet=WAR_TIE_BET)
    return game


def steer(svc: Svc, player: str, bets: Sequence[HandBet], want: Callable[[Any], bool]) -> None:
    server_seed, nonce = svc.active_seed(player)
    for i in range(100_000):
        client_seed = f"report-{i}"
        game = TableRound.deal(LADDER, server_seed, client_seed, nonce, bets)
        if want(play_out(game).result):
            svc.run(seeds.set_client_seed, player, client_seed)
            return
    raise AssertionError("no client seed found")


def play(svc: Svc, player: str, bets: Sequence[HandBet]) -> None:
    view: Any = svc.run(rounds.place_bet, player, "ladder", hands=list(bets))
    while view.status == "awaiting_decision":
        decisions = {hand: ("war", WAR_TIE_BET) for hand in view.awaiting_hands}
        view = svc.run(rounds.decide_hands, view.id, decisions, player_id=player)


def repeated_war(result: Any) -> bool:
    return any(hand.ties >= 2 for hand in result.hands)


def house_net(svc: Svc, player: str) -> int:
    """Minus what the rounds moved into and out of the player's wallet: the house's net
    (nothing stays in play once every round is settled)."""
    with svc.factory() as session:
        moved = session.execute(
            select(func.coalesce(func.sum(Posting.amount), 0))
            .join(LedgerTransaction, LedgerTransaction.id == Posting.transaction_id)
            .where(
                LedgerTransaction.player_id == player,
                LedgerTransaction.round_id.is_not(None),
                Posting.account_id == LedgerTransaction.wallet_id,
            )
        ).scalar_one()
    return -int(moved)


def expected_rtp(rows: list[Round]) -> dict[str, Fraction]:
    """E[wins] / E[handle] per slice, from the table's exact odds per bet: every tied hand
    went to war, so ``ante_war`` and the ladder ``tie_bet``; a hand without an ante is a
    tie bet alone (``tie_bet_alone``), whatever the round's other hands; war tie bets per
    unit placed."""
    bets = table_odds(LADDER).bets
    ante, tie, alone, war_tie = (
        bets["ante_war"],
        bets["tie_bet"],
        bets["tie_bet_alone"],
        bets["war_tie_bet"],
    )
    ante_handle = sum(r.ante for r in rows) * ante.expected_stake
    ante_wins = sum(r.ante for r in rows) * (ante.expected_stake + ante.rtp - 1)
    tie_handle = Fraction(sum(r.tie_bet for r in rows))
    hands = [hand["bets"] for r in rows for hand in (r.hands or {})["hands"]]
    assert sum(h["tie_bet"] for h in hands) == tie_handle
    tie_wins = sum(h["tie_bet"] * (alone.rtp if h["ante"] == 0 else tie.rtp) for h in hands)
    war_tie_handle = Fraction(sum(r.war_tie_bet for r in rows))
    war_tie_wins = war_tie_handle * war_tie.rtp
    return {
        "all_bets": (ante_wins + tie_wins + war_tie_wins)
        / (ante_handle + tie_handle + war_tie_handle),
        "ante_game": ante_wins / ante_handle,
        "tie_bet": Fraction(tie_wins) / tie_handle,
        "war_tie_bet": war_tie.rtp,
    }


def test_report_of_several_hands_repeated_wars_and_war_tie_bets_matches_the_ledger(
    svc: Svc,
) -> None:
    svc.run(tables.create_table, "ladder", "EUR", LADDER)
    player = svc.player(funds=10_000_000)
    steer(svc, player, TWO, repeated_war)  # a war that ties and is fought again
    play(svc, player, TWO)
    steer(svc, player, TWO, lambda r: any(h.decision is not None for h in r.hands))
    play(svc, player, TWO)
    steer(svc, player, TIE_ONLY, lambda r: r.hands[0].ties >= 1)  # a tie-only tie
    play(svc, player, TIE_ONLY)
    steer(svc, player, MIXED, lambda r: r.hands[1].ties >= 1)  # a tie-only hand ties beside
    play(svc, player, MIXED)
    for i in range(12):
        svc.run(seeds.set_client_seed, player, f"plain-{i}")
        play(svc, player, (TIE_ONLY, TWO, MIXED)[i % 3])

    with svc.factory() as session:
        rows = list(session.scalars(select(Round).where(Round.table_id == "ladder")))
    assert all(r.status == "settled" for r in rows)
    assert any(r.war_tie_bet for r in rows) and any(r.ante == 0 for r in rows)
    assert any(h["ties"] >= 2 for r in rows for h in (r.hands or {}).get("hands", []))

    with svc.uow() as uow:
        report = report_json(table_report(uow))
    (table,) = report["tables"]
    total = table["total"]
    everything = total["all_bets"]
    # The report's money is the ledger's.
    assert everything["handle"] - everything["wins"] == house_net(svc, player)
    assert everything["ggr"] == house_net(svc, player)
    wagered = sum(r.ante + r.raise_amount + r.tie_bet + r.war_tie_bet for r in rows)
    paid = sum(
        r.ante_payout + r.raise_payout + r.tie_bet_payout + r.war_tie_bet_payout for r in rows
    )
    assert (everything["handle"], everything["wins"]) == (wagered, paid)
    # The war tie bets on their own line, beside the ante game and the tie bet.
    war_tie = total["war_tie_bet"]
    assert war_tie["handle"] == sum(r.war_tie_bet for r in rows) > 0
    assert war_tie["wins"] == sum(r.war_tie_bet_payout for r in rows)
    assert war_tie["rounds"] == sum(1 for r in rows if r.war_tie_bet)
    slices = [total[name] for name in ("ante_game", "tie_bet", "war_tie_bet")]
    assert sum(s["handle"] for s in slices) == everything["handle"]
    assert sum(s["wins"] for s in slices) == everything["wins"]
    assert sum(day["all_bets"]["handle"] for day in table["days"]) == everything["handle"]
    # The theoretical figures come from the table's exact odds under its own rules.
    assert total["decisions"]["surrender"] == 0
    for name, rtp in expected_rtp(rows).items():
        assert total[name]["theoretical_rtp_exact"] == f"{rtp.numerator}/{rtp.denominator}", name
        assert total[name]["std_dev"] > 0, name
    (rules,) = table["rules"]
    assert rules["rounds"] == len(rows)
    assert {k: rules[k] for k in ("war_ties", "max_war_ties", "tie_ladder", "war_tie_pays")} == {
        "war_ties": "repeat",
        "max_war_ties": 4,
        "tie_ladder": [10, 25, 50, 200],
        "war_tie_pays": 11,
    }
    exact = theoretical_rtp(LADDER)
    assert set(rules["rtp"]) == set(exact) >= {"tie_bet_alone", "war_tie_bet"}
    for name, value in exact.items():
        assert rules["rtp"][name]["exact"] == f"{value.numerator}/{value.denominator}"


def test_classic_rules_report_no_new_rule_and_an_empty_war_tie_line(svc: Svc) -> None:
    svc.run(tables.create_table, "classic", "EUR", TableRules())
    player = svc.player(funds=100_000)
    for i in range(5):
        svc.run(seeds.set_client_seed, player, f"classic-{i}")
        view: Any = svc.run(rounds.place_bet, player, "classic", 1_000, 100)
        if view.status == "awaiting_decision":
            svc.run(rounds.decide_hands, view.id, None, player_id=player, action="war")
    with svc.uow() as uow:
        report = report_json(table_report(uow))
    (table,) = report["tables"]
    (rules,) = table["rules"]
    assert set(rules) == {"decks", "tie_pays", "war_tie_bonus", "rounds", "rtp"}
    assert set(rules["rtp"]) == {"war", "surrender", "tie_bet"}
    line = table["total"]["war_tie_bet"]
    assert (line["rounds"], line["handle"], line["wins"]) == (0, 0, 0)
    assert line["theoretical_rtp"] is None
    everything = table["total"]["all_bets"]
    assert everything["handle"] - everything["wins"] == house_net(svc, player)

"""Pure bookkeeping: legs, transfers, the money of a round, transactions and their links.
No database: these are the rules the store only persists."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from casino.ledger.accounts import SystemAccounts, account_name, wallet_key
from casino.ledger.chain import GENESIS_HASH, link_hash
from casino.ledger.errors import InsufficientFunds, LedgerError, Unbalanced
from casino.ledger.legs import Leg, most_drawn, transfer
from casino.ledger.settlement import decided_round_legs, opened_round_legs, settled_round_legs
from casino.ledger.transactions import (
    BET,
    DECISION,
    DEPOSIT,
    STAKE,
    WalletState,
    digest_of,
    link,
    new_transaction,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
EUR = SystemAccounts("EUR")
WALLET = wallet_key("p1", "EUR")


def wallet_delta(legs: list[Leg]) -> int:
    return sum(leg.amount for leg in legs if leg.account == WALLET)


def test_transfer_is_two_legs_or_none() -> None:
    assert transfer("a:EUR", "b:EUR", 5) == [Leg("a:EUR", -5), Leg("b:EUR", 5)]
    assert transfer("a:EUR", "b:EUR", 0) == []
    with pytest.raises(Unbalanced):
        transfer("a:EUR", "b:EUR", -1)


def test_most_drawn_follows_the_order_of_the_legs() -> None:
    # A stake leaves before its winnings arrive: the wallet must hold the stake first.
    legs = transfer(WALLET, EUR.house, 300) + transfer(EUR.house, WALLET, 600)
    assert most_drawn(legs, WALLET) == 300
    assert most_drawn(list(reversed(legs)), WALLET) == 0


@pytest.mark.parametrize(
    ("staked", "returned", "net", "count"),
    [(1200, 2000, 800, 4), (1200, 0, -1200, 2), (100, 100, 0, 4)],
)
def test_a_settled_round_is_gross_stakes_and_returns(
    staked: int, returned: int, net: int, count: int
) -> None:
    legs = settled_round_legs(EUR, WALLET, staked, returned)
    assert sum(leg.amount for leg in legs) == 0 and len(legs) == count
    assert wallet_delta(legs) == net
    assert all(leg.account != EUR.in_play for leg in legs)


def test_a_tie_holds_the_ante_in_play_until_the_decision() -> None:
    opened = opened_round_legs(EUR, WALLET, ante=1000, tie_bet=100, tie_returned=1100)
    decided = decided_round_legs(EUR, WALLET, ante=1000, raise_=1000, returned=3000)
    in_play = [leg.amount for leg in opened + decided if leg.account == EUR.in_play]
    assert in_play == [1000, -1000]
    assert wallet_delta(opened) == 0 and wallet_delta(decided) == 2000
    surrendered = decided_round_legs(EUR, WALLET, ante=1000, raise_=0, returned=500)
    assert wallet_delta(surrendered) == 500 and most_drawn(surrendered, WALLET) == 0


def test_new_transaction_refuses_what_does_not_balance_or_moves_no_single_wallet() -> None:
    good = transfer(EUR.cash, WALLET, 10)
    tx = new_transaction(DEPOSIT, "EUR", "p1", good, created_at=NOW, reference="r")
    assert tx.wallet == WALLET and tx.wallet_delta == 10 and tx.required == 0
    with pytest.raises(Unbalanced):
        new_transaction(DEPOSIT, "EUR", "p1", [Leg(WALLET, 10)], created_at=NOW)
    with pytest.raises(Unbalanced):
        new_transaction(DEPOSIT, "EUR", "p1", [Leg(WALLET, 10), Leg(EUR.cash, -9)], created_at=NOW)
    with pytest.raises(Unbalanced):
        new_transaction(DEPOSIT, "EUR", "p1", [Leg(WALLET, 0), Leg(EUR.cash, 0)], created_at=NOW)
    with pytest.raises(Unbalanced):  # a USD account in a EUR transaction
        new_transaction(DEPOSIT, "EUR", "p1", transfer("cash:USD", WALLET, 5), created_at=NOW)
    with pytest.raises(LedgerError):  # no wallet at all
        new_transaction(DEPOSIT, "EUR", "p1", transfer(EUR.cash, EUR.house, 5), created_at=NOW)
    with pytest.raises(LedgerError):  # two wallets
        other = wallet_key("p2", "EUR")
        new_transaction(DEPOSIT, "EUR", "p1", transfer(other, WALLET, 5), created_at=NOW)
    with pytest.raises(LedgerError):
        new_transaction("gift", "EUR", "p1", good, created_at=NOW)


def test_link_gives_the_next_place_in_the_wallets_chain() -> None:
    start = WalletState(balance=0, chain_length=0, chain_hash=GENESIS_HASH)
    deposit = new_transaction(
        DEPOSIT, "EUR", "p1", transfer(EUR.cash, WALLET, 5000), created_at=NOW
    )
    first = link(deposit, 7, start)
    assert (first.wallet_seq, first.wallet_balance_after, first.prev_hash) == (
        1,
        5000,
        GENESIS_HASH,
    )
    assert first.hash == link_hash(GENESIS_HASH, 1, digest_of(deposit, 7, 5000))
    assert first.before == start and first.after == WalletState(5000, 1, first.hash)
    bet = new_transaction(
        BET, "EUR", "p1", settled_round_legs(EUR, WALLET, 1000, 2000), created_at=NOW, round_id="r"
    )
    second = link(bet, 9, first.after)
    assert (second.wallet_seq, second.wallet_balance_after, second.prev_hash) == (
        2,
        6000,
        first.hash,
    )
    # Anything in the transaction changes its link.
    assert link(bet, 10, first.after).hash != second.hash


def test_link_refuses_what_the_wallet_cannot_pay() -> None:
    stake = new_transaction(
        STAKE, "EUR", "p1", opened_round_legs(EUR, WALLET, 1000, 0, 0), created_at=NOW
    )
    with pytest.raises(InsufficientFunds):
        link(stake, 1, WalletState(999, 3, "a" * 64))
    assert link(stake, 1, WalletState(1000, 3, "a" * 64)).wallet_balance_after == 0
    # Winnings paid in the same transaction do not make an unaffordable stake affordable.
    war = new_transaction(
        DECISION, "EUR", "p1", decided_round_legs(EUR, WALLET, 1000, 1000, 3000), created_at=NOW
    )
    with pytest.raises(InsufficientFunds):
        link(war, 2, WalletState(999, 1, "b" * 64))


def test_views_name_accounts_without_their_currency() -> None:
    assert account_name(WALLET) == "wallet:p1" and account_name(EUR.house) == "house"

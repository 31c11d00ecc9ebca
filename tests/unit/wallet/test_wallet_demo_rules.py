"""The reference wallet's rules (docs/integration.md §5), decided in process against its own
SQLite: including those the kit cannot reach from outside (blocked players' wins, limits,
a rollback of a refused bet) and concurrent duplicates on one store."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from casino.wallet.demo import DemoStore, DemoWallet
from casino.wallet.demo.server import csv_text
from casino.wallet.demo.store import CSV_COLUMNS
from casino.wallet.protocol import Answer, Balance, Bet, BetKind, Rollback, Status, Win

_ids = itertools.count(1)


def tid() -> str:
    return f"tx-{next(_ids)}"


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[DemoWallet]:
    store = DemoStore(tmp_path / "wallet.db")
    store.create_account("alice", "EUR", 1_000)
    yield DemoWallet(store, [b"demo-rules-secret-0123"])
    store.close()


def bet(amount: int = 100, round_id: str = "r1", player: str = "alice", **kw: str) -> Bet:
    return Bet(player, kw.get("session", "s"), kw.get("currency", "EUR"), kw.get("tid", tid()),
               round_id, amount, BetKind.DEAL)  # fmt: skip


def win(of: Bet, amount: int, session: str = "s") -> Win:
    return Win(of.player, session, of.currency, tid(), of.round_id, amount)


def rollback(of: Bet, amount: int | None = None) -> Rollback:
    return Rollback(of.player, "", of.currency, tid(), of.transaction_id, of.round_id,
                    of.amount if amount is None else amount)  # fmt: skip


def balance(wallet: DemoWallet, player: str = "alice") -> int | None:
    account = wallet.store.account(player, "EUR")
    return None if account is None else account.balance


def test_a_round_debits_then_credits(wallet: DemoWallet) -> None:
    call = bet(100)
    answer = wallet.handle(call)
    assert answer.status is Status.OK and answer.balance == 900
    assert answer.operator_transaction_id
    assert wallet.handle(win(call, 200)) == Answer(Status.OK, 1_100, "dw-000000002")


def test_a_repeat_answers_the_recorded_answer_with_the_balance_now(wallet: DemoWallet) -> None:
    call = bet(100)
    first = wallet.handle(call)
    wallet.handle(win(call, 300))
    again = wallet.handle(call)
    assert (again.status, again.operator_transaction_id) == (
        Status.OK,
        first.operator_transaction_id,
    )
    assert again.balance == 1_200 == balance(wallet)


def test_a_refusal_is_recorded_and_repeated(wallet: DemoWallet) -> None:
    call = bet(5_000)
    assert wallet.handle(call).status is Status.NOT_ENOUGH_MONEY
    wallet.store.put_account("alice", "EUR", balance=10_000)
    assert wallet.handle(call).status is Status.NOT_ENOUGH_MONEY  # the original answer
    assert balance(wallet) == 10_000


def test_a_blocked_players_bet_is_refused_but_its_win_and_rollback_are_paid(
    wallet: DemoWallet,
) -> None:
    first, second = bet(100, "r1"), bet(50, "r2")
    wallet.handle(first)
    wallet.handle(second)
    wallet.store.put_account("alice", "EUR", blocked=True)
    assert wallet.handle(bet(10, "r3")).status is Status.PLAYER_BLOCKED
    assert wallet.handle(Balance("alice", "s", "EUR")).status is Status.PLAYER_BLOCKED
    assert wallet.handle(win(first, 300)).status is Status.OK
    assert wallet.handle(rollback(second)).status is Status.OK
    assert balance(wallet) == 1_000 - 100 + 300


def test_an_expired_session_refuses_bets_and_balances_not_wins(wallet: DemoWallet) -> None:
    call = bet(100)
    wallet.handle(call)
    wallet.store.expire_session("s")
    assert wallet.handle(bet(10)).status is Status.SESSION_EXPIRED
    assert wallet.handle(Balance("alice", "s", "EUR")).status is Status.SESSION_EXPIRED
    assert wallet.handle(Balance("alice", "fresh", "EUR")).status is Status.OK
    assert wallet.handle(win(call, 100)).status is Status.OK


def test_a_limit_refuses_a_larger_bet(wallet: DemoWallet) -> None:
    wallet.store.put_account("alice", "EUR", max_bet=50)
    assert wallet.handle(bet(51)).status is Status.LIMIT_REACHED
    assert wallet.handle(bet(50)).status is Status.OK
    wallet.store.put_account("alice", "EUR", max_bet=None)
    assert wallet.handle(bet(500, "r2")).status is Status.OK


def test_unknown_players_and_currencies(wallet: DemoWallet) -> None:
    assert wallet.handle(bet(10, player="bob")).status is Status.PLAYER_BLOCKED
    assert wallet.handle(bet(10, currency="USD")).status is Status.PLAYER_BLOCKED
    stranger = bet(10, player="bob")
    assert wallet.handle(win(stranger, 10)).status is Status.PLAYER_BLOCKED
    assert wallet.handle(Balance("bob", "s", "EUR")) == Answer(Status.PLAYER_BLOCKED)


def test_a_rollback_racing_a_late_bet(wallet: DemoWallet) -> None:
    late = bet(100)
    cancel = rollback(late)
    assert wallet.handle(cancel).status is Status.TRANSACTION_NOT_FOUND
    assert wallet.handle(late).status is Status.DUPLICATE_TRANSACTION
    assert wallet.handle(late).status is Status.DUPLICATE_TRANSACTION
    assert wallet.handle(cancel).status is Status.TRANSACTION_NOT_FOUND
    assert balance(wallet) == 1_000
    # The dead bet is not recorded: only the rollback is in the wallet's records.
    assert [row[1] for row in wallet.store.export_rows()] == ["rollback"]


def test_rollbacks_that_conflict_are_refused(wallet: DemoWallet) -> None:
    call = bet(100)
    wallet.handle(call)
    credit = win(call, 0)
    assert wallet.handle(rollback(call, amount=99)).status is Status.DUPLICATE_TRANSACTION
    other_player = Rollback("bob", "", "EUR", tid(), call.transaction_id, "r1", 100)
    assert wallet.handle(other_player).status is Status.DUPLICATE_TRANSACTION
    wallet.handle(credit)
    of_a_win = Rollback("alice", "", "EUR", tid(), credit.transaction_id, "r1", 1)
    assert wallet.handle(of_a_win).status is Status.DUPLICATE_TRANSACTION
    assert wallet.handle(rollback(call)).status is Status.DUPLICATE_TRANSACTION  # round closed
    assert balance(wallet) == 900


def test_a_bet_is_cancelled_once_whatever_the_rollback_id(wallet: DemoWallet) -> None:
    call = bet(100)
    wallet.handle(call)
    assert wallet.handle(rollback(call)).status is Status.OK
    assert wallet.handle(rollback(call)).status is Status.OK
    assert balance(wallet) == 1_000


def test_a_rollback_of_a_refused_bet_credits_nothing(wallet: DemoWallet) -> None:
    refused = bet(5_000)
    assert wallet.handle(refused).status is Status.NOT_ENOUGH_MONEY
    assert wallet.handle(rollback(refused)).status is Status.OK
    assert balance(wallet) == 1_000


def test_a_closed_round_takes_no_more_bets_or_wins(wallet: DemoWallet) -> None:
    call = bet(100)
    wallet.handle(call)
    wallet.handle(win(call, 0))
    assert wallet.handle(bet(100)).status is Status.DUPLICATE_TRANSACTION
    assert wallet.handle(win(call, 100)).status is Status.DUPLICATE_TRANSACTION
    assert balance(wallet) == 900


def test_a_rolled_back_raise_leaves_the_round_open_for_its_win(wallet: DemoWallet) -> None:
    deal = bet(100)
    wallet.handle(deal)
    raise_ = Bet("alice", "s", "EUR", tid(), "r1", 100, BetKind.RAISE)
    wallet.handle(raise_)
    assert wallet.handle(rollback(raise_)).status is Status.OK
    assert wallet.handle(win(deal, 50)).status is Status.OK  # surrendered: half the ante back
    assert balance(wallet) == 950


@pytest.mark.parametrize("make", [lambda: bet(100), lambda: win(bet(1, "r9"), 100)])
def test_concurrent_duplicates_apply_once(wallet: DemoWallet, make) -> None:  # type: ignore[no-untyped-def]
    call = make()
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda _: wallet.handle(call), range(64)))
    assert {(a.status, a.operator_transaction_id) for a in answers} == {
        (Status.OK, answers[0].operator_transaction_id)
    }
    assert balance(wallet) in (900, 1_100)
    assert len(wallet.store.export_rows()) == 1


def test_the_records_export_with_the_documented_columns(wallet: DemoWallet) -> None:
    call = bet(100)
    wallet.handle(call)
    wallet.handle(rollback(call))
    lines = csv_text(wallet.store.export_rows()).splitlines()
    assert lines[0].split(",") == list(CSV_COLUMNS)
    reconciled = "transaction_id kind amount status round_id player currency created_at"
    assert CSV_COLUMNS[:8] == tuple(reconciled.split())
    bet_row, rollback_row = (
        dict(zip(CSV_COLUMNS, line.split(","), strict=True)) for line in lines[1:]
    )
    assert bet_row["kind"] == "bet" and bet_row["bet_kind"] == "deal" and bet_row["amount"] == "100"
    assert rollback_row["reference_transaction_id"] == call.transaction_id
    assert rollback_row["created_at"].endswith("Z")


def test_the_store_keeps_its_state_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "kept.db"
    first = DemoStore(path)
    first.create_account("alice", "EUR", 500)
    DemoWallet(first, [b"x" * 16]).handle(bet(100))
    first.close()
    again = DemoStore(path)
    assert again.create_account("alice", "EUR", 999_999).balance == 400  # left as it was
    assert len(again.export_rows()) == 1
    again.close()

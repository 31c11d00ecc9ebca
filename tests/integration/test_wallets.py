from __future__ import annotations

import pytest

from casino.service import wallets
from casino.service.errors import Conflict, Invalid, NotFound

from .conftest import Svc

MISSING = "00000000-0000-0000-0000-000000000000"


def test_first_deposit_creates_the_wallet(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        assert wallets.list_wallets(uow, pid) == []
    tx = svc.run(wallets.deposit, pid, "EUR", 5000, "dep-1")
    assert tx.kind == "deposit" and tx.currency == "EUR" and tx.balance_after == 5000
    assert tx.reference == "dep-1" and tx.round_id is None and len(tx.hash) == 64
    assert sorted(p["amount"] for p in tx.postings) == [-5000, 5000]
    assert {p["account"] for p in tx.postings} == {"cash", f"wallet:{pid}"}
    with svc.uow() as uow:
        assert [(w.currency, w.balance) for w in wallets.list_wallets(uow, pid)] == [("EUR", 5000)]


def test_wallets_per_currency(svc: Svc) -> None:
    pid = svc.player()
    svc.run(wallets.deposit, pid, "USD", 100, "a")
    svc.run(wallets.deposit, pid, "EUR", 200, "b")
    with svc.uow() as uow:
        assert [(w.currency, w.balance) for w in wallets.list_wallets(uow, pid)] == [
            ("EUR", 200),
            ("USD", 100),
        ]


def test_withdraw_within_balance(svc: Svc) -> None:
    pid = svc.player(funds=1000)
    tx = svc.run(wallets.withdraw, pid, "EUR", 400, "wd-1")
    assert tx.kind == "withdrawal" and tx.balance_after == 600
    assert svc.balance(pid) == 600
    svc.run(wallets.withdraw, pid, "EUR", 600, "wd-2")
    assert svc.balance(pid) == 0


def test_withdraw_beyond_balance_changes_nothing(svc: Svc) -> None:
    pid = svc.player(funds=1000)
    with pytest.raises(Conflict) as caught:
        svc.run(wallets.withdraw, pid, "EUR", 1001, "too-much")
    assert caught.value.code == "insufficient_funds"
    assert svc.balance(pid) == 1000
    with svc.uow() as uow:
        assert len(wallets.list_transactions(uow, pid).items) == 1


def test_withdraw_without_wallet(svc: Svc) -> None:
    pid = svc.player()
    with pytest.raises(Conflict) as caught:
        svc.run(wallets.withdraw, pid, "GBP", 1, "none")
    assert caught.value.code == "insufficient_funds"


@pytest.mark.parametrize(
    ("currency", "amount", "reference"),
    [
        ("eur", 1, "r"),
        ("EURO", 1, "r"),
        ("EUR", 0, "r"),
        ("EUR", -5, "r"),
        ("EUR", 10**12 + 1, "r"),
        ("EUR", True, "r"),
        ("EUR", 1.5, "r"),
        ("EUR", 1, ""),
        ("EUR", 1, "x" * 201),
    ],
)
def test_invalid_deposits(svc: Svc, currency: str, amount: int, reference: str) -> None:
    pid = svc.player()
    with pytest.raises(Invalid):
        svc.run(wallets.deposit, pid, currency, amount, reference)
    with pytest.raises(Invalid):
        svc.run(wallets.withdraw, pid, currency, amount, reference)


def test_largest_amount_is_accepted(svc: Svc) -> None:
    pid = svc.player()
    svc.run(wallets.deposit, pid, "EUR", 10**12, "max")
    svc.run(wallets.deposit, pid, "EUR", 10**12, "max-2")
    assert svc.balance(pid) == 2 * 10**12


def test_unknown_player(svc: Svc) -> None:
    with pytest.raises(NotFound):
        svc.run(wallets.deposit, MISSING, "EUR", 1, "r")
    with pytest.raises(NotFound):
        svc.run(wallets.withdraw, MISSING, "EUR", 1, "r")
    with svc.uow() as uow:
        with pytest.raises(NotFound):
            wallets.list_wallets(uow, MISSING)
        with pytest.raises(NotFound):
            wallets.list_transactions(uow, MISSING)


def test_transactions_paginate_newest_first(svc: Svc) -> None:
    pid = svc.player()
    other = svc.player(funds=7)
    for i in range(1, 8):
        svc.run(wallets.deposit, pid, "EUR", i, f"dep-{i}")
    seen = []
    cursor = None
    while True:
        with svc.uow() as uow:
            page = wallets.list_transactions(uow, pid, cursor, 3)
        seen.extend(tx.reference for tx in page.items)
        assert len(page.items) <= 3
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [f"dep-{i}" for i in range(7, 0, -1)]
    with svc.uow() as uow:
        assert [tx.reference for tx in wallets.list_transactions(uow, other).items] == ["funding"]
        first = wallets.list_transactions(uow, pid, None, 50).items
    assert [tx.balance_after for tx in first] == [28, 21, 15, 10, 6, 3, 1]


def test_malformed_cursor(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        for cursor in ["%%%", "bm90LWEtbnVtYmVy", "YQ"]:
            with pytest.raises(Invalid):
                wallets.list_transactions(uow, pid, cursor, 10)

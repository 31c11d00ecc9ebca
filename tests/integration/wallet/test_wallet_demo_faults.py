"""The reference wallet's faults do what docs/integration.md §7 says: ``error`` answers 500
and applies nothing, ``drop`` applies and closes the connection unanswered, ``timeout``
sleeps past the caller's timeout and then applies."""

from __future__ import annotations

import time
import uuid

from casino.wallet.client import WalletClient
from casino.wallet.demo import FaultPlan, Faults
from casino.wallet.protocol import Answer, Bet, BetKind, Rollback, Status

from .conftest import CURRENCY, FUNDS, PLAYER, SECRET


def _bet() -> Bet:
    return Bet(PLAYER, "s", CURRENCY, str(uuid.uuid4()), str(uuid.uuid4()), 100, BetKind.DEAL)


def _balance(server) -> int:  # type: ignore[no-untyped-def]
    account = server.wallet.store.account(PLAYER, CURRENCY)
    return int(account.balance)


def test_an_error_fault_applies_nothing(demo_wallet) -> None:  # type: ignore[no-untyped-def]
    server = demo_wallet(faults=Faults(FaultPlan(error=1.0)))
    with WalletClient(server.url, "acme", [SECRET]) as client:
        outcome = client.send(_bet())
    assert not outcome.definite and outcome.reason == "HTTP 500"
    assert _balance(server) == FUNDS and server.wallet.store.export_rows() == []


def test_a_drop_fault_applies_the_call_and_loses_the_answer(demo_wallet) -> None:  # type: ignore[no-untyped-def]
    server = demo_wallet(faults=Faults(FaultPlan(drop=1.0)))
    call = _bet()
    with WalletClient(server.url, "acme", [SECRET]) as client:
        outcome = client.send(call)
        assert not outcome.definite and outcome.reason.startswith("connection error")
        assert _balance(server) == FUNDS - 100
        server.faults = Faults(FaultPlan())
        again = client.send(call)  # the game server's retry: same transaction, new request
    assert again.ok and again.balance == FUNDS - 100


def test_a_timeout_fault_applies_after_the_caller_gave_up(demo_wallet) -> None:  # type: ignore[no-untyped-def]
    server = demo_wallet(faults=Faults(FaultPlan(timeout=1.0), delay=0.5))
    with WalletClient(server.url, "acme", [SECRET], timeout_ms=100) as client:
        outcome = client.send(_bet())
    assert outcome.reason == "timeout"
    deadline = time.monotonic() + 10
    while _balance(server) == FUNDS and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _balance(server) == FUNDS - 100


class Scripted(Faults):
    """These faults, in this order, then none."""

    def __init__(self, *draws: str | None, delay: float) -> None:
        super().__init__(FaultPlan(), delay=delay)
        self.script = list(draws)

    def draw(self) -> str | None:
        return self.script.pop(0) if self.script else None


def test_a_rollback_racing_its_late_bet_leaves_the_player_whole(demo_wallet) -> None:  # type: ignore[no-untyped-def]
    # The bet sleeps in the wallet past the caller's timeout; the caller rolls it back; the
    # rollback arrives first (TRANSACTION_NOT_FOUND), so the late bet must be refused.
    server = demo_wallet(faults=Scripted("timeout", delay=0.6))
    call = _bet()
    cancel = Rollback(PLAYER, "s", CURRENCY, str(uuid.uuid4()), call.transaction_id,
                      call.round_id, call.amount)  # fmt: skip
    decided: list[Answer] = []
    handle = server.wallet.handle

    def handle_and_tell(received):  # type: ignore[no-untyped-def]
        answer = handle(received)
        if isinstance(received, Bet):
            decided.append(answer)
        return answer

    server.wallet.handle = handle_and_tell
    with WalletClient(server.url, "acme", [SECRET], timeout_ms=100) as client:
        assert client.send(call).reason == "timeout"
        assert client.send(cancel).status is Status.TRANSACTION_NOT_FOUND
    deadline = time.monotonic() + 10
    while not decided and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [answer.status for answer in decided] == [Status.DUPLICATE_TRANSACTION]
    assert _balance(server) == FUNDS
    assert [row[1] for row in server.wallet.store.export_rows()] == ["rollback"]

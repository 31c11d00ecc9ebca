"""The seamless wallet's outbox (docs/integration.md §9): a pending rollback or win is sent
with backoff (1 s, 2 s, 4 s …) until the wallet answers, then booked in the ledger; after
the retry window it needs attention; a claim leases a call to one sender."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from casino.service import wallet_clients
from casino.service.errors import Conflict, NotFound
from casino.service.operators import create_operator
from casino.service.players import create_player
from casino.service.stuck_calls import retry_call, stuck_calls
from casino.service.wallet_outbox import run_once
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import NEEDS_ATTENTION, OK, PENDING, WalletCallRecord
from casino.wallet.client import Outcome
from casino.wallet.protocol import Rollback, Status, to_record

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


class FakeWallet:
    def __init__(self, unknown_first: int) -> None:
        self.unknown_first = unknown_first
        self.sent: list[object] = []

    def send(self, call: object, timeout_ms: int | None = None) -> Outcome:
        self.sent.append(call)
        definite = len(self.sent) > self.unknown_first
        status = Status.OK if definite else Status.UNKNOWN
        return Outcome(call, f"r{len(self.sent)}", status, definite=definite, reason="fake")  # type: ignore[arg-type]


@pytest.fixture
def clock() -> dict[str, datetime]:
    return {"now": T0}


@pytest.fixture
def open_uow(
    session_factory: sessionmaker[Session], clock: dict[str, datetime]
) -> Iterator[object]:
    def make(operator: str | None = None) -> UnitOfWork:
        return UnitOfWork(session_factory, clock=lambda: clock["now"], operator=operator)

    yield make
    wallet_clients.use_factory(None)


def _setup(open_uow: object) -> str:
    with open_uow(None) as uow:  # type: ignore[operator]
        create_operator(
            uow,
            "acme",
            "Acme",
            currencies=["EUR"],
            wallet={"mode": "seamless", "url": "http://127.0.0.1:9", "secret": "s" * 32},
        )
        uow.commit()
    with open_uow("acme") as uow:  # type: ignore[operator]
        player = create_player(uow, "alice")
        uow.commit()
    player_id = player.id if hasattr(player, "id") else player[0].id
    rollback = Rollback(
        player="alice",
        session="",
        currency="EUR",
        transaction_id="rb-1",
        reference_transaction_id="bet-1",
        round_id="00000000-0000-4000-8000-000000000001",
        amount=300,
    )
    with open_uow("acme") as uow:  # type: ignore[operator]
        uow.wallet_calls.add(
            WalletCallRecord(
                transaction_id="rb-1",
                operator_id="",
                player_id=player_id,
                round_id=rollback.round_id,
                endpoint="rollback",
                currency="EUR",
                amount=300,
                reference_transaction_id="bet-1",
                call=to_record(rollback),
                state=PENDING,
                wallet_status=None,
                operator_transaction_id=None,
                attempts=0,
                last_error=None,
                created_at=T0,
                updated_at=T0,
                next_attempt_at=T0,
            )
        )
        uow.commit()
    return player_id


def _state(open_uow: object) -> tuple[str, int]:
    with open_uow("acme") as uow:  # type: ignore[operator]
        record = uow.wallet_calls.get("rb-1")
        assert record is not None
        return record.state, record.attempts


def test_sent_again_with_backoff_until_the_wallet_answers(
    open_uow: object, clock: dict[str, datetime]
) -> None:
    player_id = _setup(open_uow)
    fake = FakeWallet(unknown_first=3)
    wallet_clients.use_factory(lambda operator, secrets: fake)
    # Due at 0 s; unknown -> again 1 s later, then 2 s, then 4 s later.
    for at, sent, expected in [
        (0, 1, 1),
        (0.5, 0, 1),
        (1, 1, 2),
        (2.9, 0, 2),
        (3, 1, 3),
        (7, 1, 4),
    ]:
        clock["now"] = T0 + timedelta(seconds=at)
        assert run_once(open_uow) == sent, at  # type: ignore[arg-type]
        assert _state(open_uow)[1] == expected
    assert _state(open_uow) == (OK, 4)
    assert len(fake.sent) == 4 and {c.transaction_id for c in fake.sent} == {"rb-1"}  # type: ignore[attr-defined]
    with open_uow("acme") as uow:  # type: ignore[operator]
        # The cancelled bet and its return: two balanced transactions, the mirror at 0.
        assert uow.ledger.balances(player_id) == [("EUR", 0)]
        assert len(uow.ledger.transaction_page(player_id, None, 10)) == 2
    clock["now"] = T0 + timedelta(hours=1)
    assert run_once(open_uow) == 0  # type: ignore[arg-type]


def test_needs_attention_after_the_retry_window(
    open_uow: object, clock: dict[str, datetime]
) -> None:
    _setup(open_uow)
    wallet_clients.use_factory(lambda operator, secrets: FakeWallet(unknown_first=10**6))
    window = timedelta(seconds=30)
    for at in range(0, 40):
        clock["now"] = T0 + timedelta(seconds=at)
        run_once(open_uow, window=window)  # type: ignore[arg-type]
    state, attempts = _state(open_uow)
    assert state == NEEDS_ATTENTION and 5 <= attempts <= 7
    with open_uow("acme") as uow:  # type: ignore[operator]
        assert uow.wallet_calls.count_needing_attention() == 1


def test_a_call_needing_attention_is_listed_and_sent_again_on_request(
    open_uow: object, clock: dict[str, datetime]
) -> None:
    """The back office's view (casino.service.stuck_calls): the stuck call listed, one more
    attempt on request once the wallet answers, and only a stuck call retried."""
    _setup(open_uow)
    wallet_clients.use_factory(lambda operator, secrets: FakeWallet(unknown_first=10**6))
    for at in range(0, 40):
        clock["now"] = T0 + timedelta(seconds=at)
        run_once(open_uow, window=timedelta(seconds=30))  # type: ignore[arg-type]
    with open_uow("acme") as uow:  # type: ignore[operator]
        listed = stuck_calls(uow, "acme", 10)
    assert listed["total"] == 1 and [c["transaction_id"] for c in listed["items"]] == ["rb-1"]
    assert listed["items"][0]["status"] == NEEDS_ATTENTION
    with open_uow("acme") as uow, pytest.raises(NotFound):  # type: ignore[operator]
        retry_call(uow, "acme", "00000000-0000-4000-8000-000000000000")
    with open_uow("acme") as uow, pytest.raises(NotFound):  # type: ignore[operator]
        retry_call(uow, "other", "rb-1")  # another operator's books: as missing
    fixed = FakeWallet(unknown_first=0)
    wallet_clients.use_factory(lambda operator, secrets: fixed)
    with open_uow("acme") as uow:  # type: ignore[operator]
        after = retry_call(uow, "acme", "rb-1")
    assert after["status"] == OK and len(fixed.sent) == 1  # type: ignore[attr-defined]
    with open_uow("acme") as uow:  # type: ignore[operator]
        assert stuck_calls(uow, "acme", 10)["total"] == 0
        with pytest.raises(Conflict) as refused:
            retry_call(uow, "acme", "rb-1")
    assert refused.value.code == "wallet_call_not_stuck"


def test_a_claim_leases_the_call_to_one_sender(open_uow: object) -> None:
    _setup(open_uow)
    with open_uow(None) as first:  # type: ignore[operator]
        first.all_operators()
        claimed = first.wallet_calls.claim_due(T0, timedelta(seconds=30), 10)
        first.commit()
    with open_uow(None) as second:  # type: ignore[operator]
        second.all_operators()
        assert second.wallet_calls.claim_due(T0, timedelta(seconds=30), 10) == []
        # Once the lease ends (a sender killed mid-send), another takes it.
        again = second.wallet_calls.claim_due(T0 + timedelta(seconds=31), timedelta(seconds=30), 10)
    assert [c.transaction_id for c in claimed] == [c.transaction_id for c in again] == ["rb-1"]


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # SQLite: one writer
def test_concurrent_claims_skip_the_locked_rows(open_uow: object) -> None:
    _setup(open_uow)
    with open_uow(None) as first, open_uow(None) as second:  # type: ignore[operator]
        first.all_operators()
        second.all_operators()
        one = first.wallet_calls.claim_due(T0, timedelta(seconds=30), 10)
        two = second.wallet_calls.claim_due(T0, timedelta(seconds=30), 10)  # not blocked
        assert [c.transaction_id for c in one] == ["rb-1"] and two == []


def test_a_retry_on_request_that_is_not_answered_follows_the_retry_window(
    open_uow: object, clock: dict[str, datetime]
) -> None:
    """Within the operator's retry window the call goes back to the workers (pending); past
    it, it needs attention again at once (the window the API passes is the deployment's
    CASINO_WALLET_RETRY_WINDOW, not a default of its own)."""
    _setup(open_uow)
    wallet_clients.use_factory(lambda operator, secrets: FakeWallet(unknown_first=10**6))
    for at in range(0, 40):
        clock["now"] = T0 + timedelta(seconds=at)
        run_once(open_uow, window=timedelta(seconds=30))  # type: ignore[arg-type]
    assert _state(open_uow)[0] == NEEDS_ATTENTION
    with open_uow("acme") as uow:  # type: ignore[operator]
        again = retry_call(uow, "acme", "rb-1", timedelta(seconds=30))
    assert again["status"] == NEEDS_ATTENTION
    with open_uow("acme") as uow:  # type: ignore[operator]
        longer = retry_call(uow, "acme", "rb-1", timedelta(hours=1))
    assert longer["status"] == PENDING

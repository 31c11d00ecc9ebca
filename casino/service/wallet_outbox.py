"""Sending a seamless operator's pending wins and rollbacks (docs/integration.md §6).

A pending call is sent by the request that queued it, right after its commit, and else by
``casino wallet-worker`` (``run_once``), as often as it takes: every attempt has a new
request id and the same ``transaction_id``, the wallet applies it once. A call is finished
by ``OK`` (or, for a rollback, ``TRANSACTION_NOT_FOUND``); any other definite refusal is
final and flagged ``needs_attention``; an unknown outcome (or a refused signature: a
secret being replaced) is tried again after 1 s, 2 s, 4 s … at most 5 minutes, for the
retry window (24 h unless configured), then left ``needs_attention`` for a person.

Every call that moved money (a win or a rollback answered OK) is a balanced ledger
transaction of the operator: the money leaves the player's mirror wallet for the operator's
``cash`` account (casino.service.player_wallets).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from casino.ledger.legs import transfer
from casino.ledger.transactions import DEPOSIT, WITHDRAWAL, link, new_transaction
from casino.service import wallet_clients
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import FINAL, NEEDS_ATTENTION, OK, PENDING, WalletCallRecord
from casino.wallet.client import DEFAULT_RETRY_WINDOW_SECONDS, Outcome, retry_delay
from casino.wallet.protocol import Endpoint, from_record

log = logging.getLogger("casino.wallet.outbox")
#: How long a sender holds a call it claimed beyond the wallet's timeout.
LEASE_MARGIN = timedelta(seconds=30)
RETRY_WINDOW = timedelta(seconds=DEFAULT_RETRY_WINDOW_SECONDS)


def lease(timeout_ms: int) -> timedelta:
    return timedelta(milliseconds=timeout_ms) + LEASE_MARGIN


def send_now(uow: UnitOfWork, transaction_id: str, window: timedelta = RETRY_WINDOW) -> None:
    """Send a call this request queued and leased (after its commit). Never raises: a call
    not finished here is the worker's."""
    try:
        record = uow.wallet_calls.get(transaction_id)
        if record is not None and record.state == PENDING:
            attempt(uow, record, window)
    except Exception:  # the answer already committed; the worker sends it later
        log.exception("sending wallet call %s failed; left to the worker", transaction_id)
        try:
            uow.rollback()
        except Exception:
            log.warning("rollback after a failed send failed", exc_info=True)


def attempt(uow: UnitOfWork, record: WalletCallRecord, window: timedelta = RETRY_WINDOW) -> str:
    """One attempt of a claimed call, and its result committed; the call's new state."""
    operator = uow.operators.get(record.operator_id)
    if operator is None or operator.seamless is None:
        # The operator left seamless mode: nobody to send to; a person must look at it.
        state = NEEDS_ATTENTION
        uow.wallet_calls.finish(
            record.transaction_id,
            state=state,
            wallet_status="UNKNOWN",
            attempts=record.attempts,
            now=uow.now(),
            next_attempt_at=None,
            last_error="the operator has no seamless wallet",
        )
        uow.commit()
        return state
    client = wallet_clients.client_for(operator, uow.now())
    outcome = client.send(from_record(record.call))
    return record_outcome(uow, record, outcome, window)


def record_outcome(
    uow: UnitOfWork, record: WalletCallRecord, outcome: Outcome, window: timedelta
) -> str:
    now = uow.now()
    attempts = record.attempts + 1
    next_at: datetime | None = None
    if outcome.done and not outcome.ok and _booked(uow, record):
        # TRANSACTION_NOT_FOUND for a bet the wallet had answered OK: its books and ours
        # disagree (the mirror wallet keeps the refund); a person must look at it.
        state = NEEDS_ATTENTION
        log.error(
            "wallet %s never saw bet %s it had applied",
            record.operator_id,
            record.reference_transaction_id,
        )
    elif outcome.done:
        state = OK if outcome.ok else FINAL
        if outcome.ok:
            _book(uow, record)
    elif outcome.send_again:
        if now - record.created_at >= window:
            state = NEEDS_ATTENTION
        else:
            state = PENDING
            next_at = now + timedelta(seconds=retry_delay(attempts))
    else:
        # A definite refusal of a win (or of a rollback): final, and a person must look at
        # it (docs/integration.md §6).
        state = NEEDS_ATTENTION
        log.error(
            "wallet %s refused %s %s: %s",
            record.operator_id,
            record.endpoint,
            record.transaction_id,
            outcome.status.value,
        )
    uow.wallet_calls.finish(
        record.transaction_id,
        state=state,
        wallet_status=outcome.status.value,
        attempts=attempts,
        now=now,
        next_attempt_at=next_at,
        operator_transaction_id=outcome.operator_transaction_id,
        last_error=outcome.reason or None,
    )
    uow.commit()
    return state


def _book(uow: UnitOfWork, record: WalletCallRecord) -> None:
    """The ledger's transactions of a win or rollback the wallet applied: a win moves what
    the round paid from the mirror wallet to the operator's cash; a rollback answered OK
    of a bet of unknown outcome means it had been applied and is now cancelled (both
    recorded); of a bet answered OK (a void round's), its deposit is in the ledger already
    and the round's refund is in the mirror wallet: only the return is recorded."""
    if record.amount == 0:
        return
    wallet = uow.ledger.lock_wallet(record.player_id, record.currency, create=True)
    assert wallet is not None
    cash = uow.ledger.system_accounts(record.currency).cash
    moves: list[tuple[str, str]] = []
    if record.endpoint == Endpoint.ROLLBACK.value and not _booked(uow, record):
        moves.append((DEPOSIT, f"bet:{record.reference_transaction_id}"))
    moves.append((WITHDRAWAL, f"{record.endpoint}:{record.transaction_id}"))
    for kind, reference in moves:
        legs = (
            transfer(cash, wallet.key, record.amount)
            if kind == DEPOSIT
            else transfer(wallet.key, cash, record.amount)
        )
        tx = new_transaction(
            kind,
            record.currency,
            record.player_id,
            legs,
            created_at=uow.now(),
            reference=reference,
        )
        wallet = uow.ledger.append(link(tx, uow.ledger.reserve_id(), wallet.state), wallet)


def _booked(uow: UnitOfWork, rollback: WalletCallRecord) -> bool:
    """Whether the rollback's bet was answered OK (its deposit recorded then)."""
    reference = rollback.reference_transaction_id
    if rollback.endpoint != Endpoint.ROLLBACK.value:
        return False
    bet = None if reference is None else uow.wallet_calls.get(reference)
    return bet is not None and bet.state == OK


def run_once(
    open_uow: Callable[[str | None], UnitOfWork],
    *,
    limit: int = 50,
    window: timedelta = RETRY_WINDOW,
    longest_timeout_ms: int = 60_000,
) -> int:
    """Claim the due calls of every operator and send each once; how many were sent.
    ``open_uow(None)``: a unit of work across operators; ``open_uow(id)``: one operator's."""
    with open_uow(None) as uow:
        uow.all_operators()
        due = uow.wallet_calls.claim_due(uow.now(), lease(longest_timeout_ms), limit)
        uow.commit()
    for record in due:
        with open_uow(record.operator_id) as uow:
            try:
                attempt(uow, record, window)
            except Exception:
                log.exception("wallet call %s: attempt failed", record.transaction_id)
    return len(due)

"""The reference wallet's rules: docs/integration.md §5, one method per step.

``DemoWallet.handle`` decides a call in one atomic transaction of its store. Each rule is a
method of its own so that a broken mode (``broken.py``) is a subclass that gets exactly one
rule wrong.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from casino.wallet import signing
from casino.wallet.demo.store import DemoStore, Record, Tx
from casino.wallet.protocol import (
    Answer,
    Balance,
    Bet,
    Call,
    Rollback,
    Status,
    Transaction,
    Win,
    fingerprint,
)


class WalletFault(Exception):
    """The wallet cannot answer (the HTTP layer answers 500)."""


@dataclass(frozen=True)
class Decision:
    """What a rule decided: the status, the money it moves, and whether it is recorded."""

    status: Status
    delta: int = 0
    record: bool = True


def fingerprint_text(call: Transaction) -> str:
    return json.dumps(fingerprint(call), separators=(",", ":"))


def _kind(call: Transaction) -> str:
    return call.endpoint.value


class DemoWallet:
    def __init__(
        self,
        store: DemoStore,
        secrets: Sequence[bytes],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.secrets = list(secrets)
        self.clock = clock

    # ------------------------------------------------------------------ authentication

    def authenticate(self, timestamp: str | None, signature: str | None, body: bytes) -> bool:
        """§2: a fresh timestamp and a signature over the bytes received."""
        return signing.verify(self.secrets, timestamp, signature, body, now=self.clock())

    # ------------------------------------------------------------------------ decisions

    def handle(self, call: Call) -> Answer:
        if isinstance(call, Balance):
            return self.balance(call)
        with self.store.transaction() as tx:
            recorded = tx.recorded(call.transaction_id)
            if recorded is not None:
                return self.repeat(tx, call, recorded)
            return self.apply(tx, call, self.decide(tx, call))

    def balance(self, call: Balance) -> Answer:
        with self.store.transaction() as tx:
            account = tx.account(call.player, call.currency)
            if account is None or account.blocked:
                return Answer(Status.PLAYER_BLOCKED)
            if tx.session_expired(call.session):
                return Answer(Status.SESSION_EXPIRED, account.balance)
            return Answer(Status.OK, account.balance)

    def decide(self, tx: Tx, call: Transaction) -> Decision:
        if isinstance(call, Bet):
            return self.bet(tx, call)
        if isinstance(call, Win):
            return self.win(tx, call)
        return self.rollback(tx, call)

    def repeat(self, tx: Tx, call: Transaction, recorded: Record) -> Answer:
        """§5.1: the recorded answer again for the same payload, else DUPLICATE_TRANSACTION."""
        status = Status(recorded.status)
        if recorded.fingerprint != fingerprint_text(call):
            status = Status.DUPLICATE_TRANSACTION
            return Answer(status, self.balance_of(tx, call))
        return Answer(status, self.balance_of(tx, call), recorded.operator_transaction_id)

    def bet(self, tx: Tx, call: Bet) -> Decision:
        """§5.2, from step 2."""
        if self.dead(tx, call.transaction_id):
            return Decision(Status.DUPLICATE_TRANSACTION, record=False)
        if tx.round_closed(call.round_id):
            return Decision(Status.DUPLICATE_TRANSACTION)
        account = tx.account(call.player, call.currency)
        if account is None or account.blocked:
            return Decision(Status.PLAYER_BLOCKED)
        if tx.session_expired(call.session):
            return Decision(Status.SESSION_EXPIRED)
        if account.max_bet is not None and call.amount > account.max_bet:
            return Decision(Status.LIMIT_REACHED)
        if account.balance < call.amount:
            return Decision(Status.NOT_ENOUGH_MONEY)
        return Decision(Status.OK, -call.amount)

    def dead(self, tx: Tx, transaction_id: str) -> bool:
        """A rollback answered TRANSACTION_NOT_FOUND named this id: a late bet is refused."""
        return tx.rollbacks_of(transaction_id, Status.TRANSACTION_NOT_FOUND.value)

    def win(self, tx: Tx, call: Win) -> Decision:
        """§5.3, from step 2."""
        if tx.round_closed(call.round_id):
            return Decision(Status.DUPLICATE_TRANSACTION)
        if tx.account(call.player, call.currency) is None:
            return Decision(Status.PLAYER_BLOCKED)
        return Decision(Status.OK, call.amount)

    def rollback(self, tx: Tx, call: Rollback) -> Decision:
        """§5.4, from step 2."""
        bet = tx.recorded(call.reference_transaction_id)
        if bet is None:
            return self.unknown_bet(tx, call)
        if bet.kind != "bet" or (bet.player, bet.currency, bet.round_id, bet.amount) != (
            call.player,
            call.currency,
            call.round_id,
            call.amount,
        ):
            return Decision(Status.DUPLICATE_TRANSACTION)
        if tx.rollbacks_of(bet.transaction_id, Status.OK.value):
            return Decision(Status.OK)  # cancelled already: nothing again
        if tx.round_closed(bet.round_id):
            return Decision(Status.DUPLICATE_TRANSACTION)
        if bet.status != Status.OK.value:
            return Decision(Status.OK)  # the bet moved nothing
        return Decision(Status.OK, bet.amount)

    def unknown_bet(self, tx: Tx, call: Rollback) -> Decision:
        """§5.4 (2): recorded, so the id is dead for a bet arriving later."""
        return Decision(Status.TRANSACTION_NOT_FOUND)

    def apply(self, tx: Tx, call: Transaction, decision: Decision) -> Answer:
        """Moves the money and records the answer, in the caller's transaction."""
        reference = None
        if decision.record:
            reference = tx.next_operator_id()
            tx.record(self.record_of(call, decision.status, reference))
        if decision.delta:
            tx.add_to_balance(call.player, call.currency, decision.delta)
        return Answer(decision.status, self.balance_of(tx, call), reference)

    def record_of(self, call: Transaction, status: Status, reference: str | None) -> Record:
        return Record(
            transaction_id=call.transaction_id,
            kind=_kind(call),
            player=call.player,
            currency=call.currency,
            round_id=call.round_id,
            amount=call.amount,
            bet_kind=call.kind.value if isinstance(call, Bet) else None,
            reference_transaction_id=(
                call.reference_transaction_id if isinstance(call, Rollback) else None
            ),
            fingerprint=fingerprint_text(call),
            status=status.value,
            operator_transaction_id=reference,
        )

    @staticmethod
    def balance_of(tx: Tx, call: Transaction) -> int | None:
        account = tx.account(call.player, call.currency)
        return None if account is None else account.balance

"""Deliberately broken wallets (``casino demo-wallet --broken MODE``): each gets one rule of
docs/integration.md wrong, the way real integrations do, so that the certification kit can
be seen to catch it."""

from __future__ import annotations

import json
import time

from casino.wallet import signing
from casino.wallet.demo.store import Record, Tx
from casino.wallet.demo.wallet import Decision, DemoWallet, WalletFault
from casino.wallet.protocol import Answer, Balance, Call, Rollback, Status, Transaction, Win


class DoubleCredit(DemoWallet):
    """A win sent again is credited again (its id is looked up, but the credit is not)."""

    def repeat(self, tx: Tx, call: Transaction, recorded: Record) -> Answer:
        if isinstance(call, Win) and recorded.status == Status.OK.value:
            tx.add_to_balance(call.player, call.currency, call.amount)
        return super().repeat(tx, call, recorded)


class NoIdempotency(DemoWallet):
    """Every bet, win and rollback sent again is decided and applied again."""

    def repeat(self, tx: Tx, call: Transaction, recorded: Record) -> Answer:
        decision = self.decide(tx, call)
        if decision.delta:
            tx.add_to_balance(call.player, call.currency, decision.delta)
        return Answer(decision.status, self.balance_of(tx, call), recorded.operator_transaction_id)


class DuplicateAsRepeat(DemoWallet):
    """The same id with another payload is answered like a repeat of the first."""

    def repeat(self, tx: Tx, call: Transaction, recorded: Record) -> Answer:
        return Answer(
            Status(recorded.status), self.balance_of(tx, call), recorded.operator_transaction_id
        )


class SignatureOverReserialisedJson(DemoWallet):
    """Verifies the signature over its own compact, key-sorted re-encoding of the JSON: the
    game server's bodies happen to pass, any other writer's are refused."""

    def authenticate(self, timestamp: str | None, signature: str | None, body: bytes) -> bool:
        try:
            again = json.dumps(json.loads(body), separators=(",", ":"), sort_keys=True)
        except ValueError:
            return False
        return super().authenticate(timestamp, signature, again.encode())


class NoTimestampCheck(DemoWallet):
    """Accepts a signature whatever its timestamp."""

    def authenticate(self, timestamp: str | None, signature: str | None, body: bytes) -> bool:
        forever = 10**12
        return signing.verify(
            self.secrets, timestamp, signature, body, now=self.clock(), max_skew=forever
        )


class RollbackUnknownAsError(DemoWallet):
    """A rollback of a bet it never saw is an internal error (HTTP 500): the game server can
    only try again, and again."""

    def unknown_bet(self, tx: Tx, call: Rollback) -> Decision:
        raise WalletFault(f"no bet {call.reference_transaction_id}")


class LateBetAccepted(DemoWallet):
    """Answers a rollback of an unknown bet correctly, but forgets it: the late bet is debited
    and never given back."""

    def dead(self, tx: Tx, transaction_id: str) -> bool:
        return False


class RacyDuplicates(DemoWallet):
    """Looks the id up in one transaction and applies in another: two copies arriving together
    both pass the check, and both move the money (the second record is silently dropped)."""

    window_seconds = 0.05

    def handle(self, call: Call) -> Answer:
        if isinstance(call, Balance):
            return super().handle(call)
        with self.store.transaction() as tx:
            recorded = tx.recorded(call.transaction_id)
            if recorded is not None:
                return self.repeat(tx, call, recorded)
            decision = self.decide(tx, call)
        time.sleep(self.window_seconds)
        with self.store.transaction() as tx:
            if decision.delta:
                tx.add_to_balance(call.player, call.currency, decision.delta)
            reference = tx.next_operator_id()
            tx.record(self.record_of(call, decision.status, reference), or_ignore=True)
            return Answer(decision.status, self.balance_of(tx, call), reference)


class WinNeedsSession(DemoWallet):
    """Refuses a win whose session has expired: the player's winnings are never paid."""

    def win(self, tx: Tx, call: Win) -> Decision:
        if tx.session_expired(call.session):
            return Decision(Status.SESSION_EXPIRED)
        return super().win(tx, call)


BROKEN: dict[str, type[DemoWallet]] = {
    "double-credit": DoubleCredit,
    "no-idempotency": NoIdempotency,
    "duplicate-as-repeat": DuplicateAsRepeat,
    "signature-over-reserialised-json": SignatureOverReserialisedJson,
    "no-timestamp-check": NoTimestampCheck,
    "rollback-unknown-as-error": RollbackUnknownAsError,
    "late-bet-accepted": LateBetAccepted,
    "racy-duplicates": RacyDuplicates,
    "win-needs-session": WinNeedsSession,
}

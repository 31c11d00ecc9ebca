"""Where a player's money is: the one interface the round and wallet use cases call, with an
adapter per wallet mode, chosen per operator (``wallet_of``) — after valkyrie-fnd/valkyrie's
one wallet interface with an adapter per party.

- ``TransferWallet`` (mode ``transfer``): the player's money is in the ledger wallet held
  here; taking a stake checks it, and the round's own ledger transaction moves it.
- ``OperatorWallet`` (mode ``seamless``): the money is in the operator's wallet, called per
  debit and credit (casino.wallet, docs/integration.md). The ledger keeps a **mirror
  wallet** per player and currency: a debit answered OK is a ``deposit`` transaction (the
  operator's ``cash`` -> the mirror wallet), the round's transactions then move it exactly
  as in transfer mode, and the round's win, once the wallet answered OK, is a
  ``withdrawal`` back to ``cash`` (casino.service.wallet_outbox). So the audit, the export
  and the offline verifier cover seamless play unchanged, and the mirror wallet holds
  exactly what the rounds owe the player and the wallet has not confirmed yet.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Protocol

from casino.ledger.legs import transfer
from casino.ledger.transactions import DEPOSIT, link, new_transaction
from casino.service import wallet_clients
from casino.service.common import insufficient_funds
from casino.service.errors import (
    BadGateway,
    Conflict,
    Forbidden,
    Unauthenticated,
    WalletUnavailable,
)
from casino.service.wallet_outbox import lease, send_now
from casino.store.operator_records import OperatorRecord
from casino.store.records import Wallet
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import OK, PENDING, UNKNOWN, WalletCallRecord
from casino.wallet.client import Outcome
from casino.wallet.protocol import (
    Balance,
    Bet,
    BetKind,
    Endpoint,
    Rollback,
    Status,
    Win,
    from_record,
    rollback_of,
    to_record,
)

log = logging.getLogger("casino.wallet")
DEAL = BetKind.DEAL.value
RAISE = BetKind.RAISE.value
ROLLBACK = Endpoint.ROLLBACK.value
#: Seconds a client waits before retrying after 503 wallet_unavailable.
RETRY_AFTER_SECONDS = 2


@dataclass(frozen=True)
class Stake:
    """What a round takes from the player before it plays on: ``kind`` ``deal`` (ante and
    tie bet, before the cards) or ``raise`` (going to war). ``wallet``: the ledger wallet the
    claim locked (None: none yet); ``tx_id``: the id reserved for the round's transaction."""

    player_id: str
    currency: str
    round_id: str
    amount: int
    kind: str
    wallet: Wallet | None
    tx_id: int


@dataclass(frozen=True)
class Taken:
    """The stake taken: the ledger wallet the round's transaction moves (as it stands now)
    and the id for that transaction; ``balance``: the operator wallet's balance after the
    debit (None in transfer mode)."""

    wallet: Wallet
    tx_id: int
    balance: int | None = None


class PlayerWallet(Protocol):
    def check_stake(self, wallet: Wallet | None, amount: int, currency: str) -> None:
        """Refuse early a stake the wallet surely cannot pay (before the limits are read)."""
        ...

    def take(self, uow: UnitOfWork, stake: Stake) -> Taken:
        """Take the stake, or raise the refusal (nothing dealt, nothing written)."""
        ...

    def pay(self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, paid: int) -> None:
        """The round is settled and paid ``paid`` (0 for a lost round): credit it."""
        ...

    def refund(
        self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, staked: int
    ) -> None:
        """The round is void: everything it took (``staked``, already credited to the ledger
        wallet) goes back."""
        ...

    def shown_balance(self, taken: Taken | None, ledger_balance: int) -> int:
        """The balance a round's answer shows, the ledger wallet's being ``ledger_balance``."""
        ...

    def known_balance(self, ledger_balance: int | None) -> int | None:
        """The player's balance where the ledger alone knows it, the ledger wallet's being
        ``ledger_balance``; None where only the operator's wallet does (``balances`` asks)."""
        ...

    def balances(self, uow: UnitOfWork, player_id: str) -> list[tuple[str, int]]:
        """(currency, balance) of the player's money."""
        ...

    def check_cash_moves(self) -> None:
        """Refuse deposits and withdrawals where the money is not ours to move."""
        ...


class TransferWallet:
    """The player's money is the ledger wallet held here (today's wallets)."""

    def check_stake(self, wallet: Wallet | None, amount: int, currency: str) -> None:
        if wallet is None or wallet.state.balance < amount:
            raise insufficient_funds(amount, currency)  # also without a wallet

    def take(self, uow: UnitOfWork, stake: Stake) -> Taken:
        self.check_stake(stake.wallet, stake.amount, stake.currency)
        assert stake.wallet is not None
        return Taken(stake.wallet, stake.tx_id)

    def pay(self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, paid: int) -> None:
        return None  # the round's own transaction paid the wallet

    def refund(
        self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, staked: int
    ) -> None:
        return None  # the refund's own transaction credited the wallet

    def shown_balance(self, taken: Taken | None, ledger_balance: int) -> int:
        return ledger_balance

    def known_balance(self, ledger_balance: int | None) -> int | None:
        return ledger_balance

    def balances(self, uow: UnitOfWork, player_id: str) -> list[tuple[str, int]]:
        return uow.ledger.balances(player_id)

    def check_cash_moves(self) -> None:
        return None


TRANSFER_WALLET = TransferWallet()


def refusal(outcome: Outcome, amount: int, currency: str) -> Exception:
    """The API's problem for a definite refusal of a bet (docs/integration.md §6)."""
    status = outcome.status
    if status is Status.NOT_ENOUGH_MONEY:
        return insufficient_funds(amount, currency)
    if status is Status.LIMIT_REACHED:
        return Conflict("the operator's wallet refused: a limit is reached", code="limit_exceeded")
    if status is Status.PLAYER_BLOCKED:
        return Forbidden(
            "the operator's wallet refused: the player is blocked", code="player_blocked"
        )
    if status is Status.SESSION_EXPIRED:
        return Unauthenticated("the operator's session has expired", code="session_expired")
    return BadGateway(
        f"the operator's wallet refused the bet ({status.value})",
        code="wallet_error",
        wallet_status=status.value,
    )


class OperatorWallet:
    """The player's money is in the operator's wallet (seamless mode)."""

    def __init__(self, operator: OperatorRecord) -> None:
        settings = operator.seamless
        assert settings is not None
        self.operator = operator
        self.settings = settings

    def check_stake(self, wallet: Wallet | None, amount: int, currency: str) -> None:
        return None  # the operator's wallet decides, when the bet is sent

    def _client(self, uow: UnitOfWork) -> wallet_clients.WalletCalls:
        return wallet_clients.client_for(self.operator, uow.now())

    def _who(self, uow: UnitOfWork, player_id: str) -> tuple[str, str]:
        player = uow.players.get(player_id)
        if player is None:
            raise LookupError(f"player {player_id} does not exist")
        return player.external_ref, uow.wallet_calls.operator_session(player_id)

    def take(self, uow: UnitOfWork, stake: Stake) -> Taken:
        if stake.kind == RAISE:
            _no_pending_rollback(uow, stake.round_id)
        external_ref, session = self._who(uow, stake.player_id)
        bet = Bet(
            player=external_ref,
            session=session,
            currency=stake.currency,
            transaction_id=str(uuid.uuid4()),
            round_id=stake.round_id,
            amount=stake.amount,
            kind=BetKind(stake.kind),
        )
        outcome = self._client(uow).send(bet)
        now = uow.now()
        if not outcome.definite:

            def keep(kept: UnitOfWork) -> None:
                self._cancel(kept, stake.player_id, bet, outcome)

            raise WalletUnavailable(
                "the operator's wallet did not answer; the bet is being cancelled, retry later",
                keep=keep,
                round_id=stake.round_id,
                retry_after=RETRY_AFTER_SECONDS,
            )
        if not outcome.ok:
            raise refusal(outcome, stake.amount, stake.currency)
        uow.wallet_calls.add(_record(stake.player_id, bet, OK, now, outcome=outcome))
        uow.if_not_committed.append(partial(self._cancel_debit, stake.player_id, bet, outcome))
        wallet = stake.wallet or uow.ledger.lock_wallet(
            stake.player_id, stake.currency, create=True
        )
        assert wallet is not None
        cash = uow.ledger.system_accounts(stake.currency).cash
        tx = new_transaction(
            DEPOSIT,
            stake.currency,
            stake.player_id,
            transfer(cash, wallet.key, stake.amount),
            created_at=now,
            reference=f"bet:{bet.transaction_id}",
        )
        wallet = uow.ledger.append(link(tx, stake.tx_id, wallet.state), wallet)
        return Taken(wallet, uow.ledger.reserve_id(), outcome.balance)

    def _cancel_debit(self, player_id: str, bet: Bet, outcome: Outcome, fresh: UnitOfWork) -> None:
        """The wallet took the stake but the request's transaction did not commit (the
        database refused or failed it after the debit): the round does not exist, so the
        debit is cancelled like a bet of unknown outcome — recorded, then rolled back. The
        record's insert is the guard: had the commit in fact gone through (an answer lost
        with the connection), the bet is on record under its transaction id, the insert
        fails and nothing is rolled back; what a failure here leaves is for
        ``casino reconcile --against`` to show."""
        self._cancel(fresh, player_id, bet, outcome)
        fresh.commit()  # then sends the rollback
        log.warning(
            "the wallet debited bet %s of round %s but its transaction did not commit: "
            "its rollback is sent",
            bet.transaction_id,
            bet.round_id,
        )

    def _cancel(self, uow: UnitOfWork, player_id: str, bet: Bet, outcome: Outcome) -> None:
        """Record ``bet`` as of unknown outcome (not in the ledger) and its rollback, leased
        to ``uow``, which sends it once it has committed them."""
        rollback = rollback_of(bet)
        now = uow.now()
        uow.wallet_calls.add(_record(player_id, bet, UNKNOWN, now, outcome=outcome))
        lease_until = now + lease(self.settings.timeout_ms)
        uow.wallet_calls.add(_record(player_id, rollback, PENDING, now, lease_until=lease_until))
        uow.after_commit.append(partial(send_now, uow, rollback.transaction_id))

    def pay(self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, paid: int) -> None:
        _no_pending_rollback(uow, round_id)
        if paid == 0 and not self.settings.close_losing_round_with_zero_win:
            return
        external_ref, session = self._who(uow, player_id)
        win = Win(
            player=external_ref,
            session=session,
            currency=currency,
            transaction_id=str(uuid.uuid4()),
            round_id=round_id,
            amount=paid,
        )
        self._queue(uow, player_id, win)

    def refund(
        self, uow: UnitOfWork, round_id: str, player_id: str, currency: str, staked: int
    ) -> None:
        # Not a win: the operator must see its debits cancelled, each applied once by its
        # transaction id (a win of the stakes would count as play, and a second void of the
        # same bet could pay twice). The money leaves the mirror wallet when each answers OK.
        calls = uow.wallet_calls.of_round(round_id, player_id)
        cancelled = {c.reference_transaction_id for c in calls if c.endpoint == ROLLBACK}
        debited = [
            c
            for c in calls
            if c.endpoint == Endpoint.BET.value
            and c.state == OK
            and c.transaction_id not in cancelled
        ]
        if sum(c.amount for c in debited) != staked:
            raise RuntimeError(
                f"round {round_id}: the wallet was debited "
                f"{sum(c.amount for c in debited)}, the round staked {staked}"
            )
        for call in debited:
            bet = from_record(call.call)
            assert isinstance(bet, Bet)
            self._queue(uow, player_id, rollback_of(bet))

    def _queue(self, uow: UnitOfWork, player_id: str, call: Win | Rollback) -> None:
        """Queue ``call`` in this transaction; sent after the commit by this unit of work
        (leased to it meanwhile) or, where it leaves its calls to the worker, due at once."""
        now = uow.now()
        inline = uow.wallet_calls_inline
        due = now + lease(self.settings.timeout_ms) if inline else now
        uow.wallet_calls.add(_record(player_id, call, PENDING, now, lease_until=due))
        if inline:
            uow.after_commit.append(partial(send_now, uow, call.transaction_id))

    def shown_balance(self, taken: Taken | None, ledger_balance: int) -> int:
        # The operator's balance after the debit, plus what the rounds owe the player and
        # the wallet has not confirmed yet (the mirror wallet).
        if taken is None or taken.balance is None:
            return ledger_balance
        return taken.balance + ledger_balance

    def known_balance(self, ledger_balance: int | None) -> int | None:
        return None  # the mirror wallet holds only what the wallet has not confirmed

    def balances(self, uow: UnitOfWork, player_id: str) -> list[tuple[str, int]]:
        external_ref, session = self._who(uow, player_id)
        owed = dict(uow.ledger.balances(player_id))
        found = []
        client = self._client(uow)
        for currency in sorted(uow.currencies):
            outcome = client.send(Balance(player=external_ref, session=session, currency=currency))
            if not outcome.definite:
                raise WalletUnavailable(
                    "the operator's wallet did not answer; retry later",
                    retry_after=RETRY_AFTER_SECONDS,
                )
            if outcome.ok and outcome.balance is not None:
                found.append((currency, outcome.balance + owed.get(currency, 0)))
        return found

    def check_cash_moves(self) -> None:
        raise Conflict(
            "the operator keeps this player's money: deposits and withdrawals are the operator's",
            code="operator_wallet",
        )


def _no_pending_rollback(uow: UnitOfWork, round_id: str) -> None:
    """A bet is never rolled back once its round's win was sent: while a rollback of the
    round's raise is still pending, the round neither raises again nor settles."""
    if any(
        c.endpoint == Endpoint.ROLLBACK.value for c in uow.wallet_calls.pending_for_round(round_id)
    ):
        raise WalletUnavailable(
            "a cancelled raise of this round is still being rolled back; retry later",
            round_id=round_id,
            retry_after=RETRY_AFTER_SECONDS,
        )


def _record(
    player_id: str,
    call: Bet | Win | Rollback,
    state: str,
    now: datetime,
    *,
    outcome: Outcome | None = None,
    lease_until: datetime | None = None,
) -> WalletCallRecord:
    return WalletCallRecord(
        transaction_id=call.transaction_id,
        operator_id="",  # the store writes the unit of work's operator
        player_id=player_id,
        round_id=call.round_id,
        endpoint=call.endpoint.value,
        currency=call.currency,
        amount=call.amount,
        reference_transaction_id=getattr(call, "reference_transaction_id", None),
        call=to_record(call),
        state=state,
        wallet_status=None if outcome is None else outcome.status.value,
        operator_transaction_id=None if outcome is None else outcome.operator_transaction_id,
        attempts=0 if outcome is None else 1,
        last_error=None if outcome is None else (outcome.reason or None),
        created_at=now,
        updated_at=now,
        next_attempt_at=lease_until,
    )


def wallet_of(uow: UnitOfWork) -> PlayerWallet:
    """The adapter of the operator this unit of work acts for."""
    operator = uow.operators.current()
    if operator.seamless is not None:
        return OperatorWallet(operator)
    return TRANSFER_WALLET

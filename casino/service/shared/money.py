"""The money of shared bets: every movement of a shared table goes through ``SharedMoney``
(``wallet_for``), which takes and pays through the operator's one wallet seam.

Shared bets move money when they happen, not when the round settles: the bet debits the
wallet (ante and tie bet to the house), a war debits the raise and the war tie bet, the
settlement credits what the bet returns (nothing for a lost bet: no transaction at all), a
void credits back everything the bet took. Each movement is one ledger transaction of the
player's wallet chain (kinds ``stake``, ``decision``, ``bet``), with the shared round named
in its ``reference`` (``shared:<table>:<shoe>:<round>``) since ``round_id`` names private
rounds only. The in-play account is not used: an open shared bet is the house's until it
pays back, so the audit's in-play invariant (the antes of private rounds awaiting a decision)
holds unchanged.

Where the money comes from is the operator's wallet mode, behind the one seam every round
uses (casino.service.player_wallets): a stake is first *taken* (transfer: the ledger wallet
must hold it; seamless: the operator's wallet is debited and the ledger's mirror wallet
receives it), then moved to the house; a payment is credited to the ledger wallet and then
*paid* (seamless: a win sent through the outbox after the commit); a void's refund is
credited likewise and then *refunded* (seamless: a rollback of each debit, through the
outbox). The operator's wallet knows each bettor's part of a round as a round of its own
(``wallet_round``).
"""

from __future__ import annotations

from datetime import datetime

from casino.ledger.errors import InsufficientFunds
from casino.ledger.legs import transfer
from casino.ledger.transactions import BET, DECISION, STAKE, link, new_transaction
from casino.service import player_wallets
from casino.service.common import insufficient_funds
from casino.store.records import Wallet
from casino.store.uow import UnitOfWork
from casino.store.writes import WALLET_GUARD


def reference(table_id: str, shoe: int, round_: int) -> str:
    return f"shared:{table_id}:{shoe}:{round_}"


def wallet_round(ref: str, player_id: str) -> str:
    """The round as the operator's wallet knows it: one player's part of the shared round.
    A wallet closes a round with its win and refuses a rollback after it
    (docs/integration.md §5), so every bettor's part must be a round of its own."""
    return f"{ref}:{player_id}"


class SharedMoney:
    """A shared bet's ledger transactions; where the money is (a ledger wallet or the
    operator's) is the seam's (player_wallets.wallet_of)."""

    def lock(
        self, uow: UnitOfWork, player_id: str, currency: str, *, create: bool = False
    ) -> Wallet | None:
        """The player's ledger wallet, locked until commit (``create``: made if missing, so
        that even a player's first bets take turns before any wallet is called; a refused
        bet rolls it back)."""
        return uow.ledger.lock_wallet(player_id, currency, create=create)

    def _move(
        self,
        uow: UnitOfWork,
        wallet: Wallet,
        player_id: str,
        currency: str,
        legs: list,
        kind: str,
        ref: str,
        now: datetime,
        tx_id: int,
    ) -> tuple[Wallet, int]:
        tx = new_transaction(kind, currency, player_id, legs, created_at=now, reference=ref)
        try:
            chained = link(tx, tx_id, wallet.state)
        except InsufficientFunds:
            raise insufficient_funds(tx.required, currency) from None
        moved = uow.ledger.append(chained, wallet)
        uow.on_conflict(WALLET_GUARD, lambda: insufficient_funds(tx.required, currency))
        return moved, tx_id

    def debit(
        self,
        uow: UnitOfWork,
        wallet: Wallet | None,
        player_id: str,
        currency: str,
        amount: int,
        kind: str,
        ref: str,
        now: datetime,
    ) -> tuple[Wallet, int, int]:
        """Take the stake through the operator's seam, then move it to the house: the ledger
        wallet after it, the transaction's id and the balance the player is shown (seamless:
        the operator's after the debit, plus what the mirror wallet holds)."""
        seam = player_wallets.wallet_of(uow)
        stake_kind = player_wallets.RAISE if kind == DECISION else player_wallets.DEAL
        stake = player_wallets.Stake(
            player_id,
            currency,
            wallet_round(ref, player_id),
            amount,
            stake_kind,
            wallet,
            uow.ledger.reserve_id(),
        )
        taken = seam.take(uow, stake)  # refused: nothing written
        house = uow.ledger.system_accounts(currency).house
        legs = transfer(taken.wallet.key, house, amount)
        moved, tx_id = self._move(
            uow, taken.wallet, player_id, currency, legs, kind, ref, now, taken.tx_id
        )
        return moved, tx_id, seam.shown_balance(taken, moved.state.balance)

    def known_balance(self, uow: UnitOfWork, ledger_balance: int | None) -> int | None:
        """The balance a bet's view shows without a debit (None: the operator's wallet holds
        it, read with GET /players/{id}/wallets)."""
        return player_wallets.wallet_of(uow).known_balance(ledger_balance)

    def credit(
        self,
        uow: UnitOfWork,
        wallet: Wallet,
        player_id: str,
        currency: str,
        amount: int,
        ref: str,
        now: datetime,
    ) -> tuple[Wallet, int]:
        """Credit the ledger wallet, then pay through the seam (seamless: a win sent after
        the commit)."""
        moved = self._return(uow, wallet, player_id, currency, amount, ref, now)
        player_wallets.wallet_of(uow).pay(
            uow, wallet_round(ref, player_id), player_id, currency, amount
        )
        return moved

    def refund(
        self,
        uow: UnitOfWork,
        wallet: Wallet,
        player_id: str,
        currency: str,
        staked: int,
        ref: str,
        now: datetime,
    ) -> tuple[Wallet, int]:
        """A void round's bet gets back all it staked: credited to the ledger wallet, then
        given back through the seam (seamless: a rollback of every debit, not a win)."""
        moved = self._return(uow, wallet, player_id, currency, staked, ref, now)
        player_wallets.wallet_of(uow).refund(
            uow, wallet_round(ref, player_id), player_id, currency, staked
        )
        return moved

    def _return(
        self,
        uow: UnitOfWork,
        wallet: Wallet,
        player_id: str,
        currency: str,
        amount: int,
        ref: str,
        now: datetime,
    ) -> tuple[Wallet, int]:
        house = uow.ledger.system_accounts(currency).house
        legs = transfer(house, wallet.key, amount)
        tx_id = uow.ledger.reserve_id()
        return self._move(uow, wallet, player_id, currency, legs, BET, ref, now, tx_id)

    def settled_lost(self, uow: UnitOfWork, player_id: str, currency: str, ref: str) -> None:
        """A lost bet pays nothing; a seamless operator may still want the round closed."""
        player_wallets.wallet_of(uow).pay(uow, wallet_round(ref, player_id), player_id, currency, 0)


_MONEY = SharedMoney()


def wallet_for(uow: UnitOfWork) -> SharedMoney:
    """The shared bets' money movements (one for every operator: the wallet mode is the
    seam's, player_wallets.wallet_of)."""
    return _MONEY


__all__ = ["DECISION", "STAKE", "SharedMoney", "reference", "wallet_for"]

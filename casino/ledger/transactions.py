"""Ledger transactions before and after they join their wallet's chain: pure bookkeeping.

``new_transaction`` checks a transaction's legs (balanced, non-zero, one currency, exactly one
wallet); ``link`` gives it its id and its place in that wallet's chain, given the wallet as
it stands (its row locked by the caller), and refuses it if the wallet cannot pay. The store
writes the result; nothing here touches a database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from casino.ledger.accounts import is_wallet_key, key_currency
from casino.ledger.chain import content_digest, link_hash
from casino.ledger.errors import InsufficientFunds, LedgerError, Unbalanced
from casino.ledger.legs import Leg, most_drawn

#: What a transaction records, as its ``kind``.
DEPOSIT = "deposit"
WITHDRAWAL = "withdrawal"
BET = "bet"  # a round settled on its first two cards: stakes and payouts in one transaction
STAKE = "stake"  # a round that tied: the stakes, the tie bet settled, the ante held in play
DECISION = "decision"  # surrender or war: the raise and the settlement of ante and raise
KINDS = (DEPOSIT, WITHDRAWAL, BET, STAKE, DECISION)


@dataclass(frozen=True)
class WalletState:
    """A wallet as its row stands: balance and the head of its hash chain."""

    balance: int
    chain_length: int
    chain_hash: str


@dataclass(frozen=True)
class NewTransaction:
    kind: str
    currency: str
    player_id: str
    wallet: str
    legs: tuple[Leg, ...]
    created_at: datetime
    round_id: str | None = None
    reference: str | None = None

    @property
    def wallet_delta(self) -> int:
        return sum(leg.amount for leg in self.legs if leg.account == self.wallet)

    @property
    def required(self) -> int:
        """What the wallet must hold for the legs, applied in order, never to overdraw it."""
        return most_drawn(self.legs, self.wallet)


def new_transaction(
    kind: str,
    currency: str,
    player_id: str,
    legs: list[Leg],
    *,
    created_at: datetime,
    round_id: str | None = None,
    reference: str | None = None,
) -> NewTransaction:
    """A balanced transaction of one currency that moves exactly one wallet."""
    if kind not in KINDS:
        raise LedgerError(f"unknown transaction kind {kind!r}")
    if len(legs) < 2:
        raise Unbalanced("a transaction needs at least two postings")
    if any(leg.amount == 0 for leg in legs):
        raise Unbalanced("a posting of zero")
    if sum(leg.amount for leg in legs) != 0:
        raise Unbalanced("postings do not sum to zero")
    if any(key_currency(leg.account) != currency for leg in legs):
        raise Unbalanced(f"every account of a {currency} transaction is a {currency} one")
    wallets = {leg.account for leg in legs if is_wallet_key(leg.account)}
    if len(wallets) != 1:
        raise LedgerError("a transaction moves money of exactly one wallet")
    return NewTransaction(
        kind=kind,
        currency=currency,
        player_id=player_id,
        wallet=wallets.pop(),
        legs=tuple(legs),
        created_at=created_at,
        round_id=round_id,
        reference=reference,
    )


@dataclass(frozen=True)
class ChainedTransaction:
    """A transaction with its id and its link in its wallet's chain."""

    tx: NewTransaction
    id: int
    wallet_seq: int
    wallet_balance_after: int
    prev_hash: str
    hash: str

    @property
    def before(self) -> WalletState:
        return WalletState(
            self.wallet_balance_after - self.tx.wallet_delta, self.wallet_seq - 1, self.prev_hash
        )

    @property
    def after(self) -> WalletState:
        return WalletState(self.wallet_balance_after, self.wallet_seq, self.hash)


def digest_of(tx: NewTransaction, tx_id: int, wallet_balance_after: int) -> str:
    return content_digest(
        tx_id=tx_id,
        kind=tx.kind,
        currency=tx.currency,
        player_id=tx.player_id,
        round_id=tx.round_id,
        reference=tx.reference,
        wallet_balance_after=wallet_balance_after,
        created_at=tx.created_at,
        postings=[(n, leg.account, leg.amount) for n, leg in enumerate(tx.legs)],
    )


def link(tx: NewTransaction, tx_id: int, wallet: WalletState) -> ChainedTransaction:
    """``tx`` as the next link of its wallet's chain; InsufficientFunds if the wallet cannot
    cover it (the store's guard checks the same again when it writes)."""
    if wallet.balance < tx.required:
        raise InsufficientFunds(tx.wallet, tx.required)
    after = wallet.balance + tx.wallet_delta
    seq = wallet.chain_length + 1
    return ChainedTransaction(
        tx=tx,
        id=tx_id,
        wallet_seq=seq,
        wallet_balance_after=after,
        prev_hash=wallet.chain_hash,
        hash=link_hash(wallet.chain_hash, seq, digest_of(tx, tx_id, after)),
    )

"""What the round use cases share: the statuses, who decides, their refusals, and posting a
round's transaction with its limits counted."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from casino.engine.casino_war import (
    RoundStatus,
)
from casino.ledger.errors import InsufficientFunds
from casino.ledger.transactions import link, new_transaction
from casino.service import protection
from casino.service.common import (
    insufficient_funds,
)
from casino.service.errors import Conflict
from casino.store.protection_records import LimitRecord
from casino.store.records import BetClaim, Wallet
from casino.store.uow import UnitOfWork
from casino.store.writes import LIMIT_GUARD, WALLET_GUARD

DecidedBy = Literal["player", "system", "timeout"]
AWAITING_DECISION = RoundStatus.AWAITING_DECISION.value
SETTLED = RoundStatus.SETTLED.value


def round_in_progress(round_id: str | None) -> Conflict:
    return Conflict(
        "a round awaits a decision; decide it first",
        code="round_in_progress",
        round_id=round_id,
    )


def not_awaiting(round_id: str) -> Conflict:
    return Conflict(
        "the round is not awaiting a decision",
        code="round_not_awaiting_decision",
        round_id=round_id,
    )


def count_round(
    uow: UnitOfWork,
    limits: tuple[LimitRecord, ...],
    player_id: str,
    currency: str,
    wallet_delta: int,
    risks: dict[str, int],
) -> None:
    """The round's transaction counts against the player's loss and wager limits: the loss
    by what the wallet really lost (a win lowers it), the wager by the stake; the commit
    refuses it if the risk no longer fits (``limit_guard``)."""
    if not limits:
        return
    moves = {
        protection.LOSS: (-wallet_delta, risks[protection.LOSS]),
        protection.WAGER: (risks[protection.WAGER], risks[protection.WAGER]),
    }
    protection.count(uow, limits, moves, uow.now())
    uow.on_conflict(LIMIT_GUARD, lambda: protection.find_exceeded(uow, player_id, currency, risks))


def post(
    uow: UnitOfWork,
    kind: str,
    player_id: str,
    currency: str,
    legs: Any,
    round_id: str,
    tx_id: int,
    wallet: Wallet,
    now: datetime,
) -> int:
    """Link one transaction of the round to its wallet's chain and hand it to the commit;
    the wallet's balance after it."""
    tx = new_transaction(kind, currency, player_id, legs, created_at=now, round_id=round_id)
    try:
        chained = link(tx, tx_id, wallet.state)
    except InsufficientFunds:
        raise insufficient_funds(tx.required, currency) from None
    uow.ledger.append(chained, wallet)
    uow.on_conflict(WALLET_GUARD, lambda: insufficient_funds(tx.required, currency))
    return chained.wallet_balance_after


def stake_limits(
    uow: UnitOfWork, claim: BetClaim, player_id: str, currency: str
) -> tuple[LimitRecord, ...]:
    """The loss and wager limits a stake is checked against, locked: the claim read them
    with the wallet it locked; a player with no ledger wallet in ``currency`` yet (a wallet
    kept elsewhere) has them read here."""
    if claim.wallet is not None:
        return tuple(claim.limits)
    kinds = [protection.LOSS, protection.WAGER]
    return tuple(uow.protection.limits(player_id, currency, kinds, lock=True))


def is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False

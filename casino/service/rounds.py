"""Casino War rounds: bet, decision, recall, listing, resolving abandoned rounds.

A round stores only what rebuilds it: the rules snapshot, the seeds and nonce, the bets and
the decision. The cards are re-dealt from the seeds whenever the round is played on (the
decision) and by the audit, through the engine's one ``replay_round``, so the stored cards and
payouts are a record, not an input.

Money (casino.ledger.settlement): a round settled on its first two cards is one ``bet``
transaction; a tie is a ``stake`` transaction (the ante held in play, the tie bet settled)
and then a ``decision`` transaction (the raise, and the settlement of ante and raise). Each
moves only the player's wallet, locked by the claim the use case starts with, and is written
with the round at commit (casino.store).
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from casino.engine.casino_war import (
    CasinoWarRound,
    Decision,
    RoundStatus,
    TableRules,
    bet_outcomes,
    deal_casino_war,
    replay_round,
)
from casino.engine.errors import IllegalAction
from casino.ledger.errors import InsufficientFunds
from casino.ledger.settlement import decided_round_legs, opened_round_legs, settled_round_legs
from casino.ledger.transactions import BET, DECISION, STAKE, link, new_transaction
from casino.service import protection
from casino.service.common import (
    clamp_limit,
    decode_cursor,
    encode_cursor,
    insufficient_funds,
    require_player,
)
from casino.service.errors import (
    BadGateway,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unauthenticated,
    WalletUnavailable,
)
from casino.service.ledger_reads import check_range
from casino.service.player_wallets import DEAL, RAISE, Stake, wallet_of
from casino.service.seeds import take_first_bet_client_seed
from casino.service.shared.tables import refuse_private_bet
from casino.service.views import ROUND_STATUSES, Page, RoundView
from casino.store.protection_records import LimitRecord
from casino.store.records import RoundRecord, RoundRow, Wallet
from casino.store.types import as_utc
from casino.store.uow import UnitOfWork
from casino.store.writes import LIMIT_GUARD, ROUND_NOT_OPEN, WALLET_GUARD

DecidedBy = Literal["player", "system"]
AWAITING_DECISION = RoundStatus.AWAITING_DECISION.value
SETTLED = RoundStatus.SETTLED.value


def _round_in_progress(round_id: str | None) -> Conflict:
    return Conflict(
        "a round awaits a decision; decide it first",
        code="round_in_progress",
        round_id=round_id,
    )


def _not_awaiting(round_id: str) -> Conflict:
    return Conflict(
        "the round is not awaiting a decision",
        code="round_not_awaiting_decision",
        round_id=round_id,
    )


def _is_amount(value: object) -> bool:
    return type(value) is int and value >= 0


# --- the bet ---------------------------------------------------------------------------


def place_bet(
    uow: UnitOfWork,
    player_id: str,
    table_id: str,
    ante: int,
    tie_bet: int = 0,
    client_seed: str | None = None,
) -> RoundView:
    if not isinstance(table_id, str):
        raise NotFound("no such table", code="table_not_found")
    if client_seed is not None:
        # The pair's first bet brings the client seed: set under the seed row's lock, which
        # the claim below then holds already (same order: seed row first).
        take_first_bet_client_seed(uow, player_id, client_seed)
    claim = None
    for _ in range(3):
        claim = uow.rounds.claim_bet(player_id, table_id)
        if claim is not None:
            break
        # No player, or a seed rotation committed meanwhile (the next statement sees it).
        require_player(uow, player_id)
    if claim is None:
        raise Conflict(
            "the player's seeds are being rotated; retry", code="seed_rotation_in_progress"
        )
    table = claim.table
    if table is None:
        raise NotFound("no such table", code="table_not_found")
    if not table.active:
        raise Conflict("the table is closed", code="table_inactive")
    refuse_private_bet(uow, table_id)
    now = uow.now()
    protection.check_account(claim.protection, now)
    protection.check_session(claim.protection, now)
    rules = TableRules.from_dict(table.rules)
    rules.validate_bet(ante, tie_bet)
    if claim.open_round_id is not None:
        raise _round_in_progress(claim.open_round_id)
    currency = table.currency
    stake = ante + tie_bet
    player_wallet = wallet_of(uow)
    player_wallet.check_stake(claim.wallet, stake, currency)
    # Before the deal: what a bet may lose is its whole stake (a tie's raise is checked when
    # the player goes to war), so the refusal never depends on the cards.
    risks = {protection.LOSS: stake, protection.WAGER: stake}
    limits = claim.limits
    if claim.wallet is None:
        # No ledger wallet yet (a seamless player's first bet in this currency): the claim
        # read the limits with the wallet, so read them here.
        kinds = [protection.LOSS, protection.WAGER]
        limits = tuple(uow.protection.limits(player_id, currency, kinds, lock=True))
    protection.check_limits(limits, risks, now)
    round_id = str(uuid.uuid4())
    # The stake is taken (in seamless mode: the operator's wallet answered OK) before the
    # cards are dealt.
    taken = player_wallet.take(
        uow, Stake(player_id, currency, round_id, stake, DEAL, claim.wallet, claim.tx_id)
    )
    wallet = taken.wallet
    game = CasinoWarRound.start(
        rules,
        deal_casino_war(claim.server_seed, claim.client_seed, claim.nonce, rules.decks),
        ante,
        tie_bet,
    )
    accounts = uow.ledger.system_accounts(currency)
    if game.status is RoundStatus.SETTLED:
        result = game.result
        returned = result.payouts.ante + result.payouts.tie_bet
        kind = BET
        legs = settled_round_legs(accounts, wallet.key, stake, returned)
        ante_payout, net, settled_at = result.payouts.ante, result.net, now
    else:
        # Only the tie bet is settled now; the ante stays in play until the decision.
        kind = STAKE
        legs = opened_round_legs(accounts, wallet.key, ante, tie_bet, game.tie_bet_payout)
        ante_payout, net, settled_at = 0, game.tie_bet_payout - stake, None
    balance_after = _post(uow, kind, player_id, currency, legs, round_id, taken.tx_id, wallet, now)
    moved = balance_after - wallet.state.balance
    if game.status is RoundStatus.SETTLED:
        player_wallet.pay(uow, round_id, player_id, currency, returned)
    _count_round(uow, limits, player_id, currency, moved, risks)
    played = protection.session_after_bet(uow, claim.protection, now)
    record = RoundRecord(
        id=round_id,
        player_id=player_id,
        table_id=table_id,
        currency=currency,
        rules=rules.to_dict(),
        status=game.status.value,
        server_seed_id=claim.seed_id,
        client_seed=claim.client_seed,
        nonce=claim.nonce,
        ante=ante,
        tie_bet=tie_bet,
        raise_amount=0,
        player_card=game.deal.player.code,
        dealer_card=game.deal.dealer.code,
        war=None,
        decision=None,
        decided_by=None,
        ante_payout=ante_payout,
        tie_bet_payout=game.tie_bet_payout,
        raise_payout=0,
        net=net,
        balance_after=player_wallet.shown_balance(taken, balance_after),
        created_at=now,
        settled_at=settled_at,
    )

    # Should another bet of this player have opened a round after the claim's snapshot, the
    # commit is refused by the one-open-round index; the open round is looked up after the
    # rollback.
    def in_progress() -> Exception:
        return _round_in_progress(uow.rounds.open_round_id(player_id))

    uow.rounds.add(record, in_progress)
    return round_view(
        RoundRow(record, claim.seed_hash, None, [claim.tx_id]),
        reality_check=protection.reality_check(played, now),
    )


def _count_round(
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


def _post(
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


# --- the decision ----------------------------------------------------------------------


def decide(
    uow: UnitOfWork,
    round_id: str,
    action: Decision | str,
    *,
    player_id: str | None,
    decided_by: DecidedBy = "player",
) -> RoundView:
    """Surrender or go to war on a round awaiting a decision.

    ``player_id`` restricts the round to that player's (None: any, for operators/system).
    War needs the raise (= ante) in the wallet, else Conflict(insufficient_funds) and the
    round stays open.
    """
    try:
        choice = Decision(action)
    except ValueError:
        raise Invalid(f"unknown decision {action!r}", code="unknown_decision") from None
    if decided_by not in ("player", "system"):
        raise ValueError(f"decided_by must be player or system, not {decided_by!r}")
    claim = uow.rounds.claim_decision(round_id) if _is_uuid(round_id) else None
    if claim is None or (player_id is not None and claim.round.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    record = claim.round
    if record.status != AWAITING_DECISION:
        raise _not_awaiting(record.id)
    rules = TableRules.from_dict(record.rules)
    if choice is Decision.WAR and rules.surrender_allowed:
        # Going to war is a new wager, which a blocked account may not make; surrendering
        # settles the round. (Without surrender at the table, war is the only way out.)
        protection.check_account(claim.protection, uow.now())
    game = replay_round(
        rules,
        claim.server_seed,
        record.client_seed,
        record.nonce,
        record.ante,
        record.tie_bet,
    )
    try:
        game.decide(choice)
    except IllegalAction as exc:
        if exc.code == "round_not_awaiting_decision":  # stored state and replay disagree
            raise RuntimeError(f"round {record.id} is open but its deal is not a tie") from exc
        raise
    result = game.result
    now = uow.now()
    # Going to war risks the raise (wagered, and lost at worst); a surrender risks nothing.
    raised = result.bets.raise_
    risks = {protection.LOSS: raised, protection.WAGER: raised}
    protection.check_limits(claim.limits, risks, now)
    player_wallet = wallet_of(uow)
    taken = None
    wallet, tx_id = claim.wallet, claim.tx_id
    if raised:
        # Going to war takes the raise first (in seamless mode: the operator's wallet
        # answered OK); refused or unknown, the round stays awaiting its decision.
        taken = player_wallet.take(
            uow,
            Stake(record.player_id, record.currency, record.id, raised, RAISE, wallet, tx_id),
        )
        wallet, tx_id = taken.wallet, taken.tx_id
    legs = decided_round_legs(
        uow.ledger.system_accounts(record.currency),
        wallet.key,
        result.bets.ante,
        result.bets.raise_,
        result.payouts.ante + result.payouts.raise_,
    )
    balance_after = _post(
        uow, DECISION, record.player_id, record.currency, legs, record.id, tx_id, wallet, now
    )
    _count_round(
        uow,
        claim.limits,
        record.player_id,
        record.currency,
        balance_after - wallet.state.balance,
        risks,
    )
    player_wallet.pay(
        uow,
        record.id,
        record.player_id,
        record.currency,
        result.payouts.ante + result.payouts.raise_ + result.payouts.tie_bet,
    )
    decided = replace(
        record,
        status=SETTLED,
        decision=choice.value,
        decided_by=decided_by,
        raise_amount=result.bets.raise_,
        war=None if result.war is None else result.war.to_dict(),
        ante_payout=result.payouts.ante,
        raise_payout=result.payouts.raise_,
        tie_bet_payout=result.payouts.tie_bet,
        net=result.net,
        balance_after=player_wallet.shown_balance(taken, balance_after),
        settled_at=now,
    )
    uow.rounds.save_decision(decided)
    uow.on_conflict(ROUND_NOT_OPEN, lambda: _not_awaiting(record.id))
    return round_view(
        RoundRow(decided, claim.seed_hash, claim.revealed, [*claim.transaction_ids, claim.tx_id]),
        reality_check=protection.reality_check(claim.protection, now),
    )


# --- recall ----------------------------------------------------------------------------


def get_round(uow: UnitOfWork, round_id: str, player_id: str | None) -> RoundView:
    """A round's recall; ``player_id`` the player asking (None: an operator). The player's
    recall reports a reality check due now, as bets and decisions do, so a client that only
    polls a round still sees it."""
    row = uow.rounds.get(round_id) if _is_uuid(round_id) else None
    if row is None or (player_id is not None and row.round.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    if player_id is None:
        return round_view(row)
    return round_view(row, protection.due_reality_check(uow, player_id))


def list_rounds(
    uow: UnitOfWork,
    player_id: str | None,
    status: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    *,
    table_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> Page[RoundView]:
    """Rounds newest first, optionally one player's, one status, one table's, created in
    [since, until)."""
    since, until = check_range(since, until)
    size = clamp_limit(limit)
    if player_id is not None:
        require_player(uow, player_id)
    if status is not None and status not in ROUND_STATUSES:
        raise Invalid(f"status must be one of {', '.join(ROUND_STATUSES)}", code="invalid_status")
    before = None
    if cursor:
        created_text, last_id = decode_cursor(cursor, 2)
        try:
            created = as_utc(datetime.fromisoformat(created_text))
        except (ValueError, OverflowError):  # overflow: year 1 or 9999 shifted by an offset
            raise Invalid("malformed cursor", code="invalid_cursor") from None
        if not _is_uuid(last_id):
            raise Invalid("malformed cursor", code="invalid_cursor")
        before = (created, last_id)
    rows = uow.rounds.page(
        player_id=player_id,
        status=status,
        before=before,
        limit=size + 1,
        table_id=table_id,
        since=since,
        until=until,
    )
    more = len(rows) > size
    rows = rows[:size]
    next_cursor = None
    if more and rows:
        last = rows[-1].round
        next_cursor = encode_cursor(last.created_at.astimezone(UTC).isoformat(), last.id)
    return Page(items=[round_view(row) for row in rows], next_cursor=next_cursor)


#: Why war may be refused, so that a stale round is surrendered instead (the last three: an
#: operator's wallet refused the raise).
_WAR_REFUSED = (
    "insufficient_funds",
    "limit_exceeded",
    *protection.BLOCKED,
    "player_blocked",
    "session_expired",
    "wallet_error",
)


def resolve_stale(uow: UnitOfWork, older_than: timedelta) -> list[RoundView]:
    """Settle rounds left awaiting a decision for longer than ``older_than``: war when the
    wallet holds the raise and the account may wager, else surrender (war when the table
    forbids surrender and the raise is affordable; a round that can do neither is left
    open). Recorded as decided by system.
    Rounds a player is deciding right now are skipped, not waited for."""
    if older_than < timedelta(0):
        raise Invalid("older_than must not be negative", code="invalid_duration")
    resolved = []
    for round_id in uow.rounds.stale_ids(uow.now() - older_than):
        try:
            view = decide(uow, round_id, Decision.WAR, player_id=None, decided_by="system")
        except WalletUnavailable as exc:
            # A seamless operator's wallet did not answer the raise: its rollback is queued
            # (kept with this transaction) and the round is left for the next run.
            if exc.keep is not None:
                exc.keep(uow)
            continue
        except (Conflict, Forbidden, Unauthenticated, BadGateway) as exc:
            if exc.code not in _WAR_REFUSED:
                raise
            # Refused before anything was written: the surrender starts from the same state.
            try:
                view = decide(
                    uow, round_id, Decision.SURRENDER, player_id=None, decided_by="system"
                )
            except (IllegalAction, WalletUnavailable):
                continue  # no surrender at this table and no funds for war: leave it open
        resolved.append(view)
    return resolved


# --- views -----------------------------------------------------------------------------


def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def round_view(row: RoundRow, reality_check: dict[str, Any] | None = None) -> RoundView:
    """``reality_check``: the one due now (in the player's answers: bets, decisions and their
    own recall; None for an operator's read)."""
    record = row.round
    decision: dict[str, Any] | None = None
    if record.decision is not None:
        decision = {"action": record.decision, "decided_by": record.decided_by or "player"}
    bets = {
        "ante": int(record.ante),
        "tie_bet": int(record.tie_bet),
        "raise": int(record.raise_amount),
    }
    payouts = {
        "ante": int(record.ante_payout),
        "tie_bet": int(record.tie_bet_payout),
        "raise": int(record.raise_payout),
    }
    outcomes = bet_outcomes(bets, payouts, settled=record.status == SETTLED)
    return RoundView(
        id=record.id,
        player_id=record.player_id,
        table_id=record.table_id,
        status=record.status,
        player_card=record.player_card,
        dealer_card=record.dealer_card,
        war=record.war,
        decision=decision,
        bets=bets,
        payouts=payouts,
        net=int(record.net),
        balance_after=int(record.balance_after),
        currency=record.currency,
        fairness={
            "server_seed_hash": row.seed_hash,
            "client_seed": record.client_seed,
            "nonce": int(record.nonce),
            "server_seed": row.revealed,
        },
        transaction_ids=row.transaction_ids,
        created_at=record.created_at,
        settled_at=record.settled_at,
        rules=dict(record.rules),
        outcomes={name: label.value for name, label in outcomes.items()},
        reality_check=reality_check,
    )

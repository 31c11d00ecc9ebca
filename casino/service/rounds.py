"""Casino War rounds: bet, recall, listing, resolving abandoned rounds (the decisions:
casino.service.round_decisions).

A round stores only what rebuilds it: the rules snapshot, the seeds and nonce, the bets and
the decisions. The cards are re-dealt from the seeds whenever the round is played on (a
decision) and by the audit, through the engine's replay, so the stored cards and payouts are
a record, not an input. The table's rules choose the round's shape: the one-hand shape
(``CasinoWarRound``, the flat columns) or the hands shape (``TableRound``,
casino.service.table_rounds).

Money (casino.ledger.settlement): a round settled on its first cards is one ``bet``
transaction; a tie is a ``stake`` transaction (what is unsettled held in play) and then a
``decision`` transaction per decision request. Each moves only the player's wallet, locked by
the claim the use case starts with, and is written with the round at commit (casino.store).
"""

from __future__ import annotations

__all__ = [
    "decide",
    "decide_hands",
    "get_round",
    "list_rounds",
    "place_bet",
    "resolve_stale",
    "time_out",
    "time_out_due",
]

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from casino.engine.casino_war import (
    CasinoWarRound,
    Decision,
    HandBet,
    RecordShape,
    RoundStatus,
    TableRound,
    TableRules,
    deal_casino_war,
)
from casino.engine.errors import IllegalAction
from casino.ledger.accounts import SystemAccounts
from casino.ledger.settlement import opened_round_legs, settled_round_legs
from casino.ledger.transactions import BET, STAKE
from casino.service import protection, table_rounds
from casino.service.common import (
    clamp_limit,
    decode_cursor,
    encode_cursor,
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
from casino.service.player_wallets import DEAL, Stake, wallet_of
from casino.service.round_common import (
    AWAITING_DECISION,
    count_round,
    is_uuid,
    post,
    round_in_progress,
    stake_limits,
)
from casino.service.round_decisions import (
    decide,
    decide_hands,
    past_deadline,
    time_out,
    time_out_due,
)
from casino.service.round_views import round_view
from casino.service.seeds import take_first_bet_client_seed
from casino.service.shared.tables import refuse_private_bet
from casino.service.views import ROUND_STATUSES, Page, RoundView
from casino.store.ids import time_ordered_uuid
from casino.store.records import BetClaim, RoundRecord, RoundRow
from casino.store.types import as_utc
from casino.store.uow import UnitOfWork

# --- the bet ---------------------------------------------------------------------------


def place_bet(
    uow: UnitOfWork,
    player_id: str,
    table_id: str,
    ante: int = 0,
    tie_bet: int = 0,
    client_seed: str | None = None,
    *,
    hands: Sequence[HandBet] | None = None,
) -> RoundView:
    """Bet one hand (``ante``, ``tie_bet``) or several (``hands``: up to the table's
    ``max_hands``). The table's rules choose how the round is played and stored: the
    one-hand shape (the classic round) or the hands shape (casino.service.table_rounds)."""
    bets = list(hands) if hands is not None else [HandBet(ante, tie_bet)]
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
    refuse_private_bet(claim.shared)
    now = uow.now()
    protection.check_account(claim.protection, now)
    protection.check_session(claim.protection, now)
    rules = TableRules.of(table.rules)
    if len(bets) == 1:
        rules.validate_bet(bets[0].ante, bets[0].tie_bet)
    else:
        rules.validate_hands(bets)
    if claim.open_round_id is not None:
        raise round_in_progress(claim.open_round_id)
    currency = table.currency
    stake = sum(bet.ante + bet.tie_bet for bet in bets)
    player_wallet = wallet_of(uow)
    player_wallet.check_stake(claim.wallet, stake, currency)
    # Before the deal: what a bet may lose is its whole stake (a tie's raise is checked when
    # the player goes to war), so the refusal never depends on the cards.
    risks = {protection.LOSS: stake, protection.WAGER: stake}
    limits = stake_limits(uow, claim, player_id, currency)
    protection.check_limits(limits, risks, now)
    round_id = time_ordered_uuid()
    # The stake is taken (whichever wallet holds the money answered yes) before the cards
    # are dealt.
    taken = player_wallet.take(
        uow, Stake(player_id, currency, round_id, stake, DEAL, claim.wallet, claim.tx_id)
    )
    wallet = taken.wallet
    accounts = uow.ledger.system_accounts(currency)
    if rules.record_shape is RecordShape.ONE_HAND:
        kind, legs, fields = _classic_bet(rules, claim, bets[0], accounts, wallet.key)
    else:
        kind, legs, fields = _table_bet(rules, claim, bets, accounts, wallet.key)
    balance_after = post(uow, kind, player_id, currency, legs, round_id, taken.tx_id, wallet, now)
    moved = balance_after - wallet.state.balance
    if fields["status"] != AWAITING_DECISION:  # the operator's wallet is paid at settlement
        player_wallet.pay(uow, round_id, player_id, currency, fields["paid"])
    count_round(uow, limits, player_id, currency, moved, risks)
    played = protection.session_after_bet(uow, claim.protection, now)
    awaiting = fields["status"] == AWAITING_DECISION
    timeout = rules.decision_timeout
    record = RoundRecord(
        id=round_id,
        player_id=player_id,
        table_id=table_id,
        currency=currency,
        rules=rules.to_dict(),
        server_seed_id=claim.seed_id,
        client_seed=claim.client_seed,
        nonce=claim.nonce,
        balance_after=player_wallet.shown_balance(taken, balance_after),
        created_at=now,
        settled_at=None if awaiting else now,
        decision_deadline=now + timeout if awaiting and timeout is not None else None,
        **{name: value for name, value in fields.items() if name != "paid"},
    )

    # Should another bet of this player have opened a round after the claim's snapshot, the
    # commit is refused by the one-open-round index; the open round is looked up after the
    # rollback.
    def in_progress() -> Exception:
        return round_in_progress(uow.rounds.open_round_id(player_id))

    uow.rounds.add(record, in_progress)
    return round_view(
        RoundRow(record, claim.seed_hash, None, [claim.tx_id]),
        reality_check=protection.reality_check(played, now),
    )


def _classic_bet(
    rules: TableRules, claim: BetClaim, bet: HandBet, accounts: SystemAccounts, wallet: str
) -> tuple[str, Any, dict[str, Any]]:
    """The classic round: one hand, at most one war (the one-hand shape)."""
    ante, tie_bet = bet.ante, bet.tie_bet
    game = CasinoWarRound.start(
        rules,
        deal_casino_war(claim.server_seed, claim.client_seed, claim.nonce, rules.decks),
        ante,
        tie_bet,
    )
    stake = ante + tie_bet
    if game.status is RoundStatus.SETTLED:
        result = game.result
        returned = result.payouts.ante + result.payouts.tie_bet
        kind = BET
        legs = settled_round_legs(accounts, wallet, stake, returned)
        ante_payout, net = result.payouts.ante, result.net
        paid = returned
    else:
        # Only the tie bet is settled now; the ante stays in play until the decision.
        kind = STAKE
        legs = opened_round_legs(accounts, wallet, ante, tie_bet, game.tie_bet_payout)
        ante_payout, net = 0, game.tie_bet_payout - stake
        paid = 0
    return (
        kind,
        legs,
        {
            "status": game.status.value,
            "ante": ante,
            "tie_bet": tie_bet,
            "raise_amount": 0,
            "player_card": game.deal.player.code,
            "dealer_card": game.deal.dealer.code,
            "war": None,
            "decision": None,
            "decided_by": None,
            "ante_payout": ante_payout,
            "tie_bet_payout": game.tie_bet_payout,
            "raise_payout": 0,
            "net": net,
            "paid": paid,
        },
    )


def _table_bet(
    rules: TableRules,
    claim: BetClaim,
    bets: Sequence[HandBet],
    accounts: SystemAccounts,
    wallet: str,
) -> tuple[str, Any, dict[str, Any]]:
    """A round in the hands shape (casino.service.table_rounds)."""
    game = TableRound.deal(rules, claim.server_seed, claim.client_seed, claim.nonce, bets)
    result = game.snapshot()
    move = table_rounds.movement(None, result)
    kind = BET if game.status is RoundStatus.SETTLED else STAKE
    fields = {**table_rounds.columns(result), "paid": result.payouts.total}
    return kind, move.legs(accounts, wallet), fields


# --- recall ----------------------------------------------------------------------------


def get_round(uow: UnitOfWork, round_id: str, player_id: str | None) -> RoundView:
    """A round's recall; ``player_id`` the player asking (None: an operator). The player's
    recall reports a reality check due now, as bets and decisions do, so a client that only
    polls a round still sees it."""
    row = uow.rounds.get(round_id) if is_uuid(round_id) else None
    if row is None or (player_id is not None and row.round.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    if past_deadline(row.round, uow.now()):
        # Read past its decision deadline, the round is decided by the clock first (the
        # caller commits: GET /rounds/{id} is a write for that reason).
        view = time_out(uow, round_id)
        if view is not None:
            if player_id is None:
                return replace(view, reality_check=None)
            return view
        row = uow.rounds.get(round_id) or row
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
        if not is_uuid(last_id):
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
    resolved = time_out_due(uow)
    for round_id in uow.rounds.stale_ids(uow.now() - older_than):
        try:
            view = decide(uow, round_id, Decision.WAR, player_id=None, decided_by="system")
        except WalletUnavailable as exc:
            # The wallet did not answer the raise: its rollback is queued (kept with this
            # transaction) and the round is left for the next run.
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

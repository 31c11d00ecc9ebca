"""Deciding tied hands: the player's decision, the system's (``resolve-stale``) and the
decision clock's (``timeout``), for a round in either shape.

The round is re-dealt from its seeds and its stored bets and decisions (``replay_round`` for
the one-hand shape, ``TableRound`` for the hands shape), the new decisions are applied, and
the request's money (casino.ledger.settlement) is one ``decision`` transaction written with
the round at commit. Past the round's deadline the clock decides instead, settled at the
deadline, whichever request applies it (docs/api-rounds.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from casino.engine.casino_war import (
    CasinoWarRound,
    Decision,
    TableRules,
    replay_round,
)
from casino.engine.errors import IllegalAction
from casino.ledger.settlement import decided_round_legs
from casino.ledger.transactions import DECISION
from casino.service import protection, table_rounds
from casino.service.errors import Conflict, Invalid, NotFound
from casino.service.player_wallets import RAISE, Stake, wallet_of
from casino.service.round_common import (
    AWAITING_DECISION,
    SETTLED,
    DecidedBy,
    count_round,
    is_uuid,
    not_awaiting,
    post,
)
from casino.service.round_views import round_view
from casino.service.views import DECIDED_BY, RoundView
from casino.store.records import DecisionClaim, RoundRecord, RoundRow
from casino.store.uow import UnitOfWork
from casino.store.writes import ROUND_NOT_OPEN

# --- the decision ----------------------------------------------------------------------


def decide(
    uow: UnitOfWork,
    round_id: str,
    action: Decision | str,
    *,
    player_id: str | None,
    decided_by: DecidedBy = "player",
) -> RoundView:
    """Surrender or go to war on every hand of a round awaiting a decision (one hand: the
    round's one hand). ``player_id`` restricts the round to that player's (None: any, for
    operators/system). War needs the raise in the wallet, else Conflict(insufficient_funds)
    and the round stays open."""
    return decide_hands(
        uow, round_id, None, player_id=player_id, decided_by=decided_by, action=action
    )


def decide_hands(
    uow: UnitOfWork,
    round_id: str,
    decisions: Mapping[int, tuple[str, int]] | None,
    *,
    player_id: str | None,
    decided_by: DecidedBy = "player",
    one_hand: bool = False,
    action: Decision | str | None = None,
) -> RoundView:
    """Decide hands of a round awaiting decisions: ``decisions`` maps a hand to (action, war
    tie bet); None: ``action`` for every hand awaiting one. ``one_hand``: the body of one
    hand, for the round's one hand awaiting a decision, whichever it is.

    Past the round's decision deadline the table's clock decides instead, whatever was
    asked: every hand awaiting a decision takes the timeout action (surrender), recorded as
    decided by ``timeout`` and settled at the deadline (docs/api-rounds.md).
    """
    if decided_by not in DECIDED_BY:
        raise ValueError(f"decided_by must be one of {DECIDED_BY}, not {decided_by!r}")
    if action is not None:
        try:
            action = Decision(action)
        except ValueError:
            raise Invalid(f"unknown decision {action!r}", code="unknown_decision") from None
    claim = uow.rounds.claim_decision(round_id) if is_uuid(round_id) else None
    if claim is None or (player_id is not None and claim.round.player_id != player_id):
        raise NotFound("no such round", code="round_not_found")
    record = claim.round
    if record.status != AWAITING_DECISION:
        raise not_awaiting(record.id)
    rules = TableRules.of(record.rules)
    now = uow.now()
    deadline = record.decision_deadline
    if deadline is not None and now >= deadline:
        return _settle_decision(uow, claim, rules, _Clock(), now, deadline)
    if decided_by == "timeout":
        raise not_awaiting(record.id)  # the clock has not run out: nothing to do
    return _settle_decision(
        uow, claim, rules, _Asked(decisions, action, decided_by, one_hand), now, now
    )


@dataclass(frozen=True)
class _Asked:
    """What a request asked: decisions per hand, or one action for every waiting hand."""

    decisions: Mapping[int, tuple[str, int]] | None
    action: Decision | None
    decided_by: str
    one_hand: bool


@dataclass(frozen=True)
class _Clock:
    """The decision clock ran out."""


def _settle_decision(
    uow: UnitOfWork,
    claim: DecisionClaim,
    rules: TableRules,
    asked: _Asked | _Clock,
    now: datetime,
    settled_at: datetime,
) -> RoundView:
    record = claim.round
    if record.hands is None:
        game: Any = replay_round(
            rules,
            claim.server_seed,
            record.client_seed,
            record.nonce,
            record.ante,
            record.tie_bet,
        )
        before = None
    else:
        game = table_rounds.replay(
            rules, claim.server_seed, record.client_seed, record.nonce, record.hands
        )
        before = game.snapshot()
    goes_to_war = _apply(game, rules, asked, record)
    if goes_to_war and rules.surrender_allowed:
        # Going to war is a new wager, which a blocked account may not make; surrendering
        # settles the round. (Without surrender at the table, war is the only way out.)
        protection.check_account(claim.protection, now)
    accounts = uow.ledger.system_accounts(record.currency)
    if before is None:  # the classic round
        result = game.result
        raised = result.bets.raise_

        def legs_of(key: str) -> Any:
            return decided_round_legs(
                accounts,
                key,
                result.bets.ante,
                raised,
                result.payouts.ante + result.payouts.raise_,
            )

        paid = result.payouts.total
        decision = game.decision
        fields: dict[str, Any] = {
            "status": SETTLED,
            "decision": decision.value,
            "decided_by": _decided_by(asked),
            "raise_amount": raised,
            "war": None if result.war is None else result.war.to_dict(),
            "ante_payout": result.payouts.ante,
            "raise_payout": result.payouts.raise_,
            "tie_bet_payout": result.payouts.tie_bet,
            "net": result.net,
        }
    else:
        after = game.snapshot()
        move = table_rounds.movement(before, after)
        raised = move.staked

        def legs_of(key: str) -> Any:
            return move.legs(accounts, key)

        paid = after.payouts.total
        fields = table_rounds.columns(after)
    # Going to war risks the raise (wagered, and lost at worst); a surrender risks nothing.
    risks = {protection.LOSS: raised, protection.WAGER: raised}
    protection.check_limits(claim.limits, risks, now)
    player_wallet = wallet_of(uow)
    taken = None
    wallet, tx_id = claim.wallet, claim.tx_id
    if raised:
        # Going to war takes the new stakes first (whichever wallet holds the money answered
        # yes); refused or unknown, the round stays awaiting its decision.
        taken = player_wallet.take(
            uow,
            Stake(record.player_id, record.currency, record.id, raised, RAISE, wallet, tx_id),
        )
        wallet, tx_id = taken.wallet, taken.tx_id
    balance_after = post(
        uow,
        DECISION,
        record.player_id,
        record.currency,
        legs_of(wallet.key),
        record.id,
        tx_id,
        wallet,
        now,
    )
    count_round(
        uow,
        claim.limits,
        record.player_id,
        record.currency,
        balance_after - wallet.state.balance,
        risks,
    )
    settled = fields["status"] == SETTLED
    if settled:  # the operator's wallet is paid the round's whole return at settlement
        player_wallet.pay(uow, record.id, record.player_id, record.currency, paid)
    decided = replace(
        record,
        **fields,
        balance_after=player_wallet.shown_balance(taken, balance_after),
        settled_at=settled_at if settled else None,
    )
    uow.rounds.save_decision(decided)
    uow.on_conflict(ROUND_NOT_OPEN, lambda: not_awaiting(record.id))
    return round_view(
        RoundRow(decided, claim.seed_hash, claim.revealed, [*claim.transaction_ids, tx_id]),
        reality_check=protection.reality_check(claim.protection, now),
    )


def _decided_by(asked: _Asked | _Clock) -> str:
    return "timeout" if isinstance(asked, _Clock) else asked.decided_by


def _apply(game: Any, rules: TableRules, asked: _Asked | _Clock, record: RoundRecord) -> bool:
    """Apply the decisions to the replayed round; whether any hand goes to war."""
    if isinstance(game, CasinoWarRound):
        if isinstance(asked, _Clock):
            choice = rules.timeout_action
        elif asked.decisions is None:
            assert asked.action is not None
            choice = asked.action
        else:
            choice = _one_classic_choice(rules, asked.decisions)
        try:
            game.decide(choice)
        except IllegalAction as exc:
            if exc.code == "round_not_awaiting_decision":  # stored state and replay disagree
                raise RuntimeError(f"round {record.id} is open but its deal is not a tie") from exc
            raise
        return choice is Decision.WAR
    if isinstance(asked, _Clock):
        game.time_out()
        return False
    if asked.decisions is None:
        assert asked.action is not None
        wanted = {hand: (asked.action.value, 0) for hand in game.awaiting}
    elif asked.one_hand and len(game.awaiting) == 1:
        wanted = {game.awaiting[0]: asked.decisions[0]}
    else:
        wanted = dict(asked.decisions)
    game.decide_many(table_rounds.choices(wanted, asked.decided_by))
    return any(action == Decision.WAR.value for action, _ in wanted.values())


def _one_classic_choice(rules: TableRules, decisions: Mapping[int, tuple[str, int]]) -> Decision:
    """A classic round has hand 0 only, and no war tie bet."""
    if set(decisions) != {0}:
        raise IllegalAction("the round has hand 0 only", code="illegal_action")
    action, war_tie_bet = decisions[0]
    rules.validate_war_tie_bet(war_tie_bet)
    try:
        return Decision(action)
    except ValueError:
        raise Invalid(f"unknown decision {action!r}", code="unknown_decision") from None


def past_deadline(record: RoundRecord, now: datetime) -> bool:
    deadline = record.decision_deadline
    return record.status == AWAITING_DECISION and deadline is not None and now >= deadline


def time_out(uow: UnitOfWork, round_id: str) -> RoundView | None:
    """Let the decision clock decide a round past its deadline; None if it is not (any
    more) waiting past one."""
    try:
        return decide_hands(uow, round_id, None, player_id=None, decided_by="timeout")
    except Conflict as exc:
        if exc.code == "round_not_awaiting_decision":
            return None
        raise


def time_out_due(uow: UnitOfWork, player_id: str | None = None) -> list[RoundView]:
    """Every round past its decision deadline (one player's, or all the operator's)
    decided by the clock: the scheduler's step (``casino time-out-rounds``), also run by
    ``resolve-stale`` and before a bet of a player whose open round is past it."""
    decided = []
    for round_id in uow.rounds.due_ids(uow.now(), player_id):
        view = time_out(uow, round_id)
        if view is not None:
            decided.append(view)
    return decided

"""A bettor's part in a shared round: the bet while the betting window is open, the
decision while the decision window is, and the round as a client sees it (``/round``).

Each call holds the table's row shared (casino.store.shared: the dealer's next step waits
for it) and locks the one wallet it moves; the money moves with the bet in one transaction.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from casino.engine.casino_war import Decision, TableRules
from casino.engine.shared import RoundState, SharedBet, accept_bet, accept_decision
from casino.engine.shared.bets import awaits_decision
from casino.service import protection
from casino.service.common import require_player
from casino.service.errors import Conflict, NotFound
from casino.service.shared import money
from casino.service.shared.tables import require_shared, shared_rules, shoe_of
from casino.service.tables import require_table
from casino.store.ids import time_ordered_uuid
from casino.store.shared import AWAITING, OPEN, SharedBetRecord, SharedTableRecord
from casino.store.uow import UnitOfWork

ROAD = 50


def _no_round() -> Conflict:
    return Conflict("bets on this table are closed until its next round", code="betting_closed")


def _state(record: SharedTableRecord) -> RoundState | None:
    return None if record.state is None else RoundState.from_dict(record.state)


def _engine_bet(bet: SharedBetRecord | None, player_id: str) -> SharedBet | None:
    if bet is None:
        return None
    decision = None
    if bet.decision is not None:
        from casino.engine.casino_war import HandDecision

        decision = HandDecision.from_dict(
            {"action": bet.decision, "decided_by": bet.decided_by, "war_tie_bet": bet.war_tie_bet}
        )
    return SharedBet(player_id, bet.ante, bet.tie_bet, decision)


def _rules_of(uow: UnitOfWork, record: SharedTableRecord, state: RoundState) -> TableRules:
    """The rules of the round's shoe (snapshot at the shoe's start)."""
    rules = uow.shared.shoe_rules(record.table_id, state.shoe)
    if rules is None:
        raise RuntimeError(f"shoe {state.shoe} of table {record.table_id} is not recorded")
    return TableRules.of(rules)


def place_bet(
    uow: UnitOfWork, player_id: str, table_id: str, ante: int, tie_bet: int = 0
) -> dict[str, Any]:
    """Bet on the round taking bets: debits the wallet now; a second bet adds to the first
    (the sums one valid bet, else refused whole). 409 betting_closed outside the window."""
    table = require_table(uow, table_id)
    record = uow.shared.hold_for_bet(table_id)
    if record is None:
        raise Conflict("this table does not deal shared rounds", code="table_not_shared")
    if not table.active:
        raise Conflict("the table is closed", code="table_inactive")
    require_player(uow, player_id)
    state = _state(record)
    if state is None:
        raise _no_round()
    now = uow.now()
    rules = shared_rules(record, _rules_of(uow, record, state).to_dict())
    wallets = money.wallet_for(uow)
    # The wallet before the round's bet: another bet of the player's in flight commits
    # first and this one then adds to it; read before, both would add to the same sum
    # (a stake debited and lost from the bet, or a second row refused after the debit).
    wallet = wallets.lock(uow, player_id, table.currency, create=True)
    existing = uow.shared.bet(table_id, state.shoe, state.round, player_id)
    accepted = accept_bet(
        rules, state, now, _engine_bet(existing, player_id), player_id, ante, tie_bet
    )
    guard = protection_guard(uow, player_id, table.currency, ante + tie_bet, now)
    ref = money.reference(table_id, state.shoe, state.round)
    moved, tx_id, shown = wallets.debit(
        uow, wallet, player_id, table.currency, ante + tie_bet, money.STAKE, ref, now
    )
    guard(-(ante + tie_bet))
    if existing is None:
        bet = SharedBetRecord(
            id=time_ordered_uuid(),
            table_id=table_id,
            shoe=state.shoe,
            round=state.round,
            player_id=player_id,
            wallet_id=moved.id,
            currency=table.currency,
            status=OPEN,
            ante=accepted.ante,
            tie_bet=accepted.tie_bet,
            raise_amount=0,
            war_tie_bet=0,
            decision=None,
            decided_by=None,
            payouts=None,
            returned=None,
            net=None,
            transaction_ids=[tx_id],
            created_at=now,
            settled_at=None,
        )
        uow.shared.add_bet(bet)
    else:
        bet = replace(
            existing,
            ante=accepted.ante,
            tie_bet=accepted.tie_bet,
            transaction_ids=[*existing.transaction_ids, tx_id],
        )
        if not uow.shared.save_bet(bet, was=(OPEN,)):
            raise _no_round()
    return bet_view(bet, shown, awaiting=False)


def protection_guard(
    uow: UnitOfWork, player_id: str, currency: str, risk: int, now: datetime
) -> Any:
    """Refuse a blocked account, a session past its limit, or a stake past a loss or wager
    limit; the returned callable counts the movement against the limits at commit."""
    record = uow.protection.get(player_id)
    protection.check_account(record, now)
    protection.check_session(record, now)
    limits = tuple(uow.protection.limits(player_id, currency))
    risks = {protection.LOSS: risk, protection.WAGER: risk}
    protection.check_limits(limits, risks, now)

    def count(wallet_delta: int) -> None:
        if limits:
            moves = {protection.LOSS: (-wallet_delta, risk), protection.WAGER: (risk, risk)}
            protection.count(uow, limits, moves, now)
        protection.session_after_bet(uow, record, now)

    return count


def count_returns(uow: UnitOfWork, returns: list[tuple[str, str, int, int]], now: datetime) -> None:
    """What settled or voided bets gave back, counted against the bettors' limits: each of
    ``returns`` is (player, currency, returned, un-wagered). A stake counts as its possible
    loss when placed (``protection_guard``); what a win returns lowers the period's loss, as
    a private round's net does, and a void also takes the stake off the wager. Never refused
    (no risk): a settlement must always commit."""
    returns = [r for r in returns if r[2] or r[3]]
    if not returns:
        return
    kinds = [protection.LOSS, protection.WAGER]
    limits = uow.protection.limits_of([player for player, *_ in returns], kinds)
    for player_id, currency, returned, unwagered in returns:
        rows = limits.get((player_id, currency))
        if rows:
            moves = {protection.LOSS: (-returned, 0), protection.WAGER: (-unwagered, 0)}
            protection.count(uow, rows, moves, now)


def decide(
    uow: UnitOfWork,
    player_id: str,
    table_id: str,
    action: Decision | str,
    war_tie_bet: int = 0,
) -> dict[str, Any]:
    """War (debits the raise and any war tie bet now) or surrender, within the decision
    window; a decision is final."""
    table = require_table(uow, table_id)
    record = uow.shared.hold_for_bet(table_id)
    if record is None:
        raise Conflict("this table does not deal shared rounds", code="table_not_shared")
    state = _state(record)
    if state is None:
        raise _not_awaiting()
    wallets = money.wallet_for(uow)
    # The wallet before the bet, as for a bet: a second decision in flight then finds the
    # first made, before its raise is debited.
    wallet = wallets.lock(uow, player_id, table.currency)
    bet = uow.shared.bet(table_id, state.shoe, state.round, player_id)
    if bet is None:
        raise _not_awaiting()
    now = uow.now()
    table_rules = _rules_of(uow, record, state)
    rules = shared_rules(record, table_rules.to_dict())
    shoe = shoe_of(record, state.shoe, table_rules)
    decided = accept_decision(
        rules,
        state,
        shoe,
        now,
        _engine_bet(bet, player_id) or _missing(),
        str(action),
        war_tie_bet=war_tie_bet,
    )
    assert decided.decision is not None
    choice = decided.decision.action
    balance = wallets.known_balance(uow, None if wallet is None else wallet.state.balance)
    tx_ids = list(bet.transaction_ids)
    if choice is Decision.WAR:
        if table_rules.surrender_allowed:
            protection.check_account(uow.protection.get(player_id), now)
        raised = bet.ante + war_tie_bet
        guard = protection_guard(uow, player_id, bet.currency, raised, now)
        ref = money.reference(table_id, state.shoe, state.round)
        _, tx_id, balance = wallets.debit(
            uow, wallet, player_id, bet.currency, raised, money.DECISION, ref, now
        )
        guard(-raised)
        tx_ids.append(tx_id)
    updated = replace(
        bet,
        status=AWAITING,
        raise_amount=bet.ante if choice is Decision.WAR else 0,
        war_tie_bet=war_tie_bet if choice is Decision.WAR else 0,
        decision=choice.value,
        decided_by=decided.decision.decided_by.value,
        transaction_ids=tx_ids,
    )
    if not uow.shared.save_bet(updated, was=(OPEN,)):
        raise _not_awaiting()
    return bet_view(updated, balance, awaiting=False)


def _missing() -> SharedBet:
    raise _not_awaiting()


def _not_awaiting() -> Conflict:
    return Conflict("this round takes no decision from you now", code="round_not_awaiting_decision")


def bet_view(bet: SharedBetRecord, balance: int | None, *, awaiting: bool) -> dict[str, Any]:
    decision = None
    if bet.decision is not None:
        decision = {"action": bet.decision, "decided_by": bet.decided_by}
    return {
        "table_id": bet.table_id,
        "shoe": bet.shoe,
        "round": bet.round,
        "status": bet.status,
        "ante": bet.ante,
        "tie_bet": bet.tie_bet,
        "raise_amount": bet.raise_amount,
        "war_tie_bet": bet.war_tie_bet,
        "decision": decision,
        "awaiting_decision": awaiting,
        "payouts": bet.payouts,
        "net": bet.net,
        "balance_after": balance,
        "currency": bet.currency,
        "transaction_ids": list(bet.transaction_ids),
    }


# --- the round as a client sees it --------------------------------------------------------


def current_round(uow: UnitOfWork, table_id: str, player_id: str | None) -> dict[str, Any]:
    table = require_table(uow, table_id)
    record = require_shared(uow, table_id)
    state = _state(record)
    now = uow.now()
    road = [_road_entry(event) for event in uow.shared.road(table_id, ROAD)]
    if state is None:
        raise NotFound("the table has not opened yet: no dealer holds it", code="round_not_found")
    table_rules = _rules_of(uow, record, state)
    shoe = shoe_of(record, state.shoe, table_rules)
    cards = _cards(state)
    my_bet = None
    if player_id is not None:
        bet = uow.shared.bet(table_id, state.shoe, state.round, player_id)
        if bet is not None:
            waiting = (
                state.deadline is not None
                and awaits_decision(
                    shoe.round(state.round), _engine_bet(bet, player_id) or _missing()
                )
                and state.phase.value == "decisions"
            )
            balance = money.wallet_for(uow).known_balance(
                uow, dict(uow.ledger.balances(player_id)).get(bet.currency)
            )
            my_bet = bet_view(bet, balance, awaiting=waiting)
    public = shoe.public()
    return {
        "table_id": table_id,
        "currency": table.currency,
        "shoe": {
            "index": shoe.index,
            "commitment": public["commitment"],
            "burn": public["burn"],
            "cut": public["cut"],
            "rounds_dealt": state.round,
        },
        "round": state.round,
        "phase": state.phase.value,
        "opened_at": state.opened_at,
        "closes_at": state.closes_at,
        "deadline": state.deadline,
        "next_at": state.next_at,
        "cards": cards,
        "bettors": _bettors(uow, table_id, state),
        "at_war": state.at_war,
        "void_reason": state.void_reason,
        "last_event_id": state.seq,
        "server_time": now,
        "my_bet": my_bet,
        "road": road,
    }


def _bettors(uow: UnitOfWork, table_id: str, state: RoundState) -> int:
    """The bettors of the round: counted from its bets while it takes them (the live client
    shows them coming), the dealer's count from the close of betting on."""
    if state.phase.value == "betting":
        return uow.shared.counts(table_id, state.shoe, state.round)["bettors"]
    return state.bettors


def _cards(state: RoundState) -> dict[str, Any]:
    shown = list(state.cards)
    player, dealer = (shown[0], shown[1]) if len(shown) >= 2 else (None, None)
    wars = [
        {"player_card": shown[i], "dealer_card": shown[i + 1]} for i in range(2, len(shown) - 1, 2)
    ]
    winner = None
    if player is not None and dealer is not None:
        from casino.engine.cards import Card

        p, d = Card.parse(player).rank, Card.parse(dealer).rank
        winner = "tie" if p == d else ("player" if p > d else "dealer")
    return {"player_card": player, "dealer_card": dealer, "wars": wars, "winner": winner}


def _road_entry(event: dict[str, Any]) -> dict[str, Any]:
    data = event["data"]
    if event["type"] == "round_voided":
        return {
            "shoe": event["shoe"],
            "round": event["round"],
            "winner": "void",
            "player_card": None,
            "dealer_card": None,
            "ties": 0,
        }
    return {
        "shoe": event["shoe"],
        "round": event["round"],
        "winner": data["winner"],
        "player_card": data["player_card"],
        "dealer_card": data["dealer_card"],
        "ties": data.get("ties", 0),
    }

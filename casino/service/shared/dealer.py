"""The dealer's part: a shared table's round moved on by its clock, one step (or one batch
of settlements) per unit of work, from the state stored after the last one.

``advance`` reads the table, does the one thing that is due and hands back what it did; the
caller commits and calls again. Everything is taken from stored state: a dealer that takes a
table over from one that died continues the same round, and a step can never be stored twice
(compare-and-set on the table's last event id and the lease) nor a bet settled or refunded
twice (each bet's status changes once, with its money, in one transaction).

**Settlement in batches.** The bets of a settled round are paid ``BATCH`` at a time, each
batch one transaction that locks its wallets in one statement in ascending id order (the
order every writer of several wallets takes: casino.store.shared), so settlements never
deadlock with each other or with bets (which lock one wallet). The ``results`` step comes
once every bet is paid.

**Void.** A round whose next step is overdue by ``VOID_AFTER`` (no dealer held the table)
while bets or decisions were still open is voided: every bet gets back all it staked. A
round whose cards are all out is settled instead (its outcome is known).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from casino.engine.casino_war import HandDecision, TableRules
from casino.engine.shared import (
    Phase,
    RoundState,
    SharedBet,
    SharedRules,
    SharedShoe,
    Step,
    close_betting,
    close_decisions,
    deal,
    needs_next_shoe,
    next_round,
    open_table,
    settle,
    settle_bet,
    void,
)
from casino.service.shared import money
from casino.service.shared.bets import count_returns
from casino.service.shared.tables import chain_of, shoe_of
from casino.service.tables import require_table
from casino.store.shared import REFUNDED, SETTLED, SharedBetRecord, SharedTableRecord
from casino.store.uow import UnitOfWork

VOID_AFTER = timedelta(minutes=5)
BATCH = 200
VOIDABLE = frozenset({Phase.BETTING, Phase.CLOSED, Phase.DECISIONS})


class LostTable(RuntimeError):
    """Another dealer stored a step first, or holds the table now: read it again."""


@dataclass(frozen=True)
class Done:
    """What ``advance`` did: ``step`` (a step's name), ``paid`` (bets settled or refunded),
    or nothing (``idle``) with ``due_at``, when to look again."""

    step: str | None = None
    paid: int = 0
    due_at: datetime | None = None

    @property
    def idle(self) -> bool:
        return self.step is None and self.paid == 0


def _shoe_rules(uow: UnitOfWork, table_id: str, shoe: int) -> TableRules:
    rules = uow.shared.shoe_rules(table_id, shoe)
    if rules is None:
        raise RuntimeError(f"shoe {shoe} of table {table_id} is not recorded")
    return TableRules.of(rules)


def _rules(record: SharedTableRecord, table: TableRules) -> SharedRules:
    return SharedRules(table, record.betting_seconds, record.pause_seconds)


def _store(
    uow: UnitOfWork, record: SharedTableRecord, step: Step, holder: str | None, name: str
) -> Done:
    state = step.state
    saved = uow.shared.save_step(
        record.table_id,
        record.seq,
        state.to_dict(),
        state.due_at,
        [event.to_dict() for event in step.events],
        holder,
    )
    if not saved:
        raise LostTable(record.table_id)
    return Done(step=name, due_at=state.due_at)


def _engine_bet(bet: SharedBetRecord) -> SharedBet:
    decision = None
    if bet.decision is not None:
        decision = HandDecision.from_dict(
            {"action": bet.decision, "decided_by": bet.decided_by, "war_tie_bet": bet.war_tie_bet}
        )
    return SharedBet(bet.player_id, bet.ante, bet.tie_bet, decision)


def advance(uow: UnitOfWork, table_id: str, holder: str | None = None) -> Done:
    """Do the one thing due at the table now (a step, or a batch of payments)."""
    record = uow.shared.get(table_id)
    if record is None:
        raise LookupError(table_id)
    now = uow.now()
    if record.state is None:
        return _open(uow, record, now, holder)
    state = RoundState.from_dict(record.state)
    due = state.due_at
    if due is not None and state.phase in VOIDABLE and now - due >= VOID_AFTER:
        return _void(uow, record, state, now, holder)
    table_rules = _shoe_rules(uow, table_id, state.shoe)
    rules = _rules(record, table_rules)
    shoe = shoe_of(record, state.shoe, table_rules)
    phase = state.phase
    if phase is Phase.DECISIONS:
        counts = uow.shared.counts(table_id, state.shoe, state.round)
        everyone = counts["undecided"] == 0
        if not everyone and due is not None and now < due:
            return Done(due_at=due)
        step = close_decisions(
            rules, state, shoe, now, all_decided=everyone, at_war=counts["at_war"]
        )
        return _store(uow, record, step, holder, "close_decisions")
    if due is not None and now < due:
        return Done(due_at=due)
    if phase is Phase.BETTING:
        counts = uow.shared.counts(table_id, state.shoe, state.round)
        step = close_betting(rules, state, now, bettors=counts["bettors"], antes=counts["antes"])
        return _store(uow, record, step, holder, "close_betting")
    if phase is Phase.CLOSED:
        return _store(uow, record, deal(rules, state, shoe, now), holder, "deal")
    if phase in (Phase.DEALT, Phase.WAR):
        paid = _settle_batch(uow, record, state, shoe, table_rules, now)
        if paid:
            return Done(paid=paid)
        return _store(uow, record, settle(rules, state, shoe, now), holder, "settle")
    return _next(uow, record, state, shoe, rules, now, holder)


def _open(uow: UnitOfWork, record: SharedTableRecord, now: datetime, holder: str | None) -> Done:
    table = TableRules.from_dict(require_table(uow, record.table_id).rules)
    shoe = SharedShoe.deal(chain_of(record).seed(1), record.public_value["value"], 1, table)
    uow.shared.add_shoe(record.table_id, 1, shoe.commitment, table.to_dict(), now)
    step = open_table(_rules(record, table), shoe, now, seq=record.seq)
    return _store(uow, record, step, holder, "open_table")


def _next(
    uow: UnitOfWork,
    record: SharedTableRecord,
    state: RoundState,
    shoe: SharedShoe,
    rules: SharedRules,
    now: datetime,
    holder: str | None,
) -> Done:
    if not needs_next_shoe(state, shoe):
        return _store(uow, record, next_round(rules, state, shoe, now), holder, "next_round")
    # The cut card came out: the shoe is over, its seed revealed; the chain's next shoe is
    # dealt under the table's rules as they are now.
    table = TableRules.from_dict(require_table(uow, record.table_id).rules)
    index = shoe.index + 1
    following = SharedShoe.deal(
        chain_of(record).seed(index), record.public_value["value"], index, table
    )
    step = next_round(_rules(record, table), state, shoe, now, following)
    uow.shared.reveal_shoe(record.table_id, shoe.index, shoe.seed.hex(), now)
    uow.shared.add_shoe(record.table_id, index, following.commitment, table.to_dict(), now)
    return _store(uow, record, step, holder, "next_shoe")


def _settle_batch(
    uow: UnitOfWork,
    record: SharedTableRecord,
    state: RoundState,
    shoe: SharedShoe,
    table: TableRules,
    now: datetime,
) -> int:
    bets = uow.shared.unsettled(record.table_id, state.shoe, state.round, BATCH)
    if not bets:
        return 0
    dealt = shoe.round(state.round)
    results = [(bet, settle_bet(table, dealt, _engine_bet(bet))) for bet in bets]
    paying = [bet.wallet_id for bet, result in results if result.payouts.total > 0]
    wallets = {w.id: uow.ledger.adopt(w) for w in uow.shared.lock_wallets(sorted(set(paying)))}
    adapter = money.wallet_for(uow)
    ref = money.reference(record.table_id, state.shoe, state.round)
    count_returns(uow, [(b.player_id, b.currency, r.payouts.total, 0) for b, r in results], now)
    for bet, result in results:
        if result.bets.total != bet.staked:
            raise RuntimeError(f"bet {bet.id} staked {bet.staked}, its result {result.bets}")
        returned = result.payouts.total
        tx_ids = list(bet.transaction_ids)
        if returned > 0:
            wallet = uow.ledger.adopt(wallets[bet.wallet_id])
            moved, tx_id = adapter.credit(
                uow, wallet, bet.player_id, bet.currency, returned, ref, now
            )
            wallets[bet.wallet_id] = moved
            tx_ids.append(tx_id)
        else:
            adapter.settled_lost(uow, bet.player_id, bet.currency, ref)
        decision = result.decision
        settled = replace(
            bet,
            status=SETTLED,
            decision=None if decision is None else decision.action.value,
            decided_by=None if decision is None else decision.decided_by.value,
            payouts=result.payouts.to_dict(),
            returned=returned,
            net=returned - bet.staked,
            transaction_ids=tx_ids,
            settled_at=now,
        )
        if not uow.shared.save_bet(settled):
            raise LostTable(record.table_id)  # another dealer paid it: roll back the batch
    return len(bets)


def _void(
    uow: UnitOfWork,
    record: SharedTableRecord,
    state: RoundState,
    now: datetime,
    holder: str | None,
) -> Done:
    bets = uow.shared.unsettled(record.table_id, state.shoe, state.round, BATCH)
    if bets:
        wallets = {
            w.id: uow.ledger.adopt(w)
            for w in uow.shared.lock_wallets(sorted({bet.wallet_id for bet in bets}))
        }
        adapter = money.wallet_for(uow)
        ref = money.reference(record.table_id, state.shoe, state.round)
        count_returns(uow, [(b.player_id, b.currency, b.staked, b.staked) for b in bets], now)
        for bet in bets:
            wallet = uow.ledger.adopt(wallets[bet.wallet_id])
            moved, tx_id = adapter.refund(
                uow, wallet, bet.player_id, bet.currency, bet.staked, ref, now
            )
            wallets[bet.wallet_id] = moved
            refunded = replace(
                bet,
                status=REFUNDED,
                returned=bet.staked,
                net=0,
                transaction_ids=[*bet.transaction_ids, tx_id],
                settled_at=now,
            )
            if not uow.shared.save_bet(refunded):
                raise LostTable(record.table_id)
        return Done(paid=len(bets))
    table_rules = _shoe_rules(uow, record.table_id, state.shoe)
    reason = "no dealer held the table for 5 minutes"
    step = void(_rules(record, table_rules), state, now, reason)
    return _store(uow, record, step, holder, "void")


def round_summary(state: dict[str, Any] | None) -> str:
    if state is None:
        return "not opened"
    return f"shoe {state['shoe']} round {state['round']} {state['phase']}"

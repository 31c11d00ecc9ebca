"""The audit of shared tables (``shared_rounds_replay``): every bet re-settled on the cards
its shoe deals (re-dealt from the table's chain), every revealed seed checked against the
chain's commitment, and the wallet movements of every bet equal to what it staked and what
it was paid."""

from __future__ import annotations

from collections import defaultdict

from casino.engine.casino_war import TableRules
from casino.engine.errors import EngineError
from casino.engine.shared import settle_bet, verify_seed
from casino.ledger.books import CheckResult, Problems
from casino.service.shared.dealer import _engine_bet
from casino.service.shared.money import reference
from casino.service.shared.tables import shoe_of
from casino.store.shared import AWAITING, OPEN, REFUNDED, SETTLED
from casino.store.uow import UnitOfWork

NAME = "shared_rounds_replay"


def check_shared(uow: UnitOfWork, operator_id: str) -> CheckResult:
    store = uow.shared
    tables, shoes, bets = store.audit_rows(operator_id)
    moves = store.wallet_moves(operator_id)
    problems = Problems()
    records = {record.table_id: record for record in tables}
    rules = {(row["table_id"], row["shoe"]): row["rules"] for row in shoes}
    for row in shoes:
        record = records.get(row["table_id"])
        if row["seed"] is None or record is None:
            continue
        if not verify_seed(bytes.fromhex(row["seed"]), row["shoe"], record.chain_commitment):
            problems.add(
                f"table {row['table_id']} shoe {row['shoe']}: the revealed seed is not the chain's"
            )
    counted: dict[str, int] = defaultdict(int)
    for table_id, bet in bets:
        counted[bet.status] += 1
        where = f"table {table_id} shoe {bet.shoe} round {bet.round} bet {bet.id}"
        record = records.get(table_id)
        shoe_rules = rules.get((table_id, bet.shoe))
        if record is None or shoe_rules is None:
            problems.add(f"{where}: no table or shoe")
            continue
        debited, credited = moves.get(
            (reference(table_id, bet.shoe, bet.round), bet.player_id), (0, 0)
        )
        if debited != bet.staked:
            problems.add(f"{where}: staked {bet.staked} but the wallet paid {debited}")
        if bet.status in (OPEN, AWAITING):
            if credited:
                problems.add(f"{where}: open, yet {credited} paid back")
            continue
        if credited != (bet.returned or 0):
            problems.add(f"{where}: returned {bet.returned} but the wallet got {credited}")
        if bet.status == REFUNDED:
            if bet.returned != bet.staked:
                problems.add(f"{where}: refunded {bet.returned} of {bet.staked}")
            continue
        if bet.status != SETTLED:
            problems.add(f"{where}: unknown status {bet.status}")
            continue
        try:
            table = TableRules.from_dict(shoe_rules)
            dealt = shoe_of(record, bet.shoe, table).round(bet.round)
            result = settle_bet(table, dealt, _engine_bet(bet))
        except (EngineError, ValueError) as exc:
            problems.add(f"{where}: cannot be replayed: {exc}")
            continue
        if result.payouts.to_dict() != bet.payouts or result.payouts.total != bet.returned:
            problems.add(f"{where}: paid {bet.payouts} but the cards pay {result.payouts}")
        if bet.net != (bet.returned or 0) - bet.staked:
            problems.add(f"{where}: net {bet.net} is not returned - staked")
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counted.items())) or "no bets"
    return problems.result(NAME, f"shared bets re-settled from their shoes: {summary}")

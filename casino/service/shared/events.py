"""A shared table's events, for followers that poll or resume a stream."""

from __future__ import annotations

from typing import Any

from casino.service.errors import Invalid
from casino.service.shared.tables import require_shared
from casino.service.tables import require_table
from casino.store.uow import UnitOfWork


def resume_point(after: int, last_event_id: str | None) -> int:
    """Where a follower resumes: ``Last-Event-ID`` (what a reconnecting EventSource sends)
    when given, else ``after``."""
    if last_event_id is None or last_event_id.strip() == "":
        return after
    text = last_event_id.strip()
    if not text.isdigit() or len(text) > 18:
        raise Invalid("Last-Event-ID is an event id, a whole number", code="invalid_request")
    return max(after, int(text))


def events_after(uow: UnitOfWork, table_id: str, after: int, limit: int) -> dict[str, Any]:
    require_table(uow, table_id)
    record = require_shared(uow, table_id)
    events = uow.shared.events_after(table_id, after, limit)
    last = events[-1]["id"] if events else max(after, 0)
    return {"events": events, "last_event_id": max(last, 0) if events else record.seq}


def shoe_document(
    uow: UnitOfWork, table_id: str, index: int, player_id: str | None
) -> dict[str, Any]:
    """A shoe of the table as published (docs/fairness.md section 17): its public part while
    it is dealt; once over, its seed, order and rounds, and (for a player) the player's own
    results in it, which ``casino verify --shoe`` re-deals and re-settles."""
    from casino.engine.casino_war import TableRules
    from casino.engine.shared import PublicValue, SharedBet, settle_bet
    from casino.engine.shared.record import bettor_results, shoe_record, with_bets
    from casino.service.errors import NotFound
    from casino.service.shared.dealer import _engine_bet
    from casino.service.shared.tables import shared_rules, shoe_of

    require_table(uow, table_id)
    record = require_shared(uow, table_id)
    row = next((s for s in uow.shared.shoes(table_id) if s["shoe"] == index), None)
    if row is None:
        raise NotFound("no such shoe at this table", code="shoe_not_found")
    rules = TableRules.from_dict(row["rules"])
    shoe = shoe_of(record, index, rules)
    revealed = row["seed"] is not None
    document = shoe_record(
        shoe,
        shared_rules(record, row["rules"]),
        bytes.fromhex(record.chain_commitment),
        PublicValue.from_dict(record.public_value),
        revealed=revealed,
    )
    if not revealed or player_id is None:
        return document
    results = []
    for bet in uow.shared.player_bets(table_id, index, player_id):
        if bet.status == "settled":
            engine_bet: SharedBet = _engine_bet(bet)
            results.append((bet.round, settle_bet(rules, shoe.round(bet.round), engine_bet)))
    return with_bets(document, bettor_results(results))

"""Casino War tables: currency, rules and their exact theoretical RTP.

Rules are stored as the engine's ``TableRules.to_dict()``; every round keeps its own copy, so
changing a table never alters a round already started.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.table_odds import table_odds
from casino.service.common import check_currency
from casino.service.errors import Conflict, Invalid, NotFound
from casino.service.shared.tables import check_shared_rules, clock_view, make_shared
from casino.service.views import TableView
from casino.store.records import TableRecord
from casino.store.shared import SharedTableRecord
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
UPDATABLE = {"currency", "active"}
#: The deepest repeated wars whose round figures a table's ``rtp`` computes (see ``_rtp``).
ROUND_FIGURES_MAX_WAR_TIES = 4


def _fraction(value: Fraction) -> dict[str, Any]:
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}


@lru_cache(maxsize=256)
def _rtp(rules: TableRules) -> dict[str, Any]:
    """The exact figures of the table's bets (casino.engine.table_odds): per initial bet
    (``war``, ``surrender``, ``tie_bet`` as always, and the new bets where offered) and, in
    ``bets``, both conventions; ``round``: a round of ``max_hands`` hands."""
    odds = table_odds(rules)
    view: dict[str, Any] = {name: _fraction(value) for name, value in odds.rtp().items()}
    view["bets"] = {name: figures.to_json() for name, figures in odds.bets.items()}
    # The round's variance needs the joint distribution of two hands, whose cost grows
    # steeply with the repeated wars (some 15 s at 5 ties in a row): beyond
    # ROUND_FIGURES_MAX_WAR_TIES it is left to ``casino odds``, not computed in a request.
    cheap = not rules.repeats_wars or rules.max_war_ties <= ROUND_FIGURES_MAX_WAR_TIES
    view["round"] = odds.round_moments(rules.max_hands).to_json() if cheap else None
    return view


def rtp_view(rules: TableRules) -> dict[str, Any]:
    return copy.deepcopy(_rtp(rules))


def table_view(table: TableRecord, shared: SharedTableRecord | None = None) -> TableView:
    rules = TableRules.from_dict(table.rules)
    return TableView(
        id=table.id,
        currency=table.currency,
        rules=rules.to_dict(),
        rtp=rtp_view(rules),
        active=table.active,
        created_at=table.created_at,
        updated_at=table.updated_at,
        mode="private" if shared is None else "shared",
        shared=None if shared is None else clock_view(shared, table.rules),
    )


def require_table(uow: UnitOfWork, table_id: str) -> TableRecord:
    table = uow.tables.get(table_id)
    if table is None:
        raise NotFound("no such table", code="table_not_found")
    return table


def list_tables(uow: UnitOfWork) -> list[TableView]:
    tables = uow.tables.all()
    shared = uow.shared.of(table.id for table in tables)
    return [table_view(table, shared.get(table.id)) for table in tables]


def get_table(uow: UnitOfWork, table_id: str) -> TableView:
    return table_view(require_table(uow, table_id), uow.shared.get(table_id))


def create_table(
    uow: UnitOfWork,
    table_id: str,
    currency: str,
    rules: TableRules,
    active: bool = True,
    *,
    mode: str = "private",
    clock: dict[str, Any] | None = None,
) -> TableView:
    """A private table, or (``mode`` shared) a shared one with its ``clock``
    (betting_seconds, pause_seconds) and its chain of shoe seeds (docs/shared-tables.md)."""
    if not isinstance(table_id, str) or not _SLUG.fullmatch(table_id):
        raise Invalid(
            "table id must be 1-64 lowercase letters, digits and inner hyphens",
            code="invalid_table_id",
        )
    check_currency(currency, uow.currencies)
    if not isinstance(rules, TableRules):
        raise InvalidRules("rules must be TableRules")
    if uow.tables.get(table_id) is not None:
        raise Conflict("a table with this id exists", code="duplicate_table")
    if mode not in ("private", "shared"):
        raise Invalid("mode must be private or shared", code="invalid_request")
    if mode == "private" and clock:
        raise Invalid("a clock is a shared table's", code="invalid_request")
    if mode == "shared":
        check_shared_rules(rules)
    now = utcnow()
    table = TableRecord(table_id, currency, rules.to_dict(), bool(active), now, now)
    uow.tables.add(table)
    uow.ledger.ensure_accounts(currency)
    shared = make_shared(uow, table_id, rules, clock or {}) if mode == "shared" else None
    return table_view(table, shared)


def update_table(uow: UnitOfWork, table_id: str, changes: dict[str, Any]) -> TableView:
    """Change rules (any ``TableRules`` field), ``currency`` or ``active``.

    Unknown rule names raise ``InvalidRules(code="unknown_rule")``; the merged rules are
    validated as a whole. Rounds already started keep their own rules snapshot.
    """
    table = require_table(uow, table_id)
    rule_changes = {k: v for k, v in changes.items() if k not in UPDATABLE}
    rules = TableRules.from_dict({**table.rules, **rule_changes})
    shared = uow.shared.get(table_id)
    if shared is not None:
        check_shared_rules(rules)  # a shoe under way keeps its own snapshot
    currency = table.currency
    if "currency" in changes:
        currency = check_currency(changes["currency"], uow.currencies)
        uow.ledger.ensure_accounts(currency)
    active = table.active
    if "active" in changes:
        if not isinstance(changes["active"], bool):
            raise Invalid("active must be true or false", code="invalid_active")
        active = changes["active"]
    updated = replace(
        table, currency=currency, active=active, rules=rules.to_dict(), updated_at=utcnow()
    )
    uow.tables.replace(updated)
    return table_view(updated, shared)

"""Launch for an operator (docs/operators.md): the operator's back end names its player by its
own reference, and gets the game client's launch URL in one call.

``launch`` finds the operator's player with that ``external_ref`` or makes it, checks the
currency (the operator's, and the table's) and opens a game session at the table exactly as
``POST /players/{id}/sessions`` does (casino.service.game_sessions), keeping the operator's
own session token with it: a seamless wallet's calls carry it back as ``session``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from casino.service.common import check_currency
from casino.service.errors import Invalid
from casino.service.game_sessions import Launch, create_session
from casino.service.players import find_or_create_player
from casino.service.tables import require_table
from casino.store.uow import UnitOfWork

MAX_OPERATOR_SESSION = 255


@dataclass(frozen=True)
class OperatorLaunch:
    launch: Launch
    external_ref: str
    currency: str
    #: Whether this launch made the player.
    player_created: bool


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _operator_session(value: object) -> str | None:
    if value is None:
        return None
    # No control character (C0, DEL, C1): the rule the API's spec states as a pattern.
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= MAX_OPERATOR_SESSION
        or _CONTROL.search(value) is not None
    ):
        raise Invalid(
            f"operator_session is 1 to {MAX_OPERATOR_SESSION} characters, no control character",
            code="invalid_operator_session",
        )
    return value


def launch(
    uow: UnitOfWork,
    external_ref: str,
    currency: str,
    table_id: str,
    now: datetime,
    *,
    operator_session: str | None = None,
    language: str | None = None,
    ttl_seconds: int | None = None,
) -> OperatorLaunch:
    """A game session of the operator's player ``external_ref`` (made if new) at the table,
    in ``currency``, and its one-time launch code."""
    check_currency(currency, uow.currencies)
    kept = _operator_session(operator_session)
    table = require_table(uow, table_id)
    if table.currency != currency:
        raise Invalid(
            f"table {table_id} plays in {table.currency}, not {currency}",
            code="table_currency_mismatch",
        )
    player, created = find_or_create_player(uow, external_ref)
    started = create_session(
        uow,
        player.id,
        now,
        table_id=table.id,
        ttl_seconds=ttl_seconds,
        language=language,
        operator_session=kept,
    )
    return OperatorLaunch(started, player.external_ref, currency, created)

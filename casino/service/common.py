"""Small helpers shared by the use cases: lookups, validation, cursors."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection

from casino.service.currencies import lookup
from casino.service.errors import Conflict, Invalid, NotFound
from casino.store.records import PlayerRecord
from casino.store.uow import UnitOfWork

_CURRENCY = re.compile(r"[A-Z]{3}")
MAX_AMOUNT = 10**12
MAX_PAGE = 200


def check_currency(currency: str, accepted: Collection[str] | None = None) -> str:
    """An ISO 4217 code with minor units, one of ``accepted`` (the operator's list)."""
    if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency):
        raise Invalid("currency must be 3 uppercase letters", code="invalid_currency")
    if lookup(currency) is None or (accepted is not None and currency not in accepted):
        listed = ", ".join(sorted(accepted)) if accepted is not None else "ISO 4217 codes"
        raise Invalid(
            f"{currency} is not a currency accepted here ({listed})",
            code="unsupported_currency",
        )
    return currency


def check_amount(amount: int) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_AMOUNT:
        raise Invalid(f"amount must be an integer from 1 to {MAX_AMOUNT}", code="invalid_amount")
    return amount


def require_player(uow: UnitOfWork, player_id: str) -> PlayerRecord:
    player = uow.players.get(player_id)
    if player is None:
        raise NotFound("no such player", code="player_not_found")
    return player


def player_exists(uow: UnitOfWork, player_id: str) -> None:
    if not uow.players.exists(player_id):
        raise NotFound("no such player", code="player_not_found")


def insufficient_funds(needed: int, currency: str) -> Conflict:
    return Conflict(
        f"the wallet does not hold {needed} {currency} minor units",
        code="insufficient_funds",
    )


def clamp_limit(limit: int | None, default: int = 50) -> int:
    if limit is None:
        return default
    return max(1, min(int(limit), MAX_PAGE))


def encode_cursor(*parts: str) -> str:
    raw = "\x1f".join(parts).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, parts: int) -> list[str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        values = base64.urlsafe_b64decode(padded.encode("ascii")).decode().split("\x1f")
    except (ValueError, binascii.Error, UnicodeError):
        raise Invalid("malformed cursor", code="invalid_cursor") from None
    # Cursors we issue hold only ids, digits and ISO timestamps: anything else (NUL, other
    # scripts' digits) is forged and must not reach int() or the database.
    if len(values) != parts or not all(v.isascii() and v.isprintable() for v in values):
        raise Invalid("malformed cursor", code="invalid_cursor")
    return values

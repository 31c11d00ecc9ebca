"""Operators (tenants), managed by the platform: create, list, read, change (docs/operators.md).

An operator is a casino offering the game to its own players: its id (a slug, like a
table's), its name, the currencies it may use (some of the deployment's, or all of them),
its wallet mode (``transfer``: wallets held here; ``seamless``: its own wallet, called per
bet) with the seamless wallet's settings, and whether it is active.

The wallet's signing secret is write-only: no view carries it. Replacing it keeps the old one
valid for ``SECRET_GRACE`` (24 hours), so the operator can switch its wallet over without a
window in which signed requests fail.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from casino.service.auth import create_operator_token
from casino.service.common import check_currency
from casino.service.errors import Conflict, Invalid, NotFound
from casino.store.operator_records import SEAMLESS, TRANSFER, WALLET_MODES, OperatorRecord
from casino.store.uow import UnitOfWork
from casino.wallet.signing import MIN_SECRET_BYTES

_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
#: How long a replaced wallet secret stays valid beside the new one.
SECRET_GRACE = timedelta(hours=24)
DEFAULT_TIMEOUT_MS = 3_000
MAX_TIMEOUT_MS = 60_000
MIN_SECRET_LENGTH = MIN_SECRET_BYTES  # the protocol's floor (docs/integration.md)
MAX_SECRET_LENGTH = 256
MAX_URL_LENGTH = 500
#: What ``update_operator`` accepts; ``wallet`` is a mapping of WALLET_FIELDS.
UPDATABLE = frozenset({"name", "currencies", "wallet", "active"})
WALLET_FIELDS = frozenset(
    {"mode", "url", "secret", "timeout_ms", "close_losing_round_with_zero_win"}
)


@dataclass(frozen=True)
class WalletSettingsView:
    mode: str
    url: str | None
    timeout_ms: int
    close_losing_round_with_zero_win: bool
    #: Whether a signing secret is set (the secret itself is never shown).
    secret_set: bool
    #: Until when the secret replaced last stays valid (None: none is).
    previous_secret_valid_until: datetime | None


@dataclass(frozen=True)
class OperatorView:
    id: str
    name: str
    #: The ISO 4217 codes it may use, sorted.
    currencies: list[str]
    #: True while its currencies are the deployment's (CASINO_CURRENCIES), whatever they are.
    currencies_from_deployment: bool
    wallet: WalletSettingsView
    active: bool
    created_at: datetime
    updated_at: datetime


def operator_view(
    record: OperatorRecord, deployment: Collection[str], now: datetime
) -> OperatorView:
    previous_until = record.wallet_previous_secret_until
    if record.wallet_previous_secret is None or previous_until is None or previous_until <= now:
        previous_until = None
    return OperatorView(
        id=record.id,
        name=record.name,
        currencies=sorted(deployment if record.currencies is None else record.currencies),
        currencies_from_deployment=record.currencies is None,
        wallet=WalletSettingsView(
            mode=record.wallet_mode,
            url=record.wallet_url,
            timeout_ms=record.wallet_timeout_ms,
            close_losing_round_with_zero_win=record.close_losing_round_with_zero_win,
            secret_set=record.wallet_secret is not None,
            previous_secret_valid_until=previous_until,
        ),
        active=record.active,
        created_at=record.created_at,
        updated_at=record.updated_at,
    )


def _not_found() -> NotFound:
    return NotFound("no such operator", code="operator_not_found")


def _invalid_wallet(detail: str) -> Invalid:
    return Invalid(detail, code="invalid_wallet_settings")


def check_operator_id(operator_id: Any) -> str:
    if not isinstance(operator_id, str) or not _SLUG.fullmatch(operator_id):
        raise Invalid(
            "an operator id is 1-64 lowercase letters, digits and inner hyphens",
            code="invalid_operator_id",
        )
    return operator_id


def _name(name: Any) -> str:
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 200 or len(name) > 200:
        raise Invalid("an operator's name is 1 to 200 characters", code="invalid_operator")
    return name.strip()


def _currencies(codes: Any, deployment: Collection[str]) -> tuple[str, ...] | None:
    """Some of the deployment's currencies (None: all of them, whatever they become)."""
    if codes is None:
        return None
    if isinstance(codes, str) or not isinstance(codes, list | tuple) or not codes:
        raise Invalid("currencies is a non-empty list of ISO 4217 codes", code="invalid_operator")
    return tuple(sorted({check_currency(code, deployment) for code in codes}))


def _url(url: Any) -> str:
    if not isinstance(url, str) or not 1 <= len(url) <= MAX_URL_LENGTH:
        raise _invalid_wallet(
            f"wallet url is an http(s) URL of at most {MAX_URL_LENGTH} characters"
        )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise _invalid_wallet("wallet url is an http(s) URL without query or fragment")
    if parts.username is not None or parts.password is not None:
        raise _invalid_wallet("wallet url carries no credentials (the secret signs requests)")
    return url.rstrip("/")


def _secret(secret: Any) -> str:
    if (
        not isinstance(secret, str)
        or not MIN_SECRET_LENGTH <= len(secret) <= MAX_SECRET_LENGTH
        or not secret.isascii()
        or not secret.isprintable()
        or secret != secret.strip()
    ):
        raise _invalid_wallet(
            f"wallet secret is {MIN_SECRET_LENGTH} to {MAX_SECRET_LENGTH} printable ASCII "
            "characters without surrounding spaces"
        )
    return secret


def _timeout(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TIMEOUT_MS:
        raise _invalid_wallet(f"wallet timeout_ms is an integer from 1 to {MAX_TIMEOUT_MS}")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _invalid_wallet("close_losing_round_with_zero_win is true or false")
    return value


def _with_wallet(
    record: OperatorRecord, changes: Mapping[str, Any], now: datetime
) -> OperatorRecord:
    """``record`` with the wallet ``changes`` applied and checked as a whole."""
    unknown = set(changes) - WALLET_FIELDS
    if unknown:
        raise _invalid_wallet(f"unknown wallet settings: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    if "mode" in changes:
        if changes["mode"] not in WALLET_MODES:
            raise _invalid_wallet(f"wallet mode is one of {', '.join(WALLET_MODES)}")
        values["wallet_mode"] = changes["mode"]
    if "url" in changes:
        values["wallet_url"] = None if changes["url"] is None else _url(changes["url"])
    if "timeout_ms" in changes:
        values["wallet_timeout_ms"] = _timeout(changes["timeout_ms"])
    if "close_losing_round_with_zero_win" in changes:
        flag = _flag(changes["close_losing_round_with_zero_win"])
        values["close_losing_round_with_zero_win"] = flag
    if "secret" in changes:
        secret = _secret(changes["secret"])
        if secret != record.wallet_secret:
            # The secret it replaces stays valid for the grace period (one is kept).
            values.update(
                wallet_secret=secret,
                wallet_previous_secret=record.wallet_secret,
                wallet_previous_secret_until=None
                if record.wallet_secret is None
                else now + SECRET_GRACE,
            )
    updated = replace(record, **values)
    if updated.wallet_mode == SEAMLESS and (
        updated.wallet_url is None or updated.wallet_secret is None
    ):
        raise _invalid_wallet("a seamless wallet needs its url and its secret")
    return updated


def create_operator(
    uow: UnitOfWork,
    operator_id: str,
    name: str,
    *,
    currencies: list[str] | None = None,
    wallet: Mapping[str, Any] | None = None,
    active: bool = True,
) -> OperatorView:
    """A new operator (transfer mode unless ``wallet`` says otherwise). The caller may then
    make it a token (casino.service.auth.create_operator_token, acting for it)."""
    check_operator_id(operator_id)
    now = uow.now()
    record = OperatorRecord(
        id=operator_id,
        name=_name(name),
        currencies=_currencies(currencies, uow.deployment_currencies),
        wallet_mode=TRANSFER,
        wallet_url=None,
        wallet_secret=None,
        wallet_previous_secret=None,
        wallet_previous_secret_until=None,
        wallet_timeout_ms=DEFAULT_TIMEOUT_MS,
        close_losing_round_with_zero_win=True,
        active=_active(active),
        created_at=now,
        updated_at=now,
    )
    record = _with_wallet(record, wallet or {}, now)
    if uow.operators.get(operator_id) is not None or not uow.operators.add(record):
        raise Conflict("an operator with this id exists", code="duplicate_operator")
    return operator_view(record, uow.deployment_currencies, now)


#: The name of the admin token an operator is created with.
FIRST_TOKEN_NAME = "created with the operator"


def first_token(uow: UnitOfWork, operator_id: str) -> str:
    """A new admin token for the operator just created (by the platform, whose unit of work
    acts for no operator until now). Returned once."""
    uow.act_for(operator_id)
    return create_operator_token(uow, FIRST_TOKEN_NAME)


def _active(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid("active is true or false", code="invalid_operator")
    return value


def list_operators(uow: UnitOfWork) -> list[OperatorView]:
    now = uow.now()
    return [operator_view(r, uow.deployment_currencies, now) for r in uow.operators.all()]


def operator_ids(uow: UnitOfWork) -> list[str]:
    """Every operator's id (commands that work through the operators one by one)."""
    return uow.operators.ids()


def get_operator(uow: UnitOfWork, operator_id: str) -> OperatorView:
    found = uow.operators.get(operator_id) if isinstance(operator_id, str) else None
    if found is None:
        raise _not_found()
    return operator_view(found, uow.deployment_currencies, uow.now())


def update_operator(uow: UnitOfWork, operator_id: str, changes: Mapping[str, Any]) -> OperatorView:
    """Change the name, the currencies (None: the deployment's), the wallet settings (a new
    ``secret`` keeps the old one valid for SECRET_GRACE) or whether it is active."""
    unknown = set(changes) - UPDATABLE
    if unknown:
        raise Invalid(f"cannot change {', '.join(sorted(unknown))}", code="invalid_operator")
    record = uow.operators.lock(operator_id) if isinstance(operator_id, str) else None
    if record is None:
        raise _not_found()
    now = uow.now()
    values: dict[str, Any] = {}
    if "name" in changes:
        values["name"] = _name(changes["name"])
    if "currencies" in changes:
        values["currencies"] = _currencies(changes["currencies"], uow.deployment_currencies)
    if "active" in changes:
        values["active"] = _active(changes["active"])
    updated = replace(record, **values, updated_at=now)
    if "wallet" in changes:
        wallet = changes["wallet"]
        if not isinstance(wallet, Mapping):
            raise _invalid_wallet("wallet is an object of wallet settings")
        updated = _with_wallet(updated, wallet, now)
    uow.operators.replace(updated)
    return operator_view(updated, uow.deployment_currencies, now)


def seal_wallet_secrets(uow: UnitOfWork) -> int:
    """Seal every operator's wallet secrets under the current key of
    CASINO_WALLET_SECRETS_KEY (those stored in clear and those under an earlier key); the
    number of operators rewritten. Platform-level: reads every operator. LookupError when
    no key is set (nothing to seal with)."""
    return uow.operators.seal_secrets()

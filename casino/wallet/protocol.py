"""The seamless-wallet protocol's messages (docs/integration.md is the spec).

A call says WHAT to do (``Balance``, ``Bet``, ``Win``, ``Rollback``); an attempt to send it
adds a fresh ``request_id``. So a call can be stored (an outbox row: ``to_record``) and sent
again with the same ``transaction_id`` as many times as it takes. A call checks its fields
when it is made: a call that exists is one the protocol allows.

Requests are encoded once, compactly with sorted keys (``encode``); the signature covers
those bytes. The wallet side parses what it received strictly (``parse_request``): JSON
integers only for amounts (no fraction, exponent or string), no repeated keys.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

#: The largest amount or balance: what every JSON parser reads exactly (IEEE doubles hold
#: integers up to 2**53 - 1; JavaScript's JSON.parse and many decoders read numbers so).
MAX_AMOUNT = 2**53 - 1
MAX_ID = 200
MAX_SESSION = 4096
#: The largest body either side reads; requests and answers are a few hundred bytes.
MAX_BODY = 64 * 1024

HEADER_OPERATOR = "X-Casino-Operator"
HEADER_TIMESTAMP = "X-Casino-Timestamp"
HEADER_REQUEST_ID = "X-Request-Id"
HEADER_SIGNATURE = "X-Casino-Signature"

_CURRENCY = re.compile(r"[A-Z]{3}")


class Status(StrEnum):
    OK = "OK"
    NOT_ENOUGH_MONEY = "NOT_ENOUGH_MONEY"
    LIMIT_REACHED = "LIMIT_REACHED"
    PLAYER_BLOCKED = "PLAYER_BLOCKED"
    SESSION_EXPIRED = "SESSION_EXPIRED"
    DUPLICATE_TRANSACTION = "DUPLICATE_TRANSACTION"
    TRANSACTION_NOT_FOUND = "TRANSACTION_NOT_FOUND"
    INVALID_SIGNATURE = "INVALID_SIGNATURE"
    UNKNOWN = "UNKNOWN"


class Endpoint(StrEnum):
    BALANCE = "balance"
    BET = "bet"
    WIN = "win"
    ROLLBACK = "rollback"

    @property
    def path(self) -> str:
        return f"/{self.value}"


class BetKind(StrEnum):
    DEAL = "deal"  # the ante and the tie bet of a round: one debit
    RAISE = "raise"  # going to war


class MalformedRequest(ValueError):
    """A request this protocol does not allow: the wallet answers HTTP 400, changes nothing."""


class MalformedAnswer(ValueError):
    """An answer that is not the protocol's: the caller cannot know what happened."""


def _text(name: str, value: object, longest: int, empty: bool = False) -> None:
    if not isinstance(value, str) or len(value) > longest or (not value and not empty):
        size = f"0 to {longest}" if empty else f"1 to {longest}"
        raise MalformedRequest(f"{name} must be a string of {size} characters")


def _amount(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_AMOUNT:
        raise MalformedRequest(f"{name} must be an integer from {least} to {MAX_AMOUNT}")


@dataclass(frozen=True)
class _Call:
    """What every request names: the player (the operator's id for it), the operator's session
    token given at launch, and the currency."""

    endpoint: ClassVar[Endpoint]
    player: str
    session: str
    currency: str

    def __post_init__(self) -> None:
        _text("player", self.player, MAX_ID)
        _text("session", self.session, MAX_SESSION, empty=True)
        if not isinstance(self.currency, str) or not _CURRENCY.fullmatch(self.currency):
            raise MalformedRequest("currency must be 3 uppercase letters (ISO 4217)")


@dataclass(frozen=True)
class Balance(_Call):
    endpoint: ClassVar[Endpoint] = Endpoint.BALANCE


@dataclass(frozen=True)
class Bet(_Call):
    endpoint: ClassVar[Endpoint] = Endpoint.BET
    #: Whether a wallet's answer closes the round (it is part of every bet and win).
    round_closed: ClassVar[bool] = False
    transaction_id: str
    round_id: str
    amount: int
    kind: BetKind

    def __post_init__(self) -> None:
        super().__post_init__()
        _text("transaction_id", self.transaction_id, MAX_ID)
        _text("round_id", self.round_id, MAX_ID)
        _amount("amount", self.amount, 1)
        if self.kind not in tuple(BetKind):
            raise MalformedRequest("kind must be deal or raise")
        object.__setattr__(self, "kind", BetKind(self.kind))


@dataclass(frozen=True)
class Win(_Call):
    endpoint: ClassVar[Endpoint] = Endpoint.WIN
    round_closed: ClassVar[bool] = True
    transaction_id: str
    round_id: str
    amount: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _text("transaction_id", self.transaction_id, MAX_ID)
        _text("round_id", self.round_id, MAX_ID)
        _amount("amount", self.amount, 0)


@dataclass(frozen=True)
class Rollback(_Call):
    endpoint: ClassVar[Endpoint] = Endpoint.ROLLBACK
    transaction_id: str
    reference_transaction_id: str
    round_id: str
    amount: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _text("transaction_id", self.transaction_id, MAX_ID)
        _text("reference_transaction_id", self.reference_transaction_id, MAX_ID)
        _text("round_id", self.round_id, MAX_ID)
        _amount("amount", self.amount, 1)
        if self.reference_transaction_id == self.transaction_id:
            raise MalformedRequest("a rollback cannot reference itself")


#: Names the rollback of a bet: one bet, one rollback id, however often it is decided on.
_ROLLBACK_IDS = uuid.UUID("7b0e5d1c-3f0a-4c55-9d55-2f0f0c9f2a61")


def rollback_of(bet: Bet, transaction_id: str | None = None) -> Rollback:
    """The rollback that cancels ``bet``: its player, currency, round and amount (§5.4 refuses
    a rollback that differs from its bet), under an id derived from the bet's unless given."""
    return Rollback(
        player=bet.player,
        session=bet.session,
        currency=bet.currency,
        transaction_id=transaction_id or str(uuid.uuid5(_ROLLBACK_IDS, bet.transaction_id)),
        reference_transaction_id=bet.transaction_id,
        round_id=bet.round_id,
        amount=bet.amount,
    )


Call = Balance | Bet | Win | Rollback
Transaction = Bet | Win | Rollback
_CALLS: dict[Endpoint, type[_Call]] = {cls.endpoint: cls for cls in (Balance, Bet, Win, Rollback)}


def is_transaction(call: Call) -> bool:
    return call.endpoint is not Endpoint.BALANCE


def payload(call: Call) -> dict[str, Any]:
    """The body's fields but ``request_id``: the call's fields (and ``round_closed``)."""
    body: dict[str, Any] = asdict(call)
    if isinstance(call, Bet | Win):
        body["round_closed"] = call.round_closed
    if isinstance(call, Bet):
        body["kind"] = call.kind.value
    return body


def encode(call: Call, request_id: str) -> bytes:
    """The request body as sent: compact JSON, keys sorted, ASCII (non-ASCII escaped)."""
    _text("request_id", request_id, MAX_ID)
    body = payload(call) | {"request_id": request_id}
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode("ascii")


def fingerprint(call: Transaction) -> tuple[Any, ...]:
    """What "the same payload" compares for one ``transaction_id``: the endpoint and every
    field of the call but ``session`` (``request_id`` is not a field of a call)."""
    body = asdict(call)
    del body["session"]
    return (call.endpoint.value, *sorted(body.items()))


def to_record(call: Call) -> dict[str, Any]:
    """The call as plain JSON data (an outbox row): ``{"endpoint": ..., <fields>}``."""
    record = {"endpoint": call.endpoint.value} | asdict(call)
    if isinstance(call, Bet):
        record["kind"] = call.kind.value
    return record


def from_record(record: dict[str, Any]) -> Call:
    """The call ``to_record`` wrote."""
    data = dict(record)
    call = _CALLS[Endpoint(data.pop("endpoint"))](**data)
    assert isinstance(call, Balance | Bet | Win | Rollback)
    return call


# ------------------------------------------------------------------ parsing what was received


def _reject_constant(name: str) -> Any:
    raise MalformedRequest(f"{name} is not JSON")


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise MalformedRequest("a key is repeated")
    return dict(pairs)


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        text = body.decode("utf-8")
        data = json.loads(
            text, object_pairs_hook=_object_without_repeats, parse_constant=_reject_constant
        )
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise MalformedRequest(f"the body is not UTF-8 JSON: {error}") from None
    if not isinstance(data, dict):
        raise MalformedRequest("the body must be a JSON object")
    return data


def parse_request(endpoint: str, body: bytes) -> tuple[str, Call]:
    """``(request_id, call)`` of a request to ``/<endpoint>``; MalformedRequest if this page
    of the protocol does not allow it. Fields it does not know are ignored."""
    try:
        kind = Endpoint(endpoint)
    except ValueError:
        raise MalformedRequest(f"no such endpoint: {endpoint!r}") from None
    data = _json_object(body)
    request_id = data.get("request_id")
    _text("request_id", request_id, MAX_ID)
    cls = _CALLS[kind]
    names = [field.name for field in fields(cls)]
    missing = [name for name in names if name not in data]
    if missing:
        raise MalformedRequest(f"missing: {', '.join(missing)}")
    if isinstance(cls, type) and issubclass(cls, Bet | Win):
        expected = cls.round_closed
        if data.get("round_closed") is not expected:
            raise MalformedRequest(f"round_closed must be {json.dumps(expected)}")
    call = cls(**{name: data[name] for name in names})
    assert isinstance(request_id, str) and isinstance(call, Balance | Bet | Win | Rollback)
    return request_id, call


# ------------------------------------------------------------------------------ the answer


@dataclass(frozen=True)
class Answer:
    """A wallet's answer: ``balance`` is the player's balance after the request (required with
    OK), ``operator_transaction_id`` the wallet's own id of the transaction, if it has one."""

    status: Status
    balance: int | None = None
    operator_transaction_id: str | None = None

    def encode(self) -> bytes:
        body: dict[str, Any] = {"status": self.status.value}
        if self.balance is not None:
            body["balance"] = self.balance
        if self.operator_transaction_id is not None:
            body["operator_transaction_id"] = self.operator_transaction_id
        return json.dumps(body, separators=(",", ":")).encode("ascii")


def parse_answer(body: bytes) -> Answer:
    """The answer in a body of HTTP 200; MalformedAnswer if it is not the protocol's."""
    try:
        data = _json_object(body)
    except MalformedRequest as error:
        raise MalformedAnswer(str(error)) from None
    try:
        status = Status(str(data.get("status")))
    except ValueError:
        raise MalformedAnswer(
            f"status is not one of the protocol's: {data.get('status')!r}"
        ) from None
    balance = data.get("balance")
    if balance is not None and (
        isinstance(balance, bool) or not isinstance(balance, int) or abs(balance) > MAX_AMOUNT
    ):
        raise MalformedAnswer(f"balance must be an integer within ±{MAX_AMOUNT}")
    if status is Status.OK and balance is None:
        raise MalformedAnswer("an OK answer must carry the balance")
    reference = data.get("operator_transaction_id")
    if reference is not None and (not isinstance(reference, str) or len(reference) > MAX_ID):
        raise MalformedAnswer(f"operator_transaction_id must be a string of at most {MAX_ID}")
    return Answer(status, balance, reference)

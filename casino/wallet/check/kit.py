"""What a certification check works with: the wallet under test, its test player, and
helpers that make a call, send crafted bytes, read the balance and say what was expected.

Every call whose outcome is unknown (a timeout, a 5xx, a dropped connection) is sent again
as the game server would — the same transaction id, a new request id — so a wallet with
occasional faults still passes; a wallet that never answers fails the check that needed it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from casino.wallet import signing
from casino.wallet.client import Outcome, RawResponse, Transport, TransportError, WalletClient
from casino.wallet.protocol import (
    HEADER_OPERATOR,
    HEADER_REQUEST_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    Answer,
    Balance,
    Bet,
    BetKind,
    Call,
    MalformedAnswer,
    Rollback,
    Status,
    Win,
    parse_answer,
    payload,
)


class CheckFailed(AssertionError):
    """What a check saw that the protocol does not allow."""


@dataclass(frozen=True)
class KitOptions:
    url: str
    secret: bytes
    player: str
    currency: str
    session: str = "casino-wallet-check"
    operator: str = "wallet-check"
    timeout_ms: int = 3000
    attempts: int = 5
    other_currency: str = "XTS"
    expired_session: str | None = None
    blocked_player: str | None = None


BodyBuilder = Callable[[str], bytes]
Signer = Callable[[str, bytes], str]


@dataclass
class Kit:
    options: KitOptions
    client: WalletClient = field(init=False)
    transport: Transport = field(init=False)

    def __post_init__(self) -> None:
        o = self.options
        self.client = WalletClient(o.url, o.operator, [o.secret], o.timeout_ms, max_connections=16)
        self.transport = Transport(o.url, o.timeout_ms, max_connections=4)

    def close(self) -> None:
        self.client.close()
        self.transport.close()

    # ------------------------------------------------------------------------ new calls

    @staticmethod
    def new_id(prefix: str) -> str:
        return f"kit-{prefix}-{uuid.uuid4()}"

    def bet(
        self,
        amount: int,
        round_id: str | None = None,
        transaction_id: str | None = None,
        kind: BetKind = BetKind.DEAL,
        session: str | None = None,
        player: str | None = None,
        currency: str | None = None,
    ) -> Bet:
        o = self.options
        return Bet(
            player or o.player,
            o.session if session is None else session,
            currency or o.currency,
            transaction_id or self.new_id("tx"),
            round_id or self.new_id("round"),
            amount,
            kind,
        )

    def win(
        self,
        bet: Bet,
        amount: int,
        transaction_id: str | None = None,
        session: str | None = None,
    ) -> Win:
        return Win(
            bet.player,
            bet.session if session is None else session,
            bet.currency,
            transaction_id or self.new_id("tx"),
            bet.round_id,
            amount,
        )

    def rollback(
        self,
        bet: Bet,
        transaction_id: str | None = None,
        amount: int | None = None,
        session: str | None = None,
    ) -> Rollback:
        return Rollback(
            bet.player,
            bet.session if session is None else session,
            bet.currency,
            transaction_id or self.new_id("tx"),
            bet.transaction_id,
            bet.round_id,
            bet.amount if amount is None else amount,
        )

    # -------------------------------------------------------------------------- sending

    def send(self, call: Call) -> Outcome:
        """The call until its outcome is definite (at most ``attempts`` tries)."""
        outcome = self.client.send(call)
        for attempt in range(1, self.options.attempts):
            if outcome.definite:
                break
            time.sleep(min(0.02 * 2**attempt, 1.0))
            outcome = self.client.send(call)
        if not outcome.definite:
            raise CheckFailed(
                f"/{call.endpoint.value}: no definite answer in {self.options.attempts}"
                f" attempts (last: {outcome.reason})"
            )
        return outcome

    def expect(self, call: Call, *statuses: Status) -> Outcome:
        outcome = self.send(call)
        if outcome.status not in statuses:
            wanted = " or ".join(status.value for status in statuses)
            raise CheckFailed(f"/{call.endpoint.value}: expected {wanted}, got {outcome.status}")
        return outcome

    def exchange(
        self,
        path: str,
        build: BodyBuilder,
        timestamp_offset: int = 0,
        signer: Signer | None = None,
    ) -> RawResponse:
        """Crafted bytes (``build(request_id)``), signed by ``signer(timestamp, body)`` (default:
        correctly), sent until an answer that is not a transport failure or 5xx."""
        last = ""
        for attempt in range(self.options.attempts):
            if attempt:
                time.sleep(min(0.02 * 2**attempt, 1.0))
            request_id = str(uuid.uuid4())
            body = build(request_id)
            timestamp = str(int(time.time()) + timestamp_offset)
            signature = (signer or self.sign)(timestamp, body)
            headers = {
                "Content-Type": "application/json",
                HEADER_OPERATOR: self.options.operator,
                HEADER_TIMESTAMP: timestamp,
                HEADER_REQUEST_ID: request_id,
                HEADER_SIGNATURE: signature,
            }
            try:
                raw = self.transport.request("POST", path, body, headers)
            except TransportError as error:
                last = error.reason
                continue
            if raw.status < 500:
                return raw
            last = f"HTTP {raw.status}"
        raise CheckFailed(f"{path}: no answer in {self.options.attempts} attempts (last: {last})")

    def sign(self, timestamp: str, body: bytes) -> str:
        return signing.signature_header([self.options.secret], timestamp, body)

    def answer_of(self, raw: RawResponse, path: str) -> Answer:
        if raw.status != 200:
            raise CheckFailed(f"{path}: expected HTTP 200, got {raw.status}")
        try:
            answer = parse_answer(raw.body)
        except MalformedAnswer as error:
            raise CheckFailed(f"{path}: not the protocol's answer: {error}") from None
        return answer

    # -------------------------------------------------------------------------- balances

    def balance(self) -> int:
        o = self.options
        outcome = self.expect(Balance(o.player, o.session, o.currency), Status.OK)
        assert outcome.balance is not None
        return outcome.balance

    def expect_balance(self, expected: int, what: str) -> None:
        actual = self.balance()
        if actual != expected:
            raise CheckFailed(f"{what}: the balance is {actual}, expected {expected}")

    @staticmethod
    def expect_answered_balance(outcome: Outcome, expected: int) -> None:
        if outcome.balance != expected:
            raise CheckFailed(
                f"/{outcome.call.endpoint.value} answered balance {outcome.balance},"
                f" expected {expected}"
            )

    @staticmethod
    def expect_same_reference(first: Outcome, again: Outcome) -> None:
        if again.operator_transaction_id != first.operator_transaction_id:
            raise CheckFailed(
                f"a repeat answered operator_transaction_id {again.operator_transaction_id!r},"
                f" the first answer {first.operator_transaction_id!r}"
            )


def body_of(call: Call, request_id: str, **overrides: object) -> dict[str, object]:
    """A call's body as a dict, to be altered and written by hand."""
    return payload(call) | {"request_id": request_id} | overrides


def compact(data: dict[str, object]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()

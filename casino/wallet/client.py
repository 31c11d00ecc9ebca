"""The game server's client of an operator's wallet.

``WalletClient.send(call)`` makes one attempt and always returns an ``Outcome``: either a
**definite** answer of the wallet (OK or a refusal) or **UNKNOWN** — a timeout, a connection
error, an HTTP status other than 200, a body that is not the protocol's, or the status
UNKNOWN. It never raises for what the network or the wallet did, so its caller never has to
guess: a definite outcome is the wallet's decision; an unknown one may or may not have been
applied, and only sending the same call again (same ``transaction_id``, a new
``request_id``) or rolling the bet back settles it.

urllib3 carries the requests: a thread-safe pool of persistent connections, the body sent
as the exact bytes that were signed, a connect and read timeout, and no retries or
redirects of its own (a retry is the caller's decision, with a new request id).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Protocol
from urllib.parse import urlsplit

import urllib3
from urllib3.exceptions import HTTPError, NewConnectionError, TimeoutError

from casino.wallet import signing
from casino.wallet.protocol import (
    HEADER_OPERATOR,
    HEADER_REQUEST_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    MAX_BODY,
    Call,
    Endpoint,
    MalformedAnswer,
    Status,
    encode,
    parse_answer,
)

log = logging.getLogger("casino.wallet")
DEFAULT_TIMEOUT_MS = 3000
#: How long a win or rollback is sent again before it is left for a person (configurable).
DEFAULT_RETRY_WINDOW_SECONDS = 24 * 3600
_LONGEST_RETRY_DELAY = 300.0


def retry_delay(attempts: int) -> float:
    """Seconds to wait before sending a win or rollback again after ``attempts`` tries
    (docs/integration.md §1): 1 s, 2 s, 4 s … at most 5 minutes."""
    if attempts < 1:
        raise ValueError("a call is retried after at least one attempt")
    return min(2.0 ** min(attempts - 1, 32), _LONGEST_RETRY_DELAY)


# ---------------------------------------------------------------------------- the transport


class TransportError(Exception):
    """No HTTP answer: ``reason`` says why (a timeout, a connection error, a body too large)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: Mapping[str, str]
    body: bytes


class Transport:
    """Signed-or-not HTTP to one base URL over a pool of persistent connections."""

    def __init__(
        self, base_url: str, timeout_ms: int = DEFAULT_TIMEOUT_MS, max_connections: int = 10
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"a wallet URL is http(s)://host[:port][/path]: {base_url!r}")
        if timeout_ms <= 0:
            raise ValueError("the timeout must be positive")
        self.base_url = base_url.rstrip("/")
        self.timeout_ms = timeout_ms
        self._pool = urllib3.PoolManager(
            num_pools=4,
            # Beyond max_connections concurrent calls, extra connections are made and closed.
            maxsize=max_connections,
            block=False,
            retries=False,
        )

    def request(
        self,
        method: str,
        path: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout_ms: int | None = None,
    ) -> RawResponse:
        """One HTTP exchange; TransportError when there is no complete answer."""
        seconds = (timeout_ms or self.timeout_ms) / 1000
        try:
            response = self._pool.request(
                method,
                self.base_url + path,
                body=body,
                headers=dict(headers),
                preload_content=False,
                redirect=False,
                retries=False,
                timeout=urllib3.Timeout(connect=seconds, read=seconds, total=seconds),
            )
        except NewConnectionError as error:  # a subclass of ConnectTimeoutError in urllib3
            raise TransportError(f"connection error: {error.__class__.__name__}") from None
        except TimeoutError:
            raise TransportError("timeout") from None
        except (HTTPError, OSError) as error:
            raise TransportError(f"connection error: {type(error).__name__}") from None
        complete = False
        try:
            data = response.read(MAX_BODY + 1)
            if len(data) > MAX_BODY:
                raise TransportError("the answer is too large")
            complete = True
        except TimeoutError:
            raise TransportError("timeout") from None
        except (HTTPError, OSError) as error:
            raise TransportError(f"connection error: {type(error).__name__}") from None
        finally:
            if not complete:  # unread bytes would garble the connection's next answer
                response.close()
            response.release_conn()
        return RawResponse(response.status, dict(response.headers), data)

    def close(self) -> None:
        self._pool.clear()


# ------------------------------------------------------------------------------ the outcome


@dataclass(frozen=True)
class Outcome:
    """One attempt of one call.

    ``definite``: the wallet decided ``status`` (OK or a refusal). Otherwise ``status`` is
    UNKNOWN and ``reason`` says why: the call may or may not have been applied.
    """

    call: Call
    request_id: str
    status: Status
    definite: bool
    balance: int | None = None
    operator_transaction_id: str | None = None
    http_status: int | None = None
    reason: str = ""
    elapsed_ms: float = field(default=0.0, compare=False)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def done(self) -> bool:
        """The call has had its effect and is finished: OK, or a rollback of a bet the
        wallet never saw (TRANSACTION_NOT_FOUND: final, nothing to cancel)."""
        return self.ok or (
            self.call.endpoint is Endpoint.ROLLBACK and self.status is Status.TRANSACTION_NOT_FOUND
        )

    @property
    def refused(self) -> bool:
        """A definite answer that is not ``done``: the wallet applied nothing."""
        return self.definite and not self.done

    @property
    def send_again(self) -> bool:
        """Whether a win or rollback should be sent again later: no definite answer, or a
        signature refused (a secret being replaced is a configuration state, not a decision
        about the money). Any other refusal is final."""
        return not self.definite or self.status is Status.INVALID_SIGNATURE


class WalletCalls(Protocol):
    """What the service's seamless-wallet adapter needs; tests may give it a fake."""

    def send(self, call: Call, timeout_ms: int | None = None) -> Outcome: ...


# ------------------------------------------------------------------------------- the client


class WalletClient:
    """One operator's wallet. Thread-safe: share one per operator across requests."""

    def __init__(
        self,
        url: str,
        operator: str,
        secrets: Sequence[bytes],
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_connections: int = 10,
        clock: Callable[[], float] = time.time,
        new_request_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        """``secrets``: every secret still valid, the current one first (each signs)."""
        if not secrets:
            raise ValueError("a wallet client needs its secret")
        self.operator = operator
        self.secrets = list(secrets)
        self.transport = Transport(url, timeout_ms, max_connections)
        self.clock = clock
        self.new_request_id = new_request_id

    def send(self, call: Call, timeout_ms: int | None = None) -> Outcome:
        """One attempt of ``call`` with a new request id: a definite answer or UNKNOWN.
        ``timeout_ms`` overrides the client's timeout for this call."""
        request_id = self.new_request_id()
        body = encode(call, request_id)
        timestamp = str(int(self.clock()))
        headers = {
            "Content-Type": "application/json",
            HEADER_OPERATOR: self.operator,
            HEADER_TIMESTAMP: timestamp,
            HEADER_REQUEST_ID: request_id,
            HEADER_SIGNATURE: signing.signature_header(self.secrets, timestamp, body),
        }
        started = time.monotonic()
        try:
            raw = self.transport.request("POST", call.endpoint.path, body, headers, timeout_ms)
        except TransportError as error:
            outcome = _unknown(call, request_id, error.reason)
        else:
            outcome = classify(call, request_id, raw)
        outcome = _timed(outcome, started)
        if not outcome.definite:
            log.warning(
                "wallet %s %s %s: outcome unknown (%s)",
                self.operator,
                call.endpoint.value,
                request_id,
                outcome.reason,
            )
        return outcome

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> WalletClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def classify(call: Call, request_id: str, raw: RawResponse) -> Outcome:
    """The outcome an HTTP answer means (docs/integration.md §4): definite only for HTTP 200
    with the protocol's body, for this request, and a status other than UNKNOWN."""
    if raw.status != 200:
        return _unknown(call, request_id, f"HTTP {raw.status}", raw.status)
    echoed = {key.lower(): value for key, value in raw.headers.items()}.get(
        HEADER_REQUEST_ID.lower()
    )
    if echoed is not None and echoed != request_id:
        return _unknown(call, request_id, f"the answer names request {echoed!r}", raw.status)
    try:
        answer = parse_answer(raw.body)
    except MalformedAnswer as error:
        return _unknown(call, request_id, f"not the protocol's answer: {error}", raw.status)
    if answer.status is Status.UNKNOWN:
        return _unknown(call, request_id, "the wallet answered UNKNOWN", raw.status)
    return Outcome(
        call,
        request_id,
        answer.status,
        definite=True,
        balance=answer.balance,
        operator_transaction_id=answer.operator_transaction_id,
        http_status=raw.status,
    )


def _unknown(call: Call, request_id: str, reason: str, http_status: int | None = None) -> Outcome:
    return Outcome(
        call, request_id, Status.UNKNOWN, definite=False, http_status=http_status, reason=reason
    )


def _timed(outcome: Outcome, started: float) -> Outcome:
    return replace(outcome, elapsed_ms=(time.monotonic() - started) * 1000)

"""Plain records of operators (tenants) and their wallet settings, as the store hands them to
the service layer (no ORM object crosses the seam)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

TRANSFER = "transfer"
SEAMLESS = "seamless"
WALLET_MODES = (TRANSFER, SEAMLESS)


@dataclass(frozen=True)
class SeamlessWallet:
    """How to call a seamless operator's wallet (docs/integration.md)."""

    url: str
    secret: str
    #: The secret replaced last, valid until ``previous_secret_until`` (the grace period).
    previous_secret: str | None
    previous_secret_until: datetime | None
    timeout_ms: int
    close_losing_round_with_zero_win: bool

    def secrets_at(self, now: datetime) -> tuple[bytes, ...]:
        """The secrets valid at ``now``, as ``casino.wallet.signing`` takes them: the
        current one first, then the one it replaced while its grace period lasts."""
        current = self.secret.encode()
        if (
            self.previous_secret is not None
            and self.previous_secret_until is not None
            and now < self.previous_secret_until
        ):
            return (current, self.previous_secret.encode())
        return (current,)

    def __repr__(self) -> str:  # never a secret in a log line or a traceback
        return f"SeamlessWallet(url={self.url!r}, timeout_ms={self.timeout_ms})"


@dataclass(frozen=True)
class OperatorRecord:
    id: str
    name: str
    #: ISO 4217 codes; None: the deployment's configured currencies.
    currencies: tuple[str, ...] | None
    wallet_mode: str
    wallet_url: str | None
    wallet_secret: str | None
    wallet_previous_secret: str | None
    wallet_previous_secret_until: datetime | None
    wallet_timeout_ms: int
    close_losing_round_with_zero_win: bool
    active: bool
    created_at: datetime
    updated_at: datetime

    @property
    def seamless(self) -> SeamlessWallet | None:
        """The wallet to call, for a seamless operator (None in transfer mode)."""
        if self.wallet_mode != SEAMLESS or self.wallet_url is None or self.wallet_secret is None:
            return None
        return SeamlessWallet(
            url=self.wallet_url,
            secret=self.wallet_secret,
            previous_secret=self.wallet_previous_secret,
            previous_secret_until=self.wallet_previous_secret_until,
            timeout_ms=self.wallet_timeout_ms,
            close_losing_round_with_zero_win=self.close_losing_round_with_zero_win,
        )

    def __repr__(self) -> str:  # the secrets stay out of logs and tracebacks
        return (
            f"OperatorRecord(id={self.id!r}, name={self.name!r}, wallet_mode="
            f"{self.wallet_mode!r}, active={self.active!r})"
        )

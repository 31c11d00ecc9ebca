"""The app's clock: the database's (``CASINO_CLOCK`` in the configuration, a callable giving
aware UTC datetimes, else the real time), so the HTTP layer (session expiry) and the use cases
(limit periods, delays, timestamps) share one time. Tests inject one to move time forward
without sleeping."""

from __future__ import annotations

from datetime import datetime

from casino.api.database import database


def now() -> datetime:
    return database().clock()

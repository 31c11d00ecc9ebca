"""The app's clock: ``CLOCK`` in the configuration (a callable giving aware UTC datetimes),
else the real time. Tests inject one to move time forward (session expiry) without sleeping."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import cast

from flask import current_app

from casino.store.models import utcnow


def now() -> datetime:
    configured = current_app.config.get("CLOCK")
    return cast(Callable[[], datetime], configured or utcnow)()

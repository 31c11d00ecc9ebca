"""A shared table's events, for followers that poll or resume a stream."""

from __future__ import annotations

from typing import Any

from casino.service.errors import Invalid
from casino.service.shared.tables import require_shared
from casino.service.tables import require_table
from casino.store.uow import UnitOfWork


def resume_point(after: int, last_event_id: str | None) -> int:
    """Where a follower resumes: ``Last-Event-ID`` (what a reconnecting EventSource sends)
    when given, else ``after``."""
    if last_event_id is None or last_event_id.strip() == "":
        return after
    text = last_event_id.strip()
    if not text.isdigit() or len(text) > 18:
        raise Invalid("Last-Event-ID is an event id, a whole number", code="invalid_request")
    return max(after, int(text))


def events_after(uow: UnitOfWork, table_id: str, after: int, limit: int) -> dict[str, Any]:
    require_table(uow, table_id)
    record = require_shared(uow, table_id)
    events = uow.shared.events_after(table_id, after, limit)
    last = events[-1]["id"] if events else max(after, 0)
    return {"events": events, "last_event_id": max(last, 0) if events else record.seq}

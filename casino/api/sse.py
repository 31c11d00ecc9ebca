"""Server-Sent Events framing, shared by the API (a burst: the events there are, then the
stream ends with a ``retry``) and the event server (casino.api.events_server: the stream
stays open)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from flask import Response, request

#: What a browser waits before reconnecting after a burst (ms).
RETRY_MS = 1000


def frame(event: Mapping[str, Any]) -> bytes:
    """One event: ``id``, ``event`` (its type) and ``data`` (the whole event as JSON)."""
    data = json.dumps(event, separators=(",", ":"), default=str)
    return f"id: {event['id']}\nevent: {event['type']}\ndata: {data}\n\n".encode()


def wants_event_stream() -> bool:
    return request.accept_mimetypes.best_match(
        ["application/json", "text/event-stream"]
    ) == "text/event-stream" and "text/event-stream" in request.headers.get("Accept", "")


def event_stream_burst(events: Iterable[Mapping[str, Any]]) -> Response:
    body = f"retry: {RETRY_MS}\n\n".encode() + b"".join(frame(event) for event in events)
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    return response

"""A request body must arrive within ``CLIENT_BODY_TIMEOUT`` seconds of its headers.

Under a threaded server one slow client holds one thread for as long as it keeps its body
coming, and with nothing bounding the read it could hold it for ever: send the headers of a
100-byte body, then 4 bytes, then nothing. Here the whole body read has a deadline; past it
the request is answered 408 ``request_timeout`` and the thread is free again.

The deadline is enforced on the client's socket, which gunicorn hands to the app as
``environ["gunicorn.socket"]``; servers that do not (Flask's test client) read as before.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from werkzeug.exceptions import RequestTimeout

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class _DeadlineInput:
    """``wsgi.input`` whose every read waits on the socket no longer than the time left."""

    def __init__(self, stream: Any, sock: socket.socket, deadline: float) -> None:
        self._stream = stream
        self._sock = sock
        self._deadline = deadline

    def _call(self, method: str, *args: Any) -> Any:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise RequestTimeout("The request body did not arrive in time.")
        previous = self._sock.gettimeout()
        self._sock.settimeout(left)
        try:
            return getattr(self._stream, method)(*args)
        except TimeoutError:
            raise RequestTimeout("The request body did not arrive in time.") from None
        finally:
            self._sock.settimeout(previous)

    def read(self, *args: Any) -> bytes:
        return bytes(self._call("read", *args))

    def readline(self, *args: Any) -> bytes:
        return bytes(self._call("readline", *args))

    def readlines(self, *args: Any) -> list[bytes]:
        return list(self._call("readlines", *args))

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line


class BodyReadDeadline:
    """WSGI middleware: bound the time a request's body may take to arrive."""

    def __init__(self, app: WSGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get("gunicorn.socket")
        stream = environ.get("wsgi.input")
        if isinstance(sock, socket.socket) and stream is not None and self.seconds > 0:
            deadline = time.monotonic() + self.seconds
            environ["wsgi.input"] = _DeadlineInput(stream, sock, deadline)
        return self.app(environ, start_response)

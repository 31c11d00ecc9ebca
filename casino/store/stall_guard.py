"""The client's own bound on a PostgreSQL exchange: a connection that has waited on the server
longer than its limit is cut.

``statement_timeout`` and ``lock_timeout`` are enforced by the server, so they cannot help
when the server is not reached at all: packets dropped, a network path or a proxy that stops
forwarding. The operating system does not notice either when something in between keeps
acknowledging (a stalled proxy does). A request then waited until gunicorn killed its
worker (31.7 s in the review). Here every wait of a connection on its server is timed, and a
watcher thread shuts down the socket of one that overruns: the waiting request gets an
``OperationalError`` at once (the API answers 503 and the pool discards the connection).

Only psycopg's public surface is used: ``Connection.wait`` (every exchange with the server
goes through it, pipelines and commits included) and ``Connection.fileno``.

A cut says the network to the server stopped answering: a fresh connection would most
likely wait its whole connect timeout too, so the request's thread is told
(``cut_in_this_thread``) and the API answers 503 at once instead of retrying (issue 19: a
silent database costs a request at most ~4 s by default, not the cut plus a reconnect).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import weakref
from typing import Any

import psycopg

log = logging.getLogger(__name__)
_PERIOD = 0.1


_thread = threading.local()


def clear_cut() -> None:
    """Forget an earlier cut seen by this thread (a request starts afresh)."""
    _thread.cut = False


def cut_in_this_thread() -> bool:
    """Whether a wait of this thread on the server was cut since ``clear_cut``."""
    return bool(getattr(_thread, "cut", False))


class GuardedConnection(psycopg.Connection[Any]):
    """A psycopg connection that records since when it waits on the server."""

    _busy_since: float | None = None
    _limit: float | None = None
    _was_cut = False

    def wait(self, gen: Any, *args: Any, **kwargs: Any) -> Any:
        self._busy_since = time.monotonic()
        try:
            return super().wait(gen, *args, **kwargs)
        except BaseException:
            if self._was_cut:
                _thread.cut = True  # the waiting thread's own flag, not the watcher's
            raise
        finally:
            self._busy_since = None


class _Watcher:
    """One daemon thread per process, looking at every guarded connection ten times a second."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: weakref.WeakSet[GuardedConnection] = weakref.WeakSet()
        self._pid: int | None = None

    def watch(self, connection: GuardedConnection, limit: float) -> None:
        connection._limit = limit
        with self._lock:
            self._connections.add(connection)
            if self._pid != os.getpid():  # first use, or a forked child (threads do not fork)
                self._pid = os.getpid()
                threading.Thread(
                    target=self._run, name="casino-db-stall-guard", daemon=True
                ).start()

    def _run(self) -> None:
        while True:
            time.sleep(_PERIOD)
            with self._lock:
                connections = list(self._connections)
            now = time.monotonic()
            for connection in connections:
                since, limit = connection._busy_since, connection._limit
                if since is not None and limit is not None and now - since > limit:
                    _cut(connection, now - since)


def _cut(connection: GuardedConnection, waited: float) -> None:
    try:
        descriptor = os.dup(connection.fileno())
    except (OSError, psycopg.Error):
        return  # closed meanwhile
    log.warning("database did not answer for %.1f s: connection cut", waited)
    connection._was_cut = True
    with socket.socket(fileno=descriptor) as sock, contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    connection._busy_since = None


_watcher = _Watcher()


def connect(limit: float, *args: Any, **kwargs: Any) -> GuardedConnection:
    """``psycopg.connect`` whose every later wait on the server is bounded by ``limit`` s."""
    connection = GuardedConnection.connect(*args, **kwargs)
    _watcher.watch(connection, limit)
    return connection

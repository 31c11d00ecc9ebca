"""How production serves the API: gunicorn's settings, shared by the Procfile and ``casino serve``.

``gunicorn --config python:casino.api.gunicorn_conf wsgi:app`` reads this module; ``casino
serve`` applies the same settings (``settings()``) before its own host, port and workers.

Why these:

* ``gthread`` workers: each worker process answers with ``threads`` threads and its main loop
  keeps the worker's heartbeat, so a slow or idle client holds one thread, never a whole
  worker, and a request waiting on the database is not a reason to kill the worker. (Sync
  workers were stalled for 30 s by three sockets announcing a body they never sent, then
  killed.) An idle connection waits on the main loop's poller without a thread; a body that
  stops arriving is cut after ``CASINO_CLIENT_BODY_TIMEOUT`` (``casino.api.slow_clients``).
* short keep-alive, bounded request line and headers (gunicorn's limits, made explicit);
* no control socket: gunicorn >= 25 opens ``$XDG_RUNTIME_DIR/gunicorn.ctl`` or
  ``~/.gunicorn/gunicorn.ctl`` by default, one path for every instance of a user, so a second
  instance on the host took it over and the first one's shutdown removed it.
  ``GUNICORN_CONTROL_SOCKET=/path`` gives an instance its own instead.

Production still puts a buffering reverse proxy in front (docs/deployment.md): it absorbs
slow clients entirely, terminates TLS and sets the client address header the app trusts
(``CASINO_PROXY_FIX_X_FOR``).

Environment: ``PORT`` (default 8000; bound on all interfaces), ``GUNICORN_BIND`` (overrides
the whole address), ``WEB_CONCURRENCY`` (workers, default 2), ``CASINO_WEB_THREADS`` (threads
per worker, default 8), ``CASINO_WEB_KEEPALIVE`` (seconds an idle connection is kept, default 5).
"""

from __future__ import annotations

import os
from typing import Any

from casino.api.gunicorn_hooks import child_exit, on_exit, prepare_metrics_dir

__all__ = ["child_exit", "on_exit"]


def on_starting(_server: Any) -> None:
    """In the master, before any worker imports the app (and prometheus_client): the
    workers' metrics then add up; ``child_exit`` and ``on_exit`` keep the directory right."""
    prepare_metrics_dir()


bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("CASINO_WEB_THREADS", "8"))
# The main loop's heartbeat: with threads, a long request never stops it, so this only
# catches a worker whose loop is truly stuck.
timeout = 30
graceful_timeout = 10
# Seconds an idle kept connection stays open. gthread parks an idle connection on the
# worker's poller (selectors), not on a thread: idle connections cost a file descriptor each,
# up to worker_connections (1000) - threads per worker, and no thread.
keepalive = int(os.environ.get("CASINO_WEB_KEEPALIVE", "5"))
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# The app is built in each worker, so no database connection crosses a fork.
preload_app = False

_control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
if _control_socket:
    control_socket = _control_socket
else:
    control_socket_disable = True


def post_worker_init(worker: Any) -> None:
    """A worker is up: start its free-play simulation pool before any request needs it."""
    extensions = getattr(getattr(worker, "wsgi", None), "extensions", None)
    pool = extensions.get("casino.simulation_pool") if isinstance(extensions, dict) else None
    if pool is not None:
        pool.warm_up()


_NAMES = (
    "worker_class",
    "threads",
    "timeout",
    "graceful_timeout",
    "keepalive",
    "limit_request_line",
    "limit_request_fields",
    "limit_request_field_size",
    "preload_app",
    "control_socket",
    "control_socket_disable",
    "post_worker_init",
    "on_starting",
    "child_exit",
    "on_exit",
)


def settings() -> dict[str, Any]:
    """This module's settings other than where to listen and how many workers."""
    here = globals()
    return {name: here[name] for name in _NAMES if name in here}

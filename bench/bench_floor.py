"""What a request costs before any betting: the floor under ``bench_api``'s figures.

Drives, with the API bench's own client (16 threads), on kept connections (as ``bench api``
measures) and with a connection per request:

* ``bench/floor_app.py`` under gunicorn with production's serving settings (4 gthread
  workers, keep-alive): a bare Flask JSON POST, no database;
* the service's ``GET /api/v1/health`` (no database either): the app's per-request overhead;

and prints requests/s and CPU per request of the server and of the client. Against the
budget the issue's target leaves (two cores, 0.5 x pgbench TPS), this says how much of a
bet's CPU the HTTP stack alone takes. Informational: it has no target of its own.
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
import time
from dataclasses import dataclass

from harness import http, pg
from harness.cpu import CpuMeter
from harness.server import GunicornInstance

CLIENTS = 16
SECONDS = float(os.environ.get("CASINO_BENCH_FLOOR_SECONDS", "8"))


@dataclass(frozen=True)
class Floor:
    name: str
    per_second: float
    server_ms: float
    client_ms: float


def _drive(
    name: str,
    base_url: str,
    method: str,
    path: str,
    body: object,
    server: GunicornInstance,
    keep_alive: bool,
) -> Floor:
    count = 0
    lock = threading.Lock()
    deadline = time.monotonic() + SECONDS

    def loop() -> None:
        nonlocal count
        while time.monotonic() < deadline:
            reply = http.request(base_url, method, path, json_body=body, keep_alive=keep_alive)
            if reply.status not in (200, 201):
                raise RuntimeError(f"{name}: {reply.kind}")
            with lock:
                count += 1
        http.close_kept_connections()

    meter = CpuMeter({"server": server.pids, "client": lambda: [os.getpid()]})
    meter.start()
    started = time.monotonic()
    threads = [threading.Thread(target=loop) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    used = meter.stop()
    return Floor(
        name, count / elapsed, 1000 * used["server"] / count, 1000 * used["client"] / count
    )


def _measure(name: str, instance: GunicornInstance, method: str, path: str) -> list[Floor]:
    body = {"table_id": "classic", "ante": 100} if method == "POST" else None
    with instance:
        return [
            _drive(f"{name}, {label}", instance.base_url, method, path, body, instance, keep)
            for label, keep in (("keep-alive", True), ("conn/request", False))
        ]


def bare_flask_post(url: str) -> list[Floor]:
    """The bare Flask JSON POST under production's serving settings (no database is read;
    ``url`` only satisfies the harness), kept connections then a connection per request."""
    bare = GunicornInstance(url, [], workers=4, app="bench.floor_app:app", serving_config=True)
    bare.ready_path = "/ready"
    return _measure("bare Flask POST", bare, "POST", "/bet")


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    with pg.scratch_database("floor") as db:
        pg.migrate(db.url)
        bare = GunicornInstance(
            db.url, [], workers=4, app="bench.floor_app:app", serving_config=True
        )
        bare.ready_path = "/ready"
        ours = GunicornInstance(
            db.url, ["op-" + secrets.token_urlsafe(24)], workers=4, serving_config=True
        )
        floors = [
            *_measure("bare Flask POST", bare, "POST", "/bet"),
            *_measure("casino GET /health", ours, "GET", "/api/v1/health"),
        ]
    print(f"{'endpoint':34} {'req/s':>8} {'server ms':>10} {'client ms':>10}  (CPU per request)")
    for floor in floors:
        print(
            f"{floor.name:34} {floor.per_second:>8.0f} {floor.server_ms:>10.2f} "
            f"{floor.client_ms:>10.2f}"
        )
    return True


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

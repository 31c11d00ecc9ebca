"""The hot path's lever (issue 24, item 3): a bet's CPU with ``HOT_PATH`` off and on.

The production app on a scratch PostgreSQL database, driven in this process through its WSGI
interface (werkzeug's test client, as ``bench profile``) but **without a profiler**: a
profiler inflates every Python call alike and so overstates a layer made of many small
calls. One app, ``HOT_PATH`` switched between runs in the order off, on, on, off (repeated
``CASINO_BENCH_HOT_ROUNDS`` times, default 10), ``CASINO_BENCH_HOT_BETS`` bets (default 150)
a run: short runs, so that the machine's drift (other processes) falls on both alike; each
block of four gives one paired difference, and the figure is their median. The request
log off (it writes to stderr); CPU (``time.process_time``) per bet of the
minimum ante, ties surrendered outside the clock. Beside it, the bare Flask JSON POST through
the same client; then the pieces, each timed alone (``timeit``, so steadier than the bets):
the request context a bet's request pushes and pops, and a 201 JSON success finished by
Flask (after-request functions, ``Response.__call__``) against the hot path's finish.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import timeit
import uuid
from typing import Any

from bench import bench_profile
from harness import pg
from harness.api import CLASSIC_RULES

BETS = int(os.environ.get("CASINO_BENCH_HOT_BETS", "150"))
ROUNDS = int(os.environ.get("CASINO_BENCH_HOT_ROUNDS", "10"))


def _player(client: Any) -> dict[str, str]:
    operator = {"Authorization": f"Bearer {bench_profile.OPERATOR}"}
    table = {"id": "classic", "currency": "EUR", "rules": CLASSIC_RULES}
    made_table = client.post("/api/v1/tables", json=table, headers=operator)
    assert made_table.status_code in (201, 409), made_table.get_json()
    made = client.post(
        "/api/v1/players", json={"external_ref": f"hot-{uuid.uuid4()}"}, headers=operator
    )
    player = made.get_json()
    deposit = client.post(
        f"/api/v1/players/{player['id']}/deposits",
        json={"currency": "EUR", "amount": 10**11, "reference": "hot path"},
        headers={**operator, "Idempotency-Key": str(uuid.uuid4())},
    )
    assert deposit.status_code == 201, deposit.get_json()
    return {"Authorization": f"Bearer {player['token']}"}


def _bets(client: Any, auth: dict[str, str], count: int) -> float:
    """CPU seconds per bet (the bet's request only)."""
    spent = 0.0
    for _ in range(count):
        headers = {**auth, "Idempotency-Key": str(uuid.uuid4())}
        started = time.process_time()
        reply = client.post(
            "/api/v1/rounds", json={"table_id": "classic", "ante": 100}, headers=headers
        )
        spent += time.process_time() - started
        body = reply.get_json()
        assert reply.status_code == 201, body
        if body["status"] == "awaiting_decision":
            decided = client.post(
                f"/api/v1/rounds/{body['id']}/decision",
                json={"action": "surrender"},
                headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
            )
            assert decided.status_code == 200, decided.get_json()
    return spent / count


def _floor(count: int) -> float:
    from bench.floor_app import app

    client = app.test_client()
    for _ in range(200):
        client.post("/bet", json={"table_id": "classic", "ante": 100})
    started = time.process_time()
    for _ in range(count):
        client.post("/bet", json={"table_id": "classic", "ante": 100})
    return (time.process_time() - started) / count


def _pieces(app: Any) -> dict[str, float]:
    """Seconds per call of the per-request pieces the hot path keeps or replaces."""
    from werkzeug.test import EnvironBuilder

    from casino.api.hot_path import HotPath

    builder = EnvironBuilder(
        path="/api/v1/rounds",
        method="POST",
        json={"table_id": "classic", "ante": 100},
        headers=[("Authorization", "Bearer x"), ("Idempotency-Key", str(uuid.uuid4()))],
    )
    environ = builder.get_environ()
    count = 5_000

    def context() -> None:
        ctx = app.request_context(dict(environ))
        ctx.push()
        ctx.pop()

    ctx = app.request_context(dict(environ))
    ctx.push()
    try:

        def flask_finish() -> None:
            response = app.response_class('{"a": 1}', status=201, mimetype="application/json")
            response = app.process_response(response)
            list(response(environ, lambda *_: None))

        hot = HotPath(app, app.wsgi_app)

        def hot_finish() -> None:
            response = app.response_class('{"a": 1}', status=201, mimetype="application/json")
            hot._finish(ctx, response)

        finishes = {
            "a 201 finished by Flask (after-request functions, Response.__call__)": flask_finish,
            "the same finished by the hot path": hot_finish,
        }
        timed = {name: timeit.timeit(func, number=count) / count for name, func in finishes.items()}
    finally:
        ctx.pop()
    context_name = "the request context (Request, URL match, push and pop)"
    return {context_name: timeit.timeit(context, number=count) / count, **timed}


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    runs: dict[bool, list[float]] = {False: [], True: []}
    with pg.scratch_database("hot_path") as db:
        pg.migrate(db.url)
        bench_profile._environment(db.url)
        os.environ["CASINO_REQUEST_LOG"] = "0"
        from casino import create_app

        app = create_app("production")
        client = app.test_client()
        auth = _player(client)
        _bets(client, auth, 200)  # warm: prepared statements, caches
        for _ in range(ROUNDS):
            for hot in (False, True, True, False):
                app.config["HOT_PATH"] = hot
                runs[hot].append(_bets(client, auth, BETS))
        app.config["HOT_PATH"] = True
        pieces = _pieces(app)
    floor = _floor(2 * BETS)
    print(
        f"CPU per bet through the WSGI interface, no profiler, {BETS:,} bets a run, "
        f"{2 * ROUNDS} runs each (off, on, on, off ...):"
    )
    for hot, label in ((False, "HOT_PATH off (Flask's dispatch)"), (True, "HOT_PATH on")):
        each = ", ".join(f"{1e6 * seconds:,.0f}" for seconds in runs[hot])
        median = statistics.median(runs[hot])
        print(
            f"  {label:34} {1e6 * median:>7,.0f} us (runs: {each}) = {median / floor:.2f} x floor"
        )
    off = statistics.median(runs[False])
    # Blocks of off, on, on, off: the runs are appended in that order, two per state.
    saved = statistics.median(
        (runs[False][2 * i] + runs[False][2 * i + 1] - runs[True][2 * i] - runs[True][2 * i + 1])
        / 2
        for i in range(ROUNDS)
    )
    print(
        f"the bare Flask JSON POST, same client: {1e6 * floor:,.0f} us; the hot path saves "
        f"{1e6 * saved:,.0f} us per bet (median of {ROUNDS} paired blocks, "
        f"{100 * saved / off:.1f} % of the median bet)"
    )
    print("per-request pieces, each timed alone:")
    for name, seconds in pieces.items():
        print(f"  {name:72} {1e6 * seconds:>6,.1f} us")
    return True


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

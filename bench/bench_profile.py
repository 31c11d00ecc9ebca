"""Where a bet's CPU goes in the app, by layer (issue 24, items 3 and 7).

The production app (``create_app("production")``, as ``wsgi.py`` builds it) on a scratch
PostgreSQL database, driven in this process through its WSGI interface (werkzeug's test
client: no sockets, no gunicorn), under ``cProfile`` with a CPU clock
(``CASINO_BENCH_PROFILE_DUMP=FILE`` also saves the raw profile): ``CASINO_BENCH_PROFILE_BETS``
(default 2,000) bets of the minimum ante, ties surrendered (not counted). Each function's own
CPU time is charged to the layer its file belongs to; C functions (hashing, JSON, the
driver's socket calls) to the layer of whoever called them. Beside it, the bare Flask JSON
POST of ``bench/floor_app.py`` through the same client: the floor ``bench floor`` measures
under gunicorn, here without the HTTP server. The profiler slows everything alike; compare
the shares and the ratio, not the microseconds with ``bench api``'s.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import secrets
import sys
import time
import uuid
from collections import defaultdict
from typing import Any

from harness import pg
from harness.api import CLASSIC_RULES
from harness.server import harness_public_key

BETS = int(os.environ.get("CASINO_BENCH_PROFILE_BETS", "2000"))
OPERATOR = "op-" + secrets.token_urlsafe(24)

#: Path fragments to layers, first match wins.
LAYERS = (
    ("/casino/api/", "casino.api (views, auth, idempotency, errors, observability)"),
    ("/casino/service/", "casino.service (use cases)"),
    ("/casino/engine/", "casino.engine (dealing, settling)"),
    ("/casino/ledger/", "casino.ledger (legs, chain hashes)"),
    ("/casino/store/", "casino.store (statements, unit of work)"),
    ("/casino/", "casino (other)"),
    ("/flask_smorest/", "flask-smorest / webargs / marshmallow"),
    ("/webargs/", "flask-smorest / webargs / marshmallow"),
    ("/marshmallow/", "flask-smorest / webargs / marshmallow"),
    ("/apispec/", "flask-smorest / webargs / marshmallow"),
    ("/flask_limiter/", "flask-limiter / limits"),
    ("/limits/", "flask-limiter / limits"),
    ("/flask/", "flask / werkzeug"),
    ("/werkzeug/", "flask / werkzeug"),
    ("/sqlalchemy/", "sqlalchemy"),
    ("/psycopg/", "psycopg (driver, waits excluded)"),
    ("/prometheus_client/", "prometheus_client"),
    ("/logging/", "logging"),
    ("/json/", "json"),
)


def layer_of(filename: str) -> str:
    for fragment, layer in LAYERS:
        if fragment in filename:
            return layer
    return "other (stdlib, profiler)"


def by_layer(stats: pstats.Stats) -> dict[str, float]:
    """Own CPU seconds per layer; a C function's charged to its callers' layers, in
    proportion to the time each caller spent in it."""
    out: dict[str, float] = defaultdict(float)
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (filename, _, _), (_, _, own, _, callers) in table.items():
        if filename != "~":
            out[layer_of(filename)] += own
            continue
        spent = sum(entry[3] for entry in callers.values()) or 1.0
        if not callers:
            out["other (stdlib, profiler)"] += own
        for (caller_file, _, _), entry in callers.items():
            out[layer_of(caller_file)] += own * entry[3] / spent
    return dict(out)


def _environment(url: str) -> None:
    os.environ.update(
        DATABASE_URL=url,
        CASINO_ENV="production",
        CASINO_OPERATOR_TOKENS=OPERATOR,
        CASINO_SIGNING_PUBLIC_KEY=harness_public_key(),
        RATELIMIT_STORAGE_URI="memory://",
    )


def profile_bets(url: str) -> tuple[dict[str, float], float, int]:
    from casino import create_app

    _environment(url)
    app = create_app("production")
    client = app.test_client()
    operator = {"Authorization": f"Bearer {OPERATOR}"}
    table = {"id": "classic", "currency": "EUR", "rules": CLASSIC_RULES}
    made_table = client.post("/api/v1/tables", json=table, headers=operator)
    assert made_table.status_code in (201, 409), made_table.get_json()
    made = client.post(
        "/api/v1/players", json={"external_ref": f"profile-{uuid.uuid4()}"}, headers=operator
    )
    player = made.get_json()
    deposit = client.post(
        f"/api/v1/players/{player['id']}/deposits",
        json={"currency": "EUR", "amount": 10**11, "reference": "profile"},
        headers={**operator, "Idempotency-Key": str(uuid.uuid4())},
    )
    assert deposit.status_code == 201, deposit.get_json()
    auth = {"Authorization": f"Bearer {player['token']}"}

    def bets(count: int, profiler: cProfile.Profile | None) -> int:
        settled = 0
        for _ in range(count):
            headers = {**auth, "Idempotency-Key": str(uuid.uuid4())}
            if profiler is not None:
                profiler.enable()
            reply = client.post(
                "/api/v1/rounds", json={"table_id": "classic", "ante": 100}, headers=headers
            )
            if profiler is not None:
                profiler.disable()
            body = reply.get_json()
            assert reply.status_code == 201, body
            if body["status"] == "awaiting_decision":
                decided = client.post(
                    f"/api/v1/rounds/{body['id']}/decision",
                    json={"action": "surrender"},
                    headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
                )
                assert decided.status_code == 200, decided.get_json()
            else:
                settled += 1
        return settled

    bets(200, None)  # warm: prepared statements, caches
    profiler = cProfile.Profile(time.process_time)
    started = time.process_time()
    bets(BETS, profiler)
    total = time.process_time() - started
    dump = os.environ.get("CASINO_BENCH_PROFILE_DUMP")
    if dump:  # the raw profile, for pstats / snakeviz
        profiler.dump_stats(dump)
    layers = by_layer(pstats.Stats(profiler))
    return layers, total, BETS


def profile_floor(count: int) -> float:
    from bench.floor_app import app

    client = app.test_client()
    profiler = cProfile.Profile(time.process_time)
    for _ in range(200):
        client.post("/bet", json={"table_id": "classic", "ante": 100})
    for _ in range(count):
        profiler.enable()
        client.post("/bet", json={"table_id": "classic", "ante": 100})
        profiler.disable()
    stats = pstats.Stats(profiler)
    return float(stats.total_tt)  # type: ignore[attr-defined]


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    with pg.scratch_database("profile") as db:
        pg.migrate(db.url)
        layers, _, count = profile_bets(db.url)
    floor = profile_floor(count)
    spent = sum(layers.values())
    print(
        f"CPU per bet in the app (cProfile, CPU clock, {count:,} bets through the WSGI "
        f"interface, no HTTP server): {1e6 * spent / count:,.0f} us under the profiler"
    )
    for layer, seconds in sorted(layers.items(), key=lambda item: -item[1]):
        print(f"  {layer:62} {1e6 * seconds / count:>7,.0f} us  {100 * seconds / spent:5.1f} %")
    print(
        f"the bare Flask JSON POST, same client and profiler: {1e6 * floor / count:,.0f} us; "
        f"a bet costs {spent / floor:.1f} x that (issue 24's target under gunicorn: <= 2 x)"
    )
    return True


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

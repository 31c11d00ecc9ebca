"""What the per-request observability costs: request id, metrics and the JSON log line.

Two measurements, both in CPU time of this process (on a shared machine, waiting for a core
is not a cost), in prometheus_client's multiprocess mode as under gunicorn (mmap'ed files):

* the hooks themselves (``observability._begin`` + ``_finish``), called in a request context
  shaped like a settled bet (a player, a round body noted for the round counters, a 201),
  like a refused bet (a problem document whose code is read back) and like ``/health``;
  with the log line on (written to /dev/null: the write system call is paid) and off;
* ``GET /api/v1/health`` through Flask's test client with and without the hooks; the
  variants are interleaved and the fastest of several runs of each is kept (as timeit
  does), yet on a busy machine this difference is within the noise of a whole request.

Informational: no target. A bet costs about 3 ms of gunicorn CPU (docs/performance.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CALLS = int(os.environ.get("CASINO_BENCH_OBSERVABILITY_CALLS", "20000"))
REQUESTS = int(os.environ.get("CASINO_BENCH_OBSERVABILITY_REQUESTS", "2000"))
REPEATS = 7
BET_CPU_US = 3000.0

ROUND_BODY = {
    "status": "settled",
    "currency": "EUR",
    "bets": {"ante": 500, "tie_bet": 100, "raise": 0},
    "payouts": {"ante": 1000, "tie_bet": 0, "raise": 0},
}


def _app(url: str, request_log: bool, hooks: bool = True) -> Any:
    import config
    from casino import create_app
    from casino.api import observability

    settings = {"DATABASE_URL": url, "REQUEST_LOG": request_log, "RATELIMIT_ENABLED": False}
    app = create_app(type("BenchConfig", (config.TestingConfig,), settings))
    if not hooks:
        app.before_request_funcs[None].remove(observability._begin)
        app.after_request_funcs[None].remove(observability._finish)
    return app


def _cpu_us(call: Callable[[], object], n: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        for _ in range(n):
            call()
        best = min(best, (time.process_time() - started) / n * 1e6)
    return best


def _hooks_us(app: Any, kind: str) -> float:
    """_begin + _finish for one request of the given kind."""
    from flask import Response, g

    from casino.api import metrics, observability
    from casino.api.errors import PROBLEM_MIMETYPE
    from casino.service.auth import Principal

    player = Principal("player", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "player:x")
    if kind == "health":
        path, method = "/api/v1/health", "GET"
        response = Response("{}", status=200, mimetype="application/json")
    elif kind == "bet":
        path, method = "/api/v1/rounds", "POST"
        response = Response("{}", status=201, mimetype="application/json")
    else:
        path, method = "/api/v1/rounds", "POST"
        body = '{"type":"urn:casino:problem:insufficient_funds","title":"Conflict","status":409,'
        body += '"detail":"not enough funds","code":"insufficient_funds"}'
        response = Response(body, status=409, mimetype=PROBLEM_MIMETYPE)
    with app.test_request_context(path, method=method):
        app.preprocess_request()  # routes the request (url_rule), as a real one is

        def one() -> None:
            observability._begin()
            if kind != "health":
                g.principal = player
            if kind == "bet":
                g._casino_metrics_round = (metrics.BET, ROUND_BODY)
            observability._finish(response)

        return _cpu_us(one, CALLS)


def measure() -> None:
    with tempfile.TemporaryDirectory(prefix="casino-bench-obs-") as workdir:
        _measure(f"sqlite:///{Path(workdir) / 'casino.db'}")


def _measure(url: str) -> None:
    from harness import pg

    pg.migrate(url)
    logging_on = _app(url, request_log=True)
    logging_off = _app(url, request_log=False)
    clients = {
        "without the hooks": _app(url, request_log=False, hooks=False).test_client(),
        "with them, log line on": logging_on.test_client(),
    }
    devnull = open(os.devnull, "w")  # noqa: SIM115 (kept open for the whole run)
    real_stderr = sys.stderr
    sys.stderr = devnull  # the log lines, written for real, to nowhere
    try:
        hooks = {
            (kind, log): _hooks_us(logging_on if log else logging_off, kind)
            for kind in ("bet", "refused", "health")
            for log in (True, False)
        }
        for client in clients.values():  # warm up: imports, label children, caches
            for _ in range(200):
                client.get("/api/v1/health")
        whole = {name: float("inf") for name in clients}
        for _ in range(REPEATS):
            for name, client in clients.items():
                started = time.process_time()
                for _ in range(REQUESTS):
                    client.get("/api/v1/health")
                whole[name] = min(whole[name], (time.process_time() - started) / REQUESTS * 1e6)
    finally:
        sys.stderr = real_stderr
        devnull.close()
    print(f"prometheus_client multiprocess mode ({os.environ.get('PROMETHEUS_MULTIPROC_DIR')})")
    print(f"the hooks alone, CPU per request (best of {REPEATS} x {CALLS}):")
    for (kind, log), us in hooks.items():
        line = "with the log line" if log else "metrics only     "
        share = us / BET_CPU_US
        print(f"  {kind:<8} {line} {us:6.1f} us  ({share:.2%} of a bet's ~3 ms)")
    print(f"GET /api/v1/health through the test client (best of {REPEATS} x {REQUESTS}):")
    base = whole["without the hooks"]
    for name, us in whole.items():
        print(f"  {name:<24} {us:7.1f} us  ({us - base:+.1f} us)")


def main() -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        measure()
        return
    # prometheus_client picks its mode at import: measure in a fresh process in the mode
    # gunicorn runs in.
    with tempfile.TemporaryDirectory(prefix="casino-bench-metrics-") as directory:
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": directory}
        root = Path(__file__).resolve().parents[1]
        command = [sys.executable, "-c", "from bench.bench_observability import measure; measure()"]
        subprocess.run(command, cwd=root, env=env, check=True)


if __name__ == "__main__":
    main()

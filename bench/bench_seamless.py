"""Seamless bets/s and p99 beside transfer mode, in the same run (issue 20, item 7).

One gunicorn instance (``CASINO_BENCH_WORKERS`` workers, default 4) on a fresh PostgreSQL
database (SQLite when no server answers), the reference wallet (``casino demo-wallet``, its
own process, no faults) and two operators: ``transfer`` (wallets held here, funded by a
deposit) and ``seamless`` (the demo wallet, called for every debit and credit). 8 client
threads, one player each, bet the minimum ante and surrender every tie, for
``CASINO_BENCH_SECONDS`` (default 10) per mode after a 2 s warm-up, in the order transfer,
seamless, seamless, transfer (the host's speed drifts). A bet counts when its round is
settled; latency is per request (bets and decisions), as the client sees it. No target:
the figures say what a wallet call costs a bet.
"""

from __future__ import annotations

import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import urllib3

from config.token_policy import random_token
from harness import pg
from harness.server import REPO_ROOT, GunicornInstance, free_port, http_status

CLIENTS = 8
CASINO = str(Path(sys.executable).with_name("casino"))


def _casino(*args: str, url: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [CASINO, *args, "--database-url", url],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        check=True,
    )
    return done.stdout


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.http = urllib3.PoolManager(maxsize=CLIENTS * 2, retries=False)

    def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Idempotency-Key": str(uuid.uuid4()),
        }
        reply = self.http.request(
            method,
            self.base + path,
            body=None if body is None else json.dumps(body).encode(),
            headers=headers,
            timeout=30,
        )
        return reply.status, json.loads(reply.data) if reply.data else None


def _player_tokens(client: Client, mode: str, admin: str, wallet_url: str | None) -> list[str]:
    tokens = []
    for n in range(CLIENTS):
        ref = f"{mode}-{n}-{uuid.uuid4().hex[:6]}"
        if mode == "transfer":
            status, made = client.call("POST", "/api/v1/players", admin, {"external_ref": ref})
            assert status == 201, made
            status, _ = client.call(
                "POST",
                f"/api/v1/players/{made['id']}/deposits",
                admin,
                {"currency": "EUR", "amount": 10**11, "reference": ref},
            )
            assert status == 201
            tokens.append(made["token"])
            continue
        _demo_account(wallet_url, ref)
        body = {"player": ref, "currency": "EUR", "table_id": "classic"}
        status, launched = client.call("POST", "/api/v1/sessions", admin, body)
        assert status == 201, launched
        status, exchanged = client.call(
            "POST", "/api/v1/sessions/exchange", "", {"code": launched["launch_code"]}
        )
        assert status == 200, exchanged
        tokens.append(exchanged["token"])
    return tokens


_SECRET = secrets.token_urlsafe(32)


def _demo_account(wallet_url: str | None, ref: str) -> None:
    from casino.wallet.demo.admin import DemoAdmin

    assert wallet_url is not None
    DemoAdmin(wallet_url, [_SECRET.encode()]).put_player(ref, "EUR", balance=10**11)


def _run(client: Client, tokens: list[str], seconds: float) -> tuple[float, float, float]:
    """(settled bets/s, p50 ms, p99 ms) over ``seconds`` after a 2 s warm-up."""
    latencies: list[float] = []
    settled = [0]
    lock = threading.Lock()
    start = time.monotonic() + 2
    stop = start + seconds

    def play(token: str) -> None:
        while time.monotonic() < stop:
            began = time.perf_counter()
            status, data = client.call(
                "POST", "/api/v1/rounds", token, {"table_id": "classic", "ante": 100}
            )
            took = [(time.perf_counter() - began) * 1000]
            assert status == 201, (status, data)
            if data["status"] == "awaiting_decision":
                began = time.perf_counter()
                status, data = client.call(
                    "POST", f"/api/v1/rounds/{data['id']}/decision", token, {"action": "surrender"}
                )
                took.append((time.perf_counter() - began) * 1000)
                assert status == 200, (status, data)
            now = time.monotonic()
            if start <= now < stop:
                with lock:
                    latencies.extend(took)
                    settled[0] += 1

    threads = [threading.Thread(target=play, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return settled[0] / seconds, statistics.median(ordered), p99


def main() -> bool:
    seconds = float(os.environ.get("CASINO_BENCH_SECONDS", "10"))
    workers = int(os.environ.get("CASINO_BENCH_WORKERS", "4"))
    scratch = pg.create_database("bench_seamless") if pg.server_available() else None
    tmp = Path(tempfile.mkdtemp(prefix="bench-seamless-"))
    url = scratch.url if scratch is not None else f"sqlite:///{tmp / 'casino.db'}"
    secret_file = tmp / "wallet.secret"
    secret_file.write_text(_SECRET)
    port = free_port()
    wallet = subprocess.Popen(
        [
            CASINO,
            "demo-wallet",
            "--port",
            str(port),
            "--secret-file",
            str(secret_file),
            "--database",
            str(tmp / "wallet.db"),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wallet_url = f"http://127.0.0.1:{port}"
    app = None
    try:
        pg.migrate(url)
        admins = {}
        for mode in ("transfer", "seamless"):
            extra = (
                []
                if mode == "transfer"
                else [
                    "--seamless",
                    "--wallet-url",
                    wallet_url,
                    "--wallet-secret-file",
                    str(secret_file),
                ]
            )
            out = _casino(
                "operators",
                "create",
                "--id",
                mode,
                "--name",
                mode,
                "--currency",
                "EUR",
                *extra,
                url=url,
            )
            admins[mode] = json.loads(out)["token"]
        app = GunicornInstance(url, [random_token()], workers=workers)
        app.start()
        deadline = time.monotonic() + 20
        while http_status(wallet_url + "/admin/none") is None and time.monotonic() < deadline:
            time.sleep(0.2)
        client = Client(app.base_url)
        players = {}
        for mode, admin in admins.items():
            status, _ = client.call(
                "POST", "/api/v1/tables", admin, {"id": "classic", "currency": "EUR"}
            )
            assert status == 201
            players[mode] = _player_tokens(client, mode, admin, wallet_url)
        results: dict[str, list[tuple[float, float, float]]] = {"transfer": [], "seamless": []}
        for mode in ("transfer", "seamless", "seamless", "transfer"):
            measured = _run(client, players[mode], seconds)
            results[mode].append(measured)
            print(
                f"{mode:9} {measured[0]:8.1f} bets/s  p50 {measured[1]:6.1f} ms  "
                f"p99 {measured[2]:6.1f} ms",
                flush=True,
            )
        database = "PostgreSQL" if scratch is not None else "SQLite"
        print(
            f"\nmode       bets/s   p50 ms   p99 ms   ({database}, 1 instance x {workers} "
            f"workers, {CLIENTS} clients, {seconds:.0f} s x 2 each)"
        )
        for mode, runs in results.items():
            rate = statistics.mean(r[0] for r in runs)
            p50 = statistics.mean(r[1] for r in runs)
            p99 = statistics.mean(r[2] for r in runs)
            print(f"{mode:9} {rate:8.1f} {p50:8.1f} {p99:8.1f}")
        return True
    finally:
        if app is not None:
            app.stop()
        wallet.terminate()
        wallet.wait(timeout=10)
        if scratch is not None:
            pg.drop_database(scratch)

"""Followers one event server holds (``python -m bench sse``): ``FOLLOWERS`` idle SSE
connections to one shared table on one asyncio loop (casino.api.events_server), then one
step of the dealer: the time until every follower has the new event, and the server's
memory per follower. The clients run in a child process, so the server's memory is its own.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
import sys
import threading
import time

from harness import pg

FOLLOWERS = int(os.environ.get("BENCH_SSE_FOLLOWERS", "5000"))
TOKEN = "bench-sse-operator-token-0123456789"


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _clients(port: int, count: int, connected, got, go) -> None:  # type: ignore[no-untyped-def]
    async def follow() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"GET /api/v1/tables/live/events?after=2 HTTP/1.1\r\nAuthorization: Bearer {TOKEN}"
            "\r\n\r\n".encode()
        )
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        with connected.get_lock():
            connected.value += 1
        while True:
            line = await reader.readline()
            if line.startswith(b"data: "):
                with got.get_lock():
                    got.value += 1
                break
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        writer.close()

    async def main() -> None:
        tasks = []
        for _ in range(count):
            tasks.append(asyncio.create_task(follow()))
            if len(tasks) % 200 == 0:
                await asyncio.sleep(0.01)
        await asyncio.gather(*tasks)

    asyncio.run(main())


def main() -> bool:
    if not pg.server_available():
        print("needs PostgreSQL at 127.0.0.1:5432", file=sys.stderr)
        return False
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    from casino.api.events_server import EventServer, run
    from casino.engine.casino_war import TableRules
    from casino.service import tables as table_service
    from casino.service.shared.dealer import advance
    from casino.service.shared.tables import shared_rules_input
    from casino.store.database import Database

    with pg.scratch_database("bench_sse") as db:
        pg.migrate(db.url)
        database = Database.open(db.url)
        with database.unit_of_work("default") as uow:
            rules = TableRules.from_dict(shared_rules_input({}))
            table_service.create_table(
                uow, "live", "EUR", rules, mode="shared", clock={"betting_seconds": 5}
            )
            uow.commit()
        with database.unit_of_work("default") as uow:
            advance(uow, "live")  # events 1 and 2
            uow.commit()
        server = EventServer(database, [TOKEN], [])
        port = 18_000 + os.getpid() % 1000
        ready = threading.Event()
        threading.Thread(
            target=lambda: asyncio.run(run(server, "127.0.0.1", port, ready.set)), daemon=True
        ).start()
        ready.wait(10)
        before = _rss_kb()
        connected = multiprocessing.Value("i", 0)
        got = multiprocessing.Value("i", 0)
        go = multiprocessing.Event()
        clients = multiprocessing.Process(
            target=_clients, args=(port, FOLLOWERS, connected, got, go), daemon=True
        )
        clients.start()
        deadline = time.monotonic() + 120
        while connected.value < FOLLOWERS and time.monotonic() < deadline:
            time.sleep(0.1)
        held = connected.value
        time.sleep(1)
        during = _rss_kb()
        time.sleep(6)  # the betting window closes
        stepped = time.perf_counter()
        with database.unit_of_work("default") as uow:
            advance(uow, "live")  # bets_closed: event 3
            uow.commit()
        while got.value < held and time.perf_counter() - stepped < 60:
            time.sleep(0.005)
        fanned = time.perf_counter() - stepped
        go.set()
        clients.join(30)
        database.dispose()
    print(
        f"{held} of {FOLLOWERS} followers held on one loop; the next event reached "
        f"{got.value} of them {fanned * 1000:.0f} ms after the dealer's commit "
        f"(poll every 200 ms); server memory +{(during - before) / max(held, 1):.1f} kB a "
        f"follower ({(during - before) / 1024:.0f} MB)"
    )
    return held == FOLLOWERS and got.value == held


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

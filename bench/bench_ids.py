"""Why a round's id follows time (casino.store.ids): a bet's insert into the rounds' primary
key once that index outgrows PostgreSQL's cache (issue 24, item 5).

In a scratch database on the machine's server, two tables shaped like ``rounds``' key
(``id varchar(36) primary key``) are filled with ``CASINO_BENCH_IDS_ROWS`` (10,000,000) ids
each: random ones (UUID version 4, as round ids were) and time-ordered ones (version 7, as
they are now). Then ``CASINO_BENCH_IDS_INSERTS`` (20,000) single-row transactions insert new
ids into each, in turn: the index blocks each insert had to read from outside
``shared_buffers`` (``pg_statio_user_indexes.idx_blks_read``) and its wall time. A random
key lands on any of the index's leaf pages, so past the cache most inserts read one; a
time-ordered key lands on the right-hand edge, which stays cached.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable

import psycopg

from casino.store.ids import time_ordered_uuid
from harness import pg

ROWS = int(os.environ.get("CASINO_BENCH_IDS_ROWS", "10000000"))
INSERTS = int(os.environ.get("CASINO_BENCH_IDS_INSERTS", "20000"))
KINDS: dict[str, Callable[[], str]] = {
    "random (v4)": lambda: str(uuid.uuid4()),
    "time-ordered (v7)": time_ordered_uuid,
}


def _fill(connection: psycopg.Connection, table: str, make: Callable[[], str]) -> None:
    connection.execute(f"CREATE TABLE {table} (id varchar(36) PRIMARY KEY, pad bigint)")
    start_ms = time.time_ns() // 1_000_000 - ROWS  # the history: one id a millisecond
    with connection.cursor().copy(f"COPY {table} (id, pad) FROM STDIN") as copy:
        for n in range(ROWS):
            key = time_ordered_uuid(start_ms + n) if make is time_ordered_uuid else make()
            copy.write_row((key, n))
    connection.execute(f"VACUUM ANALYZE {table}")


def _reads(stats: psycopg.Connection, table: str) -> int:
    # From another session: a backend's own counts reach the views when it reports them.
    time.sleep(1.1)
    row = stats.execute(
        "SELECT idx_blks_read FROM pg_statio_user_indexes WHERE relname = %s", (table,)
    ).fetchone()
    return int(row[0]) if row else 0


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    with (
        pg.scratch_database("ids") as db,
        psycopg.connect(db.libpq_url, autocommit=True) as connection,
        psycopg.connect(db.libpq_url, autocommit=True) as stats,
    ):
        buffers = connection.execute("SHOW shared_buffers").fetchone()
        print(f"shared_buffers {buffers[0] if buffers else '?'}; {ROWS:,} rows per table")
        tables = {}
        for n, (label, make) in enumerate(KINDS.items()):
            table = f"ids_{n}"
            started = time.perf_counter()
            _fill(connection, table, make)
            size = connection.execute("SELECT pg_relation_size(%s)", (f"{table}_pkey",)).fetchone()
            print(
                f"{label}: filled in {time.perf_counter() - started:.0f} s, "
                f"primary key {int(size[0]) / 2**20 if size else 0:,.0f} MiB",
                flush=True,
            )
            tables[label] = table
        results = {label: [0, 0.0] for label in KINDS}
        # In turns of 1,000 so that both kinds meet the same machine.
        for _ in range(max(1, INSERTS // 1000)):
            for label, make in KINDS.items():
                table = tables[label]
                before = _reads(stats, table)
                started = time.perf_counter()
                for _ in range(1000):
                    connection.execute(
                        f"INSERT INTO {table} (id, pad) VALUES (%s, 0)",
                        (make(),),
                    )
                results[label][1] += time.perf_counter() - started
                results[label][0] += _reads(stats, table) - before
    done = max(1, INSERTS // 1000) * 1000
    print(f"{'key':20} {'index blocks read per insert':>30} {'ms per insert':>14}")
    for label, (reads, seconds) in results.items():
        print(f"{label:20} {reads / done:>30.3f} {seconds / done * 1000:>14.3f}")
    random_reads = results["random (v4)"][0] / done
    ordered_reads = results["time-ordered (v7)"][0] / done
    return ordered_reads <= random_reads


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

"""``make soak``: the long form of the load + faults run (issue 5, sections 1 and 2).

Two gunicorn instances (2 workers each) on one fresh PostgreSQL database, 32 client threads
over 50 players for ``--minutes`` (default 10): shared wallets, ties decided both ways,
retries with the same Idempotency-Key, reused keys, simultaneous duplicates, operator
deposits and withdrawals, reads. A worker is killed with ``kill -9`` every ``--kill-every``
seconds (alternating instances) and PostgreSQL is restarted once, halfway.

By default the database lives on a private PostgreSQL server started for the run, so the
restart disturbs nobody; ``--shared-server`` uses the machine's server instead
(``CASINO_TEST_POSTGRES_URL``) and restarts it with ``pg_ctlcluster``.

Prints requests, errors by kind, bets settled, faults injected, recovery times and the audit
result; exits 1 if any invariant failed. Only 127.0.0.1 is ever contacted, and every loop
stops by itself at the deadline.
"""

from __future__ import annotations

import argparse
import sys

from harness.scenario import Scenario, run_scenario


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between kills")
    parser.add_argument("--no-restart", action="store_true", help="do not restart PostgreSQL")
    parser.add_argument("--shared-server", action="store_true")
    parser.add_argument("--seed", type=int, default=None, help="client-side choices")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    seconds = args.minutes * 60
    kills = max(1, int(seconds // args.kill_every))
    kill_at = [(i + 0.5) / kills for i in range(kills)]
    scenario = Scenario(
        name="soak",
        instances=2,
        workers=2,
        load={
            "duration": seconds,
            "threads": args.threads,
            "players": args.players,
            "shared_players": min(10, args.players),
            "seed": args.seed,
        },
        kill_worker_at=kill_at,
        restart_postgres_at=None if args.no_restart else 0.5,
        postgres="shared" if args.shared_server else "private",
    )
    print(
        f"soak: {args.minutes:g} min, {args.threads} threads, {args.players} players, "
        f"{len(kill_at)} worker kills, {'no' if args.no_restart else 'one'} PostgreSQL restart",
        flush=True,
    )
    result = run_scenario(scenario, log=lambda line: print(line, flush=True))
    print(result.summary())
    print(f"faults injected: {len(result.faults)}")
    if result.report is not None and result.report.audit is not None:
        print("audit output (tail):")
        print("\n".join(result.report.audit.output.splitlines()[-15:]))
    ok = not result.failures
    print(f"soak {'PASSED' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""One whole run: fresh database, gunicorn instances, load with faults, then every check.

Used by the system test (short), ``make soak`` (long) and ``make bench`` (no faults).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from harness import pg
from harness.cpu import CpuMeter, pids_running
from harness.faults import FaultEvent, FaultPlan
from harness.invariants import InvariantReport, check_all
from harness.load import LoadConfig, LoadRun, Stats, http_ready, percentile
from harness.sealer import SealerProcess, new_record, seal_once
from harness.server import GunicornInstance


@dataclass
class Scenario:
    name: str = "load"
    instances: int = 2
    workers: int = 2
    threads_per_worker: int = 1
    load: dict[str, Any] = field(default_factory=dict)  # LoadConfig fields
    kill_worker_at: list[float] = field(default_factory=list)
    restart_postgres_at: float | None = None
    # "private": a throw-away server of our own (restarting it disturbs nobody);
    # "shared": the machine's server at CASINO_TEST_POSTGRES_URL, restarted with pg_ctlcluster.
    postgres: str = "private"
    check: bool = True
    warmup: float = 0.0  # seconds of the same load before the measured run (bench)
    # Ledger sealers running beside the load, as on two hosts (0: none), and their period.
    sealers: int = 2
    seal_every: float = 1.0
    #: Serve with production's settings (gthread workers, keep-alive) rather than the
    #: harness's sync workers, which close every connection after one request.
    serving_config: bool = False
    #: Run on this database as it is (a filled ledger: ``bench_growth``) instead of a fresh
    #: scratch database; ``postgres`` must then be "shared".
    database_url: str | None = None


@dataclass
class ScenarioResult:
    scenario: Scenario
    run: LoadRun
    elapsed: float
    faults: list[FaultEvent]
    fault_errors: list[str]
    recovery_seconds: float | None
    report: InvariantReport | None
    server_logs: list[str]
    #: CPU seconds spent during the measured run by: "gunicorn" (masters and workers),
    #: "postgres" (every server process on the machine), "client" (this process), "sealer".
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    #: Checkpoints the sealers made during the run (before the final seal of the checks).
    checkpoints_during_run: int = 0

    def cpu_ms_per_settled(self, group: str) -> float:
        settled = self.run.stats.settled
        return 1000 * self.cpu_seconds.get(group, 0.0) / settled if settled else float("nan")

    @property
    def settled_per_second(self) -> float:
        return self.run.stats.settled / self.elapsed if self.elapsed else 0.0

    def latency_ms(self, q: float, *endpoints: str) -> float:
        return 1000 * percentile(self.run.stats.all_latencies(*endpoints), q)

    @property
    def failures(self) -> list[str]:
        out = list(self.run.stats.violations) + list(self.fault_errors)
        if self.report is not None:
            out += self.report.failures
        return out

    def summary(self) -> str:
        s = self.run.stats
        lines = [
            f"[{self.scenario.name}] {self.scenario.instances} instance(s) x "
            f"{self.scenario.workers} workers, {self.run.config.threads} client threads, "
            f"{len(self.run.players)} players, {self.elapsed:.1f}s of load",
            f"  requests {s.requests}, retries {s.retries}, bets answered {s.bets}, "
            f"decisions {s.decisions}, rounds settled {s.settled} "
            f"({self.settled_per_second:.1f}/s)",
            f"  latency p50 {self.latency_ms(50, 'bet', 'decision'):.1f} ms, "
            f"p99 {self.latency_ms(99, 'bet', 'decision'):.1f} ms (bets and decisions)",
            "  CPU per settled bet: "
            + ", ".join(f"{g} {self.cpu_ms_per_settled(g):.2f} ms" for g in self.cpu_seconds),
            f"  idempotency: {s.replays_checked} replays, {s.reuses_checked} reused keys, "
            f"{s.duplicates_checked} simultaneous duplicates checked",
            "  errors by kind: "
            + (", ".join(f"{k}: {v}" for k, v in s.errors_by_kind().items()) or "none"),
        ]
        for event in self.faults:
            rec = f"{event.recovered_after:.1f}s" if event.recovered_after is not None else "never"
            lines.append(
                f"  fault at {event.at:.1f}s: {event.kind} ({event.detail}), "
                f"whole again after {rec}"
            )
        if self.scenario.sealers:
            lines.append(
                f"  sealers: {self.scenario.sealers}, {self.checkpoints_during_run} "
                "checkpoint(s) made during the load"
            )
        if self.recovery_seconds is not None:
            lines.append(
                f"  every instance ready {self.recovery_seconds:.1f}s after the load, no restart"
            )
        if self.report is not None:
            r = self.report
            lines.append(
                f"  database: {r.rounds_in_db} rounds ({r.settled_in_db} settled, {r.open_in_db} "
                f"open), {r.transactions_in_db} ledger transactions"
            )
            if r.audit is not None:
                verdict = "clean" if r.audit.ok else f"FAILED (exit {r.audit.returncode})"
                lines.append(f"  casino audit: {verdict}")
        failures = self.failures
        lines.append(f"  failures: {len(failures)}")
        lines += [f"    - {f}" for f in failures[:30]]
        return "\n".join(lines)


@dataclass(frozen=True)
class _Given:
    """A database the caller made and keeps."""

    url: str

    @property
    def name(self) -> str:
        return self.url.rsplit("/", 1)[-1]


def run_scenario(scenario: Scenario, log: Callable[[str], None] = print) -> ScenarioResult:
    operator_token = "op-" + secrets.token_urlsafe(24)
    with ExitStack() as stack:
        admin: str | None = None
        restart: Callable[[], float] = pg.restart_server
        if scenario.postgres == "private":
            cluster = stack.enter_context(pg.PrivateCluster())
            admin, restart = cluster.admin_url, cluster.restart
        if scenario.database_url is not None:
            db: Any = _Given(scenario.database_url)
        else:
            db = stack.enter_context(pg.scratch_database(scenario.name, admin))
            pg.migrate(db.url)
        instances = []
        for _ in range(scenario.instances):
            instance = GunicornInstance(
                db.url,
                [operator_token],
                workers=scenario.workers,
                threads=scenario.threads_per_worker,
                serving_config=scenario.serving_config,
            )
            stack.callback(instance.stop)
            instance.start()
            instances.append(instance)
        config = LoadConfig(
            base_urls=[i.base_url for i in instances],
            operator_token=operator_token,
            **scenario.load,
        )
        sealers = []
        record = new_record()  # one record file for the run's sealers (hosts may share one)
        if scenario.database_url is not None and scenario.sealers:
            # A ledger sealed before: the run's sealers trust its checkpoints on first use.
            seal_once(db.url, record, init=True)
        for _ in range(scenario.sealers):
            sealer = SealerProcess(db.url, every=scenario.seal_every, state=record)
            stack.callback(sealer.stop)
            sealer.start()
            sealers.append(sealer)
        run = LoadRun(config)
        log(
            f"[{scenario.name}] database {db.name}, instances on ports "
            f"{[i.port for i in instances]}, client seed {run.seed}"
        )
        run.setup()
        plan = FaultPlan(
            instances,
            config.duration,
            list(scenario.kill_worker_at),
            scenario.restart_postgres_at,
            restart,
        )
        has_faults = bool(scenario.kill_worker_at) or scenario.restart_postgres_at is not None
        if scenario.warmup > 0:
            run.run(duration=scenario.warmup)
            # Keep what went wrong during the warm-up; restart only the figures.
            carried = run.stats.violations
            run.stats = Stats()
            run.stats.violations.extend(carried)
        meter = CpuMeter(
            {
                "gunicorn": lambda: [
                    pid
                    for i in instances
                    if i.process is not None
                    for pid in (i.process.pid, *i.worker_pids())
                ],
                "postgres": lambda: pids_running("postgres"),
                "client": lambda: [os.getpid()],
                "sealer": lambda: [s.process.pid for s in sealers if s.process is not None],
            }
        )
        meter.start()
        started = time.monotonic()
        run.run(plan if has_faults else None)
        elapsed = run.finished - started
        cpu = meter.stop()
        # An instance whose master died (e.g. its workers could not boot) is a failure of the
        # run; the checks go on through the instances still alive.
        alive = [i for i in instances if i.process is not None and i.process.poll() is None]
        for instance in instances:
            if instance not in alive:
                code = instance.process.returncode if instance.process else None
                run.stats.violation(
                    f"gunicorn on port {instance.port} exited ({code}):\n{instance.log_tail(12)}"
                )
        if not alive:
            raise RuntimeError("every gunicorn instance exited:\n" + instances[0].log_tail(30))
        for sealer in sealers:
            if not sealer.alive:
                run.stats.violation(f"a sealer exited during the run:\n{sealer.log_tail()}")
            sealer.stop()
        checkpoints = sum(sealer.checkpoints_made() for sealer in sealers)
        if sealers and checkpoints == 0 and run.stats.settled:
            run.stats.violation("the sealers made no checkpoint during the run")
        config.base_urls = [i.base_url for i in alive]
        recovery = http_ready(config.base_urls, timeout=60)
        run.reconcile()
        report = None
        if scenario.check:
            # The service must take money on every instance again, with no restart.
            for url in config.base_urls:
                reply = run.operator_money("deposit", run.players[0], 100, url)
                if reply is None or reply.status != 201:
                    run.stats.violation(f"{url} does not take deposits after the faults: {reply}")
            balances = run.api_balances()
            report = check_all(db.url, run.ledger, run.players, balances)
        logs = [i.log_tail(40) for i in instances]
        return ScenarioResult(
            scenario,
            run,
            elapsed,
            plan.events,
            plan.errors,
            recovery,
            report,
            logs,
            cpu,
            checkpoints,
        )
    raise AssertionError("unreachable")

"""/metrics and the request log on a real gunicorn with two workers (SQLite, and PostgreSQL
where there is one): after a load of bets, decisions and refusals from concurrent clients,
one scrape shows exactly the counts the load made, both workers' counts added up (and still
after one of them is killed), and the log has one JSON line per request and no token."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from harness import api
from harness.http import Reply, request
from harness.server import GunicornInstance

OPERATOR = "metrics-operator-" + uuid.uuid4().hex
CLIENTS = 6
BETS_PER_CLIENT = 15

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@dataclass
class Tally:
    """What one client did and was answered."""

    token: str = ""
    player_id: str = ""
    bets: int = 0
    decisions: int = 0
    settled: int = 0
    open_rounds: int = 0
    wagered: int = 0
    paid: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    request_ids: list[str] = field(default_factory=list)


def ok(reply: Reply, status: int) -> Any:
    assert reply.status == status, (reply.status, reply.body)
    return reply.body


def client(base: str, tally: Tally) -> Tally:
    """Bets of varied sizes; every tie is taken to war except one left open at the end;
    a bet the table refuses and a call with a wrong token."""
    for i in range(BETS_PER_CLIENT):
        reply = api.place_bet(tally.token, "classic", 100 * (1 + i % 5), 100 * (i % 2)).send(base)
        body = ok(reply, 201)
        tally.request_ids.append(reply.headers["x-request-id"])
        tally.bets += 1
        tally.wagered += body["bets"]["ante"] + body["bets"]["tie_bet"]
        tally.paid += sum(body["payouts"].values())
        if body["status"] == "awaiting_decision":
            if i == BETS_PER_CLIENT - 1:
                tally.open_rounds += 1
                continue
            decided = ok(api.decide(tally.token, body["id"], "war").send(base), 200)
            tally.decisions += 1
            tally.wagered += decided["bets"]["raise"]
            tally.paid += decided["payouts"]["ante"] + decided["payouts"]["raise"]
        tally.settled += 1
    refused = api.place_bet(tally.token, "classic", 150).send(base)
    assert refused.code == "ante_not_multiple_of_increment"
    tally.refused[refused.code] += 1
    wrong = api.Call("GET", "/tables", tally.token + "x").send(base)
    assert wrong.code == "unauthenticated"
    tally.refused["unauthenticated"] += 1
    return tally


def scrape(base: str) -> Samples:
    reply = request(base, "GET", "/metrics", token=OPERATOR)
    assert reply.status == 200, reply.raw[:300]
    samples: Samples = {}
    for family in text_string_to_metric_families(reply.raw.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def bets_per_worker(directory: Path) -> dict[int, float]:
    """POST /api/v1/rounds 201 counted in each process's own file."""
    counts: dict[int, float] = {}
    for path in directory.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        for metric in MultiProcessCollector.merge([str(path)]):
            for sample in metric.samples:
                if sample.name == "casino_http_requests_total" and sample.labels == {
                    "method": "POST",
                    "route": "/api/v1/rounds",
                    "status": "201",
                }:
                    counts[pid] = counts.get(pid, 0.0) + sample.value
    return counts


def test_metrics_of_a_load_across_two_workers(database_url: str, tmp_path: Path) -> None:
    directory = tmp_path / "prometheus"
    instance = GunicornInstance(
        database_url,
        [OPERATOR],
        workers=2,
        extra_env={"PROMETHEUS_MULTIPROC_DIR": str(directory)},
    )
    with instance:
        base = instance.base_url
        ok(api.create_table(OPERATOR, "classic").send(base), 201)
        tallies = []
        for n in range(CLIENTS):
            player = ok(api.create_player(OPERATOR, f"metrics-{n}-{uuid.uuid4()}").send(base), 201)
            ok(api.deposit(OPERATOR, player["id"], 10_000_000, f"fund {n}").send(base), 201)
            tallies.append(Tally(token=player["token"], player_id=player["id"]))
        with ThreadPoolExecutor(CLIENTS) as pool:
            done = list(pool.map(lambda t: client(base, t), tallies))

        samples = scrape(base)
        bets = sum(t.bets for t in done)
        decisions = sum(t.decisions for t in done)
        requests = "casino_http_requests_total"
        assert value(samples, requests, method="POST", route="/api/v1/rounds", status="201") == bets
        assert value(samples, requests, method="POST", route="/api/v1/rounds", status="422") == (
            CLIENTS
        )
        decision_route = "/api/v1/rounds/<round_id>/decision"
        assert value(samples, requests, method="POST", route=decision_route, status="200") == (
            decisions
        )
        assert value(samples, requests, method="GET", route="/api/v1/tables", status="401") == (
            CLIENTS
        )
        latency = "casino_http_request_duration_seconds"
        count = value(samples, f"{latency}_count", method="POST", route="/api/v1/rounds")
        assert count == bets + CLIENTS
        inf = value(samples, f"{latency}_bucket", method="POST", route="/api/v1/rounds", le="+Inf")
        assert inf == count
        assert 0 < value(samples, f"{latency}_sum", method="POST", route="/api/v1/rounds") < 60
        refused = sum((t.refused for t in done), Counter())
        for code, n in refused.items():
            assert value(samples, "casino_refused_requests_total", code=code) == n, code
        settled = sum(t.settled for t in done)
        assert (
            value(samples, "casino_rounds_settled_total", operator="default", currency="EUR")
            == settled
        )
        assert value(
            samples, "casino_wagered_minor_units_total", operator="default", currency="EUR"
        ) == sum(t.wagered for t in done)
        assert value(
            samples, "casino_paid_minor_units_total", operator="default", currency="EUR"
        ) == sum(t.paid for t in done)
        assert value(samples, "casino_open_rounds", operator="default", currency="EUR") == sum(
            t.open_rounds for t in done
        )
        assert value(samples, "casino_database_up") == 1

        # Both workers served bets, and the scrape added their counts up.
        workers = instance.worker_pids()
        per_worker = bets_per_worker(directory)
        assert set(workers) <= set(per_worker), (workers, per_worker)
        assert all(per_worker[pid] > 0 for pid in workers), per_worker
        assert sum(per_worker.values()) == bets

        # A worker killed: what it counted still counts, whichever worker answers.
        instance.kill_worker()
        instance.wait_ready()
        for _ in range(4):
            again = scrape(base)
            assert (
                value(again, requests, method="POST", route="/api/v1/rounds", status="201") == bets
            )
            assert (
                value(again, "casino_rounds_settled_total", operator="default", currency="EUR")
                == settled
            )

        log = instance.log_text()

    # One JSON line per request, with the fields; never a token.
    lines = [json.loads(line) for line in log.splitlines() if line.startswith('{"ts":')]
    bet_lines = [
        line
        for line in lines
        if (line["method"], line["route"], line["status"]) == ("POST", "/api/v1/rounds", 201)
    ]
    assert len(bet_lines) == bets
    by_id = {line["request_id"]: line for line in bet_lines}
    for tally in done:
        for request_id in tally.request_ids:
            assert by_id[request_id]["player_id"] == tally.player_id
            assert by_id[request_id]["role"] == "player"
            assert by_id[request_id]["duration_ms"] > 0
    assert {line["pid"] for line in bet_lines} >= set(workers)
    refusals = Counter(line["code"] for line in lines if line["code"] is not None)
    assert refusals["ante_not_multiple_of_increment"] == CLIENTS
    for secret in [OPERATOR, *(t.token for t in done)]:
        assert secret not in log

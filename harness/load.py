"""Bounded client threads playing Casino War against one or more instances, with faults.

Each thread loops until the deadline or its request budget: it places bets, decides ties
(war or surrender), and now and then has the operator deposit or withdraw, reads wallets and
history, re-sends a request with the same Idempotency-Key (must replay), reuses a key with
another body (must be refused), or sends one key twice at once (must charge once).

Clients behave as ``docs/robustness.md`` tells real ones to: on a network error, 503 or
409 ``request_in_progress`` they re-send the same request with the same key, backing off,
within a time budget. A request still unanswered then is kept and re-sent after the run
(idempotency records live 24 h), so at the end the client knows the outcome of everything
it sent, and its own ledger of the API's answers can be compared with the server's.

The harness's own choices (which player, which bet) use ``random.Random``: no money depends
on them, and a seed makes a run repeatable.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness import api
from harness.http import Reply, close_kept_connections, http_status_ok


def retryable(reply: Reply) -> bool:
    if reply.status is None:
        return True
    if reply.status == 503:
        return True
    return reply.status == 409 and reply.code == "request_in_progress"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Stats:
    """Counters shared by every client thread."""

    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    requests: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    by_endpoint: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    settled: int = 0
    bets: int = 0
    decisions: int = 0
    replays_checked: int = 0
    reuses_checked: int = 0
    duplicates_checked: int = 0
    unresolved_after_run: int = 0
    first_request: float = 0.0
    last_request: float = 0.0

    def record(self, endpoint: str, reply: Reply) -> None:
        # Everything derived from the reply is worked out before taking the lock: sixteen
        # threads share it, and time spent holding it is time the others queue for it.
        now = time.monotonic()
        status = reply.status
        kind = reply.kind
        timed = reply.ok and not reply.replayed
        problem = None
        if status is not None and status >= 500:
            if status != 503:
                problem = f"{endpoint}: {status} {reply.raw[:300]!r}"
            elif not reply.is_problem:
                problem = f"{endpoint}: 503 without problem+json {reply.raw[:200]!r}"
        with self.lock:
            self.requests += 1
            self.by_kind[kind] += 1
            self.by_endpoint[endpoint] += 1
            if timed:
                self.latencies.setdefault(endpoint, []).append(reply.latency)
            if not self.first_request:
                self.first_request = now
            self.last_request = now
            if problem is not None:
                self.violations.append(problem)

    def violation(self, text: str) -> None:
        with self.lock:
            self.violations.append(text)

    def add(self, name: str, amount: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + amount)

    def errors_by_kind(self) -> dict[str, int]:
        return {k: v for k, v in sorted(self.by_kind.items()) if not k.startswith("2")}

    def all_latencies(self, *endpoints: str) -> list[float]:
        with self.lock:
            out: list[float] = []
            for name in endpoints or tuple(self.latencies):
                out.extend(self.latencies.get(name, []))
            return out


@dataclass
class Player:
    id: str
    token: str
    index: int


@dataclass
class ClientLedger:
    """What the API told the clients: deposits, withdrawals and each round's latest view."""

    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    deposits: dict[str, int] = field(default_factory=dict)  # idempotency key -> amount
    withdrawals: dict[str, int] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)  # key -> player id
    rounds: dict[str, dict[str, Any]] = field(default_factory=dict)
    round_by_key: dict[str, str] = field(default_factory=dict)
    lowest_balance_seen: int | None = None

    def _see_balance(self, value: Any) -> None:
        if isinstance(value, int) and (
            self.lowest_balance_seen is None or value < self.lowest_balance_seen
        ):
            self.lowest_balance_seen = value

    def money(self, kind: str, key: str, player_id: str, amount: int, body: Any) -> None:
        with self.lock:
            (self.deposits if kind == "deposit" else self.withdrawals)[key] = amount
            self.owner[key] = player_id
            if isinstance(body, dict):
                self._see_balance(body.get("balance_after"))

    def round(self, view: Any, key: str | None = None) -> str | None:
        """Record a round view; returns a violation text when views contradict each other."""
        if not isinstance(view, dict) or not isinstance(view.get("id"), str):
            return f"round response without an id: {view!r:.200}"
        with self.lock:
            self._see_balance(view.get("balance_after"))
            problem = None
            if key is not None:
                earlier = self.round_by_key.setdefault(key, view["id"])
                if earlier != view["id"]:
                    problem = f"key {key} answered two rounds: {earlier} and {view['id']}"
            known = self.rounds.get(view["id"])
            if known is None or known.get("status") != "settled":
                self.rounds[view["id"]] = view
            elif view.get("status") == "settled" and (
                known.get("net") != view.get("net") or known.get("payouts") != view.get("payouts")
            ):
                problem = f"settled round {view['id']} changed: {known} -> {view}"
            return problem

    def expected_balances(self) -> dict[str, int]:
        with self.lock:
            out: dict[str, int] = Counter()
            for key, amount in self.deposits.items():
                out[self.owner[key]] += amount
            for key, amount in self.withdrawals.items():
                out[self.owner[key]] -= amount
            for view in self.rounds.values():
                out[view["player_id"]] += int(view["net"])
            return dict(out)

    def open_rounds(self) -> list[dict[str, Any]]:
        with self.lock:
            return [v for v in self.rounds.values() if v.get("status") != "settled"]


@dataclass
class LoadConfig:
    base_urls: list[str]
    operator_token: str
    players: int = 50
    threads: int = 32
    duration: float = 30.0
    max_requests_per_thread: int = 50_000
    table_id: str = "classic"
    create_table: bool = True
    shared_players: int = 10  # wallets played by several threads at once
    initial_funds: int = 50_000
    low_funds_players: int = 5  # funded for a few bets only, to meet insufficient_funds
    replay_share: float = 0.08
    reuse_share: float = 0.03
    duplicate_share: float = 0.02
    operator_share: float = 0.06
    read_share: float = 0.08
    war_share: float = 0.5
    abandon_share: float = 0.15  # ties left undecided for now
    retry_budget: float = 20.0
    seed: int | None = None
    #: Each client thread keeps one persistent HTTP/1.1 connection per instance (as a proxy's
    #: upstream pool does) instead of a new connection per request.
    keep_alive: bool = False


@dataclass
class Pending:
    call: api.Call
    purpose: str
    player: Player


class LoadRun:
    """Set up players, run the client threads, then settle every unknown outcome."""

    def __init__(self, config: LoadConfig, stats: Stats | None = None) -> None:
        self.config = config
        self.stats = stats or Stats()
        self.ledger = ClientLedger()
        self.players: list[Player] = []
        self.pending: list[Pending] = []
        self._pending_lock = threading.Lock()
        self.seed = (
            config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
        )
        self.started = 0.0
        self.finished = 0.0
        #: Set to end the run before its deadline (a fault schedule that is done early).
        self.stop_requested = threading.Event()

    # --- sending ---

    def send(
        self, call: api.Call, endpoint: str, base_url: str, budget: float | None = None
    ) -> Reply | None:
        """Send until a definitive answer; None when the budget ran out first."""
        deadline = time.monotonic() + (self.config.retry_budget if budget is None else budget)
        delay = 0.05
        first = True
        while True:
            if not first:
                self.stats.add("retries")
            first = False
            reply = call.send(base_url, keep_alive=self.config.keep_alive)
            self.stats.record(endpoint, reply)
            if not retryable(reply):
                return reply
            if time.monotonic() + delay > deadline:
                return None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)

    def _unresolved(self, call: api.Call, purpose: str, player: Player) -> None:
        with self._pending_lock:
            self.pending.append(Pending(call, purpose, player))

    # --- setup ---

    def setup(self) -> None:
        cfg = self.config
        base = cfg.base_urls[0]
        if cfg.create_table:
            reply = self.send(api.create_table(cfg.operator_token, cfg.table_id), "tables", base)
            if reply is None or reply.status not in (201, 409):
                raise RuntimeError(f"cannot create table {cfg.table_id}: {reply}")
        run_tag = f"{self.seed:08x}-{time.time_ns() % 10**9}"
        for index in range(cfg.players):
            reply = self.send(
                api.create_player(cfg.operator_token, f"load-{run_tag}-{index}", f"Load {index}"),
                "players",
                base,
            )
            if reply is None or reply.status != 201:
                raise RuntimeError(f"cannot create player {index}: {reply}")
            player = Player(reply.body["id"], reply.body["token"], index)
            self.players.append(player)
            funds = 1_000 if index >= cfg.players - cfg.low_funds_players else cfg.initial_funds
            self.operator_money("deposit", player, funds, base)

    # --- operations ---

    def operator_money(self, kind: str, player: Player, amount: int, base_url: str) -> Reply | None:
        make = api.deposit if kind == "deposit" else api.withdraw
        call = make(self.config.operator_token, player.id, amount, f"{kind}-{api.new_key()[:8]}")
        reply = self.send(call, kind, base_url)
        self._money_outcome(kind, call, player, reply)
        return reply

    def _money_outcome(
        self, kind: str, call: api.Call, player: Player, reply: Reply | None
    ) -> None:
        if reply is None:
            self._unresolved(call, kind, player)
        elif reply.status == 201:
            assert call.key is not None
            self.ledger.money(kind, call.key, player.id, call.body["amount"], reply.body)
        elif not (kind == "withdraw" and reply.code == "insufficient_funds"):
            self.stats.violation(f"{kind} refused: {reply.kind} {reply.raw[:200]!r}")

    def _round_outcome(self, call: api.Call, reply: Reply, key: str | None) -> None:
        problem = self.ledger.round(reply.body, key)
        if problem:
            self.stats.violation(problem)
        if reply.replayed:
            return
        body = reply.body
        if isinstance(body, dict) and body.get("status") == "settled":
            self.stats.add("settled")

    def bet(self, player: Player, rng: random.Random, base_url: str) -> None:
        cfg = self.config
        ante = rng.choice((100, 100, 200, 500))
        tie_bet = rng.choice((0, 0, 0, 100))
        call = api.place_bet(player.token, cfg.table_id, ante, tie_bet)
        if rng.random() < cfg.duplicate_share:
            reply = self._send_twice_at_once(call, base_url)
        else:
            reply = self.send(call, "bet", base_url)
        if reply is None:
            self._unresolved(call, "bet", player)
            return
        self.stats.add("bets")
        if reply.status == 201:
            self._round_outcome(call, reply, call.key)
            roll = rng.random()
            if roll < cfg.replay_share:
                self._check_replay(call, reply, base_url)
            elif roll < cfg.replay_share + cfg.reuse_share:
                self._check_reuse(call, base_url)
            if reply.body.get("status") == "awaiting_decision":
                if rng.random() < cfg.abandon_share:
                    # Left open: the next bet meets round_in_progress, and rounds still open
                    # at the end exercise the "open stakes" side of the balance invariant.
                    return
                self.decide(player, reply.body["id"], rng, base_url)
        elif reply.status == 409 and reply.code == "round_in_progress":
            open_id = reply.body.get("round_id") if isinstance(reply.body, dict) else None
            if not isinstance(open_id, str):
                self.stats.violation(f"round_in_progress without round_id: {reply.raw[:200]!r}")
                return
            self.decide(player, open_id, rng, base_url)
        elif reply.status == 409 and reply.code == "insufficient_funds":
            if rng.random() < 0.5:
                self.operator_money("deposit", player, 2_000, base_url)
        else:
            self.stats.violation(f"bet {call.body} -> {reply.kind} {reply.raw[:200]!r}")

    def decide(self, player: Player, round_id: str, rng: random.Random, base_url: str) -> None:
        action = "war" if rng.random() < self.config.war_share else "surrender"
        for attempt in range(2):
            call = api.decide(player.token, round_id, action)
            reply = self.send(call, "decision", base_url)
            if reply is None:
                self._unresolved(call, "decision", player)
                return
            self.stats.add("decisions")
            if reply.status == 200:
                self._round_outcome(call, reply, None)
                if rng.random() < self.config.replay_share:
                    self._check_replay(call, reply, base_url)
                return
            if reply.code == "round_not_awaiting_decision":
                return  # another thread sharing the wallet decided it first
            if reply.code == "insufficient_funds" and attempt == 0:
                action = "surrender"  # the raise is unaffordable; the round stayed open
                continue
            self.stats.violation(f"decision {action} -> {reply.kind} {reply.raw[:200]!r}")
            return

    def _check_replay(self, call: api.Call, first: Reply, base_url: str) -> None:
        again = self.send(call, "replay", base_url)
        if again is None:
            return
        self.stats.add("replays_checked")
        if again.status != first.status or again.body != first.body or not again.replayed:
            self.stats.violation(
                f"replay of {call.method} {call.path} key {call.key}: {again.kind} "
                f"replayed={again.replayed} body equal={again.body == first.body}"
            )

    def _check_reuse(self, call: api.Call, base_url: str) -> None:
        changed = dict(call.body)
        changed["ante"] = int(changed["ante"]) + 100
        again = self.send(call.with_body(changed), "reuse", base_url)
        if again is None:
            return
        self.stats.add("reuses_checked")
        if again.status != 422 or again.code != "idempotency_key_reused":
            self.stats.violation(
                f"key reused with another body -> {again.kind} {again.raw[:200]!r}"
            )

    def _send_twice_at_once(self, call: api.Call, base_url: str) -> Reply | None:
        """The same key from two connections at once (to two instances if there are two)."""
        others = [u for u in self.config.base_urls if u != base_url] or [base_url]
        replies: list[Reply | None] = [None, None]

        def second() -> None:
            try:
                replies[1] = self.send(call, "bet", others[0])
            finally:
                close_kept_connections()

        helper = threading.Thread(target=second)
        helper.start()
        replies[0] = self.send(call, "bet", base_url)
        helper.join()
        self.stats.add("duplicates_checked")
        answered = [r for r in replies if r is not None]
        created = [r for r in answered if r.status == 201]
        fresh = [r for r in created if not r.replayed]
        ids = {r.body.get("id") for r in created if isinstance(r.body, dict)}
        if len(fresh) > 1 or len(ids) > 1:
            self.stats.violation(f"one key sent twice at once created {len(fresh)} rounds {ids}")
        if created:
            # The second answer must be the same round (recorded under the same key).
            for r in created:
                problem = self.ledger.round(r.body, call.key)
                if problem:
                    self.stats.violation(problem)
            return created[0] if not fresh else fresh[0]
        return answered[0] if answered else None

    def read(self, player: Player, rng: random.Random, base_url: str) -> None:
        choice = rng.randrange(3)
        call = (
            api.wallets(player.token, player.id),
            api.transactions(player.token, player.id, limit=rng.choice((1, 10, 50))),
            api.list_rounds(
                player.token, status=rng.choice((None, "settled", "awaiting_decision"))
            ),
        )[choice]
        reply = self.send(call, "read", base_url)
        if reply is not None and reply.status != 200:
            self.stats.violation(f"read {call.path} -> {reply.kind} {reply.raw[:200]!r}")

    # --- threads ---

    def _pool(self, thread: int) -> list[Player]:
        cfg = self.config
        own = [
            p
            for p in self.players[cfg.shared_players :]
            if (p.index - cfg.shared_players) % cfg.threads == thread
        ]
        shared = [self.players[thread % cfg.shared_players]] if cfg.shared_players else []
        return own + shared or [self.players[thread % len(self.players)]]

    def _worker(self, thread: int, deadline: float) -> None:
        cfg = self.config
        rng = random.Random(self.seed * 1000 + thread)
        base_url = cfg.base_urls[thread % len(cfg.base_urls)]
        pool = self._pool(thread)
        done = 0
        while (
            time.monotonic() < deadline
            and done < cfg.max_requests_per_thread
            and not self.stop_requested.is_set()
        ):
            player = rng.choice(pool)
            roll = rng.random()
            try:
                if roll < cfg.operator_share:
                    kind = "deposit" if rng.random() < 0.5 else "withdraw"
                    amount = (
                        rng.choice((500, 1_000, 5_000))
                        if kind == "deposit"
                        else rng.choice((100, 1_000, 100_000))
                    )
                    self.operator_money(kind, player, amount, base_url)
                elif roll < cfg.operator_share + cfg.read_share:
                    self.read(player, rng, base_url)
                else:
                    self.bet(player, rng, base_url)
            except Exception as err:  # a harness bug must not hang the run; it is reported
                self.stats.violation(f"client thread {thread}: {type(err).__name__}: {err}")
            done += 1
        close_kept_connections()

    def run(
        self, fault_schedule: Callable[[float], None] | None = None, duration: float | None = None
    ) -> None:
        cfg = self.config
        self.started = time.monotonic()
        deadline = self.started + (cfg.duration if duration is None else duration)
        threads = [
            threading.Thread(target=self._worker, args=(t, deadline), name=f"client-{t}")
            for t in range(cfg.threads)
        ]
        for t in threads:
            t.start()
        if fault_schedule is not None:
            fault_schedule(deadline)
        for t in threads:
            t.join(timeout=cfg.duration + cfg.retry_budget * 4 + 60)
        self.finished = time.monotonic()

    # --- after the run ---

    def reconcile(self, budget: float = 60.0) -> None:
        """Re-send every request whose outcome is unknown, with its key, until answered."""
        base = self.config.base_urls[0]
        todo, self.pending = self.pending, []
        for item in todo:
            reply = self.send(item.call, "reconcile", base, budget=budget)
            if reply is None:
                self.stats.add("unresolved_after_run")
                self.stats.violation(f"still unanswered after the run: {item.call.path}")
                continue
            if item.purpose in ("deposit", "withdraw"):
                self._money_outcome(item.purpose, item.call, item.player, reply)
            elif reply.status in (200, 201):
                self._round_outcome(
                    item.call, reply, item.call.key if item.purpose == "bet" else None
                )
        # A round whose decision came from a sibling thread may be newer than what we hold.
        by_id = {p.id: p for p in self.players}
        for view in self.ledger.open_rounds():
            player = by_id[view["player_id"]]
            reply = self.send(api.get_round(player.token, view["id"]), "reconcile", base)
            if reply is not None and reply.status == 200:
                self.ledger.round(reply.body)

    def api_balances(self) -> dict[str, int]:
        out = {}
        for p in self.players:
            reply = self.send(api.wallets(p.token, p.id), "final", self.config.base_urls[0])
            if reply is None or reply.status != 200:
                raise RuntimeError(f"cannot read wallets of {p.id}: {reply}")
            items, _ = api.page_items(reply.body)
            out[p.id] = sum(int(w["balance"]) for w in items if w.get("currency") == "EUR")
        return out


def http_ready(base_urls: list[str], timeout: float = 60.0) -> float:
    """Seconds until every instance answers ``/ready`` with 200."""
    started = time.monotonic()
    pending = list(base_urls)
    while pending and time.monotonic() - started < timeout:
        pending = [u for u in pending if not http_status_ok(u + "/api/v1/ready")]
        if pending:
            time.sleep(0.2)
    if pending:
        raise RuntimeError(f"not ready after {timeout}s: {pending}")
    return time.monotonic() - started

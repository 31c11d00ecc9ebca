"""Prometheus metrics of the API, and ``GET /metrics`` in the Prometheus text format.

Under gunicorn every worker is a process of its own, so the metrics use prometheus_client's
multiprocess mode: each process writes its values to files in ``PROMETHEUS_MULTIPROC_DIR``
and a scrape, whichever worker answers it, adds up the files of every worker, the dead ones
included (their counts happened). The directory must be set before prometheus_client is
imported; ``casino serve`` and ``gunicorn.conf.py`` (which the Procfile names and gunicorn
reads from the working directory) prepare it (``casino.api.gunicorn_hooks``). Without it
(the Flask development server, tests) the metrics are this process's own.

Metrics:

* ``casino_http_requests_total{method, route, status}`` and
  ``casino_http_request_duration_seconds{method, route}`` (histogram); ``route`` is the URL
  rule, e.g. ``/api/v1/rounds/<round_id>/decision``, or ``<unmatched>``;
* ``casino_refused_requests_total{code}``: problem+json answers by their ``code``;
* ``casino_rounds_settled_total{operator, currency}``,
  ``casino_wagered_minor_units_total{operator, currency}`` (stakes as they are placed: ante
  and tie bet at the bet, the raise at the war) and
  ``casino_paid_minor_units_total{operator, currency}`` (returned to wallets, stakes
  included), counted by the API after a bet or decision succeeded (not a replay); rounds
  settled by ``casino resolve-stale`` are not counted;
* ``casino_open_rounds{operator, currency}``: rounds awaiting a decision, and
  ``casino_wallet_calls{operator, state}``, counted at scrape time, and
  ``casino_database_up`` (0 when that count failed).

Amounts are counted as floats: exact up to 2^53 minor units per series.

``/metrics`` is for the platform and operators: a platform or operator bearer token, or a
scrape from an address in ``CASINO_METRICS_ALLOW`` (IPs or CIDR ranges, comma-separated)
without one. An operator token sees its own operator's series of everything labelled by
operator, and the deployment's request counters; the platform and allowed scrapers see every
operator's (docs/operators.md).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from ipaddress import ip_address
from typing import Any, TypeVar

from flask import Blueprint, Response, current_app, g, request
from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from casino.api.auth import OPERATOR, PLATFORM, authenticate_request
from casino.api.database import request_uow
from casino.api.resources._uow import read
from casino.service.auth import ADMIN
from casino.service.errors import Forbidden
from casino.service.reports import open_rounds
from casino.store.errors import SQLAlchemyError

log = logging.getLogger(__name__)
T = TypeVar("T")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
UNMATCHED = "<unmatched>"
#: Seconds; the bet path's p99 sits in the tens of milliseconds under load.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter("casino_http_requests", "HTTP requests answered", ("method", "route", "status"))
LATENCY = Histogram(
    "casino_http_request_duration_seconds",
    "Time from the request reaching the app to its response",
    ("method", "route"),
    buckets=LATENCY_BUCKETS,
)
REFUSED = Counter(
    "casino_refused_requests", "Requests answered with a problem document, by code", ("code",)
)
#: The label that says whose money a series counts (an operator scrape sees its own only).
OPERATOR_LABEL = "operator"
_MONEY_LABELS = (OPERATOR_LABEL, "currency")
ROUNDS_SETTLED = Counter("casino_rounds_settled", "Rounds settled through the API", _MONEY_LABELS)
WAGERED = Counter(
    "casino_wagered_minor_units", "Stakes placed (ante, tie bet, raise)", _MONEY_LABELS
)
PAID = Counter("casino_paid_minor_units", "Returned to players, stakes included", _MONEY_LABELS)


class LabelCache:
    """A metric's labelled children by label values: a dict lookup per request instead of
    prometheus_client's validating, locking ``labels()``. The label values are bounded by
    construction (routes, statuses, problem codes, currencies)."""

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        self._children: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self._metric.labels(*values)
        return child


requests_by = LabelCache(REQUESTS)
latency_by = LabelCache(LATENCY)
refused_by = LabelCache(REFUSED)
settled_by = LabelCache(ROUNDS_SETTLED)
wagered_by = LabelCache(WAGERED)
paid_by = LabelCache(PAID)


# --- rounds, counted at the API layer ---------------------------------------------------------

_ROUND_KEY = "_casino_metrics_round"
BET = "bet"
DECISION = "decision"


def noting(kind: str, dump: Callable[[T], dict[str, Any]]) -> Callable[[T], dict[str, Any]]:
    """``dump`` (a round view -> body) that also notes the body for the round counters, which
    count it once the response is a success that was not replayed."""

    def dump_and_note(view: T) -> dict[str, Any]:
        body = dump(view)
        setattr(g, _ROUND_KEY, (kind, body))
        return body

    return dump_and_note


def count_round(response: Response, ctx: Any = None) -> None:
    """Count the round noted by ``noting``, if any; ``ctx``: the request's ``g`` if at hand."""
    noted = (g if ctx is None else ctx).pop(_ROUND_KEY, None)
    if noted is None or response.status_code >= 300 or "Idempotent-Replayed" in response.headers:
        return
    kind, body = noted
    principal = (g if ctx is None else ctx).get("principal")
    operator = getattr(principal, "operator_id", None) or ""
    currency = body["currency"]
    bets = body["bets"]
    payouts = body["payouts"]
    if kind == BET:
        wagered = bets["ante"] + bets["tie_bet"]
        # The tie bet is settled on the first two cards; the ante too unless they tie.
        paid = payouts["ante"] + payouts["tie_bet"] + payouts["raise"]
    else:
        wagered = bets["raise"]
        paid = payouts["ante"] + payouts["raise"]
    wagered_by(operator, currency).inc(wagered)
    if paid:
        paid_by(operator, currency).inc(paid)
    if body["status"] == "settled":
        settled_by(operator, currency).inc()


# --- /metrics -------------------------------------------------------------------------------

bp = Blueprint("metrics", __name__)


class _ScrapeTime(Collector):
    """Gauges read from the database when scraped (the same for every worker)."""

    def __init__(
        self,
        open_rounds: dict[tuple[str, str], int] | None,
        wallet_calls: dict[tuple[str, str], int] | None = None,
    ) -> None:
        self._open = open_rounds
        self._calls = wallet_calls or {}

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "casino_database_up",
            "1 when the scrape could read the database",
            value=0 if self._open is None else 1,
        )
        if self._open is None:
            return
        gauge = GaugeMetricFamily(
            "casino_open_rounds",
            "Rounds awaiting a decision",
            labels=[OPERATOR_LABEL, "currency"],
        )
        for (operator, currency), count in sorted(self._open.items()):
            gauge.add_metric([operator, currency], count)
        yield gauge
        calls = GaugeMetricFamily(
            "casino_wallet_calls",
            "Seamless wallet calls by state (needs_attention: retried for the whole window)",
            labels=[OPERATOR_LABEL, "state"],
        )
        # Every state of each operator with calls, zeros included: an alert on
        # needs_attention > 0 reads a series that exists before it first turns positive.
        for operator in sorted({operator for operator, _ in self._calls}):
            for state in ("pending", "needs_attention", "unknown"):
                calls.add_metric([operator, state], self._calls.get((operator, state), 0))
        yield calls


class _OwnSeries:
    """What ``source`` collects, keeping of each series labelled by operator only
    ``operator``'s: an operator's scrape never shows another operator's money."""

    def __init__(self, source: Any, operator: str) -> None:
        self._source = source
        self._operator = operator

    def collect(self) -> Iterator[Metric]:
        for family in self._source.collect():
            own = Metric(family.name, family.documentation, family.type, family.unit)
            own.samples = [
                sample
                for sample in family.samples
                if sample.labels.get(OPERATOR_LABEL, self._operator) == self._operator
            ]
            yield own


def _allowed_without_token() -> bool:
    networks = current_app.config.get("METRICS_ALLOW") or ()
    if not networks:
        return False
    try:
        address = ip_address(request.remote_addr or "")
    except ValueError:
        return False
    return any(address in network for network in networks)


@bp.get("/metrics")
def metrics() -> Response:
    every_operator = True  # an allowed scraper, or the platform
    own: str | None = None
    if not _allowed_without_token():
        principal = authenticate_request()
        if principal.role not in (OPERATOR, PLATFORM):
            raise Forbidden("Metrics are for operators only.")
        if principal.role == OPERATOR and principal.scope != ADMIN:
            # Scrapers read metrics from an allowed address (CASINO_METRICS_ALLOW) instead.
            raise Forbidden("Metrics need an admin operator token.", code="insufficient_scope")
        every_operator = principal.role == PLATFORM
        own = None if every_operator else principal.operator_id or ""
    if every_operator:
        request_uow().all_operators()
    try:
        open_now: dict[tuple[str, str], int] | None = read(open_rounds)
        wallet_calls: dict[tuple[str, str], int] | None = read(
            lambda uow: uow.wallet_calls.states()
        )
    except SQLAlchemyError:
        log.warning("metrics: the database could not be read", exc_info=True)
        open_now = wallet_calls = None
    registry: Any = REGISTRY
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    scrape_time: Any = CollectorRegistry()
    scrape_time.register(_ScrapeTime(open_now, wallet_calls))
    if own is not None:
        registry, scrape_time = _OwnSeries(registry, own), _OwnSeries(scrape_time, own)
    text = generate_latest(registry) + generate_latest(scrape_time)
    # The classic text format (0.0.4): what generate_latest writes, and every Prometheus reads.
    return Response(text, mimetype=None, content_type=CONTENT_TYPE_PLAIN_0_0_4)

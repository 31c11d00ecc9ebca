"""The sealer's Prometheus metrics (docs/observability.md):

* ``casino_sealer_checkpoints_total``: checkpoints signed;
* ``casino_sealer_refusals_total{reason}``: runs that refused to sign (``record``: the
  ledger does not continue the checkpoint this sealer recorded; ``checkpoint``: the
  checkpoint it would continue is not trusted; ``chain``: a transaction does not continue
  its wallet's sealed chain; docs/audit.md).

Beside ``casino serve`` the sealer inherits gunicorn's ``PROMETHEUS_MULTIPROC_DIR``, so its
counts are in the app's ``/metrics``, kept after it exits like a dead worker's. Run alone
(the Procfile's ``sealer:``, cron) it writes them to ``CASINO_SEALER_METRICS_FILE`` after
each run, for node_exporter's textfile collector, when that is set.
"""

from __future__ import annotations

import os

from prometheus_client import REGISTRY, Counter, write_to_textfile

METRICS_FILE_ENV = "CASINO_SEALER_METRICS_FILE"

CHECKPOINTS = Counter("casino_sealer_checkpoints", "Ledger checkpoints signed by the sealer")
REFUSALS = Counter(
    "casino_sealer_refusals",
    "Sealer runs that refused to sign anything, by reason (record, checkpoint, chain)",
    ("reason",),
)


def signed(count: int) -> None:
    if count:
        CHECKPOINTS.inc(count)
    _write()


def refused(reason: str) -> None:
    REFUSALS.labels(reason).inc()
    _write()


def _write() -> None:
    path = os.environ.get(METRICS_FILE_ENV, "").strip()
    if path:
        write_to_textfile(path, REGISTRY)

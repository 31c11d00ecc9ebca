"""gunicorn settings for prometheus_client's multiprocess mode (see ``casino.api.metrics``).

``prepare_metrics_dir()`` runs in the gunicorn master before any worker starts and before
the app is imported (prometheus_client chooses its mode when it is first imported):
``PROMETHEUS_MULTIPROC_DIR`` when set (emptied of a previous run's files: one directory per
gunicorn instance), else a fresh temporary directory that ``on_exit`` removes. ``child_exit``
tells prometheus_client that a worker died, so its live gauges stop counting; its counters
stay summed, as what it counted did happen.

``casino serve`` installs these hooks; plain ``gunicorn`` gets them from ``gunicorn.conf.py``
in the working directory (the Procfile names it).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
log = logging.getLogger(__name__)
_created: list[str] = []


def prepare_metrics_dir() -> str:
    path = os.environ.get(MULTIPROC_ENV, "").strip()
    if path:
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink(missing_ok=True)
    else:
        path = tempfile.mkdtemp(prefix="casino-metrics-")
        _created.append(path)
        os.environ[MULTIPROC_ENV] = path
    values = sys.modules.get("prometheus_client.values")
    if values is not None and not getattr(values.ValueClass, "_multiprocess", False):
        log.warning(
            "prometheus_client was imported before %s was set: each worker's metrics "
            "will be its own",
            MULTIPROC_ENV,
        )
    return path


def child_exit(_server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(_server: Any) -> None:
    while _created:
        shutil.rmtree(_created.pop(), ignore_errors=True)

"""Run the API under gunicorn from Python, for ``casino serve`` (the ops CLI calls this)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

from casino.api.gunicorn_hooks import on_exit as metrics_on_exit


class _Server(BaseApplication):
    def __init__(self, options: dict[str, Any], config: str | type | None) -> None:
        self._options = options
        self._config = config
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        from casino import create_app

        return create_app(self._config)


class _Sealer:
    """``casino seal --every N`` beside the web workers, started and stopped with gunicorn's
    master (and ending by itself should the master die first); with ``events_port``, the
    event server of shared tables too (``casino events``: casino.api.events_server)."""

    def __init__(self, every: float, events_port: int | None = None, host: str = "") -> None:
        self.every = every
        self.events_port = events_port
        self.host = host
        self.process: subprocess.Popen[bytes] | None = None
        self.events: subprocess.Popen[bytes] | None = None

    def start(self, _server: Any) -> None:
        command = "from casino.cli import main; main()"
        if self.every > 0:
            every, parent = str(self.every), str(os.getpid())
            self.process = subprocess.Popen(
                [sys.executable, "-c", command, "seal", "--every", every, "--while-parent", parent]
            )
        if self.events_port:
            self.events = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    command,
                    "events",
                    "--host",
                    self.host,
                    "--port",
                    str(self.events_port),
                ]
            )

    def stop(self, server: Any) -> None:
        metrics_on_exit(server)  # what gunicorn_conf's own on_exit does
        for process in (self.process, self.events):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


def _starting(server: Any, sealer: _Sealer) -> None:
    from casino.api import gunicorn_conf

    gunicorn_conf.on_starting(server)
    sealer.start(server)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    workers: int | None = None,
    config: str | type | None = None,
    seal_every: float = 0,
    events_port: int | None = None,
) -> None:
    """Serve until interrupted, as the Procfile does (``casino.api.gunicorn_conf``). Workers
    default to WEB_CONCURRENCY, else 2. With ``seal_every`` > 0 the ledger sealer runs beside
    the workers (the Procfile runs it as a process of its own)."""
    from casino.api import gunicorn_conf

    count = workers or int(os.environ.get("WEB_CONCURRENCY", "2"))
    sealer = _Sealer(seal_every, events_port, host)
    options = {
        **gunicorn_conf.settings(),
        "bind": f"{host}:{port}",
        "workers": count,
        # No gunicorn access log: the app writes one JSON line per request (with its id).
        "errorlog": "-",
        "on_starting": lambda server: _starting(server, sealer),
        "on_exit": sealer.stop,
    }
    _Server(options, config).run()

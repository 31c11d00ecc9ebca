"""Run the API under gunicorn from Python, for ``casino serve`` (the ops CLI calls this)."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication


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


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    workers: int | None = None,
    config: str | type | None = None,
) -> None:
    """Serve until interrupted. Workers default to WEB_CONCURRENCY, else 2."""
    from casino.api.gunicorn_hooks import child_exit, on_exit, prepare_metrics_dir

    count = workers or int(os.environ.get("WEB_CONCURRENCY", "2"))
    # Before any worker imports prometheus_client: the workers' metrics then add up.
    prepare_metrics_dir()
    options: dict[str, Any] = {
        "bind": f"{host}:{port}",
        "workers": count,
        # No gunicorn access log: the app writes one JSON line per request (with its id).
        "errorlog": "-",
        # The app is built in each worker so no database connection crosses a fork.
        "preload_app": False,
        "child_exit": child_exit,
        "on_exit": on_exit,
    }
    _Server(options, config).run()

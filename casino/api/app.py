"""Build the Flask application: configuration, database, API, errors, throttling, docs."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import BaseConverter, ValidationError

import config as config_module
from casino import web
from casino.api import (
    converters,
    cors,
    database,
    docs,
    errors,
    language,
    metrics,
    observability,
    reports_page,
    resources,
    security_headers,
    throttling,
)
from casino.api.hot_path import HotPath
from casino.api.json_body import require_json_media_type
from casino.api.logging_filters import install as install_log_filters
from casino.api.openapi import CasinoApi, register_security
from casino.api.slow_clients import BodyReadDeadline


class UUIDStringConverter(BaseConverter):
    """A UUID path segment as its canonical lowercase string; anything else is a 404."""

    regex = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"

    def to_python(self, value: str) -> str:
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise ValidationError() from None

    def to_url(self, value: Any) -> str:
        return str(value)


def _settings(config: str | type | None, environ: Mapping[str, str]) -> tuple[type, dict]:
    cls = config_module.resolve(config, environ)
    load = getattr(cls, "load", None)
    return cls, (load(environ) if callable(load) else {})


def build(config: str | type | None = None) -> Flask:
    environ = os.environ
    cls, settings = _settings(config, environ)

    app = Flask("casino", instance_relative_config=True, static_folder=None)
    app.config.from_object(cls)
    app.config.update(settings)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.converters["uuid_str"] = UUIDStringConverter
    converters.install(app.url_map.converters)
    # Trailing-slash redirects would turn a POST into a confusing 308; be exact instead.
    app.url_map.strict_slashes = True

    # Innermost: the body deadline and the proxy's address apply to the hot path as well.
    app.wsgi_app = HotPath(app, app.wsgi_app)  # type: ignore[method-assign]
    app.wsgi_app = BodyReadDeadline(  # type: ignore[method-assign]
        app.wsgi_app, float(app.config.get("CLIENT_BODY_TIMEOUT") or 0)
    )
    if app.config.get("PROXY_FIX_X_FOR"):
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=int(app.config["PROXY_FIX_X_FOR"])
        )

    _configure_logging(app)
    database.init_app(app)

    api = CasinoApi(app)
    api.register_converter(UUIDStringConverter, lambda _: {"type": "string", "format": "uuid"})
    register_security(api)
    resources.register(api)
    app.register_blueprint(docs.bp)
    app.register_blueprint(reports_page.bp)
    app.register_blueprint(metrics.bp)
    web.init_app(app)
    errors.register(app)
    language.init_app(app)
    # Registered before throttling: after_request functions run last-registered first, so
    # these headers also reach a response the throttle replaced.
    security_headers.init_app(app)
    throttling.init_app(app)
    cors.init_app(app)
    app.before_request(require_json_media_type)
    observability.init_app(app)
    return app


def _configure_logging(app: Flask) -> None:
    level = getattr(logging, str(app.config.get("LOG_LEVEL", "INFO")), logging.INFO)
    logger = logging.getLogger("casino")
    logger.setLevel(level)
    # Under gunicorn the root logger has no handler: write where gunicorn's error log goes.
    gunicorn = logging.getLogger("gunicorn.error")
    if gunicorn.handlers and not logger.handlers:
        for handler in gunicorn.handlers:
            logger.addHandler(handler)
        logger.propagate = False
    install_log_filters()

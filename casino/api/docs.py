"""Browsable API docs at /api/v1/docs, served entirely by this app (no CDN, no internet).

Swagger UI's files come from the ``swagger-ui-bundle`` package (vendored in its wheel); the
page and its initializer are ours, so a Content-Security-Policy can forbid every other origin.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui_bundle
from flask import Blueprint, Response, abort, render_template_string, send_from_directory, url_for

ASSETS_DIR = Path(swagger_ui_bundle.swagger_ui_path)
ASSETS = frozenset(
    {
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-32x32.png",
        "favicon-16x16.png",
    }
)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'"
)

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Casino War API</title>
  <link rel="icon" type="image/png" href="{{ asset('favicon-32x32.png') }}">
  <link rel="stylesheet" href="{{ asset('swagger-ui.css') }}">
</head>
<body>
  <div id="swagger-ui" data-spec-url="{{ spec_url }}"></div>
  <script src="{{ asset('swagger-ui-bundle.js') }}"></script>
  <script src="{{ asset('swagger-ui-standalone-preset.js') }}"></script>
  <script src="{{ init_url }}"></script>
</body>
</html>
"""

_INIT = """window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
});
"""

bp = Blueprint("docs", __name__, url_prefix="/api/v1/docs")


def _asset_url(name: str) -> str:
    return url_for("docs.asset", filename=name)


@bp.get("")
@bp.get("/")
def page() -> Response:
    html = render_template_string(
        _PAGE,
        asset=_asset_url,
        spec_url=url_for("api-docs.openapi_json"),
        init_url=url_for("docs.init_script"),
    )
    response = Response(html, mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    return response


@bp.get("/init.js")
def init_script() -> Response:
    return Response(_INIT, mimetype="text/javascript")


@bp.get("/assets/<path:filename>")
def asset(filename: str) -> Response:
    if filename not in ASSETS:
        abort(404)
    response = send_from_directory(ASSETS_DIR, filename, max_age=86400)
    return response

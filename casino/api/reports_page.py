"""The operators' report page at /reports/: a static page whose script asks the JSON API.

The page holds no data and needs no authentication itself: the operator's token is typed
into its form (or given in the URL fragment, ``/reports/#token=...``, which browsers never
send to a server) and the script sends it only in the ``Authorization`` header of its calls
to ``/api/v1/reports/tables``. It is kept in the tab's sessionStorage, never in a cookie or
a URL that could reach a log. Everything is served from here (no CDN), under a
Content-Security-Policy that allows nothing else.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

STATIC_DIR = Path(__file__).resolve().parent / "static" / "reports"
ASSETS = frozenset({"reports.js", "reports.css"})
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

bp = Blueprint("reports_page", __name__, url_prefix="/reports")


def _secured(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@bp.get("/")
def page() -> Response:
    response = send_from_directory(STATIC_DIR, "index.html", mimetype="text/html", max_age=0)
    response.headers["Cache-Control"] = "no-store"
    return _secured(response)


@bp.get("/<name>")
def asset(name: str) -> Response:
    if name not in ASSETS:
        abort(404)
    return _secured(send_from_directory(STATIC_DIR, name, max_age=300))

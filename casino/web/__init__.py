"""The reference game client: static pages, ES modules and CSS served by the app.

``/play/`` is the Casino War table, opened by an operator's ``launch_url`` (the game session
token in the fragment); ``/play/live/`` is a shared table's client (one round for every
player at the table, followed through its events); ``/play/free/`` is free-play War, which
needs no token. Everything the pages do goes through the public API, exactly as an
integrator's client would. No CDN and no build step: the files under ``static/`` are what
the browser runs, ``static/i18n/`` holding the catalogues compiled from casino/i18n
(``make i18n``, committed).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, abort, redirect, send_from_directory

STATIC_DIR = Path(__file__).parent / "static"
PAGES = {"table": "table.html", "free": "free.html", "live": "live.html"}
ASSET_DIRS = ("css", "js", "img", "i18n")

# Same origin only; no inline script or style (styles are set through the CSSOM only).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)

bp = Blueprint("web", __name__)


def _page(name: str) -> Response:
    response = send_from_directory(STATIC_DIR, PAGES[name], max_age=0)
    response.headers["Content-Security-Policy"] = CSP
    # The launch code is in the fragment, which no Referer carries; say so anyway.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def home() -> Response:
    return redirect("/play/free/", 302)  # type: ignore[return-value]


@bp.get("/play")
def play_without_slash() -> Response:
    return redirect("/play/", 308)  # type: ignore[return-value]


@bp.get("/play/")
def table() -> Response:
    """The Casino War table (needs a game session: see POST /api/v1/players/{id}/sessions)."""
    return _page("table")


@bp.get("/play/live/")
def live_table() -> Response:
    """A shared table (``mode: shared``): its clock, common cards, the player's bets and
    decision, the road; opened by a launch at a shared table."""
    return _page("live")


@bp.get("/play/free/")
def free_play() -> Response:
    """Free-play War against computer seats, and simulations."""
    return _page("free")


@bp.get("/play/assets/<kind>/<path:filename>")
def asset(kind: str, filename: str) -> Response:
    if kind not in ASSET_DIRS:
        abort(404)
    # Revalidated on every load (ETag): the files change with the code, and have no hashes.
    response = send_from_directory(STATIC_DIR / kind, filename, max_age=0)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

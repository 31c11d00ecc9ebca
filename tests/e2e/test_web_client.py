"""The game client's files as the app serves them: pages, assets, headers, no CDN."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from flask import Flask

from casino import web
from casino.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
STATIC = Path(web.__file__).parent / "static"
PAGES = {"/play/": "table.html", "/play/free/": "free.html", "/play/live/": "live.html"}


def test_pages_are_served_with_a_strict_policy(app: Flask) -> None:
    client = app.test_client()
    for path, name in PAGES.items():
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.mimetype == "text/html"
        assert response.get_data() == (STATIC / name).read_bytes()
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_every_asset_a_page_names_is_served(app: Flask) -> None:
    client = app.test_client()
    types = {".js": "javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    named: set[str] = set()
    for name in PAGES.values():
        page = (STATIC / name).read_text()
        named |= set(re.findall(r'(?:src|href)="(/play/assets/[^"]+)"', page))
    # ES modules import their siblings: those are needed too.
    for module in (STATIC / "js").glob("*.js"):
        for imported in re.findall(r'from "\./([\w-]+\.js)"', module.read_text()):
            named.add(f"/play/assets/js/{imported}")
    assert "/play/assets/js/table.js" in named and "/play/assets/js/fairness.js" in named
    for path in sorted(named):
        response = client.get(path)
        assert response.status_code == 200, path
        assert types[Path(path).suffix] in response.content_type, (path, response.content_type)
        assert response.headers["Cache-Control"] == "no-cache"


def test_nothing_is_loaded_from_another_origin() -> None:
    """No CDN: no file of the client names another site (SVG's namespace name aside)."""
    for path in STATIC.rglob("*"):
        if path.is_file():
            text = path.read_text()
            others = re.findall(r"https?://[^\s\"'`)]+", text)
            assert [u for u in others if not u.startswith("http://www.w3.org/")] == [], path


@pytest.mark.parametrize(
    "path",
    [
        "/play/assets/js/missing.js",
        "/play/assets/py/__init__.py",
        "/play/assets/js/../../__init__.py",
        "/play/assets/js/%2e%2e/%2e%2e/__init__.py",
        "/play/table.html",
    ],
)
def test_nothing_else_is_served(app: Flask, path: str) -> None:
    assert app.test_client().get(path).status_code == 404


def test_the_site_root_and_play_lead_to_the_pages(app: Flask) -> None:
    client = app.test_client()
    home = client.get("/")
    assert home.status_code == 302 and home.headers["Location"] == "/play/free/"
    play = client.get("/play")
    assert play.status_code == 308 and play.headers["Location"] == "/play/"


def test_the_package_ships_the_client() -> None:
    """Every file under casino/web/static matches the package data of pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["casino"]
    package = ROOT / "casino"
    shipped = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    files = {p for p in STATIC.rglob("*") if p.is_file()}
    assert files and files <= shipped


def test_every_language_catalogue_is_served(app: Flask) -> None:
    """js/i18n.js fetches /play/assets/i18n/<lang>.json for the language it chose."""
    client = app.test_client()
    for language in LANGUAGES:
        response = client.get(f"/play/assets/i18n/{language}.json")
        assert response.status_code == 200, language
        assert response.mimetype == "application/json"
        assert response.get_json()["language"] == language

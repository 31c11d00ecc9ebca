"""The operators' report page at /reports/: served by the app with nothing from elsewhere, no
data without a token, and a script that asks the JSON API with the token in a header."""

from __future__ import annotations

import re

from .helpers import Api


def test_the_page_and_its_assets_are_served_here(api: Api) -> None:
    page = api.get("/reports/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert 'id="token"' in html and 'type="password"' in html
    assert '<script src="reports.js">' in html and 'href="reports.css"' in html
    # Nothing from another origin, and no inline script or style.
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<style" not in html and not re.search(r"<script>(?!</script>)", html)
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "connect-src 'self'" in csp and "'unsafe-inline'" not in csp
    assert page.headers["Cache-Control"] == "no-store"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    for name, mimetype in (("reports.js", "text/javascript"), ("reports.css", "text/css")):
        asset = api.get(f"/reports/{name}")
        assert asset.status_code == 200 and asset.mimetype == mimetype, name
        assert asset.headers["X-Content-Type-Options"] == "nosniff"
    assert api.get("/reports/secrets.txt").status_code == 404
    assert api.get("/reports/../app.py").status_code == 404
    assert api.get("/reports").status_code == 308


def test_the_script_calls_the_api_with_the_token_in_a_header_only(api: Api) -> None:
    script = api.get("/reports/reports.js").get_data(as_text=True)
    assert '"/api/v1/reports/tables"' in script
    assert 'Authorization: "Bearer " + token' in script
    assert 'credentials: "omit"' in script
    # The token lives in the tab (sessionStorage), and the fragment it may come in is dropped.
    assert "sessionStorage" in script and "localStorage" not in script
    assert "history.replaceState" in script
    assert "innerHTML" not in script and "document.cookie" not in script
    # No other origin is ever contacted.
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", script)

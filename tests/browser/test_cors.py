"""A page on another origin calls the API from the browser: allowed for the origin in
CASINO_CORS_ORIGINS (preflighted, keyed bet, exposed headers, readable problems), refused
for any other origin (the browser blocks it and nothing reaches the wallet)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from harness.server import free_port

from .conftest import Server
from .helpers import page_server, wait_for

# A third party's page: everything it needs comes in its fragment.
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>partner page</title></head>
<body><pre id="out">running</pre>
<script>
(async () => {
  const given = new URLSearchParams(location.hash.slice(1));
  const api = given.get("api");
  const auth = { Authorization: `Bearer ${given.get("token")}` };
  const out = {};
  try {
    const key = crypto.randomUUID();
    const bet = JSON.stringify({ table_id: given.get("table"), ante: 100 });
    const headers = { ...auth, "Content-Type": "application/json", "Idempotency-Key": key };
    const first = await fetch(`${api}/api/v1/rounds`, { method: "POST", headers, body: bet });
    out.status = first.status;
    out.round = (await first.json()).id;
    const again = await fetch(`${api}/api/v1/rounds`, { method: "POST", headers, body: bet });
    out.replayed = again.headers.get("Idempotent-Replayed");
    out.again = (await again.json()).id;
    const player = `${api}/api/v1/players/${given.get("player")}`;
    const wallets = await fetch(`${player}/wallets`, { headers: auth });
    out.wallets = await wallets.json();
    const reissue = await fetch(`${player}/token`, { method: "POST", headers: auth });
    out.reissue = { status: reissue.status, code: (await reissue.json()).code };
  } catch (error) {
    out.error = `${error.name}: ${error.message}`;
  }
  document.getElementById("out").textContent = JSON.stringify(out);
})();
</script></body></html>
"""


def run_page(browser: WebDriver, origin: str, fragment: dict[str, str]) -> dict[str, Any]:
    query = "&".join(f"{name}={value}" for name, value in fragment.items())
    browser.get(f"{origin}/#{query}")
    wait_for(browser, lambda d: d.find_element(By.ID, "out").text != "running", "the page hung")
    return dict(json.loads(browser.find_element(By.ID, "out").text))


def test_a_page_on_another_origin_calls_the_api(server: Server, browser: WebDriver) -> None:
    operator = server.operator
    table_id = f"c-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player = operator.create_player()
    operator.deposit(player["id"], 10_000)
    fragment = {
        "api": server.base_url,
        "token": operator.session_token(player["id"], table_id),
        "table": table_id,
        "player": player["id"],
    }

    with page_server(PAGE, server.allowed_origin_port) as allowed:
        result = run_page(browser, allowed, fragment)
    assert "error" not in result, result
    assert result["status"] == 201
    assert result["again"] == result["round"] and result["replayed"] == "true"
    balance = operator.balance(player["id"])
    assert result["wallets"] == [{"currency": "EUR", "balance": balance}]
    assert result["reissue"] == {"status": 403, "code": "forbidden"}
    assert len(operator.rounds(player["id"])) == 1

    with page_server(PAGE, free_port()) as refused:
        blocked = run_page(browser, refused, fragment)
    assert blocked.get("error", "").startswith("TypeError"), blocked
    assert "status" not in blocked
    # The preflight failed, so the bet itself was never sent.
    assert len(operator.rounds(player["id"])) == 1
    assert operator.balance(player["id"]) == balance

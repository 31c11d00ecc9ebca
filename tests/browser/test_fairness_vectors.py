"""The page's WebCrypto dealing (casino/web/static/js/fairness.js) on docs/fairness.md's test
vectors, read from the document itself, in the browser that runs the page."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from selenium.webdriver.remote.webdriver import WebDriver

from .conftest import Server
from .helpers import wait_for
from .test_table import enabled

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"
ROW = re.compile(
    r"^\| (\d+) \| ([0-9a-f]{64}) \| `([^`]+)` \| (\d+) \| (\d) \| ((?:\S+ ){6}\S+) \|$", re.M
)
# The vectors whose client seed has spaces at an end give it in hex.
HEX_ROW = re.compile(
    r"^\| (\d+) \| ([0-9a-f]{64}) \| ([0-9a-f]+) \| (\d+) \| (\d) \| ((?:\S+ ){6}\S+) \|$", re.M
)

RUN = """
const [vectors, done] = arguments;
import("/play/assets/js/fairness.js").then(async (fairness) => {
  const out = [];
  for (const v of vectors) {
    out.push({
      cards: await fairness.deal(v.seed, v.client, v.nonce, v.decks, 7),
      hash: await fairness.sha256Hex(fairness.hexToBytes(v.seed)),
    });
  }
  done(out);
}, (error) => done(String(error)));
"""


def vectors() -> list[dict[str, object]]:
    text = DOC.read_text()
    rows = [*ROW.findall(text)]
    rows += [
        (n, seed, bytes.fromhex(client).decode("utf-8"), nonce, decks, cards)
        for n, seed, client, nonce, decks, cards in HEX_ROW.findall(text)
    ]
    found = [
        {
            "seed": seed,
            "client": client,
            # A string: a JavaScript number holds integers exactly only up to 2^53.
            "nonce": nonce,
            "decks": int(decks),
            "cards": cards.split(),
        }
        for _n, seed, client, nonce, decks, cards in sorted(rows, key=lambda row: int(row[0]))
    ]
    assert len(found) == 10, "docs/fairness.md lists ten Casino War vectors"
    return found


def test_webcrypto_dealing_matches_the_documented_vectors(
    server: Server, browser: WebDriver
) -> None:
    browser.get(server.base_url + "/play/free/")
    wait_for(browser, enabled("new-game"), "the page did not load")
    cases = vectors()
    browser.set_script_timeout(30)
    results = browser.execute_async_script(RUN, cases)
    assert isinstance(results, list), results
    for case, result in zip(cases, results, strict=True):
        assert result["cards"] == case["cards"], case
    # Vector 1's seed commitment, as the document gives it.
    assert results[0]["hash"] == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


TABLE_VECTORS = re.compile(r"^## 16\..*?```json\n(.*?)\n```", re.M | re.S)

TABLE_RUN = """
const [vectors, done] = arguments;
import("/play/assets/js/fairness.js").then(async (fairness) => {
  const out = [];
  for (const v of vectors) {
    out.push(await fairness.deal(v.seed, v.client, v.nonce, v.decks, v.count));
  }
  done(out);
}, (error) => done(String(error)));
"""


def test_webcrypto_reads_the_shoe_as_far_as_rounds_of_several_hands_and_wars_need(
    server: Server, browser: WebDriver
) -> None:
    """docs/fairness.md section 16's vectors (several hands, repeated wars, the new bets):
    the page's dealing gives each round's cards in dealing order, however many it reads."""
    documented = json.loads(TABLE_VECTORS.search(DOC.read_text()).group(1))  # type: ignore[union-attr]
    assert [v["id"] for v in documented] == [f"T{k}" for k in range(1, 8)]
    cases = [
        {
            "seed": hashlib.sha256(f"casino-war test vector {v['id']}".encode()).hexdigest(),
            "client": v["client_seed"],
            "nonce": str(v["nonce"]),
            "decks": v["rules"].get("decks", 6),
            "count": len(v["cards"]),
        }
        for v in documented
    ]
    browser.get(server.base_url + "/play/free/")
    wait_for(browser, enabled("new-game"), "the page did not load")
    browser.set_script_timeout(30)
    results = browser.execute_async_script(TABLE_RUN, cases)
    assert results == [v["cards"] for v in documented]

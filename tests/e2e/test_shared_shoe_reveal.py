"""A shared table's shoe is revealed at its end and verifies from the published commitment
alone: by ``casino verify``'s own check, and by an independent re-implementation of the
algorithm as docs/fairness.md sections 1-5 and 17 describe it (stdlib only, written from the
document, sharing no code with the engine)."""

from __future__ import annotations

import hashlib
import hmac
import struct

from casino.engine.verify import check_shoe

from .helpers import Api, new_key
from .protection_helpers import Clock
from .shared_helpers import DriveDealer, create_shared_table

# --- the independent re-implementation -----------------------------------------------------

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


class Stream:
    """Sections 1-3: HMAC-SHA256 blocks read as 4-byte big-endian draws, rejection sampling."""

    def __init__(self, key: bytes, client: str, nonce: int) -> None:
        self.key, self.prefix = key, f"{client}:{nonce}:".encode("ascii")
        self.block, self.buffer = 0, b""

    def draw(self) -> int:
        if len(self.buffer) < 4:
            self.buffer += hmac.new(
                self.key, self.prefix + str(self.block).encode(), "sha256"
            ).digest()
            self.block += 1
        value, self.buffer = struct.unpack(">I", self.buffer[:4])[0], self.buffer[4:]
        return value

    def uniform(self, n: int) -> int:
        limit = 2**32 - (2**32 % n)
        while True:
            x = self.draw()
            if x < limit:
                return x % n


def card(position: int) -> str:
    p = position % 52
    return RANKS[p % 13] + "CDHS"[p // 13]


def value(code: str) -> int:
    rank = code[:-1]
    return 1 if rank == "A" else min(10, RANKS.index(rank) + 2)


def deal_shoe(seed: bytes, public_value: str, index: int, decks: int, most: int) -> dict:
    """Section 17.4: the order, the cut card, the burn; 17.5: the rounds (wars push/bonus)."""
    n = 52 * decks
    stream = Stream(seed, public_value, index)
    order = list(range(n))
    for i in range(n - 1):
        j = i + stream.uniform(n - i)
        order[i], order[j] = order[j], order[i]
    cards = [card(p) for p in order]
    lo, hi = -(-3 * n // 4), min(17 * n // 20, n - most + 1)
    lo = min(lo, hi)
    cut = lo + stream.uniform(hi - lo + 1)
    burn = 1 + value(cards[0])
    rounds, p = [], burn
    while p < cut:
        player, dealer = cards[p], cards[p + 1]
        wars, p = [], p + 2
        if player[:-1] == dealer[:-1]:
            wars.append((cards[p : p + 3], cards[p + 3], cards[p + 4]))
            p += 5
        rounds.append((player, dealer, wars))
    return {"order": cards, "cut": cut, "burn": burn, "rounds": rounds}


def chain_reaches(seed: bytes, index: int, commitment: str) -> bool:
    value_ = seed
    for _ in range(index):
        value_ = hashlib.sha256(value_).digest()
    return value_.hex() == commitment


# --- the tests -----------------------------------------------------------------------------


def test_independent_implementation_matches_the_documented_vector() -> None:
    """docs/fairness.md 17.9, S1: the chain and shoe 1 of 8 decks."""
    secret = hashlib.sha256(b"casino-war shared chain vector").digest()
    c1 = hashlib.sha256(hashlib.sha256(secret).digest()).digest()
    commitment = "bc0a7291e9871155d27a928ca02def3ec32e505ec275925bd74f625912097695"
    assert chain_reaches(c1, 1, commitment) and chain_reaches(secret, 3, commitment)
    public = "600a0d06d5a766f9c8eb470c7530925aead73269dad0c1beb5bd30521bda3979"
    shoe = deal_shoe(c1, public, 1, 8, most=7)
    assert shoe["order"][:6] == ["5H", "5H", "KC", "AS", "6C", "AD"]
    assert (shoe["burn"], shoe["cut"], len(shoe["rounds"])) == (6, 345, 148)
    assert shoe["rounds"][28][:2] == ("QC", "QS")


def test_a_finished_shoe_is_revealed_and_verifies(
    capi: Api, clock: Clock, database_url: str
) -> None:
    table = create_shared_table(capi, decks=1)
    published = table["shared"]["chain_commitment"]  # before any round of the chain
    someone = capi.create_player()
    capi.deposit(someone, 100_000)
    dealer = DriveDealer(database_url, clock)
    try:
        dealer.run()
        bets = 0
        while dealer.state()["shoe"] == 1:
            state = dealer.state()
            if state["phase"] == "betting" and state["round"] % 2:
                answer = capi.post(
                    "/api/v1/tables/live/round/bets",
                    {"ante": 10, "tie_bet": 10},
                    auth=someone.auth,
                    key=new_key(),
                )
                assert answer.status_code == 201, answer.get_json()
                bets += 1
            clock.advance(seconds=11)
            dealer.run()
    finally:
        dealer.close()
    unrevealed = capi.get("/api/v1/tables/live/shoes/2", auth=someone.auth).get_json()
    assert unrevealed["seed"] is None and "order" not in unrevealed
    doc = capi.get("/api/v1/tables/live/shoes/1", auth=someone.auth).get_json()
    assert doc["seed"] is not None and len(doc["bets"]) == bets > 0
    checked = check_shoe(doc, published)
    assert checked["match"], [c for c in checked["checks"] if not c["ok"]]
    # From the published commitment alone, by the independent implementation.
    seed = bytes.fromhex(doc["seed"])
    assert chain_reaches(seed, 1, published)
    mine = deal_shoe(seed, doc["public_value"]["value"], 1, 1, most=7)
    assert mine["order"] == doc["order"] and (mine["cut"], mine["burn"]) == (
        doc["cut"],
        doc["burn"]["cards"],
    )
    road = capi.get("/api/v1/tables/live/round", auth=someone.auth).get_json()["road"]
    dealt = {(r["shoe"], r["round"]): (r["player_card"], r["dealer_card"]) for r in road}
    for number, (player, dealer_card, _) in enumerate(mine["rounds"], start=1):
        assert dealt[(1, number)] == (player, dealer_card)
    assert len([k for k in dealt if k[0] == 1]) == len(mine["rounds"])

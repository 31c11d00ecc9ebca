"""The free-play vectors of docs/fairness.md section 11: the engine and the doc's own reference
code must reproduce every one (deal orders, the split jokers, bit-source shuffles, drawn
seats), so two implementations of the spec agree on every draw."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casino.engine.fairness import DrawStream
from casino.engine.war import build_rules
from casino.engine.war.randomness import (
    CLIENT_SEED,
    BitSource,
    _shuffled_pack,
    deal,
    draw_seat,
    server_seed,
    stream,
)

SPEC = Path(__file__).resolve().parents[3] / "docs" / "fairness.md"
TEXT = SPEC.read_text()
DEAL_ROW = re.compile(r"^\|\s*(F\d)\s*\|\s*`([^`]+)`\s*\|\s*([a-z]+-\d+)\s*\|\s*([0-9A-Z ]+)\|$")
SHUFFLE_ROW = re.compile(
    r"^\|\s*(F\d)\s*\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([\d ]+)\|\s*(\d+)\s*\|$"
)
SEAT_ROW = re.compile(r"^\|\s*(F\d)\s*\|\s*`([^`]+)`\s*\|\s*(\d)\s*\|\s*(\d)\s*\|$")


def rows(pattern: re.Pattern[str]) -> list[tuple[str, ...]]:
    found = [pattern.match(line.strip()) for line in TEXT.splitlines()]
    return [m.groups() for m in found if m]


DEALS = rows(DEAL_ROW)
SHUFFLES = rows(SHUFFLE_ROW)
SEATS = rows(SEAT_ROW)


def reference() -> dict[str, Any]:
    """The doc's free-play reference code (its second Python block), run on its own."""
    code = TEXT.split("```python\n")[2].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, str(SPEC), "exec"), namespace)
    return namespace


REF = reference()


def test_the_doc_has_every_kind_of_vector() -> None:
    assert {row[2] for row in DEALS} == {"standard-52", "jokers-54"}
    assert [int(row[3]) for row in SHUFFLES] == [2, 3, 10, 12, 13, 20, 2]  # both shuffle forms
    assert [int(row[2]) for row in SEATS] == [2, 3, 4]


@pytest.mark.parametrize("row", DEALS, ids=lambda r: r[0])
def test_deal_orders(row: tuple[str, ...]) -> None:
    _, seed, pack, cards = row
    expected = cards.split()
    rules = build_rules("jokers" if pack == "jokers-54" else "classic")
    codes = [card.code for card in rules.pack_spec.cards]
    order = _shuffled_pack(DrawStream(server_seed(seed), CLIENT_SEED, 0), len(codes))
    assert [codes[i] for i in order] == expected
    plain = list(range(len(codes)))
    DrawStream(server_seed(seed), CLIENT_SEED, 0).shuffle(plain)
    assert [codes[i] for i in plain] == expected
    assert REF["deal_order"](seed, pack)[0] == expected
    stocks, _ = deal(rules, server_seed(seed))
    assert [codes[i] for i in stocks[0]] == expected[0::2]


def test_three_seats_leave_the_last_card_out() -> None:
    seed = DEALS[0][1]
    rules = build_rules("multiplayer", {"seats": 3})
    codes = [card.code for card in rules.pack_spec.cards]
    stocks, out = deal(rules, server_seed(seed))
    order = DEALS[0][3].split()
    assert [codes[c] for c in out] == order[51:] == ["KS"]
    assert [[codes[c] for c in s[:3]] for s in stocks] == [order[s:9:3] for s in range(3)]
    assert "17 cards each (`AS 2D 5S …`, `3D KH 4S …`, `AC 5D 6H …`) and `KS` left out" in TEXT


def test_split_jokers_show_that_the_last_step_of_the_walk_draws_nothing() -> None:
    seed = next(row[1] for row in DEALS if row[2] == "jokers-54")
    depths = re.search(
        r"`JK1` goes in at depth \*\*(\d+)\*\* of stock 0 and `JK2`\s+at depth \*\*(\d+)\*\*", TEXT
    )
    assert depths is not None
    expected = [int(depths[1]), int(depths[2])]
    rules = build_rules("jokers", {"joker_deal": "split"})
    codes = [card.code for card in rules.pack_spec.cards]
    stocks, _ = deal(rules, server_seed(seed))
    assert [
        [codes[c] for c in s].index(j) for s, j in zip(stocks, ("JK1", "JK2"), strict=True)
    ] == expected
    assert REF["split_joker_depths"](seed) == expected
    # A walk that also drew for its last position would bury them elsewhere.
    draws = DrawStream(server_seed(seed), CLIENT_SEED, 0)
    draws.shuffle(list(range(54)))
    draws.u32()
    assert [draws.randbelow(27), draws.randbelow(27)] != expected
    # The spec's one-card step is the same in the plain walk the Casino War deal stops early.
    a = DrawStream(server_seed(seed), CLIENT_SEED, 0)
    positions = list(a.dealt_positions(54))
    b = DrawStream(server_seed(seed), CLIENT_SEED, 0)
    b.shuffle(list(range(54)))
    assert sorted(positions) == list(range(54)) and a.u32() == b.u32()


def shuffled_in_turn(make: Callable[[], Any], sizes: list[int]) -> list[tuple[list[int], int]]:
    source = make()
    out = []
    for m in sizes:
        items = list(range(m))
        source.shuffle(items)
        out.append((items, source.nbits if hasattr(source, "nbits") else source.size))
    return out


def test_bit_source_shuffles_in_mixed_radix_and_per_swap() -> None:
    seed = SHUFFLES[0][1]
    nonce = int(SHUFFLES[0][2])
    assert {row[1] for row in SHUFFLES} == {seed} and nonce == 1
    sizes = [int(row[3]) for row in SHUFFLES]
    expected = [([int(x) for x in row[4].split()], int(row[5])) for row in SHUFFLES]
    engine = shuffled_in_turn(lambda: BitSource(stream(server_seed(seed), 0, nonce)), sizes)
    assert engine == expected
    ref = shuffled_in_turn(lambda: REF["Bits"](REF["free_play_draws"](seed, nonce)), sizes)
    assert ref == expected
    first = DrawStream(server_seed(seed), CLIENT_SEED, nonce)
    listed = " ".join(f"{first.u32():08x}" for _ in range(5))
    assert f"`{listed} …`" in TEXT


def test_a_one_draw_shuffle_is_a_uniform_permutation_of_small_piles() -> None:
    # Every one of the 4! orders comes from exactly one r < 4!: the mixed-radix reading is a
    # bijection, so the one-draw form is as uniform as a draw per swap.
    seen = set()
    for r in range(24):
        items = list(range(4))
        m = 4
        for i in range(m - 1):
            r, j = divmod(r, m - i)
            items[i], items[i + j] = items[i + j], items[i]
        seen.add(tuple(items))
    assert len(seen) == 24


@pytest.mark.parametrize("row", SEATS, ids=lambda r: f"{r[2]}-seats")
def test_drawn_seats(row: tuple[str, ...]) -> None:
    _, seed, seats, seat = row
    assert draw_seat(seed, int(seats)) == int(seat)
    assert REF["drawn_seat"](seed, int(seats)) == int(seat)

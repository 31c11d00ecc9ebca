"""Every random draw of a War game comes from the fairness DrawStream, in a documented way."""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from pathlib import Path

import pytest

import casino.engine.war as war_package
from casino.engine.errors import InvalidSeed
from casino.engine.fairness import DrawStream
from casino.engine.war import SeatKind, SeatSpec, WarGame, build_rules, new_game
from casino.engine.war.randomness import (
    CLIENT_SEED,
    BitSource,
    _shuffled_pack,
    deal,
    seed_commitment,
    server_seed,
    stream,
    validate_seed,
)


def reference_shuffle(items: list[int], source: BitSource) -> None:
    """The documented shuffle, written the plain way: Fisher-Yates from the front whose swaps
    are the mixed-radix digits of one ``below(n!)`` (n <= 12), or one ``below`` each."""
    n = len(items)
    if n < 2:
        return
    swaps = []
    if n <= 12:
        r = source.below(math.factorial(n))
        for i in range(n - 1):
            swaps.append(r % (n - i))
            r //= n - i
    for i in range(n - 1):
        j = i + (swaps[i] if swaps else source.below(n - i))
        items[i], items[j] = items[j], items[i]


def test_streams_are_the_fairness_streams_of_the_hashed_seed() -> None:
    key = server_seed("hello")
    assert key == hashlib.sha256(b"hello").digest()
    ours = stream(key, 0, 1)
    theirs = DrawStream(key, CLIENT_SEED, 1)
    assert [ours.u32() for _ in range(20)] == [theirs.u32() for _ in range(20)]
    # Round r uses its own block of nonces.
    later = stream(key, 2, 1)
    assert later.u32() == DrawStream(key, CLIENT_SEED, 17).u32()
    assert seed_commitment("hello") == hashlib.sha256(key).hexdigest()


def test_bits_are_taken_least_significant_first() -> None:
    key = server_seed("bits")
    word = stream(key, 0, 1).u32()
    source = BitSource(stream(key, 0, 1))
    assert [source.bits(1) for _ in range(32)] == [(word >> i) & 1 for i in range(32)]


def test_fast_shuffle_is_fisher_yates_with_below() -> None:
    key = server_seed("shuffle")
    for size in (0, 1, 2, 3, 5, 10, 12, 13, 17, 52):
        fast_source = BitSource(stream(key, 0, 1))
        slow_source = BitSource(stream(key, 0, 1))
        for _ in range(20):
            a = list(range(size))
            b = list(range(size))
            fast_source.shuffle(a)
            reference_shuffle(b, slow_source)
            assert a == b


def test_shuffle_is_uniform() -> None:
    source = BitSource(stream(server_seed("perms"), 0, 1))
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        items = [0, 1, 2, 3]
        source.shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    assert all(abs(c - 1000) < 150 for c in counts.values())  # > 4.7 standard deviations


def test_below_is_uniform() -> None:
    source = BitSource(stream(server_seed("uniform"), 0, 1))
    counts = Counter(source.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    for value in range(6):
        assert abs(counts[value] - 10_000) < 400  # > 4 standard deviations


@pytest.mark.parametrize(
    ("variant", "options", "sizes", "left_out"),
    [
        ("classic", {}, [26, 26], 0),
        ("multiplayer", {}, [17, 17, 17], 1),
        ("multiplayer", {"seats": 4}, [13, 13, 13, 13], 0),
        ("jokers", {"seats": 4}, [13, 13, 13, 13], 2),
        ("jokers", {"joker_deal": "split"}, [27, 27], 0),
        ("pyanitsa", {}, [18, 18], 0),
        ("tod-und-leben", {}, [16, 16], 0),
    ],
)
def test_deals_are_equal_and_whole(
    variant: str, options: dict[str, object], sizes: list[int], left_out: int
) -> None:
    rules = build_rules(variant, options)
    stocks, out = deal(rules, server_seed("deal"))
    assert [len(s) for s in stocks] == sizes
    assert len(out) == left_out
    dealt = sorted(c for s in stocks for c in s)
    assert dealt == sorted(set(range(rules.pack_spec.size)) - set(out))


def test_deal_is_the_fairness_shuffle_dealt_round_the_table() -> None:
    rules = build_rules("classic")
    key = server_seed("round-the-table")
    positions = list(DrawStream(key, CLIENT_SEED, 0).dealt_positions(52))
    stocks, _ = deal(rules, key)
    assert stocks[0] == positions[0::2] and stocks[1] == positions[1::2]


def test_deal_shuffle_is_drawstream_shuffle() -> None:
    for i in range(200):
        key = server_seed(f"pack-{i}")
        for size in (32, 36, 52, 54):
            theirs = list(range(size))
            DrawStream(key, CLIENT_SEED, 0).shuffle(theirs)
            assert _shuffled_pack(DrawStream(key, CLIENT_SEED, 0), size) == theirs


def test_split_jokers_end_in_different_stocks() -> None:
    rules = build_rules("jokers", {"joker_deal": "split"})
    cards = rules.pack_spec.cards
    for i in range(50):
        stocks, _ = deal(rules, server_seed(f"jk{i}"))
        holders = [
            seat for seat, stock in enumerate(stocks) for c in stock if cards[c].suit is None
        ]
        assert sorted(holders) == [0, 1]


def test_a_seed_fixes_the_game_and_another_seed_changes_it() -> None:
    def log_of(seed: str) -> list[object]:
        game = new_game("classic", seed=seed)
        game.advance("end")
        return list(game.log or [])

    assert log_of("same") == log_of("same")
    assert log_of("same") != log_of("other")


def test_seeds_are_validated() -> None:
    assert validate_seed("a seed with spaces ~") == "a seed with spaces ~"
    for bad in ("", "x" * 129, "tab\there", "é"):
        with pytest.raises(InvalidSeed):
            validate_seed(bad)


def test_random_strategy_never_touches_the_random_module(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the global random module was used")

    for name in ("random", "randrange", "randint", "choice", "choices", "shuffle", "getrandbits"):
        monkeypatch.setattr(random, name, forbidden)
    seats = [SeatSpec(SeatKind.COMPUTER, "random")] * 2
    for variant in ("steal", "hand-of-three"):
        first = WarGame(build_rules(variant), "no-globals", seats)
        first.advance("end")
        again = WarGame(build_rules(variant), "no-globals", seats)
        again.advance("end")
        assert first.log == again.log  # seeded from the game's own streams


def test_the_engine_does_not_import_random() -> None:
    for path in Path(war_package.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert "import random" not in text and "from random" not in text, path.name

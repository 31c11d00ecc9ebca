"""The provably fair primitives: HMAC stream, rejection sampling, the partial shuffle.

The statistical tests use fixed seeds, so they are deterministic; each also shows that the
same statistic rejects a deliberately biased sampler, so it has the power to fail.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import struct

import pytest

from casino.engine.cards import PIQUET_32, STANDARD_52, WITH_JOKERS_54, shoe_card
from casino.engine.casino_war import deal_casino_war
from casino.engine.errors import InvalidRules, InvalidSeed
from casino.engine.fairness import (
    DrawStream,
    commitment,
    deal,
    hmac_sha256,
    new_client_seed,
    new_server_seed,
    parse_server_seed,
    rejection_limit,
    shoe_positions,
    validate_client_seed,
    validate_nonce,
)

SEED = hashlib.sha256(b"engine fairness tests").digest()
#: Chi-square statistics are judged at this p-value (fixed seeds, so no flakiness).
ALPHA = 1e-6


def chi_square_p_value(statistic: float, dof: int) -> float:
    """Upper tail of chi-square by the Wilson-Hilferty normal approximation (good for dof >= 2)."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


# --- seeds and the stream ------------------------------------------------------------------


def test_server_seed_commitment_and_parsing() -> None:
    seed = new_server_seed()
    assert len(seed) == 32 and seed != new_server_seed()
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert parse_server_seed(seed.hex()) == seed
    for bad in ("zz" * 32, "ab" * 31, ""):
        with pytest.raises(InvalidSeed):
            parse_server_seed(bad)


def test_client_seed_rules() -> None:
    assert validate_client_seed("a") == "a"
    assert validate_client_seed(" ~" * 32) == " ~" * 32
    assert validate_client_seed(new_client_seed())
    for bad in ("", "x" * 65, "tab\there", "new\nline", "caf\u00e9", "del\x7f"):
        with pytest.raises(InvalidSeed):
            validate_client_seed(bad)


def test_nonce_rules() -> None:
    assert validate_nonce(0) == 0 and validate_nonce(2**63 - 1) == 2**63 - 1
    for bad in (-1, True, 1.0, "1", 2**63, 2**64):
        with pytest.raises(InvalidSeed):
            validate_nonce(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [SEED, b"", b"k" * 64, b"long key " * 20])
def test_cached_hmac_equals_the_standard_library(key: bytes) -> None:
    for message in (b"", b"abc:0:0", b"x" * 200):
        assert hmac_sha256(key, message) == hmac.digest(key, message, "sha256")


def test_stream_is_hmac_blocks_read_as_big_endian_u32() -> None:
    stream = DrawStream(SEED, "client", 42)
    got = [stream.u32() for _ in range(20)]
    blocks = b"".join(hmac.digest(SEED, f"client:42:{i}".encode(), "sha256") for i in range(3))
    assert got == list(struct.unpack(">20I", blocks[:80]))


def test_rejection_limit() -> None:
    assert rejection_limit(1) == 2**32
    assert rejection_limit(2**31) == 2**32
    assert rejection_limit(312) == 2**32 - 256
    assert rejection_limit(3 * 2**30) == 3 * 2**30
    for bad in (0, -1, 2**32 + 1):
        with pytest.raises(ValueError):
            rejection_limit(bad)


def test_randbelow_skips_draws_at_or_above_the_limit() -> None:
    # With n = 3 * 2**30 a quarter of all draws are rejected: replay the raw stream by hand.
    n = 3 * 2**30
    raw = DrawStream(SEED, "reject", 0)
    raw_draws = [raw.u32() for _ in range(400)]
    expected = [x for x in raw_draws if x < n][:200]
    stream = DrawStream(SEED, "reject", 0)
    assert [stream.randbelow(n) for _ in range(200)] == expected
    assert len(expected) == 200 and any(x >= n for x in raw_draws)


# --- rejection sampling is unbiased: chi-square over a few hundred thousand draws --------


def test_randbelow_shows_no_modulo_bias_where_plain_modulo_would() -> None:
    # For n = 3 * 2**30, plain x % n would land in the first third of [0, n) half of the
    # time instead of a third; rejection sampling must give three equal thirds.
    n = 3 * 2**30
    draws = 300_000
    stream = DrawStream(SEED, "chi-square thirds", 0)
    counts = [0, 0, 0]
    for _ in range(draws):
        counts[stream.randbelow(n) // 2**30] += 1
    assert chi_square_p_value(chi_square(counts), 2) > ALPHA, counts

    raw = DrawStream(SEED, "chi-square thirds", 0)
    biased = [0, 0, 0]
    for _ in range(draws):
        biased[(raw.u32() % n) // 2**30] += 1
    assert chi_square_p_value(chi_square(biased), 2) < ALPHA, biased


def test_randbelow_uniform_over_a_six_deck_shoe() -> None:
    n = 312
    stream = DrawStream(SEED, "chi-square 312", 0)
    counts = [0] * n
    for _ in range(312_000):
        counts[stream.randbelow(n)] += 1
    assert chi_square_p_value(chi_square(counts), n - 1) > ALPHA


def test_dealt_position_is_uniform_for_each_card_of_a_round() -> None:
    # Every one of the seven dealt cards must be uniform over the 52 cards of a one-deck shoe.
    rounds = 40_000
    counts = [[0] * 52 for _ in range(7)]
    for nonce in range(rounds):
        for slot, position in enumerate(shoe_positions(SEED, "positions", nonce, 52, 7)):
            counts[slot][position] += 1
    for slot_counts in counts:
        assert chi_square_p_value(chi_square(slot_counts), 51) > ALPHA


def test_chi_square_helper_rejects_a_visibly_skewed_sample() -> None:
    assert chi_square_p_value(chi_square([1_100] + [1_000] * 51), 51) > ALPHA
    assert chi_square_p_value(chi_square([1_400] + [1_000] * 51), 51) < ALPHA


# --- the fast dealing path equals the plain algorithm --------------------------------------


def plain_shuffle_prefix(seed: bytes, client: str, nonce: int, size: int, count: int) -> list[int]:
    shoe = list(range(size))
    DrawStream(seed, client, nonce).shuffle(shoe)
    return shoe[:count]


@pytest.mark.parametrize(("size", "count"), [(52, 7), (312, 7), (416, 7), (52, 52), (54, 20)])
def test_fast_positions_equal_a_full_fisher_yates(size: int, count: int) -> None:
    for nonce in range(60):
        fast = shoe_positions(SEED, "equal", nonce, size, count)
        assert fast == plain_shuffle_prefix(SEED, "equal", nonce, size, count)
        stream = DrawStream(SEED, "equal", nonce).dealt_positions(size)
        assert fast == [next(stream) for _ in range(count)]


def test_fast_positions_across_blocks_and_rejections() -> None:
    # A huge "shoe" makes rejections frequent and a 20-card deal spans several blocks.
    size = 3 * 2**30
    for nonce in range(30):
        stream = DrawStream(SEED, "huge", nonce).dealt_positions(size)
        assert shoe_positions(SEED, "huge", nonce, size, 20) == [next(stream) for _ in range(20)]
        stream = DrawStream(SEED, "huge", nonce).dealt_positions(size)
        assert shoe_positions(SEED, "huge", nonce, size, 7) == [next(stream) for _ in range(7)]


def test_full_shuffle_is_a_permutation() -> None:
    positions = shoe_positions(SEED, "perm", 3, 416, 416)
    assert sorted(positions) == list(range(416))


def test_deal_without_replacement_and_other_packs() -> None:
    cards = deal(SEED, "packs", 9, 312, decks=6)
    assert sorted(c.code for c in cards) == sorted(c.code for c in STANDARD_52.cards * 6)
    jokers = deal(SEED, "packs", 9, 54, decks=1, pack=WITH_JOKERS_54)
    assert {c.code for c in jokers} == {c.code for c in WITH_JOKERS_54.cards}
    piquet = deal(SEED, "packs", 9, 32, decks=1, pack=PIQUET_32)
    assert len({c.code for c in piquet}) == 32
    positions = shoe_positions(SEED, "packs", 9, 312, 7)
    assert [c.code for c in deal(SEED, "packs", 9, 7)] == [shoe_card(p).code for p in positions]


def test_deal_refuses_bad_inputs() -> None:
    with pytest.raises(ValueError):
        deal(SEED, "c", 0, 53, decks=1)
    with pytest.raises(ValueError):
        deal(SEED, "c", 0, 2, decks=9)
    with pytest.raises(InvalidSeed):
        deal(b"short", "c", 0, 2)
    with pytest.raises(InvalidSeed):
        deal(SEED, "", 0, 2)
    with pytest.raises(InvalidSeed):
        deal(SEED, "c", -1, 2)


def test_casino_war_deal_is_the_first_seven_cards_in_order() -> None:
    for decks in (1, 6, 8):
        for nonce in range(20):
            round_deal = deal_casino_war(SEED, "order", nonce, decks)
            assert list(round_deal.cards) == deal(SEED, "order", nonce, 7, decks=decks)


def test_casino_war_deal_refuses_bad_inputs() -> None:
    with pytest.raises(InvalidRules):
        deal_casino_war(SEED, "c", 0, 0)
    with pytest.raises(InvalidSeed):
        deal_casino_war(SEED.hex().encode(), "c", 0, 6)
    with pytest.raises(InvalidSeed):
        deal_casino_war(SEED, "c" * 65, 0, 6)
    with pytest.raises(InvalidSeed):
        deal_casino_war(SEED, "c", -5, 6)


def test_rounds_differ_by_nonce_and_client_seed() -> None:
    deals = {deal_casino_war(SEED, "c", n, 6).codes for n in range(50)}
    assert len(deals) == 50
    assert deal_casino_war(SEED, "c", 1, 6) != deal_casino_war(SEED, "d", 1, 6)
    assert deal_casino_war(SEED, "c", 1, 6) == deal_casino_war(SEED, "c", 1, 6)

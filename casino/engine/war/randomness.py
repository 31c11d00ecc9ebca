"""Every random choice of a War game, drawn from the card engine's fairness streams.

A game seed (any printable text) is hashed into a server seed; the client seed is fixed. Each
purpose gets its own nonce, so one kind of draw never shifts another:

====================  ==============================================
nonce ``8*r + 0``     deal of round ``r`` (``r`` = 0 unless a match)
nonce ``8*r + 1``     won cards' order, capture piles turned into stocks
nonce ``8*r + 2 + s`` computer decisions of seat ``s`` (0-3)
nonce ``6``           the human's seat, when drawn (``draw_seat``)
====================  ==============================================

The deal is the fairness spec's Fisher-Yates (``DrawStream.shuffle``, the walk that
``dealt_positions`` stops early: ``n - 1`` draws for ``n`` cards) over one pack in canonical
order, dealt round the table one card at a time. Other draws take bits from the stream's
32-bit draws, least significant bit first: ``below(n)`` takes ``bit_length(n - 1)`` bits and
rejects values ``>= n`` (no bias). A shuffle of up to 12 cards is one ``below(n!)`` read in
mixed radix as the Fisher-Yates swaps (a battle's two cards cost a single bit). The exact
specification, with test vectors, is the free-play section of ``docs/fairness.md``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import MutableSequence
from functools import cache
from typing import TypeVar

from casino.engine.cards import PACKS
from casino.engine.errors import InvalidSeed
from casino.engine.fairness import DrawStream
from casino.engine.war.rules import JokerDeal, WarRules

CLIENT_SEED = "free-play"
NONCES_PER_ROUND = 8
DEAL = 0
SHUFFLE = 1
SEAT_BASE = 2
#: Nonce 6 of round 0: the human's seat, when it asks for its seat to be drawn.
SEAT_DRAW = 6
SEED_MAX = 128

_T = TypeVar("_T")


def validate_seed(seed: str) -> str:
    if not isinstance(seed, str) or not 1 <= len(seed) <= SEED_MAX:
        raise InvalidSeed(f"a game seed is 1 to {SEED_MAX} characters of text")
    if not all(" " <= ch <= "~" for ch in seed):
        raise InvalidSeed("a game seed must be printable ASCII")
    return seed


def server_seed(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()


def seed_commitment(seed: str) -> str:
    """What a view shows while the game runs: the seed stays hidden, as it fixes every card."""
    return hashlib.sha256(server_seed(seed)).hexdigest()


def stream(key: bytes, round_no: int, purpose: int) -> DrawStream:
    return DrawStream(key, CLIENT_SEED, round_no * NONCES_PER_ROUND + purpose)


_ONE_DRAW_MAX = 12  # 12! < 2**32
_FACTORIAL = [math.factorial(n) for n in range(_ONE_DRAW_MAX + 1)]
_FACTORIAL_BITS = [(f - 1).bit_length() for f in _FACTORIAL]


class BitSource:
    """Bits from a DrawStream, for shuffles and strategy choices."""

    __slots__ = ("_u32", "nbits", "word")

    def __init__(self, draws: DrawStream) -> None:
        self._u32 = draws.u32
        # Public so the simulation kernel can keep the pool in locals in its hot loop.
        self.word = 0
        self.nbits = 0

    def bits(self, k: int) -> int:
        if self.nbits < k:
            self.word |= self._u32() << self.nbits
            self.nbits += 32
        value = self.word & ((1 << k) - 1)
        self.word >>= k
        self.nbits -= k
        return value

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        k = (n - 1).bit_length()
        while True:
            value = self.bits(k)
            if value < n:
                return value

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Fisher-Yates from the front. Up to 12 items, one number ``r = below(n!)`` read in
        mixed radix gives every swap (digit ``i`` = ``r mod (n-i)``, then ``r //= n-i``): the
        same uniform shuffle with one draw, since every won war is shuffled in simulations.
        Longer lists draw each swap with ``below(n - i)``."""
        n = len(items)
        if n < 2:
            return
        if n <= _ONE_DRAW_MAX:
            total = _FACTORIAL[n]
            k = _FACTORIAL_BITS[n]
            mask = (1 << k) - 1
            word, nbits = self.word, self.nbits
            while True:  # below(n!), inlined: one draw does the whole shuffle
                if nbits < k:
                    word |= self._u32() << nbits
                    nbits += 32
                r = word & mask
                word >>= k
                nbits -= k
                if r < total:
                    break
            self.word, self.nbits = word, nbits
            for i in range(n - 1):
                r, j = divmod(r, n - i)
                if j:
                    items[i], items[i + j] = items[i + j], items[i]
            return
        for i in range(n - 1):
            j = self.below(n - i)
            if j:
                items[i], items[i + j] = items[i + j], items[i]


_U32 = 1 << 32
#: Rejection limits of the fairness spec's randbelow(n): 2**32 - 2**32 mod n.
_LIMITS = [_U32 - _U32 % n if n else 0 for n in range(56)]


def _shuffled_pack(draws: DrawStream, size: int) -> list[int]:
    """``DrawStream.shuffle(list(range(size)))`` - the fairness spec's Fisher-Yates, which
    ``dealt_positions`` stops early - with its ``randbelow`` written out (same draws, same
    result; the tests hold it to both), because every simulated game starts with a deal."""
    order = list(range(size))
    u32 = draws.u32
    for i in range(size - 1):
        n = size - i
        limit = _LIMITS[n]
        x = u32()
        while x >= limit:
            x = u32()
        j = i + x % n
        order[i], order[j] = order[j], order[i]
    return order


@cache
def joker_indices(pack_name: str) -> tuple[int, ...]:
    return tuple(i for i, card in enumerate(PACKS[pack_name].cards) if card.suit is None)


@cache
def rank_table(pack_name: str) -> tuple[int, ...]:
    """Rank (as an int, jokers 15) of each card index of a pack."""
    return tuple(int(card.rank) for card in PACKS[pack_name].cards)


def deal(rules: WarRules, key: bytes, round_no: int = 0) -> tuple[list[list[int]], list[int]]:
    """Stocks (top card first) and the cards left out, as indices into ``rules.pack_spec.cards``.

    With ``joker_deal == 'split'`` the jokers are set aside, the rest is dealt, then joker ``i``
    is buried at a random depth of stock ``i`` (two seats only).
    """
    pack = rules.pack_spec
    draws = stream(key, round_no, DEAL)
    seats = rules.seats
    order = _shuffled_pack(draws, pack.size)
    split = rules.joker_deal is JokerDeal.SPLIT
    jokers = joker_indices(pack.name)
    if split:
        order = [p for p in order if p not in jokers]
    dealt = len(order) // seats * seats
    stocks = [order[seat:dealt:seats] for seat in range(seats)]
    left_out = order[dealt:]
    if split:
        for seat, joker in enumerate(jokers):
            stocks[seat].insert(draws.randbelow(len(stocks[seat]) + 1), joker)
    return stocks, left_out


def draw_seat(seed: str, seats: int) -> int:
    """The seat a human who asked for a drawn seat takes: ``below(seats)`` from nonce 6.

    Drawn from the game's own seed, so the draw is as reproducible (and as hidden until the
    seed is revealed) as the cards."""
    validate_seed(seed)
    return BitSource(DrawStream(server_seed(seed), CLIENT_SEED, SEAT_DRAW)).below(seats)

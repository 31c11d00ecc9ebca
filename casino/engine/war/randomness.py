"""Every random choice of a War game, drawn from the card engine's fairness streams.

A game seed (any printable text) is hashed into a server seed; the client seed is fixed. Each
purpose gets its own nonce, so one kind of draw never shifts another:

====================  ==============================================
nonce ``8*r + 0``     deal of round ``r`` (``r`` = 0 unless a match)
nonce ``8*r + 1``     won cards' order, capture piles turned into stocks
nonce ``8*r + 2 + s`` computer decisions of seat ``s`` (0-3)
====================  ==============================================

The deal is the fairness spec's Fisher-Yates (``DrawStream.shuffle``, the walk that
``dealt_positions`` stops early) over one pack in canonical order, dealt round the table one
card at a time. Other draws take bits from the
stream's 32-bit draws, least significant bit first: ``below(n)`` takes ``bit_length(n - 1)``
bits and rejects values ``>= n`` (no bias, and a two-card shuffle costs a single bit).
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

from casino.engine.errors import InvalidSeed
from casino.engine.fairness import DrawStream
from casino.engine.war.rules import JokerDeal, WarRules

CLIENT_SEED = "free-play"
NONCES_PER_ROUND = 8
DEAL = 0
SHUFFLE = 1
SEAT_BASE = 2
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
        """Fisher-Yates from the front, as in the fairness spec, with ``below`` (inlined:
        every won war is shuffled, so this is on the simulation's hot path)."""
        n = len(items)
        if n == 2:  # one battle's two cards: below(2) is a single bit
            if not self.nbits:
                self.word = self._u32()
                self.nbits = 32
            if self.word & 1:
                items[0], items[1] = items[1], items[0]
            self.word >>= 1
            self.nbits -= 1
            return
        word, nbits, u32 = self.word, self.nbits, self._u32
        for i in range(n - 1):
            m = n - i
            k = (m - 1).bit_length()
            mask = (1 << k) - 1
            while True:
                if nbits < k:
                    word |= u32() << nbits
                    nbits += 32
                j = word & mask
                word >>= k
                nbits -= k
                if j < m:
                    break
            if j:
                items[i], items[i + j] = items[i + j], items[i]
        self.word, self.nbits = word, nbits


def deal(rules: WarRules, key: bytes, round_no: int = 0) -> tuple[list[list[int]], list[int]]:
    """Stocks (top card first) and the cards left out, as indices into ``rules.pack_spec.cards``.

    With ``joker_deal == 'split'`` the jokers are set aside, the rest is dealt, then joker ``i``
    is buried at a random depth of stock ``i`` (two seats only).
    """
    pack = rules.pack_spec
    draws = stream(key, round_no, DEAL)
    seats = rules.seats
    stocks: list[list[int]] = [[] for _ in range(seats)]
    jokers = [i for i, card in enumerate(pack.cards) if card.suit is None]
    split = rules.joker_deal is JokerDeal.SPLIT
    # DrawStream.shuffle is the Fisher-Yates that dealt_positions stops early: same order.
    order = list(range(pack.size))
    draws.shuffle(order)
    if split:
        order = [p for p in order if p not in jokers]
    per_seat = (len(order)) // seats
    for i, position in enumerate(order[: per_seat * seats]):
        stocks[i % seats].append(position)
    left_out = order[per_seat * seats :]
    if split:
        for seat, joker in enumerate(jokers):
            stocks[seat].insert(draws.randbelow(len(stocks[seat]) + 1), joker)
    return stocks, left_out

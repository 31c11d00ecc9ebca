"""Provably fair randomness: committed server seed + client seed + nonce -> cards.

The exact algorithm is specified in ``docs/fairness.md`` so that anyone can re-implement it;
this module is its reference implementation and must stay standard-library only.

Summary:
* block ``i`` of the byte stream = HMAC-SHA256(key=server_seed, msg=f"{client_seed}:{nonce}:{i}")
* the stream is read as consecutive 4-byte big-endian unsigned integers;
* ``randbelow(n)`` rejects values >= 2**32 - (2**32 % n) and returns the rest modulo ``n``;
* a shoe of ``decks`` packs in canonical order is shuffled by a Fisher-Yates that runs from
  the front (position i swaps with i + randbelow(N - i)), emitting position i as it is fixed,
  so dealing k cards costs k draws and equals the first k cards of the full shuffle.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, MutableSequence
from typing import TypeVar

from casino.engine.cards import STANDARD_52, Card, Pack, shoe_size
from casino.engine.errors import InvalidSeed

SERVER_SEED_BYTES = 32
CLIENT_SEED_MAX = 64
_U32 = 1 << 32
_T = TypeVar("_T")


def new_server_seed() -> bytes:
    return secrets.token_bytes(SERVER_SEED_BYTES)


def new_client_seed() -> str:
    """A default client seed for players who have not chosen one."""
    return secrets.token_hex(8)


def commitment(server_seed: bytes) -> str:
    """The public commitment to a server seed: SHA-256 of its raw bytes, lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def parse_server_seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise InvalidSeed("server seed must be hex") from None
    if len(seed) != SERVER_SEED_BYTES:
        raise InvalidSeed(f"server seed must be {SERVER_SEED_BYTES} bytes (64 hex digits)")
    return seed


def validate_client_seed(client_seed: str) -> str:
    """1-64 printable ASCII characters (space included), returned unchanged."""
    if not 1 <= len(client_seed) <= CLIENT_SEED_MAX:
        raise InvalidSeed(f"client seed must be 1 to {CLIENT_SEED_MAX} characters")
    if not all(" " <= ch <= "~" for ch in client_seed):
        raise InvalidSeed("client seed must be printable ASCII")
    return client_seed


def validate_nonce(nonce: int) -> int:
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise InvalidSeed("nonce must be a non-negative integer")
    return nonce


class DrawStream:
    """Uniform integers drawn from the HMAC byte stream of one (server seed, client seed, nonce)."""

    __slots__ = ("_block", "_buf", "_pos", "_prefix", "_seed")

    def __init__(self, server_seed: bytes, client_seed: str, nonce: int) -> None:
        self._seed = server_seed
        self._prefix = f"{client_seed}:{nonce}:".encode()
        self._block = 0
        self._buf = b""
        self._pos = 0

    def u32(self) -> int:
        if self._pos + 4 > len(self._buf):
            # 32-byte blocks hold exactly eight draws, so no draw straddles two blocks.
            self._buf = hmac.digest(self._seed, self._prefix + str(self._block).encode(), "sha256")
            self._block += 1
            self._pos = 0
        pos = self._pos
        self._pos = pos + 4
        return int.from_bytes(self._buf[pos : pos + 4], "big")

    def randbelow(self, n: int) -> int:
        """Uniform in [0, n) by rejection: no modulo bias, no floats."""
        if not 0 < n <= _U32:
            raise ValueError(f"randbelow needs 0 < n <= 2**32, got {n}")
        limit = _U32 - (_U32 % n)
        while True:
            x = self.u32()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Full Fisher-Yates from the front, the same walk that ``deal`` stops early."""
        n = len(items)
        for i in range(n - 1):
            j = i + self.randbelow(n - i)
            items[i], items[j] = items[j], items[i]

    def dealt_positions(self, size: int) -> Iterator[int]:
        """Shoe positions in dealing order; a sparse swap map keeps each step O(1)."""
        swapped: dict[int, int] = {}
        for i in range(size):
            j = i + self.randbelow(size - i)
            at_j = swapped.get(j, j)
            swapped[j] = swapped.get(i, i)
            yield at_j


def deal(
    server_seed: bytes,
    client_seed: str,
    nonce: int,
    count: int,
    *,
    decks: int = 6,
    pack: Pack = STANDARD_52,
) -> list[Card]:
    """The first ``count`` cards of a freshly shuffled shoe, without replacement."""
    size = shoe_size(decks, pack)
    if not 0 <= count <= size:
        raise ValueError(f"cannot deal {count} cards from a shoe of {size}")
    cards = pack.cards
    per_pack = pack.size
    positions = DrawStream(server_seed, client_seed, nonce).dealt_positions(size)
    return [cards[next(positions) % per_pack] for _ in range(count)]

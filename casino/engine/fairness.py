"""Provably fair randomness: committed server seed + client seed + nonce -> cards.

The exact algorithm is specified in ``docs/fairness.md`` so that anyone can re-implement it;
this module is its reference implementation and must stay standard-library only.

Summary:
* block ``i`` of the byte stream = HMAC-SHA256(key=server_seed, msg=f"{client_seed}:{nonce}:{i}")
* the stream is read as consecutive 4-byte big-endian unsigned integers;
* ``randbelow(n)`` rejects values >= 2**32 - (2**32 % n) and returns the rest modulo ``n``;
* a shoe of ``decks`` packs in canonical order is shuffled by a Fisher-Yates that runs from
  the front (position i swaps with i + randbelow(N - i)), emitting position i as it is fixed,
  so dealing k cards costs k draws and equals the first k cards of the full shuffle; the last
  step (N - i = 1) draws nothing.

``DrawStream`` is the plain, readable form of the algorithm; ``shoe_positions`` is the same walk
written for speed (one HMAC and one ``struct`` unpack per eight draws), which every game's hot
dealing path uses. The tests hold the two to the same output.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, MutableSequence
from typing import Any, TypeVar

from casino.engine.cards import STANDARD_52, Card, Pack, shoe_size
from casino.engine.errors import InvalidSeed

SERVER_SEED_BYTES = 32
CLIENT_SEED_MAX = 64
NONCE_MAX = 2**63 - 1
_U32 = 1 << 32
#: One HMAC-SHA256 block is 32 bytes: exactly eight 4-byte draws, so no draw straddles blocks.
DRAWS_PER_BLOCK = 8
_T = TypeVar("_T")

_unpack_block = struct.Struct(">8I").unpack
_SHA256_BLOCK = 64
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_PAD_CACHE_MAX = 1024
_pad_cache: dict[bytes, tuple[Any, Any]] = {}


def _keyed_contexts(key: bytes) -> tuple[Any, Any]:
    """The inner and outer SHA-256 states of HMAC for ``key`` (RFC 2104), after the pads.

    A server seed keys thousands of rounds, so hashing its two pads once and copying the
    states per message halves the cost of each HMAC compared with ``hmac.digest``.
    """
    contexts = _pad_cache.get(key)
    if contexts is None:
        block_key = hashlib.sha256(key).digest() if len(key) > _SHA256_BLOCK else key
        block_key = block_key.ljust(_SHA256_BLOCK, b"\0")
        contexts = (
            hashlib.sha256(block_key.translate(_IPAD)),
            hashlib.sha256(block_key.translate(_OPAD)),
        )
        if len(_pad_cache) >= _PAD_CACHE_MAX:
            _pad_cache.clear()
        _pad_cache[bytes(key)] = contexts
    return contexts


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256, equal to ``hmac.digest(key, message, "sha256")``, faster on reused keys."""
    inner_start, outer_start = _keyed_contexts(key)
    inner = inner_start.copy()
    inner.update(message)
    outer = outer_start.copy()
    outer.update(inner.digest())
    return outer.digest()


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
    if not isinstance(client_seed, str) or not 1 <= len(client_seed) <= CLIENT_SEED_MAX:
        raise InvalidSeed(f"client seed must be 1 to {CLIENT_SEED_MAX} characters")
    # For ASCII text, isprintable() accepts exactly " " .. "~" (no tabs, newlines or DEL).
    if not (client_seed.isascii() and client_seed.isprintable()):
        raise InvalidSeed("client seed must be printable ASCII")
    return client_seed


def validate_nonce(nonce: int) -> int:
    """0 to 2**63 - 1: the nonce is a signed 64-bit column, and the spec bounds it so that
    two implementations never disagree on a nonce one of them cannot store."""
    if type(nonce) is int and 0 <= nonce <= NONCE_MAX:  # every round: the cheap test first
        return nonce
    if isinstance(nonce, bool) or not isinstance(nonce, int) or not 0 <= nonce <= NONCE_MAX:
        raise InvalidSeed(f"nonce must be an integer from 0 to 2**63 - 1 ({NONCE_MAX})")
    return nonce


def validate_server_seed(server_seed: bytes) -> bytes:
    if not isinstance(server_seed, bytes) or len(server_seed) != SERVER_SEED_BYTES:
        raise InvalidSeed(f"server seed must be {SERVER_SEED_BYTES} raw bytes")
    return server_seed


def rejection_limit(n: int) -> int:
    """Draws at or above this value are rejected when drawing below ``n``."""
    if not 0 < n <= _U32:
        raise ValueError(f"randbelow needs 0 < n <= 2**32, got {n}")
    return _U32 - (_U32 % n)


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
            self._buf = hmac.digest(self._seed, self._prefix + str(self._block).encode(), "sha256")
            self._block += 1
            self._pos = 0
        pos = self._pos
        self._pos = pos + 4
        return int.from_bytes(self._buf[pos : pos + 4], "big")

    def randbelow(self, n: int) -> int:
        """Uniform in [0, n) by rejection: no modulo bias, no floats."""
        limit = rejection_limit(n)
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
        """Shoe positions in dealing order; a sparse swap map keeps each step O(1).

        The last step (one card left) draws nothing, as in ``shuffle``: the spec says so, and
        it matters to whoever reads the stream on afterwards."""
        swapped: dict[int, int] = {}
        for i in range(size):
            j = i + self.randbelow(size - i) if size - i > 1 else i
            at_j = swapped.get(j, j)
            swapped[j] = swapped.get(i, i)
            yield at_j


def _draw_plan(size: int, count: int) -> tuple[tuple[int, int], ...]:
    """(range, rejection limit) of each of the ``count`` draws from a shoe of ``size``."""
    plan = _plans.get((size, count))
    if plan is None:
        plan = tuple((size - i, rejection_limit(size - i)) for i in range(count))
        if len(_plans) < _PLAN_CACHE_MAX:
            _plans[(size, count)] = plan
    return plan


_PLAN_CACHE_MAX = 256
_plans: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}


def shoe_positions(
    server_seed: bytes, client_seed: str, nonce: int, size: int, count: int
) -> list[int]:
    """The first ``count`` positions of the shuffled shoe of ``size`` cards, fast.

    Same output as ``DrawStream(...).dealt_positions(size)`` cut to ``count``; inputs are
    trusted (callers validate seeds once, not per round).
    """
    plan = _plans.get((size, count))
    if plan is None:
        if not 0 <= count <= size <= _U32:
            raise ValueError(f"cannot deal {count} cards from a shoe of {size}")
        plan = _draw_plan(size, count)
    prefix = f"{client_seed}:{nonce}:".encode()
    inner_start, outer_start = _pad_cache.get(server_seed) or _keyed_contexts(server_seed)
    inner = inner_start.copy()
    inner.update(prefix + b"0")
    outer = outer_start.copy()
    outer.update(inner.digest())
    draws = _unpack_block(outer.digest())
    swapped: dict[int, int] = {}
    get = swapped.get
    out: list[int] = []
    if count <= DRAWS_PER_BLOCK:
        # Common case: a rejection has odds of about 1 in 10**7 per draw for real shoes, so
        # the first block almost always covers the whole deal with one draw per card.
        for i, ((n, limit), x) in enumerate(zip(plan, draws, strict=False)):
            if x >= limit:
                break
            j = i + x % n
            out.append(get(j, j))
            swapped[j] = get(i, i)
        else:
            return out
    # General walk, also taken after a rejection in the first block: start over from draw 0.
    swapped.clear()
    out.clear()
    block = 1
    k = 0
    for i, (n, limit) in enumerate(plan):
        while True:
            if k == DRAWS_PER_BLOCK:
                message = prefix + str(block).encode()
                draws = _unpack_block(hmac_sha256(server_seed, message))
                block += 1
                k = 0
            x = draws[k]
            k += 1
            if x < limit:
                break
        j = i + x % n
        out.append(get(j, j))
        swapped[j] = get(i, i)
    return out


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
    validate_server_seed(server_seed)
    validate_client_seed(client_seed)
    validate_nonce(nonce)
    size = shoe_size(decks, pack)
    if not 0 <= count <= size:
        raise ValueError(f"cannot deal {count} cards from a shoe of {size}")
    cards = pack.cards
    per_pack = pack.size
    positions = shoe_positions(server_seed, client_seed, nonce, size, count)
    return [cards[p % per_pack] for p in positions]

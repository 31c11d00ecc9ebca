"""The hash chain of a shared table's shoe seeds (docs/fairness.md, section 17).

The chain is made backwards from a random secret, as Bustabit's game hashes are: with
``length`` L and secret ``c_L`` (32 bytes from a CSPRNG), ``c_(i-1) = SHA-256(c_i)`` over the
32 raw bytes, down to ``c_0``, the **chain commitment**, published before any shoe of the chain
is dealt. Shoe ``k`` (1 to L) is dealt from seed ``c_k``; shoes are used in the order 1, 2, ...
so each seed is revealed at the end of its shoe, and proves itself by hashing to the
commitment in ``k`` steps. Since ``c_k = SHA-256(c_(k+1))``, a revealed seed is also the
commitment of the next shoe's seed: nobody who only knows the seeds revealed so far can
compute the next one, and the server cannot change it without breaking the chain.

Deriving ``c_k`` from the secret costs ``L - k`` hashes (a third of a microsecond each): a
chain of 100,000 shoes (years of one table) costs at most some 30 ms per shoe
(``python -m bench shoe``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from casino.engine.errors import InvalidSeed

SEED_BYTES = 32
#: The longest chain the engine makes or checks: deriving a seed costs up to this many hashes.
MAX_CHAIN_LENGTH = 10_000_000


def link(seed: bytes) -> bytes:
    """One step down the chain: SHA-256 of the seed's 32 raw bytes."""
    return hashlib.sha256(seed).digest()


def hash_down(seed: bytes, steps: int) -> bytes:
    """``steps`` links down the chain from ``seed`` (0 steps: the seed itself)."""
    value = seed
    sha256 = hashlib.sha256
    for _ in range(steps):
        value = sha256(value).digest()
    return value


def check_index(index: int, length: int = MAX_CHAIN_LENGTH) -> int:
    if type(index) is not int or not 1 <= index <= length:
        raise InvalidSeed(f"a shoe's index in its chain is 1 to {length}, not {index!r}")
    return index


def parse_seed(text: str) -> bytes:
    """A chain value written as 64 hex digits (a seed, or the commitment)."""
    try:
        value = bytes.fromhex(text)
    except (TypeError, ValueError):
        raise InvalidSeed("a chain seed is 64 hex digits") from None
    if len(value) != SEED_BYTES:
        raise InvalidSeed("a chain seed is 64 hex digits")
    return value


def verify_seed(seed: bytes, index: int, commitment: bytes | str) -> bool:
    """Whether ``seed`` is the seed of shoe ``index`` of the chain published as
    ``commitment``: ``index`` SHA-256 steps from the seed reach it."""
    check_index(index)
    expected = parse_seed(commitment) if isinstance(commitment, str) else commitment
    if type(seed) is not bytes or len(seed) != SEED_BYTES:
        return False
    return hmac.compare_digest(hash_down(seed, index), expected)


@dataclass(frozen=True)
class HashChain:
    """A chain the server holds: its secret (the last seed) and its length. Never shown;
    ``commitment`` is what is published."""

    secret: bytes
    length: int

    def __post_init__(self) -> None:
        if type(self.secret) is not bytes or len(self.secret) != SEED_BYTES:
            raise InvalidSeed(f"a chain secret is {SEED_BYTES} raw bytes")
        if type(self.length) is not int or not 1 <= self.length <= MAX_CHAIN_LENGTH:
            raise InvalidSeed(f"a chain holds 1 to {MAX_CHAIN_LENGTH} shoes")

    @classmethod
    def new(cls, length: int) -> HashChain:
        return cls(secrets.token_bytes(SEED_BYTES), length)

    @property
    def commitment(self) -> bytes:
        """``c_0``: published before the chain's first shoe."""
        return hash_down(self.secret, self.length)

    def seed(self, index: int) -> bytes:
        """``c_index``, the seed of shoe ``index`` (1 to ``length``)."""
        check_index(index, self.length)
        return hash_down(self.secret, self.length - index)

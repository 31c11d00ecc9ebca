"""Signed checkpoints: the sealer's record of every transaction committed so far.

A checkpoint seals one batch: every transaction whose ``commit_seq`` lies in
``[commit_from, commit_to)`` (a range no transaction can join any more once sealed; see
casino.store.checkpoints). It holds the batch's size, the Merkle root of its
``"<id>:<hash>"`` leaves (casino.ledger.merkle), the running balances of the shared accounts
after it, and the hash of the previous checkpoint, so the checkpoints form a chain of their
own. Its ``hash`` is SHA-256 of the canonical JSON of those fields; its ``signature`` is the
Ed25519 signature of ``"casino-checkpoint-v1:" + hash`` by the operator's signing key.

Together with the per-wallet chains this makes history fixed once sealed: editing, deleting
or inserting a sealed transaction changes the batch's root, rewriting the checkpoint breaks
its signature, and signing a forged one needs the private key, which the database never
holds.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from casino.ledger.chain import GENESIS_HASH, canonical_time

SIGNATURE_CONTEXT = b"casino-checkpoint-v1:"

__all__ = [
    "GENESIS_HASH",
    "Checkpoint",
    "CheckpointBody",
    "CheckpointRef",
    "SigningKey",
    "TrustedKey",
    "VerifyingKey",
    "checkpoint_hash",
]


@dataclass(frozen=True)
class CheckpointBody:
    """What a checkpoint says, and what its hash covers."""

    seq: int
    commit_from: int
    commit_to: int
    tx_count: int
    total_count: int
    root: str
    balances: Mapping[str, int]  # shared account key -> balance after this checkpoint
    created_at: datetime
    prev_hash: str

    def digest(self) -> str:
        """SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) of the fields."""
        document = {name: getattr(self, name) for name in (f.name for f in fields(CheckpointBody))}
        document["balances"] = {key: int(value) for key, value in sorted(self.balances.items())}
        document["created_at"] = canonical_time(self.created_at)
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def body(self) -> CheckpointBody:
        return CheckpointBody(**{f.name: getattr(self, f.name) for f in fields(CheckpointBody)})


@dataclass(frozen=True)
class Checkpoint(CheckpointBody):
    """A sealed checkpoint: its body, the body's hash, and the signature of that hash."""

    hash: str
    key_id: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return {
            **{f.name: getattr(self, f.name) for f in fields(self)},
            "balances": dict(sorted(self.balances.items())),
            "created_at": canonical_time(self.created_at),
        }


def checkpoint_hash(**body: Any) -> str:
    """The hash of a checkpoint with these fields (those of ``CheckpointBody``)."""
    return CheckpointBody(**body).digest()


def recomputed_hash(checkpoint: CheckpointBody) -> str:
    return checkpoint.body().digest()


def key_id_of(public_raw: bytes) -> str:
    """A short, stable name of a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_raw).hexdigest()[:16]


@dataclass(frozen=True)
class VerifyingKey:
    """An Ed25519 public key that checkpoints can be checked against."""

    raw: bytes

    @property
    def key_id(self) -> str:
        return key_id_of(self.raw)

    @property
    def hex(self) -> str:
        return self.raw.hex()

    def pem(self) -> str:
        public = Ed25519PublicKey.from_public_bytes(self.raw)
        return public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode("ascii")

    def verifies(self, digest: str, signature: str) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(
                bytes.fromhex(signature), SIGNATURE_CONTEXT + digest.encode("ascii")
            )
        except (InvalidSignature, ValueError):
            return False
        return True

    @classmethod
    def parse(cls, text: str) -> VerifyingKey:
        """A public key as 64 hex digits or as PEM."""
        text = text.strip()
        if text.startswith("-----BEGIN"):
            loaded = serialization.load_pem_public_key(text.encode("ascii"))
            if not isinstance(loaded, Ed25519PublicKey):
                raise ValueError("not an Ed25519 public key")
            return cls(loaded.public_bytes_raw())
        raw = bytes.fromhex(text)
        if len(raw) != 32:
            raise ValueError("an Ed25519 public key is 32 bytes (64 hex digits)")
        return cls(raw)


@dataclass(frozen=True)
class CheckpointRef:
    """A checkpoint named by its number and hash (what a sealer records, what an auditor
    pins)."""

    seq: int
    hash: str


_RANGE = re.compile(r"(\d+)-(\d*)")


@dataclass(frozen=True)
class TrustedKey:
    """A public key trusted for checkpoints, for all of them or for those numbered ``first``
    to ``last`` (a retired key: the checkpoints it signed while it was the signing key).

    Written ``KEY`` or ``KEY@FIRST-LAST`` (``KEY@FIRST-``: from FIRST on), KEY being 64 hex
    digits or a PEM. A retired key that leaked then cannot sign a checkpoint after its time.
    """

    key: VerifyingKey
    first: int | None = None
    last: int | None = None

    @property
    def key_id(self) -> str:
        return self.key.key_id

    def covers(self, seq: int) -> bool:
        return (self.first is None or seq >= self.first) and (self.last is None or seq <= self.last)

    def span(self) -> str:
        """The checkpoints it may sign, in words."""
        if self.first is None and self.last is None:
            return "any checkpoint"
        return f"checkpoints {self.first or 1} to {'the last' if self.last is None else self.last}"

    def to_dict(self) -> dict[str, Any]:
        """As exports and ``GET /ledger/public-key`` give it: a retired key with its range."""
        described: dict[str, Any] = {"key_id": self.key_id, "public_key": self.key.hex}
        if self.first is not None or self.last is not None:
            described.update(first=self.first or 1, last=self.last)
        return described

    def text(self) -> str:
        """How it is written in CASINO_TRUSTED_SIGNING_KEYS (hex)."""
        if self.first is None and self.last is None:
            return self.key.hex
        return f"{self.key.hex}@{self.first or 1}-{'' if self.last is None else self.last}"

    @classmethod
    def parse(cls, text: str) -> TrustedKey:
        text = text.strip()
        key_text, at, bounds = text.rpartition("@")
        if not at:
            return cls(VerifyingKey.parse(text))
        matched = _RANGE.fullmatch(bounds.strip())
        if matched is None:
            raise ValueError(f"a key's range is FIRST-LAST or FIRST-, not {bounds!r}")
        first = int(matched.group(1))
        last = int(matched.group(2)) if matched.group(2) else None
        if first < 1 or (last is not None and last < first):
            raise ValueError(f"an empty range of checkpoints: {bounds!r}")
        return cls(VerifyingKey.parse(key_text), first, last)


def check_signature(checkpoint: Checkpoint, trusted: Sequence[TrustedKey]) -> str | None:
    """Why ``checkpoint`` is not one a trusted key signed (its hash recomputed, its signature
    checked by a key trusted for its number), or None when it is."""
    name = f"checkpoint {checkpoint.seq}"
    if recomputed_hash(checkpoint) != checkpoint.hash:
        return f"{name} was edited after it was sealed"
    entries = [entry for entry in trusted if entry.key_id == checkpoint.key_id]
    if not entries:
        return f"{name} is signed by an untrusted key {checkpoint.key_id}"
    if not any(entry.covers(checkpoint.seq) for entry in entries):
        spans = ", ".join(entry.span() for entry in entries)
        return f"{name} is signed by key {checkpoint.key_id}, trusted only for {spans}"
    if not entries[0].key.verifies(checkpoint.hash, checkpoint.signature):
        return f"{name} has an invalid signature"
    return None


def as_trusted(keys: Iterable[VerifyingKey | TrustedKey]) -> list[TrustedKey]:
    """Keys as trusted keys: a bare public key is trusted for every checkpoint."""
    return [key if isinstance(key, TrustedKey) else TrustedKey(key) for key in keys]


class SigningKey:
    """The operator's Ed25519 private key for checkpoints."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.verifying = VerifyingKey(private.public_key().public_bytes_raw())

    @property
    def key_id(self) -> str:
        return self.verifying.key_id

    def sign(self, digest: str) -> str:
        return self._private.sign(SIGNATURE_CONTEXT + digest.encode("ascii")).hex()

    def private_hex(self) -> str:
        return self._private.private_bytes_raw().hex()

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> SigningKey:
        """A private key as 64 hex digits (the 32-byte seed) or as PEM (PKCS#8)."""
        text = text.strip()
        if text.startswith("-----BEGIN"):
            loaded = serialization.load_pem_private_key(text.encode("ascii"), password=None)
            if not isinstance(loaded, Ed25519PrivateKey):
                raise ValueError("not an Ed25519 private key")
            return cls(loaded)
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            raise ValueError("the signing key is neither 64 hex digits nor PEM") from None
        if len(raw) != 32:
            raise ValueError("an Ed25519 private key is 32 bytes (64 hex digits)")
        return cls(Ed25519PrivateKey.from_private_bytes(raw))


def seal(body: CheckpointBody, key: SigningKey) -> Checkpoint:
    digest = body.digest()
    return Checkpoint(
        **{f.name: getattr(body, f.name) for f in fields(CheckpointBody)},
        hash=digest,
        key_id=key.key_id,
        signature=key.sign(digest),
    )


def roll_up(previous: Mapping[str, int], movements: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Shared accounts' balances after a batch: the previous ones plus the batch's postings."""
    balances = dict(previous)
    for key, amount in movements:
        balances[key] = balances.get(key, 0) + amount
    return balances

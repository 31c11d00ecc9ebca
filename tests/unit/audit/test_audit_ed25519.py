"""The verifier's pure-Python Ed25519 (RFC 8032) accepts exactly the signatures the
``cryptography`` package (OpenSSL) makes and accepts: the RFC's own test vectors, then
signatures of random keys and messages, and it refuses every kind of forgery."""

from __future__ import annotations

import hashlib
import secrets

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from casino.audit_export.casino_audit_export import (
    _L,
    ed25519_verify,
    key_id_of,
    parse_public_key,
)
from casino.ledger.checkpoints import SigningKey

# RFC 8032, section 7.1: secret key, public key, message, signature (hex).
RFC8032_VECTORS = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    (  # TEST SHA(abc): the message is SHA-512("abc")
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        hashlib.sha512(b"abc").hexdigest(),
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
        "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    ),
]


@pytest.mark.parametrize("vector", RFC8032_VECTORS, ids=["test1", "test2", "test3", "sha-abc"])
def test_rfc8032_vectors_verify(vector: tuple[str, str, str, str]) -> None:
    secret, public, message, signature = (bytes.fromhex(part) for part in vector)
    # The vectors are what they claim: OpenSSL derives the same key and signature.
    private = Ed25519PrivateKey.from_private_bytes(secret)
    assert private.public_key().public_bytes_raw() == public
    assert private.sign(message) == signature
    assert ed25519_verify(public, message, signature)
    assert not ed25519_verify(public, message + b"\x00", signature)
    flipped = bytearray(signature)
    flipped[0] ^= 1
    assert not ed25519_verify(public, message, bytes(flipped))


def test_signatures_of_random_keys_and_messages_agree_with_openssl() -> None:
    for size in (0, 1, 31, 64, 65, 200, 1000):
        private = Ed25519PrivateKey.generate()
        public = private.public_key().public_bytes_raw()
        message = secrets.token_bytes(size)
        signature = private.sign(message)
        assert ed25519_verify(public, message, signature)
        other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        assert not ed25519_verify(other, message, signature)
        if message:
            assert not ed25519_verify(public, message[:-1], signature)


def test_checkpoint_signatures_of_the_casino_verify() -> None:
    """What the verifier really checks: the sealer's signature over the context and hash."""
    key = SigningKey.generate()
    digest = hashlib.sha256(b"a checkpoint").hexdigest()
    signature = bytes.fromhex(key.sign(digest))
    message = b"casino-checkpoint-v1:" + digest.encode("ascii")
    assert ed25519_verify(key.verifying.raw, message, signature)
    assert not ed25519_verify(key.verifying.raw, digest.encode("ascii"), signature)
    assert key_id_of(key.verifying.raw) == key.key_id


def test_forgeries_are_refused() -> None:
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes_raw()
    message = b"message"
    signature = private.sign(message)
    r, s = signature[:32], int.from_bytes(signature[32:], "little")
    # S + L is the same scalar modulo L: malleable, so RFC 8032 requires S < L.
    assert not ed25519_verify(public, message, r + (s + _L).to_bytes(32, "little"))
    # R or A not a point of the curve, or encoded non-canonically (y >= p), or wrong sizes.
    not_a_point = (2).to_bytes(32, "little")
    assert not ed25519_verify(not_a_point, message, signature)
    assert not ed25519_verify(public, message, not_a_point + signature[32:])
    non_canonical = (2**255 - 19 + 1).to_bytes(32, "little")
    assert not ed25519_verify(non_canonical, message, signature)
    assert not ed25519_verify(public[:31], message, signature)
    assert not ed25519_verify(public, message, signature[:63])
    assert not ed25519_verify(public, message, bytes(64))


def test_public_keys_are_read_as_hex_or_pem() -> None:
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes_raw()
    pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert parse_public_key(raw.hex()) == raw
    assert parse_public_key(pem.decode("ascii")) == raw
    with pytest.raises(ValueError):
        parse_public_key("ab" * 31)

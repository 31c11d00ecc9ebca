"""The Merkle tree of a checkpoint (RFC 6962): roots, audit paths, and their verification."""

from __future__ import annotations

import hashlib

import pytest

from casino.ledger.merkle import (
    EMPTY_ROOT,
    inclusion_proof,
    leaf_hash,
    merkle_root,
    node_hash,
    transaction_leaf,
    verify_inclusion,
)


def reference_root(leaves: list[bytes]) -> bytes:
    """RFC 6962's recursive definition, written out as the RFC states it."""
    if len(leaves) == 1:
        return leaf_hash(leaves[0])
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(reference_root(leaves[:k]), reference_root(leaves[k:]))


def leaves(n: int) -> list[bytes]:
    return [transaction_leaf(i + 1, hashlib.sha256(str(i).encode()).hexdigest()) for i in range(n)]


def test_known_roots() -> None:
    assert merkle_root([]) == EMPTY_ROOT == hashlib.sha256(b"").hexdigest()
    assert merkle_root([b""]) == hashlib.sha256(b"\x00").hexdigest()
    # RFC 6962 / Certificate Transparency test vector: the root of the empty leaf and "\x00".
    two = merkle_root([b"", b"\x00"])
    assert two == node_hash(leaf_hash(b""), leaf_hash(b"\x00")).hex()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100])
def test_root_is_rfc_6962_and_every_leaf_proves(n: int) -> None:
    data = leaves(n)
    root = merkle_root(data)
    assert root == reference_root(data).hex()
    for index in range(n):
        proof = inclusion_proof(data, index)
        assert len(proof) <= max(1, n.bit_length())
        assert verify_inclusion(data[index], index, n, proof, root)


def test_a_proof_does_not_prove_anything_else() -> None:
    data = leaves(9)
    root = merkle_root(data)
    proof = inclusion_proof(data, 4)
    assert not verify_inclusion(data[5], 4, 9, proof, root)  # another leaf
    assert not verify_inclusion(data[4], 5, 9, proof, root)  # another position
    assert not verify_inclusion(data[4], 4, 17, proof, root)  # a tree of another shape
    assert not verify_inclusion(data[4], 9, 9, proof, root)  # beyond the tree
    assert not verify_inclusion(data[4], 4, 9, proof[:-1], root)  # a step short
    assert not verify_inclusion(data[4], 4, 9, proof, merkle_root(leaves(8)))
    with pytest.raises(IndexError):
        inclusion_proof(data, 9)

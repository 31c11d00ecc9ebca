"""A Merkle tree over a checkpoint's transactions, as Certificate Transparency builds it
(RFC 6962, section 2.1), so that one transaction's membership can be proved with log2(n)
hashes instead of the whole batch.

    leaf hash  = SHA-256(0x00 || leaf)
    node hash  = SHA-256(0x01 || left || right)
    tree(D[n]) = tree(D[0:k]) and tree(D[k:n]), k the largest power of two below n

A checkpoint's leaves are ``"<transaction id>:<transaction hash>"`` in ASCII, in the order
the checkpoint lists them (commit order, then id).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

EMPTY_ROOT = hashlib.sha256(b"").hexdigest()


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def transaction_leaf(tx_id: int, tx_hash: str) -> bytes:
    return f"{tx_id}:{tx_hash}".encode("ascii")


def _split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _root(hashes: Sequence[bytes]) -> bytes:
    # Bottom-up, level by level; an odd last node is carried up unchanged, which gives
    # the same tree as RFC 6962's recursive split.
    level = list(hashes)
    while len(level) > 1:
        nxt = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def merkle_root(leaves: Sequence[bytes]) -> str:
    if not leaves:
        return EMPTY_ROOT
    return _root([leaf_hash(leaf) for leaf in leaves]).hex()


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[str]:
    """The audit path of leaf ``index`` (RFC 6962, 2.1.1), hex, leaf level first."""
    if not 0 <= index < len(leaves):
        raise IndexError("leaf index out of range")
    hashes = [leaf_hash(leaf) for leaf in leaves]

    def path(m: int, nodes: list[bytes]) -> list[bytes]:
        n = len(nodes)
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return [*path(m, nodes[:k]), _root(nodes[k:])]
        return [*path(m - k, nodes[k:]), _root(nodes[:k])]

    return [node.hex() for node in path(index, hashes)]


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[str], root: str) -> bool:
    """Whether ``proof`` shows ``leaf`` at ``index`` of a tree of ``size`` leaves with
    ``root`` (RFC 9162, 2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    node = leaf_hash(leaf)
    for step in proof:
        sibling = bytes.fromhex(step)
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            node = node_hash(sibling, node)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            node = node_hash(node, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and node.hex() == root

#!/usr/bin/env python3
"""Check a casino ledger export offline, with nothing but the Python standard library.

    python3 casino_audit_export.py export.ndjson [--json] [--key PUBLIC_KEY ...]
        [--pin SEQ:HASH ...] [--pin-file FILE] [--allow-unsealed] [--jobs N] [--state FILE]

An export (``casino export`` or ``GET /api/v1/ledger/export``) is a file of JSON lines; the
format is specified in docs/audit.md of the casino project. This file is all an auditor
needs: it imports nothing but the standard library (Python >= 3.11), so it can be copied
alone to any machine and read from top to bottom. It trusts nothing in the export that it
can recompute. It checks:

1. ``format``: a header first and a trailer last; every line carries the SHA-256 of the line
   before it, so a line edited, dropped, inserted or moved breaks the chain there. (Whoever
   edits an export can recompute these digests; they only point at the broken line. What
   protects the content is everything below, which the verifier recomputes itself.)
2. ``accounts``: every account once, its key consistent with its kind, currency and player
   (and with the operator the export is of: see ``shared_key``).
3. ``transactions_balanced``: every transaction has at least two non-zero postings summing
   to zero, to known accounts of its currency, and moves exactly its own player's wallet.
4. ``running_balances``: along each wallet's chain, ``wallet_balance_after`` is the running
   sum of the wallet's postings and never negative; the chain ends at the wallet's balance.
5. ``wallet_chains``: each transaction hashes to its link (so no field or posting was edited)
   and each link points at the wallet's previous one, gapless, ending at the wallet's head.
6. ``checkpoints``: the checkpoints chain one to the next, are signed (Ed25519, verified here
   in pure Python per RFC 8032) by a key trusted for their number over their recomputed
   hash, and each one's Merkle root (RFC 6962) and count are those of the exported
   transactions it sealed; the shared accounts' balances it records are what its
   transactions moved.
7. ``sealed``: every transaction is covered by a signed checkpoint; the ones after the last
   checkpoint are counted, and fail the check unless ``--allow-unsealed`` accepts them.
8. ``pinned``: every checkpoint pinned with ``--pin SEQ:HASH`` or ``--pin-file`` is in the
   export with that hash.
9. ``in_play``: the money held in play is exactly the unsettled stakes of the rounds awaiting
   a decision (their antes; with several hands, every bet not settled yet).
10. ``rounds``: every round whose server seed is revealed is re-dealt from its seeds (the
   algorithm of docs/fairness.md, implemented below) and must show the same cards; every
   round's payouts and net are recomputed from its cards and the table rules it was played
   under; its transactions must take its stakes and pay its payouts back.

11. ``shared_rounds``: every revealed shoe of a shared table is checked against its chain's
   commitment and re-derived (docs/fairness.md section 17, implemented below), its rounds
   re-dealt; every bet is re-settled on its round's cards, a void round's bets refunded, and
   each bet's transactions must take its stakes and pay back its payouts. The bets of a shoe
   not revealed yet are counted as not verifiable.

Rounds whose server seed is not revealed yet cannot be re-dealt: they are listed, and their
payouts are still recomputed from the cards they show. Exit status: 0 when every check
holds, 1 when any fails, 2 when the file cannot be read or the command line is wrong.
``--json`` prints the summary as JSON.

Pin the casino's public keys with ``--key`` (obtained from the casino, not from the export;
``KEY@FIRST-LAST`` for a retired key): without them the checkpoints are checked against the
keys the export itself names, which shows only that the export is consistent with itself.
An export whose last checkpoints were left out reads as one made before them, with more
transactions unsealed: pin the latest checkpoint you know (``--pin``, or the saved list of
``--pin-file``), and leave ``--allow-unsealed`` out unless you expect unsealed ones.

An incremental audit (a daily one) reads only what is new: ``--state FILE`` saves, when
every check holds, the state at the last checkpoint verified (each wallet's chain head and
balance, the checkpoint chain, each seed's nonces dealt, the rounds still open and what
their transactions moved, the money in play). The next run with the same ``--state FILE``
reads ``casino export --from-checkpoint N`` of that checkpoint and checks it against the
state, as the rest of a full export would be checked: the export's anchor must be the saved
checkpoint itself, its wallets must open where the saved chains end, every pin up to that
checkpoint must be in the saved chain (else the state is refused: exit status 2). Keep the
state file as safe as the pins: it stands for everything verified before it.

``--jobs N`` lets N worker processes do the half of the work each line allows by itself
(parsing, hashing, re-dealing, recomputing payouts) while this process does the rest in
order; ``--jobs 1`` does everything in this process. The result is the same, to the last
message and line number: both run the very same code, only in one process or several.

Reading order: constants; Ed25519; the ledger's hashes and Merkle tree; the deal; the
payouts (``settle``, the one place that knows how Casino War pays); reading a line (what
each line says by itself); the ``Verifier``, one method per line type (what needs the lines
before); reading in parallel; the command.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import functools
import gc
import hashlib
import hmac
import itertools
import json
import marshal
import multiprocessing
import os
import signal
import struct
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, NamedTuple

FORMAT = "casino-export-v1"
GENESIS = "0" * 64  # the "previous hash" of every chain's first link
# A checkpoint's signature covers this prefix, then its hash.
SIGNATURE_CONTEXT = b"casino-checkpoint-v1:"
# "raise" and "settlement" are how rounds were booked before a round's money became one or two
# transactions; ledgers that began then still hold them.
TRANSACTION_KINDS = ("deposit", "withdrawal", "bet", "stake", "decision", "raise", "settlement")
ROUND_OPENERS = ("bet", "stake")  # the transaction a round is placed with (its line comes first)
CASH_KINDS = ("deposit", "withdrawal")  # the transactions that belong to no round
# A shared table's round (docs/shared-tables.md) is named by the transaction's reference,
# "shared:<table>:<shoe>:<round>": the bet (stake), the war (decision), the payout or refund
# (bet), each moving the wallet and the house only.
SHARED_KINDS = ("stake", "decision", "bet")


def is_shared_reference(reference: Any) -> bool:
    if not isinstance(reference, str) or not reference.startswith("shared:"):
        return False
    parts = reference.split(":")
    return len(parts) == 4 and parts[1] != "" and parts[2].isdigit() and parts[3].isdigit()


ACCOUNT_KINDS = ("wallet", "house", "in_play", "cash")
# The operator whose shared accounts keep the keys from before operators (house:EUR ...).
DEFAULT_OPERATOR = "default"
DECIDERS = ("player", "system", "timeout")  # who decided a tie: player, resolver, clock
AWAITING, SETTLED = "awaiting_decision", "settled"
EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
# Lines must come in this order of sections (rounds, transactions, leaves and checkpoints mix).
SECTION = {
    "header": 0,
    "account": 1,
    "seed": 2,
    "anchor": 3,
    "round": 4,
    "transaction": 4,
    "leaf": 4,
    "checkpoint": 4,
    "shoe": 5,
    "shared_bet": 5,
    "trailer": 6,
}
MAX_EXAMPLES = 10

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)
_raw_decode = json.JSONDecoder().raw_decode


def shared_key(kind: str, currency: str, operator: str) -> str:
    """The key of an operator's shared account (house, in_play, cash) in a currency: the
    operator "default" (and an export that names none) keeps ``<kind>:<currency>``, any other
    operator's is ``<kind>:<operator>:<currency>``. An export is one operator's books."""
    if operator == DEFAULT_OPERATOR:
        return f"{kind}:{currency}"
    return f"{kind}:{operator}:{currency}"


def canonical(document: Any) -> bytes:
    """The canonical JSON the casino hashes: sorted keys, no spaces, ASCII only."""
    return _CANONICAL.encode(document).encode("ascii")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_hex(text: object, length: int) -> bool:
    if not isinstance(text, str) or len(text) != length:
        return False
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return text == text.lower()


# =============================================================================================
# Ed25519 signature verification (RFC 8032, section 5.1.7), in pure Python.
#
# Points of the curve -x^2 + y^2 = 1 + d x^2 y^2 over GF(p) are kept in extended coordinates
# (X, Y, Z, T) with x = X/Z, y = Y/Z, x*y = T/Z, so that adding needs no division. Only
# verification is needed: no secret is ever handled here, so constant time does not matter.
# =============================================================================================

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493  # order of the base point
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)
Point = tuple[int, int, int, int]
_IDENTITY: Point = (0, 1, 1, 0)


def _point_add(a: Point, b: Point) -> Point:
    # RFC 8032, 5.1.4: complete for this curve, so it also doubles a point.
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    p_ = (y1 - x1) * (y2 - x2) % _P
    q_ = (y1 + x1) * (y2 + x2) % _P
    r_ = 2 * t1 * t2 * _D % _P
    s_ = 2 * z1 * z2 % _P
    e, f, g, h = q_ - p_, s_ - r_, s_ + r_, q_ + p_
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _points_equal(a: Point, b: Point) -> bool:
    # x1/z1 == x2/z2 and y1/z1 == y2/z2, without dividing.
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _decode_point(data: bytes) -> Point | None:
    """RFC 8032, 5.1.3: y in little-endian, the top bit is the sign of x; None if invalid."""
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _P:
        return None  # a non-canonical encoding
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x2 = u * pow(v, _P - 2, _P) % _P
    if x2 == 0:
        if sign:
            return None
        return (0, y, 1, 0)
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None  # y is not on the curve
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


class _Multiples:
    """The multiples j * 16**i * point (i < 64, j < 16) of one point, so that multiplying it
    by a scalar costs at most 64 additions. Checkpoints are all signed by one key or a few,
    so the table of each key is made once and used for every signature."""

    def __init__(self, point: Point) -> None:
        self.rows: list[list[Point]] = []
        base = point
        for _ in range(64):
            row = [_IDENTITY, base]
            for _ in range(14):
                row.append(_point_add(row[-1], base))
            self.rows.append(row)
            base = _point_add(row[-1], base)  # 16 * base

    def times(self, scalar: int) -> Point:
        result = _IDENTITY
        for row in self.rows:
            digit = scalar & 15
            if digit:
                result = _point_add(result, row[digit])
            scalar >>= 4
        return result


_BASE_POINT = _decode_point(bytes.fromhex("58" + "66" * 31))
assert _BASE_POINT is not None
_BASE = _Multiples(_BASE_POINT)
_key_tables: dict[bytes, _Multiples | None] = {}


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``message``: the
    group equation [S]B = R + [SHA-512(R || A || M)]A of RFC 8032, 5.1.7."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    if public_key not in _key_tables:
        point = _decode_point(public_key)
        _key_tables[public_key] = None if point is None else _Multiples(point)
    key_table = _key_tables[public_key]
    r_point = _decode_point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if key_table is None or r_point is None or s >= _L:
        return False
    digest = hashlib.sha512(signature[:32] + public_key + message).digest()
    h = int.from_bytes(digest, "little") % _L
    return _points_equal(_BASE.times(s), _point_add(r_point, key_table.times(h)))


def key_id_of(public_key: bytes) -> str:
    """How the casino names a public key: the first 16 hex digits of its SHA-256."""
    return sha256_hex(public_key)[:16]


_SPKI_ED25519 = bytes.fromhex("302a300506032b6570032100")  # DER prefix of an Ed25519 key


class Trusted(NamedTuple):
    """A public key trusted for checkpoints ``first`` to ``last`` (None: unbounded): a
    retired key is trusted only for the checkpoints it signed while it was in use."""

    key: bytes
    first: int | None = None
    last: int | None = None

    def covers(self, seq: int) -> bool:
        return (self.first is None or seq >= self.first) and (self.last is None or seq <= self.last)

    def span(self) -> str:
        if self.first is None and self.last is None:
            return "any checkpoint"
        return f"checkpoints {self.first or 1} to {'the last' if self.last is None else self.last}"


def split_range(text: str) -> tuple[str, int | None, int | None]:
    """``KEY@FIRST-LAST`` or ``KEY@FIRST-`` -> (KEY, FIRST, LAST); a bare KEY has no range."""
    key, at, bounds = text.strip().rpartition("@")
    if not at:
        return text.strip(), None, None
    first_text, dash, last_text = bounds.strip().partition("-")
    if not dash or not first_text.isdigit() or not (last_text == "" or last_text.isdigit()):
        raise ValueError(f"a key's range is FIRST-LAST or FIRST-, not {bounds!r}")
    first, last = int(first_text), int(last_text) if last_text else None
    if first < 1 or (last is not None and last < first):
        raise ValueError(f"an empty range of checkpoints: {bounds!r}")
    return key, first, last


def parse_public_key(text: str) -> bytes:
    """A public key as 64 hex digits or as PEM (SubjectPublicKeyInfo)."""
    text = text.strip()
    if text.startswith("-----BEGIN PUBLIC KEY-----"):
        body = "".join(line for line in text.splitlines() if not line.startswith("-----"))
        der = base64.b64decode(body, validate=True)
        if len(der) != 44 or not der.startswith(_SPKI_ED25519):
            raise ValueError("not an Ed25519 public key")
        return der[12:]
    raw = bytes.fromhex(text)
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes (64 hex digits)")
    return raw


# =============================================================================================
# The ledger's hashes, as the casino computes them.
# =============================================================================================


def transaction_digest(tx: dict[str, Any]) -> str:
    """SHA-256 of a transaction's content: the canonical JSON of these nine fields,

        {"created_at", "currency", "id", "kind", "player_id", "postings", "reference",
         "round_id", "wallet_balance_after"}

    written out here field by field in that (sorted) order: what ``canonical({...})`` gives,
    faster, since the verifier does it for every transaction. Texts must be strings (or
    null where allowed) and numbers integers (``:d``), else TypeError or ValueError; the
    transaction check itself refuses a boolean where an integer belongs."""
    string = _json_string
    reference, round_id = tx["reference"], tx["round_id"]
    postings = ",".join(
        f"[{leg:d},{string(account)},{amount:d}]" for leg, account, amount in tx["postings"]
    )
    text = (
        f'{{"created_at":{string(tx["created_at"])},"currency":{string(tx["currency"])},'
        f'"id":{tx["id"]:d},"kind":{string(tx["kind"])},"player_id":{string(tx["player_id"])},'
        f'"postings":[{postings}],'
        f'"reference":{"null" if reference is None else string(reference)},'
        f'"round_id":{"null" if round_id is None else string(round_id)},'
        f'"wallet_balance_after":{tx["wallet_balance_after"]:d}}}'
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# A JSON string literal, ASCII only, as json.dumps writes it (TypeError for a non-string).
_json_string = json.encoder.encode_basestring_ascii


def link_hash(prev_hash: str, wallet_seq: int, digest: str) -> str:
    """A transaction's link in its wallet's chain: it names the previous link and its place."""
    return sha256_hex(f"{prev_hash}:{wallet_seq}:{digest}".encode("ascii"))


CHECKPOINT_FIELDS = (
    "seq",
    "commit_from",
    "commit_to",
    "tx_count",
    "total_count",
    "root",
    "balances",
    "created_at",
    "prev_hash",
)


def checkpoint_hash(checkpoint: dict[str, Any]) -> str:
    return sha256_hex(canonical({name: checkpoint[name] for name in CHECKPOINT_FIELDS}))


def merkle_leaf(leaf: bytes) -> bytes:
    """The hash of a leaf of the Merkle tree (RFC 6962: prefixed with a zero byte)."""
    return hashlib.sha256(b"\x00" + leaf).digest()


class MerkleTree:
    """The Merkle tree hash of RFC 6962 (2.1), built one leaf at a time in O(log n) memory.

    ``stack`` holds the roots of complete subtrees, largest first; a new leaf merges with
    equal-sized subtrees, and the root folds the stack from the right. This is the same
    tree as RFC 6962's "split at the largest power of two below n".
    """

    def __init__(self) -> None:
        self.stack: list[tuple[int, bytes]] = []
        self.size = 0

    def add(self, leaf: bytes) -> None:
        self.add_hashed(merkle_leaf(leaf))

    def add_hashed(self, node: bytes) -> None:
        """Add a leaf given by its hash (``merkle_leaf``)."""
        width = 1
        while self.stack and self.stack[-1][0] == width:
            _, left = self.stack.pop()
            node, width = hashlib.sha256(b"\x01" + left + node).digest(), width * 2
        self.stack.append((width, node))
        self.size += 1

    def root(self) -> str:
        if not self.stack:
            return sha256_hex(b"")
        node = self.stack[-1][1]
        for _, left in reversed(self.stack[:-1]):
            node = hashlib.sha256(b"\x01" + left + node).digest()
        return node.hex()


# =============================================================================================
# The provably fair deal (docs/fairness.md, sections 1 to 6).
# =============================================================================================

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")  # low to high
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS)}
PACK = tuple(rank + suit for suit in "CDHS" for rank in RANKS)  # one pack, canonical order
CARDS_PER_ROUND = 7  # player, dealer, three burns, player's war card, dealer's war card
_EIGHT_DRAWS = struct.Struct(">8I").unpack  # one HMAC-SHA256 block is eight 4-byte draws
_keyed: dict[bytes, Any] = {}


def deal(
    server_seed: bytes, client_seed: str, nonce: int, decks: int, count: int = CARDS_PER_ROUND
) -> list[str]:
    """The first ``count`` cards of a round's shoe (seven: a one-hand round), in dealing order.

    Draws are the big-endian 32-bit words of HMAC-SHA256(server seed, "client:nonce:block");
    a draw at or above the largest multiple of n below 2**32 is rejected (no modulo bias);
    the shoe (``decks`` packs one after another) is shuffled by Fisher-Yates from the front,
    card i swapping with card i + draw mod (N - i). Only the positions a swap touched are
    remembered (``moved``): an untouched position p still holds the pack's card p mod 52.
    """
    keyed = _keyed.get(server_seed)
    if keyed is None:
        # HMAC's key pads are hashed once per seed; each message then copies that state.
        keyed = _keyed[server_seed] = hmac.new(server_seed, digestmod=hashlib.sha256)
    shoe = 52 * decks
    moved: dict[int, int] = {}
    cards: list[str] = []
    draws: tuple[int, ...] = ()
    used = block = 0
    for i in range(min(count, shoe)):
        n = shoe - i
        limit = 2**32 - 2**32 % n
        while True:
            if used == len(draws):
                mac = keyed.copy()
                mac.update(f"{client_seed}:{nonce}:{block}".encode())
                draws, used, block = _EIGHT_DRAWS(mac.digest()), 0, block + 1
            draw = draws[used]
            used += 1
            if draw < limit:
                break
        j = i + draw % n
        picked = moved.get(j, j)
        moved[j] = moved.get(i, i)
        cards.append(PACK[picked % 52])
    return cards


def rank_of(card: str) -> int:
    return RANK_VALUE[card[:-1]]


# =============================================================================================
# Casino War: what a round's bets return. THE one place of this file that knows the payouts;
# it follows casino/engine/casino_war.py (CasinoWarRound) of the casino that made the export.
# A payout is the amount returned to the wallet for a bet, stake included (0 when lost).
# =============================================================================================


class Settlement(NamedTuple):
    status: str  # settled, or awaiting_decision (a tie not decided yet)
    raise_amount: int  # the raise placed (= the ante when the player went to war)
    payouts: tuple[int, int, int]  # what the ante, the tie bet and the raise return
    war_shown: bool  # whether the war cards were turned (the player went to war)
    illegal: str | None = None  # why the recorded decision cannot have happened


def settle(
    rules: dict[str, Any],
    cards: Sequence[str],
    ante: int,
    tie_bet: int,
    decision: str | None,
) -> Settlement:
    """Settle a round from its cards (player, dealer, burns, war player, war dealer), the
    bets placed and the decision taken after a tie (None, "surrender" or "war")."""
    player, dealer = RANK_VALUE[cards[0][:-1]], RANK_VALUE[cards[1][:-1]]
    if player != dealer:
        # Settled on the first two cards, ace high: the higher card wins the ante 1 to 1.
        payouts = (2 * ante if player > dealer else 0, 0, 0)
        illegal = None if decision is None else "a decision on a round that did not tie"
        return Settlement(SETTLED, 0, payouts, False, illegal)
    # A tie: the tie bet pays tie_pays to 1 at once, whatever the player does next.
    tie_return = tie_bet * (rules["tie_pays"] + 1)
    if ante == 0:  # a tie bet alone (tie_only): settled on the tie, no decision to make
        illegal = None if decision is None else "a decision on a tie bet alone"
        return Settlement(SETTLED, 0, (0, tie_return, 0), False, illegal)
    if decision is None:
        return Settlement(AWAITING, 0, (0, tie_return, 0), False)
    if decision == "surrender":
        illegal = None if rules["surrender_allowed"] else "surrender at a table without it"
        return Settlement(SETTLED, 0, (ante // 2, tie_return, 0), False, illegal)  # half back
    if decision != "war":
        return Settlement(SETTLED, 0, (0, 0, 0), False, f"unknown decision {decision!r}")
    # War: a raise equal to the ante; on a war card higher or equal the ante pushes and the
    # raise wins 1 to 1 (the standard statement of the rule), plus a bonus equal to the ante
    # on a tied war where the table pays it, riding on the raise; a lower one loses both.
    war_player, war_dealer = rank_of(cards[5]), rank_of(cards[6])
    if war_player >= war_dealer:
        bonus = ante if war_player == war_dealer and rules["war_tie_bonus"] else 0
        return Settlement(SETTLED, ante, (ante, tie_return, 2 * ante + bonus), True)
    return Settlement(SETTLED, ante, (0, tie_return, 0), True)


# =============================================================================================
# Rounds in the hands shape (several hands, repeated wars, the war tie bet: docs/fairness.md
# sections 13-14): the dealer's card then one per hand (``table``; ``classic``: one hand, its
# card first), each tied hand decided on its own, then the wars together - three burns, a
# card to each hand at war in hand order, one dealer card - again for repeated ties.
# =============================================================================================

HAND_BETS = ("ante", "tie_bet", "raise", "war_tie_bet")


def ladder_return(rules: dict[str, Any], ties: int) -> int:
    """What one unit of tie bet returns after ``ties`` ties in a row (0: none)."""
    if ties == 0:
        return 0
    ladder = rules["tie_ladder"]
    if ladder is None:
        return rules["tie_pays"] + 1
    return ladder[min(ties, len(ladder)) - 1] + 1


def most_cards(rules: dict[str, Any], hands: int) -> int:
    wars = rules["max_war_ties"] - 1 if rules["war_ties"] == "repeat" else 1
    return min(1 + hands + wars * (3 + hands + 1), 52 * rules["decks"])


def bet_label(stake: int, payout: int, settled: bool) -> str:
    if stake <= 0:
        return "none"
    if not settled:
        return "pending"
    if payout > stake:
        return "win"
    if payout == stake:
        return "push"
    return "lose" if payout <= 0 else "surrender"


def _hand_finish(hand: dict[str, Any], rules: Any, outcome: str, ante: int, raised: int) -> None:
    hand["outcome"], hand["status"] = outcome, SETTLED
    hand["payouts"]["ante"], hand["payouts"]["raise"] = ante, raised
    if "tie_bet" in hand["pending"]:
        hand["payouts"]["tie_bet"] = hand["bets"]["tie_bet"] * ladder_return(rules, hand["ties"])
    hand["pending"].clear()


def play_hands(
    cards: Sequence[str],
    rules: dict[str, Any],
    stakes: Sequence[tuple[int, int]],
    decisions: Sequence[dict[str, Any] | None],
) -> tuple[dict[str, Any], list[str]]:
    """The round these cards (dealing order), stakes and decisions make, in the hands shape,
    and what of the decisions the rules or cards do not allow."""
    count = len(stakes)
    if rules["max_hands"] == 1:
        dealing, dealer, firsts = "classic", cards[1], [cards[0]]
    else:
        dealing, dealer, firsts = "table", cards[0], list(cards[1 : 1 + count])
    following = 1 + count
    hands: list[dict[str, Any]] = []
    wrong: list[str] = []
    for i, (ante, tie_bet) in enumerate(stakes):
        hand: dict[str, Any] = {
            "hand": i, "card": firsts[i], "status": SETTLED, "decision": None, "ties": 0,
            "outcome": None, "bets": {"ante": ante, "tie_bet": tie_bet, "raise": 0,
                                      "war_tie_bet": 0},
            "payouts": dict.fromkeys(HAND_BETS, 0), "pending": set(), "wars": 0,
        }  # fmt: skip
        hands.append(hand)
        mine, theirs = rank_of(firsts[i]), rank_of(dealer)
        if mine != theirs:
            hand["outcome"] = "win" if mine > theirs else "loss"
            hand["payouts"]["ante"] = 2 * ante if mine > theirs else 0
        else:
            hand["ties"] = 1
            if ante == 0:
                hand["outcome"] = "tie"
                hand["payouts"]["tie_bet"] = tie_bet * ladder_return(rules, 1)
            else:
                hand["status"] = AWAITING
                hand["pending"].update(("ante", "raise"))
                if rules["tie_ladder"] is None:
                    hand["payouts"]["tie_bet"] = tie_bet * ladder_return(rules, 1)
                else:
                    hand["pending"].add("tie_bet")
        choice = decisions[i]
        if choice is None:
            continue
        action, by, placed = choice["action"], choice["decided_by"], choice["war_tie_bet"]
        if hand["status"] != AWAITING:
            wrong.append(f"hand {i}: a decision on a hand that did not tie with an ante")
            continue
        if action not in ("war", "surrender") or by not in DECIDERS:
            wrong.append(f"hand {i}: decision {action!r} by {by!r}")
        if action == "surrender" and not rules["surrender_allowed"]:
            wrong.append(f"hand {i}: surrender at a table that forbids it")
        if by == "timeout" and (rules["decision_seconds"] is None or action != "surrender"):
            wrong.append(f"hand {i}: decided by a clock the table does not have")
        if placed and (action != "war" or placed > rules["max_war_tie_bet"]):
            wrong.append(f"hand {i}: a war tie bet the table does not take")
        hand["decision"] = {"action": action, "decided_by": by}
        if action == "surrender":
            _hand_finish(hand, rules, "surrender", ante // 2, 0)
            continue
        hand["status"] = "at_war"
        hand["bets"]["raise"] = ante
        hand["bets"]["war_tie_bet"] = placed
        if placed:
            hand["pending"].add("war_tie_bet")
    wars = []
    waiting = any(hand["status"] == AWAITING for hand in hands)
    at_war = [] if waiting else [hand for hand in hands if hand["status"] == "at_war"]
    while at_war:
        burns = list(cards[following : following + 3])
        following += 3
        dealt = []
        for hand in at_war:
            dealt.append({"hand": hand["hand"], "card": cards[following]})
            following += 1
        war_dealer = cards[following]
        following += 1
        wars.append({"burns": burns, "cards": dealt, "dealer_card": war_dealer})
        again = []
        for hand, item in zip(at_war, dealt, strict=True):
            hand["wars"] += 1
            mine, theirs = rank_of(item["card"]), rank_of(war_dealer)
            placed, ante = hand["bets"]["war_tie_bet"], hand["bets"]["ante"]
            if hand["wars"] == 1 and placed:
                won = mine == theirs
                hand["payouts"]["war_tie_bet"] = placed * (rules["war_tie_pays"] + 1) if won else 0
                hand["pending"].discard("war_tie_bet")
            if mine != theirs:
                up = mine > theirs
                _hand_finish(hand, rules, "war_win" if up else "war_loss",
                             ante if up else 0, 2 * ante if up else 0)  # fmt: skip
                continue
            hand["ties"] += 1
            if rules["war_ties"] == "repeat" and hand["ties"] < rules["max_war_ties"]:
                again.append(hand)
                continue
            bonus = ante if rules["war_ties"] == "bonus" else 0
            _hand_finish(hand, rules, "war_tie", ante, 2 * ante + bonus)
        at_war = again
    shown = []
    for hand in hands:
        stake, paid = hand["bets"], hand["payouts"]
        labels = {n: bet_label(stake[n], paid[n], n not in hand["pending"]) for n in HAND_BETS}
        shown.append({
            "hand": hand["hand"], "card": hand["card"], "status": hand["status"],
            "decision": hand["decision"], "ties": hand["ties"], "outcome": hand["outcome"],
            "bets": stake, "payouts": paid, "outcomes": labels,
            "net": sum(paid.values()) - sum(stake.values()),
        })  # fmt: skip
    totals = {
        key: {name: sum(hand[key][name] for hand in shown) for name in HAND_BETS}
        for key in ("bets", "payouts")
    }
    return (
        {
            "dealing": dealing,
            "dealer_card": dealer,
            "hands": shown,
            "wars": wars,
            **totals,
            "net": sum(hand["net"] for hand in shown),
        },
        wrong,
    )


def recorded_cards(record: dict[str, Any]) -> list[str]:
    """A hands-shape record's cards in dealing order (for a seed not revealed yet)."""
    firsts = [hand["card"] for hand in record["hands"]]
    if record["dealing"] == "classic":
        cards = [*firsts, record["dealer_card"]]
    else:
        cards = [record["dealer_card"], *firsts]
    for war in record["wars"]:
        cards += [*war["burns"], *(item["card"] for item in war["cards"]), war["dealer_card"]]
    return cards


def hands_round_facts(doc: dict[str, Any], revealed: dict[str, bytes]) -> tuple[Any, ...]:
    """``round_facts`` for a round in the hands shape (its line's ``table_round``)."""
    round_id, record = doc["id"], doc["table_round"]
    rules, fairness = doc["rules"], doc["fairness"]
    stakes: list[tuple[int, int]] = []
    decisions: list[dict[str, Any] | None] = []
    for hand in record["hands"]:
        ante, tie_bet = hand["bets"]["ante"], hand["bets"]["tie_bet"]
        if type(ante) is not int or type(tie_bet) is not int:
            raise TypeError("bets must be integers")
        problem = _stakes_problem(rules, ante, tie_bet)
        if problem:
            return (round_id, f"round {round_id}: {problem}", None, None, None, None, None, None)
        stakes.append((ante, tie_bet))
        choice = hand["decision"]
        decisions.append(
            None
            if choice is None
            else {
                "action": choice["action"],
                "decided_by": choice["decided_by"],
                "war_tie_bet": hand["bets"]["war_tie_bet"],
            }
        )
    full = full_rules(rules)
    if not 1 <= len(stakes) <= full["max_hands"]:
        raise ValueError(f"a round of {len(stakes)} hands at a table of {full['max_hands']}")
    seed_hash, nonce = fairness["server_seed_hash"], fairness["nonce"]
    messages = []
    seed = revealed.get(seed_hash)
    shown = recorded_cards(record)
    if seed is not None:
        cards = deal(seed, fairness["client_seed"], nonce, full["decks"],
                     most_cards(full, len(stakes)))  # fmt: skip
        if cards[: len(shown)] != shown:
            messages.append(f"round {round_id}: its cards are not the ones its seeds deal")
    else:
        cards = shown + [""] * (most_cards(full, len(stakes)) - len(shown))
    try:
        expected, wrong = play_hands(cards, full, stakes, decisions)
    except (KeyError, IndexError):
        messages.append(f"round {round_id}: cards missing")
        return (round_id, None, seed_hash, nonce, doc["player_id"], messages, False, None)
    verdict = None
    status = SETTLED if all(h["status"] == SETTLED for h in expected["hands"]) else AWAITING
    if wrong:
        verdict = f"round {round_id}: {wrong[0]}"
    elif doc["status"] != status:
        verdict = f"round {round_id}: recorded {doc['status']}, its cards make it {status}"
    elif expected != {key: record[key] for key in expected}:
        verdict = f"round {round_id}: its hands, wars or payouts are not what its cards give"
    elif (doc["net"], doc["bets"], doc["payouts"]) != (
        expected["net"],
        expected["bets"],
        expected["payouts"],
    ):
        verdict = f"round {round_id}: its totals are not its hands'"
    if verdict is not None:
        messages.append(verdict)
    held = sum(
        hand["bets"][name]
        for hand in expected["hands"]
        for name in HAND_BETS
        if hand["outcomes"][name] == "pending"
    )
    staked = sum(expected["bets"].values())
    returned = sum(expected["payouts"].values())
    player, currency = doc["player_id"], doc["currency"]
    money = (
        f"wallet:{player}:{currency}",
        currency,
        held if status == AWAITING else 0,
        (staked, returned, held),
        doc["balance_after"],
        tuple(set(doc["transaction_ids"])),
    )
    return (round_id, None, seed_hash, nonce, player, messages, verdict is None, money)


RULE_TYPES = {
    "decks": int,
    "tie_pays": int,
    "war_tie_bonus": bool,
    "surrender_allowed": bool,
    "min_ante": int,
    "max_ante": int,
    "max_tie_bet": int,
    "bet_increment": int,
}
# The rules added with several hands (issue 21): a snapshot has one only when it differs from
# its default, so a table with the defaults is the original table (docs/fairness.md 13-16).
LATER_RULES: dict[str, Any] = {
    "max_hands": 1,
    "war_ties": None,
    "max_war_ties": 4,
    "tie_ladder": None,
    "war_tie_pays": 10,
    "max_war_tie_bet": 0,
    "tie_only": False,
    "decision_seconds": None,
    "timeout_action": "surrender",
}


def full_rules(rules: dict[str, Any]) -> dict[str, Any]:
    """Every rule of a snapshot, the later ones at their defaults where it leaves them out;
    ``war_ties`` read from ``war_tie_bonus`` unless it is ``repeat``."""
    full = {**LATER_RULES, **rules}
    if full["war_ties"] is None:
        full["war_ties"] = "bonus" if full["war_tie_bonus"] else "push"
    return full


def rules_problem(rules: object) -> str | None:
    """What makes a rules snapshot one the casino's engine would refuse, if anything."""
    if not isinstance(rules, dict) or not set(RULE_TYPES) <= set(rules):
        return f"rules must have {', '.join(RULE_TYPES)}"
    unknown = set(rules) - set(RULE_TYPES) - set(LATER_RULES)
    if unknown:
        return f"unknown rules {', '.join(sorted(unknown))}"
    for name, kind in RULE_TYPES.items():
        if type(rules[name]) is not kind:
            return f"rule {name} is not a {kind.__name__}"
    if not 1 <= rules["decks"] <= 8 or rules["tie_pays"] not in (10, 11, 12):
        return "decks must be 1 to 8 and the tie bet pay 10, 11 or 12 to 1"
    step = rules["bet_increment"]
    if step < 2 or step % 2 or rules["min_ante"] <= 0 or rules["min_ante"] % step:
        return "bet increment must be even and the minimum ante a positive multiple of it"
    if rules["max_ante"] < rules["min_ante"] or rules["max_ante"] % step:
        return "maximum ante must be a multiple of the increment, at least the minimum"
    if rules["max_tie_bet"] < 0 or rules["max_tie_bet"] % step:
        return "maximum tie bet must be 0 or a multiple of the increment"
    return later_rules_problem(full_rules(rules))


def later_rules_problem(rules: dict[str, Any]) -> str | None:
    """The rules of several hands, repeated wars, the war tie bet, tie-only bets, the clock."""
    whole = (
        type(rules["max_hands"]) is int,
        type(rules["max_war_ties"]) is int,
        type(rules["max_war_tie_bet"]) is int,
        type(rules["tie_only"]) is bool,
    )
    if not all(whole) or not 1 <= rules["max_hands"] <= 5:
        return "max_hands must be 1 to 5, max_war_ties and max_war_tie_bet whole numbers"
    repeat = rules["war_ties"] == "repeat"
    if rules["war_ties"] not in ("push", "bonus", "repeat") or (
        rules["war_tie_bonus"] != (rules["war_ties"] == "bonus")
    ):
        return "war_ties must be push, bonus or repeat, and bonus exactly with war_tie_bonus"
    if not 2 <= rules["max_war_ties"] <= 8 or (not repeat and rules["max_war_ties"] != 4):
        return "max_war_ties must be 2 to 8, and a rule of repeated wars only"
    ladder = rules["tie_ladder"]
    if ladder is not None and (
        not repeat
        or not isinstance(ladder, list)
        or len(ladder) != rules["max_war_ties"]
        or any(type(k) is not int or not 1 <= k <= 1000 for k in ladder)
        or ladder[0] != rules["tie_pays"]
        or any(a > b for a, b in itertools.pairwise(ladder))
        or rules["max_tie_bet"] <= 0
    ):
        return "the tie ladder must be max_war_ties rising pays from tie_pays, with repeat"
    step = rules["bet_increment"]
    if (
        rules["war_tie_pays"] not in (10, 11, 12)
        or rules["max_war_tie_bet"] < 0
        or (rules["max_war_tie_bet"] % step)
    ):
        return "the war tie bet pays 10, 11 or 12 to 1, up to a multiple of the increment"
    if rules["tie_only"] and rules["max_tie_bet"] <= 0:
        return "tie-only bets need a tie bet"
    seconds = rules["decision_seconds"]
    if seconds is not None and (
        type(seconds) is not int or not 5 <= seconds <= 600 or not rules["surrender_allowed"]
    ):
        return "decision_seconds must be null or 5 to 600, at a table with surrender"
    if rules["timeout_action"] != "surrender":
        return "the decision clock only surrenders"
    return None


_stakes_seen: dict[tuple[Any, ...], str | None] = {}


def _stakes_problem(rules: Any, ante: int, tie_bet: int) -> str | None:
    """``rules_problem``, then ``bet_problem``, remembered: an export holds few different
    tables and stakes, and every round asks."""
    try:
        marker = (json.dumps(rules, sort_keys=True), ante, tie_bet)
    except (AttributeError, TypeError, ValueError):
        return rules_problem(rules)
    if marker not in _stakes_seen:
        if len(_stakes_seen) > 100_000:
            _stakes_seen.clear()
        _stakes_seen[marker] = rules_problem(rules) or bet_problem(rules, ante, tie_bet)
    return _stakes_seen[marker]


def bet_problem(rules: dict[str, Any], ante: int, tie_bet: int) -> str | None:
    """What makes these stakes ones the table does not take, if anything."""
    step = rules["bet_increment"]
    tie_only = ante == 0 and rules.get("tie_only") is True and tie_bet > 0
    if not (tie_only or rules["min_ante"] <= ante <= rules["max_ante"]) or ante % step:
        return f"ante {ante} is not one the table takes"
    if not 0 <= tie_bet <= rules["max_tie_bet"] or tie_bet % step:
        return f"tie bet {tie_bet} is not one the table takes"
    return None


# =============================================================================================
# Reading a line: what each line says by itself, before anything else is known.
#
# The verifier works in two halves. This first half looks at one line at a time and needs
# nothing but the line, the line before it and the revealed server seeds: the line's digest
# and its link to the line before, its JSON, and for a transaction its content hash, its link
# hash, its Merkle leaf hash and the sums of its postings, for a round its re-deal and its
# payouts recomputed. It keeps no state, so it can run in several processes at once
# (``--jobs``). The second half, the ``Verifier`` below, takes what this half found, line by
# line in the export's order, and does every check that needs the lines before: the chains,
# the running balances, the Merkle batches, the checkpoints, the rounds' money, the order.
# Both halves are the same code whether one process runs them or several: the result does
# not depend on ``--jobs``.
#
# What this half hands over for each line is a record ``(kind, problems, payload)``:
# ``kind`` the line's type (None when the line is unusable), ``problems`` the format problems
# of the line itself, in order, and ``payload`` the facts of a transaction or round (plain
# tuples: they travel between processes), the parsed document of any other line, or a
# message when a transaction or round line is malformed.
# =============================================================================================

_KINDS = {kind: kind for kind in SECTION}  # one string object per kind (cheap to pickle)
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def parse_line(raw: bytes) -> Any:
    """The JSON document of one line (line feed removed): it must be ASCII, and one value."""
    text = raw.decode("ascii")  # canonical lines are ASCII
    doc, end = _raw_decode(text)
    if end != len(text):
        raise ValueError("more after the JSON object")
    return doc


NO_LINE_FEED = "the line does not end with a line feed (a truncated export?)"


def read_block(before: bytes | None, block: bytes, revealed: dict[str, bytes]) -> list[Any]:
    """The record of each line of ``block``, whole lines of the export (only the export's
    last line can lack its line feed); ``before`` is the line before the block (None at the
    start of the export), ``revealed`` the server seeds known to be revealed, by their
    commitment."""
    return read_lines(before, block.split(b"\n"), revealed)


def read_lines(before: bytes | None, pieces: list[bytes], revealed: dict[str, bytes]) -> list[Any]:
    """``read_block`` of a block split at its line feeds."""
    prev = GENESIS if before is None else hashlib.sha256(before).hexdigest()
    records = []
    whole = len(pieces) - 1  # the last piece follows the last line feed
    for raw in itertools.islice(pieces, whole):
        records.append(read_line(raw, prev, (), revealed))
        prev = hashlib.sha256(raw).hexdigest()
    if pieces[whole]:  # a line cut short
        records.append(read_line(pieces[whole], prev, (NO_LINE_FEED,), revealed))
    return records


def read_line(
    raw: bytes, prev: str, problems: tuple[str, ...], revealed: dict[str, bytes]
) -> tuple[Any, ...]:
    """The record of one line (without its line feed), given the digest of the line before
    it and the problems found already."""
    try:
        doc = parse_line(raw)
    except ValueError:  # UnicodeDecodeError is one too
        return (None, (*problems, "not one JSON document in ASCII"), None)
    if type(doc) is not dict:
        return (None, (*problems, "not a JSON object"), None)
    if doc.get("prev") != prev:
        problems += (
            "does not carry the digest of the line before it: this line or one before it "
            "was edited, dropped, inserted or moved",
        )
    found = doc.get("type")
    kind = _KINDS.get(found) if type(found) is str else None
    if kind is None:
        return (None, (*problems, f"unknown line type {found!r}"), None)
    payload: Any = doc
    try:
        if kind == "transaction":
            payload = transaction_facts(doc)
        elif kind == "round":
            payload = round_facts(doc, revealed)
    except _MALFORMED as error:
        payload = malformed(kind, error)
    return (kind, problems, payload)


def malformed(kind: str, error: Exception) -> str:
    """A field missing or of the wrong type: the line is malformed."""
    return f"malformed {kind} line ({type(error).__name__}: {error})"


def transaction_facts(tx: dict[str, Any]) -> tuple[Any, ...]:
    """What a transaction line says by itself. Its postings are summed here; the legs to
    other accounts than its player's wallet are returned for the ordered half, which knows
    the accounts. Raises KeyError, TypeError or ValueError when the line is malformed."""
    tx_id, seq, after = tx["id"], tx["wallet_seq"], tx["wallet_balance_after"]
    commit_seq = tx["commit_seq"]
    if not type(seq) is type(after) is type(commit_seq) is type(tx_id) is int:
        raise TypeError("id, commit_seq, wallet_seq and wallet_balance_after are integers")
    currency, kind, round_id = tx["currency"], tx["kind"], tx["round_id"]
    wallet_key = "wallet:" + tx["player_id"] + ":" + currency
    postings = tx["postings"]
    # One pass over the legs: what they sum to, and what they move where.
    total = delta = staked = paid = 0
    sound = len(postings) >= 2
    shared = []  # (account, amount) of the legs to other accounts
    for number, (leg, account, amount) in enumerate(postings):
        if leg != number or type(amount) is not int or amount == 0:
            sound = False
        total += amount
        if account == wallet_key:
            delta += amount
            if amount < 0:
                staked -= amount
            else:
                paid += amount
        else:
            shared.append((account, amount))
    legs_sound = sound and total == 0 and bool(staked or paid)
    kind_sound = kind in TRANSACTION_KINDS and (round_id is None) == (
        kind in CASH_KINDS or (kind in SHARED_KINDS and is_shared_reference(tx.get("reference")))
    )
    # Its link: the hash of its content and its place must be the hash it carries.
    own, prev_hash = tx["hash"], tx["prev_hash"]
    linked = link_hash(prev_hash, seq, transaction_digest(tx)) == own
    leaf = merkle_leaf(f"{tx_id}:{own}".encode("ascii"))
    return (
        tx_id, seq, after, commit_seq, currency, kind, round_id, wallet_key, kind_sound,
        legs_sound, shared, delta, staked, paid, own, prev_hash, linked, leaf,
        tx.get("reference") if round_id is None and kind in SHARED_KINDS else None,
    )  # fmt: skip


def round_facts(doc: dict[str, Any], revealed: dict[str, bytes]) -> tuple[Any, ...]:
    """What a round line says by itself: whether its table takes its stakes, its cards
    re-dealt when its seed is in ``revealed``, its payouts recomputed, and what its
    transactions must move. Raises KeyError, TypeError or ValueError when malformed.

    Returns ``(id, problem, None...)`` when the table refuses its rules or stakes, else
    ``(id, None, seed hash, nonce, player, messages, settled, money)``: ``messages`` the
    problems of its cards and payouts in order, ``settled`` whether its payouts are the ones
    recomputed, ``money`` None when its cards are missing, else (wallet, currency, the ante
    if it awaits a decision, (staked, paid back, held in play), balance after, ids of its
    transactions)."""
    if "table_round" in doc:
        return hands_round_facts(doc, revealed)
    round_id = doc["id"]
    rules = doc["rules"]
    bets, paid, fairness = doc["bets"], doc["payouts"], doc["fairness"]
    ante, tie_bet, raised = bets["ante"], bets["tie_bet"], bets["raise"]
    recorded = (paid["ante"], paid["tie_bet"], paid["raise"])
    if not (
        type(ante) is type(tie_bet) is type(raised) is type(doc["net"]) is int
        and type(fairness["nonce"]) is int
        and type(recorded[0]) is type(recorded[1]) is type(recorded[2]) is int
    ):
        raise TypeError("bets, payouts, net and nonce must be integers")
    status, decision = doc["status"], doc["decision"]
    action = None if decision is None else decision["action"]
    if decision is not None and decision["decided_by"] not in DECIDERS:
        raise ValueError(f"decided_by {decision['decided_by']!r} is none of {DECIDERS}")
    problem = _stakes_problem(rules, ante, tie_bet)
    if problem:
        return (round_id, f"round {round_id}: {problem}", None, None, None, None, None, None)
    # Fairness: the cards its seeds deal, when the seed is revealed.
    seed_hash, nonce, client_seed = (
        fairness["server_seed_hash"],
        fairness["nonce"],
        fairness["client_seed"],
    )
    cards = [doc["player_card"], doc["dealer_card"], "", "", "", "", ""]
    war = doc["war"]
    if war is not None:
        cards[2:] = [*war["burns"], war["player_card"], war["dealer_card"]]
    messages = []
    seed = revealed.get(seed_hash)
    if seed is not None:
        dealt = deal(seed, client_seed, nonce, rules["decks"])
        shown = 7 if war is not None else 2
        if cards[:shown] != dealt[:shown]:
            messages.append(
                f"round {round_id}: shows {' '.join(cards[:shown])} but "
                f"its seeds deal {' '.join(dealt[:shown])}"
            )
        cards = dealt
    # The payouts, recomputed from the cards and the rules.
    if "" in cards[:2] or (action == "war" and "" in cards):
        messages.append(f"round {round_id}: cards missing")
        return (round_id, None, seed_hash, nonce, doc["player_id"], messages, False, None)
    result = settle(rules, cards, ante, tie_bet, action)
    expected = result.payouts
    net = sum(expected) - (ante + tie_bet + result.raise_amount)
    verdict = None
    if result.illegal:
        verdict = f"round {round_id}: {result.illegal}"
    elif status != result.status:
        verdict = f"round {round_id}: recorded {status}, its cards make it {result.status}"
    elif (war is not None) != result.war_shown or raised != result.raise_amount:
        verdict = f"round {round_id}: the war and its raise do not match the decision"
    elif recorded != expected or doc["net"] != net:
        verdict = (
            f"round {round_id}: pays {recorded} for ante, tie bet and raise (net "
            f"{doc['net']}), its cards and rules pay {expected} (net {net})"
        )
    if verdict is not None:
        messages.append(verdict)
    # What its transactions must move, checked once they are all read.
    staked = ante + tie_bet + raised
    returned = paid["tie_bet"] + (paid["ante"] + paid["raise"] if status == SETTLED else 0)
    held = ante if status == AWAITING else 0
    # Its transactions' ids (ids of another type never match a transaction's), as a tuple:
    # a set would take longer to pass from process to process.
    ids = tuple(set(doc["transaction_ids"]))
    player, currency = doc["player_id"], doc["currency"]
    money = (
        f"wallet:{player}:{currency}",
        currency,
        ante if status == AWAITING else 0,
        (staked, returned, held),
        doc["balance_after"],
        ids,
    )
    return (round_id, None, seed_hash, nonce, player, messages, verdict is None, money)


# =============================================================================================
# The verifier: reads the export line by line, in constant memory apart from the accounts,
# the seeds and the rounds whose transactions have not all been read yet.
# =============================================================================================

CHECKS = (
    "format",
    "accounts",
    "transactions_balanced",
    "running_balances",
    "wallet_chains",
    "checkpoints",
    "sealed",
    "pinned",
    "in_play",
    "rounds",
    "shared_rounds",
)


class Check:
    """The problems one check found: how many, and the first few with their line numbers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.failures = 0
        self.examples: list[str] = []
        self.detail = ""

    def fail(self, line: int | None, message: str) -> None:
        self.failures += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(message if line is None else f"line {line}: {message}")

    @property
    def ok(self) -> bool:
        return self.failures == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "detail": self.detail,
            "failures": self.failures,
            "examples": self.examples,
        }


class Wallet:
    """A wallet's chain as far as it has been read."""

    __slots__ = (
        "balance",
        "head",
        "key",
        "next_seq",
        "pending",
        "prev_hash",
        "read",
        "sealed_max",
    )

    def __init__(self, key: str, head: dict[str, Any] | None, opening: dict[str, Any] | None):
        self.key = key
        self.head = head
        self.read = opening is not None  # the export gives where its chain starts
        start = opening or {"chain_length": 0, "chain_hash": GENESIS, "balance": 0}
        self.next_seq: int = start["chain_length"] + 1
        self.prev_hash: str = start["chain_hash"]
        self.balance: int = start["balance"]
        # Links read ahead of their predecessor (commit order is not chain order when two
        # requests of one player overlap): seq -> (line, id, prev_hash, hash, delta, after).
        self.pending: dict[int, tuple[int, int, str, str, int, int]] = {}
        self.sealed_max = 0  # the highest position sealed by a checkpoint so far


class RoundMoney:
    """What a round's transactions must move, until all of them have been read."""

    __slots__ = (
        "balance_after",
        "currency",
        "expected",
        "ids",
        "last_after",
        "last_seq",
        "line",
        "moved",
        "open_ante",
        "pending",
        "wallet",
    )

    def __init__(
        self,
        line: int,
        wallet: str,
        currency: str,
        expected: tuple[int, int, int],
        balance_after: int,
        pending: set[int],
    ) -> None:
        self.line = line
        self.wallet = wallet
        self.currency = currency
        self.expected = expected  # staked, paid back, held in play
        self.balance_after = balance_after
        self.pending = pending  # ids of its transactions not read yet
        self.moved = [0, 0, 0]
        self.last_seq = 0
        self.last_after: int | None = None
        self.ids: tuple[int, ...] = ()  # all of its transactions (for a saved state)
        self.open_ante = 0  # its ante while it awaits a decision (for a saved state)


@dataclass
class Seed:
    player_id: str
    seed: bytes | None  # None until revealed
    first_nonce: int
    next_nonce: int
    dealt: bytearray  # one bit per nonce already used by a round


class Verifier:
    def __init__(
        self,
        pinned_keys: Sequence[bytes | Trusted] = (),
        *,
        pins: dict[int, str] | None = None,
        allow_unsealed: bool = False,
        state: dict[str, Any] | None = None,
    ) -> None:
        self.check = {name: Check(name) for name in CHECKS}
        self.fmt = self.check["format"]
        self.pinned = [key if isinstance(key, Trusted) else Trusted(key) for key in pinned_keys]
        # key id -> the ranges each is trusted for (a key may be listed more than once)
        self.keys: dict[str, list[Trusted]] = {}
        for trusted in self.pinned:
            self.keys.setdefault(key_id_of(trusted.key), []).append(trusted)
        # What the auditor pinned (checkpoint number -> hash), and which of them were seen.
        self.pins = dict(pins or {})
        self.pins_seen: dict[int, int] = {}  # seq -> the line that held it
        self.allow_unsealed = allow_unsealed
        self.sealed_tx = 0  # transactions (not leaves) sealed by the checkpoints read
        self.last_checkpoint: int | None = None  # the last checkpoint's number (anchor too)
        self.anchor_seq: int | None = None
        self.unsealed = 0  # transactions after the last checkpoint (known at the end)
        self.line = 0
        self.prev = GENESIS
        self.section = -1
        self.header: dict[str, Any] | None = None
        self.trailer_seen = False
        self.partial = False
        self.from_checkpoint: int | None = None
        self.to_end = True
        self.counts: Counter[str] = Counter()
        self.accounts: dict[str, tuple[str, str]] = {}  # key -> (kind, currency)
        self.wallets: dict[str, Wallet] = {}
        self.seeds: dict[str, Seed] = {}
        self.rounds: dict[str, RoundMoney] = {}
        self.round_ids_seen = 0
        self.links = 0  # transactions chained to their wallet's previous link
        self.redealt = 0
        self.settled_checked = 0
        self.money_checked = 0
        self.money_outside = 0
        self.unchecked: list[str] = []
        self.outside_rounds = 0
        self.order = (-1, -1)  # the last (commit_seq, id) read
        self.operator = DEFAULT_OPERATOR  # whose books (the header says)
        self.in_play: Counter[str] = Counter()
        self.open_antes: Counter[str] = Counter()
        # The checkpoint chain: what the next checkpoint must continue.
        self.cp_seq = 1
        self.cp_prev = GENESIS
        self.cp_from: int | None = 0
        self.cp_total = 0
        self.cp_balances: dict[str, int] | None = {}  # None: unknown (a partial export)
        self.cp_count = 0
        self.cp_leaves_total = 0
        self.anchor = False
        # The revealed server seeds by commitment, as far as the export has been read; the
        # rounds are read with them (``round_facts``).
        self.revealed: dict[str, bytes] = {}
        self.in_body = False  # past the header, accounts, seeds and anchor
        self.late_seeds = False
        self.raw = b""  # the current line
        # The wallets and positions the last checkpoint read sealed (for a saved state).
        self.batch_members_sealed: list[tuple[Wallet, int]] = []
        self._new_batch()
        # An incremental audit (``--state``): what the run that verified the checkpoint this
        # export continues saved, and what this run will save at its own last checkpoint.
        self.resumed = state
        self.saved = Saved(state)
        self.carried: dict[str, dict[str, Any]] = {}  # rounds left open, not continued yet
        if state is not None:
            self._resume(state)
        self.started = time.perf_counter()
        # What each kind of line is handed to: its document, or a transaction's or round's facts.
        self.handlers: dict[str, Callable[[Any], None]] = {
            "header": self._header,
            "account": self._account,
            "seed": self._seed,
            "anchor": self._anchor,
            "round": self._round,
            "transaction": self._transaction,
            "leaf": self._leaf,
            "checkpoint": self._checkpoint,
            "shoe": self._shoe,
            "shared_bet": self._shared_bet,
            "trailer": self._trailer,
        }
        self.shared = SharedRounds(self.check["shared_rounds"])

    def _new_batch(self) -> None:
        """The transactions read since the last checkpoint: the next one must seal them."""
        self.batch = MerkleTree()
        self.batch_leaves = 0  # of which are leaves (transactions outside a partial range)
        self.batch_moves: Counter[str] = Counter()  # shared accounts' postings
        self.batch_members: list[tuple[Wallet, int]] = []

    @property
    def lenient(self) -> bool:
        """A partial export read on its own: what lies before it is unknown, so rounds
        with transactions outside it and the money in play cannot be checked. Continued from
        a saved state (``--state``), it is known: everything is checked as in a full one."""
        return self.partial and self.resumed is None

    # --- continuing from a saved state (--state) -----------------------------------------

    def _resume(self, state: dict[str, Any]) -> None:
        """Start where the run that saved ``state`` stopped: at its last checkpoint."""
        self.in_play.update(state["in_play"])
        self.open_antes.update(state["open_antes"])
        self.unchecked.extend(state["unchecked"])
        self.order = (state["order"][0], state["order"][1])
        self.carried = dict(state["rounds"])
        # The pins the saved chain of checkpoints already holds were checked by ``main``.
        for seq in self.pins:
            if seq <= state["checkpoint"]["seq"]:
                self.pins_seen[seq] = 0

    def _resumed_header(self, doc: dict[str, Any]) -> None:
        state = self.resumed
        assert state is not None
        if self.from_checkpoint != state["checkpoint"]["seq"]:
            where = (
                f"from checkpoint {self.from_checkpoint}"
                if self.from_checkpoint is not None
                else "not an export from a checkpoint"
            )
            raise StateMismatch(
                f"the state was saved at checkpoint {state['checkpoint']['seq']}: verify "
                f"`casino export --from-checkpoint {state['checkpoint']['seq']}` with it; this "
                f"export is {where}"
            )
        if doc.get("operator", DEFAULT_OPERATOR) != state["operator"]:
            raise StateMismatch(
                f"the state is of operator {state['operator']!r}, the export of "
                f"{doc.get('operator', DEFAULT_OPERATOR)!r}"
            )

    @staticmethod
    def _was_dealt(seed: Seed, nonce: int) -> bool:
        offset = nonce - seed.first_nonce
        if not 0 <= offset < 2**30:
            return False
        byte, bit = divmod(offset, 8)
        return byte < len(seed.dealt) and bool(seed.dealt[byte] >> bit & 1)

    def _continue_round(self, round_id: str, account: RoundMoney, carried: dict[str, Any]) -> None:
        """A round the last run left open at its checkpoint: what its transactions moved
        then counts, and its ante held in play then is replaced by what it holds now."""
        check = self.check["rounds"]
        if (carried["wallet"], carried["currency"]) != (account.wallet, account.currency):
            check.fail(account.line, f"round {round_id}: another wallet than when it was placed")
        seen = set(carried["seen"])
        if not seen <= set(account.ids):
            check.fail(account.line, f"round {round_id}: transactions it had before are gone")
        account.pending -= seen
        account.moved = list(carried["moved"])
        account.last_seq, account.last_after = carried["last_seq"], carried["last_after"]
        if carried["open_ante"]:
            self.open_antes[carried["currency"]] -= carried["open_ante"]
        del self.carried[round_id]
        self.saved.recounted += 1  # its line was counted by the last run already

    # --- lines ---------------------------------------------------------------------------

    def take(self, record: tuple[Any, ...], raw: bytes) -> None:
        """Take the next line: its record (``read_block``) and the line itself (without its
        line feed), which is read
        again only on the rare paths that need more than the record. Kept lean: it runs for
        every line."""
        self.line = line = self.line + 1
        self.raw = raw
        kind, problems, payload = record
        if problems:
            for problem in problems:
                self.fmt.fail(line, problem)
        if kind is None:
            return
        rank = SECTION[kind]
        if rank != self.section:
            self._enter(line, kind, rank)
        if self.trailer_seen and kind != "trailer":
            self.fmt.fail(line, "a line after the trailer")
        self.counts[kind] += 1
        if type(payload) is str:  # a transaction or round that could not be read
            self.fmt.fail(line, payload)
            return
        try:
            self.handlers[kind](payload)
        except _MALFORMED as error:
            self.fmt.fail(line, malformed(kind, error))

    def _document(self) -> dict[str, Any]:
        """The current line's document, parsed again (it parsed once already)."""
        document: dict[str, Any] = parse_line(self.raw)
        return document

    def _enter(self, line: int, kind: str, rank: int) -> None:
        """A line of another section than the previous line's: sections never go back."""
        if rank < self.section:
            self.fmt.fail(line, f"a {kind} line after the {self._section_name()} section")
        elif self.section < 0 and kind != "header":
            self.fmt.fail(line, "the export does not start with its header")
        self.section = max(self.section, rank)

    def _section_name(self) -> str:
        return next(name for name, rank in SECTION.items() if rank == self.section)

    # --- header, accounts, seeds -------------------------------------------------------

    def _header(self, doc: dict[str, Any]) -> None:
        fmt = self.check["format"]
        if self.header is not None:
            fmt.fail(self.line, "a second header")
            return
        self.header = doc
        if doc["format"] != FORMAT:
            fmt.fail(self.line, f"format {doc['format']!r}: this verifier reads {FORMAT}")
        self.from_checkpoint = doc.get("from_checkpoint")
        self.partial = (
            doc["since"] is not None or doc["until"] is not None or self.from_checkpoint is not None
        )
        if self.resumed is not None:
            self._resumed_header(doc)
        operator = doc.get("operator", DEFAULT_OPERATOR)
        if not isinstance(operator, str) or not operator or ":" in operator:
            fmt.fail(self.line, f"operator {operator!r} is not an operator's id")
        else:
            self.operator = operator
        self.to_end = doc["until"] is None
        if doc["scope"] != ("partial" if self.partial else "full"):
            fmt.fail(self.line, "the scope does not match since/until")
        for entry in doc["keys"]:
            raw = bytes.fromhex(entry["public_key"])
            first, last = entry.get("first"), entry.get("last")
            if len(raw) != 32 or key_id_of(raw) != entry["key_id"]:
                fmt.fail(self.line, f"key {entry['key_id']} is not the id of its public key")
            elif not all(bound is None or type(bound) is int for bound in (first, last)):
                fmt.fail(self.line, f"key {entry['key_id']}: its range is not two numbers")
            elif not self.pinned:
                self.keys.setdefault(entry["key_id"], []).append(Trusted(raw, first, last))
        if not self.partial:
            self.cp_balances = {}
        else:
            # Where a partial export starts in the checkpoint chain comes from its anchor.
            self.cp_from = None
            self.cp_balances = None

    def _account(self, doc: dict[str, Any]) -> None:
        check = self.check["accounts"]
        key, kind, currency, player = doc["key"], doc["kind"], doc["currency"], doc["player_id"]
        if type(doc["id"]) is not int:
            raise TypeError("id is not an integer")
        if key in self.accounts:
            check.fail(self.line, f"account {key} listed twice")
            return
        if kind not in ACCOUNT_KINDS or not (
            isinstance(currency, str) and len(currency) == 3 and currency.isalpha()
        ):
            check.fail(self.line, f"account {key}: unknown kind or currency")
        expected = (
            f"wallet:{player}:{currency}"
            if kind == "wallet"
            else shared_key(kind, currency, self.operator)
        )
        if key != expected or (kind == "wallet") != (player is not None):
            check.fail(self.line, f"account key {key} does not match its kind and owner")
        self.saved.account_seen(check, self.line, key, (kind, currency))
        self.accounts[key] = (kind, currency)
        head, opening = doc["head"], doc["opening"]
        if kind != "wallet":
            # Only a wallet has a chain (house, in-play and cash balances are derived).
            if head is not None or opening is not None:
                check.fail(self.line, f"account {key}: a shared account has no chain state")
            return
        for state in (head, opening):
            if state is not None and not (
                type(state["balance"]) is int
                and type(state["chain_length"]) is int
                and _is_hex(state["chain_hash"], 64)
            ):
                raise TypeError("a wallet state needs an integer balance and length, a hash")
        if head is None:
            check.fail(self.line, f"wallet {key} has no head")
        if not self.partial and opening != {
            "balance": 0,
            "chain_length": 0,
            "chain_hash": GENESIS,
        }:
            check.fail(self.line, f"wallet {key}: a full export starts every chain at genesis")
        if self.resumed is not None:
            # Where each chain starts is what the last run verified, not what the export says.
            opening = self.saved.opening(self.check["wallet_chains"], self.line, key, opening)
        self.wallets[key] = Wallet(key, head, opening)

    def _seed(self, doc: dict[str, Any]) -> None:
        rounds = self.check["rounds"]
        commitment, revealed = doc["server_seed_hash"], doc["server_seed"]
        first, after = doc["first_nonce"], doc["next_nonce"]
        if type(first) is not int or type(after) is not int or not 0 <= first <= after:
            raise TypeError("nonces must be integers, first <= next")
        seed = None
        if revealed is not None:
            seed = bytes.fromhex(revealed)
            if len(seed) != 32 or sha256_hex(seed) != commitment:
                rounds.fail(
                    self.line,
                    f"seed {doc['id']}: the revealed seed is not the one "
                    "committed to (its SHA-256 differs)",
                )
                seed = None
        if commitment in self.seeds:
            rounds.fail(self.line, f"seed {doc['id']}: commitment listed twice")
        dealt = bytearray()
        if self.resumed is not None:
            dealt = self.saved.dealt(rounds, self.line, commitment, doc["player_id"], first)
        self.seeds[commitment] = Seed(doc["player_id"], seed, first, after, dealt)
        # The seeds the rounds are re-dealt with when their lines are read.
        if seed is None:
            self.revealed.pop(commitment, None)
        else:
            self.revealed[commitment] = seed
        if self.in_body:
            # A seed after the rounds began (an export out of order, already a failure):
            # the rounds read with the seeds known before must be read again with it.
            self.late_seeds = True

    # --- rounds ------------------------------------------------------------------------

    def _round(self, facts: tuple[Any, ...]) -> None:
        """A round: its own checks came with its facts (``round_facts``); here, what needs
        the rest of the export: its seed, its nonce used once, its transactions."""
        if self.late_seeds:
            facts = round_facts(self._document(), self.revealed)
        check, line = self.check["rounds"], self.line
        round_id, problem, seed_hash, nonce, player, messages, settled, money = facts
        self.round_ids_seen += 1
        if problem:
            check.fail(line, problem)
            return
        # Fairness: the seed committed to, a nonce of its own (the cards it deals were
        # compared when the line was read).
        seed = self.seeds.get(seed_hash)
        carried = self.carried.get(round_id) if self.carried else None
        if seed is None:
            check.fail(line, f"round {round_id}: its server seed is not in the export")
        elif carried is not None:
            # A round the last run read whole up to its checkpoint, decided since: its nonce
            # is the one it was dealt with then (already counted), its seed the same.
            if not self._was_dealt(seed, nonce):
                check.fail(line, f"round {round_id}: not the nonce it was dealt with before")
            if seed.player_id != player:
                check.fail(line, f"round {round_id}: dealt from another player's seed")
            if seed.seed is not None:
                self.redealt += 1
                if round_id in self.unchecked:  # listed by the last run: re-dealt now
                    self.unchecked.remove(round_id)
        else:
            if seed.player_id != player:
                check.fail(line, f"round {round_id}: dealt from another player's seed")
            offset = nonce - seed.first_nonce
            if not 0 <= offset < seed.next_nonce - seed.first_nonce or offset >= 2**30:
                check.fail(line, f"round {round_id}: nonce {nonce} outside its seed's range")
            else:
                byte, bit = divmod(offset, 8)
                if byte >= len(seed.dealt):
                    seed.dealt.extend(bytes(byte + 1 - len(seed.dealt)))
                if seed.dealt[byte] >> bit & 1:
                    check.fail(line, f"round {round_id}: nonce {nonce} dealt twice")
                seed.dealt[byte] |= 1 << bit
                self.saved.touched_seeds.add(seed_hash)
            if seed.seed is None:
                self.unchecked.append(round_id)
            else:
                self.redealt += 1
        for message in messages:  # its cards and payouts
            check.fail(line, message)
        if money is None:  # its cards are missing
            return
        self.settled_checked += settled
        # What its transactions must move, checked once they are all read.
        wallet, currency, open_ante, expected, balance_after, ids = money
        if open_ante:
            self.open_antes[currency] += open_ante
        if round_id in self.rounds:
            check.fail(line, f"round {round_id} listed twice")
        account = RoundMoney(line, wallet, currency, expected, balance_after, set(ids))
        account.ids = tuple(ids)
        account.open_ante = open_ante
        if carried is not None:
            self._continue_round(round_id, account, carried)
        self.rounds[round_id] = account
        self.saved.touched_rounds.add(round_id)

    def _round_transaction(
        self,
        tx_id: int,
        kind: str,
        round_id: str,
        wallet: str,
        moved: tuple[int, int, int],
        seq: int,
        after: int,
    ) -> None:
        """Add what a transaction of a round moved (staked, paid back, put in play) to the
        round's account; once all of its transactions are read, compare."""
        check = self.check["rounds"]
        money = self.rounds.get(round_id)
        if money is None:
            if kind in ROUND_OPENERS or not self.lenient:
                check.fail(
                    self.line,
                    f"transaction {tx_id} belongs to round {round_id}, "
                    "which the export does not have",
                )
            else:
                self.outside_rounds += 1  # the decision of a round placed before the range
            return
        if tx_id in money.pending:
            money.pending.discard(tx_id)
        else:
            check.fail(self.line, f"transaction {tx_id} is not one of round {round_id}'s")
        if wallet != money.wallet:
            check.fail(self.line, f"transaction {tx_id} moves another wallet than its round")
        total = money.moved
        total[0] += moved[0]
        total[1] += moved[1]
        total[2] += moved[2]
        if seq > money.last_seq:
            money.last_seq, money.last_after = seq, after
        self.saved.touched_rounds.add(round_id)
        if not money.pending:
            self._round_money(round_id, money)
            del self.rounds[round_id]
            if money.open_ante:
                # Awaiting a decision: the next part of an incremental audit continues it.
                self.saved.awaiting[round_id] = money

    def _round_money(self, round_id: str, money: RoundMoney) -> None:
        check = self.check["rounds"]
        staked, returned, held = money.moved
        want_staked, want_returned, want_held = money.expected
        if (staked, returned, held) != (want_staked, want_returned, want_held):
            check.fail(
                money.line,
                f"round {round_id}: its transactions stake {staked}, pay back "
                f"{returned} and hold {held} in play; the round says {want_staked}, "
                f"{want_returned} and {want_held}",
            )
        elif money.last_after != money.balance_after:
            check.fail(
                money.line,
                f"round {round_id}: balance after {money.balance_after}, its "
                f"last transaction leaves {money.last_after}",
            )
        else:
            self.money_checked += 1

    # --- transactions --------------------------------------------------------------------

    def _ordered(self, commit_seq: object, tx_id: object) -> None:
        if type(commit_seq) is not int or type(tx_id) is not int:
            raise TypeError("commit_seq and id must be integers")
        if (commit_seq, tx_id) <= self.order:
            self.check["format"].fail(self.line, f"transaction {tx_id} is out of commit order")
        self.order = (commit_seq, tx_id)
        if self.cp_from is not None and commit_seq < self.cp_from:
            self.check["checkpoints"].fail(
                self.line, f"transaction {tx_id} lies in a range already sealed before it"
            )

    def _transaction(self, facts: tuple[Any, ...]) -> None:
        """A transaction: its content and link hashes and the sums of its legs came with its
        facts (``transaction_facts``); here, what needs the rest of the export."""
        (
            tx_id, seq, after, commit_seq, currency, kind, round_id, wallet_key, kind_sound,
            sound, shared, delta, staked, paid, own, prev_hash, linked, leaf, reference,
        ) = facts  # fmt: skip
        line = self.line
        # In commit order, and not inside a range an earlier checkpoint sealed.
        if (commit_seq, tx_id) <= self.order:
            self.fmt.fail(line, f"transaction {tx_id} is out of commit order")
        self.order = (commit_seq, tx_id)
        if self.cp_from is not None and commit_seq < self.cp_from:
            self.check["checkpoints"].fail(
                line, f"transaction {tx_id} lies in a range already sealed before it"
            )
        # Its legs to other accounts than its wallet: known, of its currency, shared.
        accounts = self.accounts
        in_play = 0
        for account, amount in shared:
            known = accounts.get(account)
            if known is None or known[1] != currency or known[0] == "wallet":
                sound = False  # unknown, foreign, or another player's wallet
                continue
            self.batch_moves[account] += amount  # a shared account: its checkpoint rolls it up
            if known[0] == "in_play":
                in_play += amount
        if not (sound and wallet_key in accounts):
            self._unbalanced(self._document(), wallet_key)
        if not kind_sound:
            self.check["transactions_balanced"].fail(
                line, f"transaction {tx_id}: kind {kind!r} and its round disagree"
            )
        if in_play:
            self.in_play[currency] += in_play
        if not linked:
            self.check["wallet_chains"].fail(
                line, f"transaction {tx_id} (or its postings) differs from what was hashed"
            )
        self.batch.add_hashed(leaf)
        wallet = self.wallets.get(wallet_key)
        if wallet is None or not wallet.read:
            self.check["wallet_chains"].fail(
                line, f"transaction {tx_id}: the export does not say where {wallet_key} starts"
            )
        else:
            link = (line, tx_id, prev_hash, own, delta, after)
            if seq == wallet.next_seq and not wallet.pending:
                self._chain(wallet, link)  # the usual case: the next link, in order
            else:
                self._link(wallet, seq, link)
            self.batch_members.append((wallet, seq))
        if round_id is not None:
            self._round_transaction(
                tx_id, kind, round_id, wallet_key, (staked, paid, in_play), seq, after
            )
        elif reference is not None:
            self.shared.transaction(tx_id, reference, wallet_key, staked, paid)

    def _unbalanced(self, tx: dict[str, Any], wallet_key: str) -> None:
        """Say precisely what is wrong with a transaction's legs (off the hot path)."""
        check, tx_id = self.check["transactions_balanced"], tx["id"]
        postings = tx["postings"]
        total = 0
        wallets = set()
        for number, (leg, account, amount) in enumerate(postings):
            if leg != number or type(amount) is not int or amount == 0:
                check.fail(self.line, f"transaction {tx_id}: leg {leg} is out of order or zero")
            total += amount if type(amount) is int else 0
            known = self.accounts.get(account)
            if known is None or known[1] != tx["currency"]:
                check.fail(
                    self.line,
                    f"transaction {tx_id} posts to an unknown or foreign account {account}",
                )
            elif known[0] == "wallet":
                wallets.add(account)
        if len(postings) < 2 or total != 0:
            check.fail(
                self.line, f"transaction {tx_id}: {len(postings)} postings summing to {total}"
            )
        if wallets != {wallet_key}:
            check.fail(self.line, f"transaction {tx_id} does not move exactly its player's wallet")

    def _link(self, wallet: Wallet, seq: int, link: tuple[int, int, str, str, int, int]) -> None:
        """Chain a transaction read ahead of its predecessor once the gap is filled."""
        if seq < wallet.next_seq or seq in wallet.pending:
            self.check["wallet_chains"].fail(
                link[0], f"transaction {link[1]}: position {seq} of {wallet.key} is taken twice"
            )
            return
        wallet.pending[seq] = link
        while wallet.next_seq in wallet.pending:
            self._chain(wallet, wallet.pending.pop(wallet.next_seq))

    def _chain(self, wallet: Wallet, link: tuple[int, int, str, str, int, int]) -> None:
        """The next link of ``wallet``: it must point at the previous one, and its balance
        after it must be the previous balance plus its postings to the wallet."""
        line, tx_id, prev, own, delta, after = link
        if prev != wallet.prev_hash:
            self.check["wallet_chains"].fail(
                line, f"transaction {tx_id} does not link to {wallet.key}'s previous one"
            )
        balance = wallet.balance + delta
        if after != balance:
            self.check["running_balances"].fail(
                line,
                f"transaction {tx_id} says {wallet.key} held {after} after it; its postings "
                f"make it {balance}",
            )
        if after < 0:
            self.check["running_balances"].fail(line, f"transaction {tx_id} overdraws")
        wallet.balance = after
        wallet.prev_hash = own
        wallet.next_seq += 1
        self.links += 1

    def _leaf(self, doc: dict[str, Any]) -> None:
        """A sealed transaction outside a partial export's range, given only by its id and
        hash: enough to rebuild its checkpoint's Merkle root, nothing else."""
        self._ordered(doc["commit_seq"], doc["id"])
        if not self.partial:
            self.check["format"].fail(self.line, "a full export gives every transaction whole")
        if not _is_hex(doc["hash"], 64):
            raise ValueError("a leaf's hash is 64 hex digits")
        self.batch.add(f"{doc['id']}:{doc['hash']}".encode("ascii"))
        self.batch_leaves += 1

    # --- checkpoints ---------------------------------------------------------------------

    def _signed(self, cp: dict[str, Any]) -> bool:
        check = self.check["checkpoints"]
        if checkpoint_hash(cp) != cp["hash"]:
            check.fail(self.line, f"checkpoint {cp['seq']} was edited after it was sealed")
            return False
        entries = self.keys.get(cp["key_id"])
        if not entries:
            check.fail(
                self.line, f"checkpoint {cp['seq']} is signed by an untrusted key {cp['key_id']}"
            )
            return False
        if not any(entry.covers(cp["seq"]) for entry in entries):
            spans = ", ".join(entry.span() for entry in entries)
            check.fail(
                self.line,
                f"checkpoint {cp['seq']} is signed by key {cp['key_id']}, trusted only for {spans}",
            )
            return False
        message = SIGNATURE_CONTEXT + cp["hash"].encode("ascii")
        if not ed25519_verify(entries[0].key, message, bytes.fromhex(cp["signature"])):
            check.fail(self.line, f"checkpoint {cp['seq']} has an invalid signature")
            return False
        return True

    def _pinned(self, cp: dict[str, Any]) -> None:
        """A checkpoint the auditor pinned (``--pin``, ``--pin-file``) must be the one they
        saw: the same hash, so the same history up to it."""
        seq = cp["seq"]
        pinned = self.pins.get(seq) if type(seq) is int else None
        if pinned is None:
            return
        self.pins_seen[seq] = self.line
        if cp["hash"] != pinned:
            self.check["pinned"].fail(
                self.line,
                f"checkpoint {seq} has hash {str(cp['hash'])[:16]}..., the pinned one "
                f"{pinned[:16]}...: the ledger up to it is not the one pinned",
            )

    def _anchor(self, doc: dict[str, Any]) -> None:
        """The checkpoint before a partial export's first one: where its chain continues."""
        cp = doc["checkpoint"]
        if not self.partial or self.anchor:
            self.check["format"].fail(self.line, "an anchor belongs to a partial export, once")
        self.anchor = True
        if self.resumed is not None and cp != self.resumed["checkpoint"]:
            raise StateMismatch(
                f"the export continues checkpoint {cp.get('seq')} ({str(cp.get('hash'))[:16]}...),"
                f" the state was saved at checkpoint {self.resumed['checkpoint']['seq']} "
                f"({self.resumed['checkpoint']['hash'][:16]}...)"
            )
        self._signed(cp)
        self._pinned(cp)
        self.anchor_seq = self.last_checkpoint = cp["seq"]
        self.cp_seq, self.cp_prev = cp["seq"] + 1, cp["hash"]
        self.cp_from, self.cp_total = cp["commit_to"], cp["total_count"]
        self.cp_balances = dict(cp["balances"])

    def _checkpoint(self, cp: dict[str, Any]) -> None:
        check, line = self.check["checkpoints"], self.line
        seq = cp["seq"]
        self._signed(cp)
        self._pinned(cp)
        self.last_checkpoint = seq
        self.sealed_tx += self.batch.size - self.batch_leaves
        if self.cp_from is None:
            # A partial export's first checkpoint, with no anchor before it: it must be the
            # ledger's first, else nothing says where the chain it continues stood.
            self.cp_from, self.cp_balances = 0, {}
            if seq != 1:
                check.fail(line, f"checkpoint {seq} continues a chain the export has no anchor of")
        if seq != self.cp_seq or cp["prev_hash"] != self.cp_prev:
            check.fail(line, f"checkpoint {seq} does not follow checkpoint {self.cp_seq - 1}")
        if cp["commit_from"] != self.cp_from:
            check.fail(line, f"checkpoint {seq} does not start where the previous one ended")
        # Its transactions: exactly the ones read since the previous checkpoint.
        if (
            self.batch.size != cp["tx_count"]
            or self.cp_total + self.batch.size != cp["total_count"]
        ):
            check.fail(
                line,
                f"checkpoint {seq} sealed {cp['tx_count']} transactions, the export "
                f"gives {self.batch.size} in its range",
            )
        elif self.batch.root() != cp["root"]:
            check.fail(line, f"checkpoint {seq}: its transactions were changed, added or removed")
        if self.order[0] >= cp["commit_to"]:
            check.fail(line, f"checkpoint {seq} comes after transactions beyond its range")
        # The shared accounts' balances it records: the previous ones plus what it moved.
        recorded = {key: value for key, value in cp["balances"].items() if value}
        if self.cp_balances is not None and not self.batch_leaves:
            moved = Counter(self.cp_balances)
            moved.update(self.batch_moves)
            expected = {key: value for key, value in moved.items() if value}
            if expected != recorded:
                check.fail(
                    line,
                    f"checkpoint {seq} records balances {recorded}, its "
                    f"transactions make them {expected}",
                )
        for wallet, position in self.batch_members:
            wallet.sealed_max = max(wallet.sealed_max, position)
        self.batch_members_sealed = self.batch_members
        self.cp_leaves_total += self.batch_leaves
        self.cp_seq, self.cp_prev, self.cp_from = seq + 1, cp["hash"], cp["commit_to"]
        self.cp_total = cp["total_count"]
        self.cp_balances = dict(cp["balances"])
        self.cp_count += 1
        self._new_batch()
        self.saved.at_checkpoint(self, cp)

    # --- the end -------------------------------------------------------------------------

    # --- shared tables ----------------------------------------------------------------

    def _shoe(self, doc: dict[str, Any]) -> None:
        self.shared.shoe(self.line, doc)

    def _shared_bet(self, doc: dict[str, Any]) -> None:
        self.shared.bet(self.line, doc, outside_ok=self.partial)

    def _trailer(self, doc: dict[str, Any]) -> None:
        fmt = self.check["format"]
        if self.trailer_seen:
            fmt.fail(self.line, "a second trailer")
        self.trailer_seen = True
        if doc["lines"] != self.line - 1:
            fmt.fail(
                self.line,
                f"the trailer counts {doc['lines']} lines before it, the "
                f"export has {self.line - 1}",
            )
        counted = {kind: n for kind, n in self.counts.items() if kind != "trailer"}
        if doc["counts"] != counted:
            fmt.fail(self.line, f"the trailer counts {doc['counts']}, the export has {counted}")

    def finish(self) -> dict[str, Any]:
        c = self.check
        if self.header is None:
            c["format"].fail(None, "no header")
        if not self.trailer_seen:
            c["format"].fail(None, "no trailer: the export is truncated")
        self._sealing()
        # Unsealed transactions (after the last checkpoint) must come last in their chains.
        if self.batch_leaves:
            c["checkpoints"].fail(None, f"{self.batch_leaves} leaves are sealed by no checkpoint")
        for wallet, position in self.batch_members:
            if position < wallet.sealed_max:
                c["checkpoints"].fail(
                    None, f"{wallet.key}: an unsealed transaction precedes sealed ones"
                )
        for wallet in self.wallets.values():
            if wallet.pending:
                first = min(wallet.pending)
                c["wallet_chains"].fail(
                    wallet.pending[first][0],
                    f"{wallet.key}: the chain jumps from {wallet.next_seq - 1} to {first}",
                )
            head = wallet.head
            if wallet.read and self.to_end and head is not None:
                if (head["chain_length"], head["chain_hash"]) != (
                    wallet.next_seq - 1,
                    wallet.prev_hash,
                ):
                    c["wallet_chains"].fail(
                        None,
                        f"{wallet.key}: its head says "
                        f"{head['chain_length']} links, the chain has "
                        f"{wallet.next_seq - 1} (or ends elsewhere)",
                    )
                if head["balance"] != wallet.balance:
                    c["running_balances"].fail(
                        None,
                        f"{wallet.key}: balance {head['balance']}, "
                        f"its postings make {wallet.balance}",
                    )
        if self.resumed is not None:
            for key in sorted(set(self.saved.accounts) - self.saved.accounts_seen):
                c["accounts"].fail(None, f"account {key} was in the ledger before, not now")
        rounds = c["rounds"]
        for round_id, money in self.rounds.items():
            if self.lenient:
                self.money_outside += 1
            else:
                rounds.fail(
                    money.line,
                    f"round {round_id}: transactions {sorted(money.pending)} are missing",
                )
        if not self.lenient:
            for currency in sorted(set(self.in_play) | set(self.open_antes)):
                if self.in_play[currency] != self.open_antes[currency]:
                    c["in_play"].fail(
                        None,
                        f"{currency}: {self.in_play[currency]} in play, "
                        f"the open rounds staked {self.open_antes[currency]}",
                    )
        self.shared.finish()
        self._details(self.links)
        elapsed = time.perf_counter() - self.started
        ok = all(check.ok for check in c.values())
        header = self.header or {}
        return {
            "ok": ok,
            "format": header.get("format"),
            "scope": header.get("scope"),
            "since": header.get("since"),
            "until": header.get("until"),
            "keys": {"source": "pinned" if self.pinned else "export", "ids": sorted(self.keys)},
            "counts": dict(sorted(self.counts.items())),
            "transactions": {"sealed": self.sealed_tx, "unsealed": self.unsealed},
            "allow_unsealed": self.allow_unsealed,
            "pins": {str(seq): pinned for seq, pinned in sorted(self.pins.items())},
            "checks": [check.to_dict() for check in c.values()],
            "rounds": {
                "total": self.round_ids_seen,
                "redealt": self.redealt,
                "payouts_recomputed": self.settled_checked,
                "money_matched": self.money_checked,
                "not_redealt": len(self.unchecked),
                "money_outside_range": self.money_outside,
                "transactions_of_earlier_rounds": self.outside_rounds,
            },
            "unchecked_rounds": self.unchecked,
            "shared": self.shared.summary(),
            "incremental": None
            if self.resumed is None
            else {
                "from_checkpoint": self.resumed["checkpoint"]["seq"],
                "rounds_before": self.resumed["totals"].get("round", 0),
                "transactions_before": self.resumed["totals"].get("transaction", 0),
            },
            "seconds": round(elapsed, 3),
            "rounds_per_second": round(self.round_ids_seen / elapsed) if elapsed else None,
        }

    def _sealing(self) -> None:
        """What no checkpoint seals (read after the last one), and the pins not found.

        An export whose checkpoints were dropped, or that stops at an older checkpoint
        (everything after it presented as not sealed yet) is consistent in every other
        way: only the unsealed count, and the pins, tell it from a true one."""
        self.unsealed = self.batch.size - self.batch_leaves
        sealed = self.check["sealed"]
        if self.unsealed and not self.allow_unsealed:
            sealed.fail(
                None,
                f"{self.unsealed} transaction(s) are covered by no signed checkpoint: export "
                "once the sealer has sealed them (or up to an earlier --until), or accept them "
                "with --allow-unsealed (an export cut back to an older checkpoint looks the "
                "same: pin the latest checkpoint you know with --pin)",
            )
        for seq in sorted(set(self.pins) - set(self.pins_seen)):
            if self.anchor_seq is not None and seq < self.anchor_seq:
                where = f"it lies before this partial export's anchor, checkpoint {self.anchor_seq}"
            elif self.last_checkpoint is None:
                where = "the export has no checkpoint at all"
            else:
                where = f"the export's checkpoints end at {self.last_checkpoint}"
            self.check["pinned"].fail(
                None, f"checkpoint {seq} is pinned but not in the export: {where}"
            )

    def _details(self, links: int) -> None:
        c, n = self.check, self.counts
        scope = "partial" if self.partial else "full"
        c[
            "format"
        ].detail = (
            f"{self.line} lines ({scope} export), each chained to the one before, trailer matches"
        )
        c["accounts"].detail = f"{len(self.accounts)} accounts, {len(self.wallets)} wallets"
        c[
            "transactions_balanced"
        ].detail = f"{n['transaction']} transactions, each balanced, moving its own player's wallet"
        c["running_balances"].detail = (
            f"{links} running balances follow the postings, none negative"
            + ("; every wallet ends at its balance" if self.to_end else "")
        )
        c["wallet_chains"].detail = f"{links} transactions hash to their links, chained gaplessly"
        keys = "pinned keys" if self.pinned else "keys named in the export (pin them with --key)"
        leaves = f", {self.cp_leaves_total} of their transactions as leaves" if self.partial else ""
        c["checkpoints"].detail = (
            f"{self.cp_count} checkpoints signed by {keys}, chained, their Merkle roots and "
            f"balances recomputed{leaves}"
        )
        allowed = " (allowed: --allow-unsealed)" if self.unsealed and self.allow_unsealed else ""
        c["sealed"].detail = (
            f"{self.sealed_tx} transactions sealed by signed checkpoints, "
            f"{self.unsealed} not sealed{allowed}"
        )
        c["pinned"].detail = (
            f"{len(self.pins_seen)} of {len(self.pins)} pinned checkpoints found, as pinned"
            if self.pins
            else "no checkpoint pinned (--pin, --pin-file)"
        )
        c["in_play"].detail = (
            "not checkable in a partial export"
            if self.lenient
            else f"in play = the antes of open rounds ({sum(self.open_antes.values())})"
        )
        outside = (
            f"; {self.money_outside} with transactions outside the range, "
            f"{self.outside_rounds} transactions of rounds placed before it"
            if self.partial
            else ""
        )
        c["shared_rounds"].detail = self.shared.detail()
        c["rounds"].detail = (
            f"{self.round_ids_seen} rounds: {self.redealt} re-dealt from revealed seeds, "
            f"{self.settled_checked} payouts recomputed from cards and rules, "
            f"{self.money_checked} matched by their transactions{outside}; "
            f"{len(self.unchecked)} not re-dealt (seed not revealed)"
        )


# =============================================================================================
# Shared tables (docs/fairness.md section 17, docs/shared-tables.md): one shoe for the whole
# table, its seed from a hash chain whose final hash was published first, mixed with a public
# value. A ``shoe`` line comes right before the ``shared_bet`` lines of its bets.
# =============================================================================================

SHARED_OPEN = ("open", AWAITING)
REFUNDED = "refunded"


def _shoe_draws(seed: bytes, public_value: str, index: int) -> Iterator[int]:
    """Section 17.4's stream: sections 1-3 with the shoe seed as server seed, the public
    value as client seed and the shoe's index as nonce."""
    keyed = hmac.new(seed, digestmod=hashlib.sha256)
    for block in itertools.count():
        mac = keyed.copy()
        mac.update(f"{public_value}:{index}:{block}".encode())
        yield from _EIGHT_DRAWS(mac.digest())


def _uniform(stream: Iterator[int], n: int) -> int:
    limit = 2**32 - 2**32 % n  # no modulo bias: a draw at or above it is drawn again
    while (draw := next(stream)) >= limit:
        pass
    return draw % n


def seed_reaches(seed: bytes, index: int, chain_commitment: str) -> bool:
    """Shoe ``index``'s seed hashes to its chain's commitment in ``index`` steps (17.2)."""
    for _ in range(index):
        seed = hashlib.sha256(seed).digest()
    return seed.hex() == chain_commitment


def shared_shoe(
    seed: bytes, public_value: str, index: int, rules: dict[str, Any]
) -> tuple[list[str], int, int, list[list[str]]]:
    """Shoe ``index``'s order, the cards burnt, the cut card and its rounds, each its cards
    in dealing order (player, dealer, then per war three burns, player, dealer): 17.4-17.5."""
    n = 52 * rules["decks"]
    order = list(PACK) * rules["decks"]
    stream = _shoe_draws(seed, public_value, index)
    for i in range(n - 1):  # the shuffle in full; the last position draws nothing
        j = i + _uniform(stream, n - i)
        order[i], order[j] = order[j], order[i]
    repeat = rules["war_ties"] == "repeat"
    most = 2 + 5 * (rules["max_war_ties"] - 1 if repeat else 1)
    hi = min(17 * n // 20, n - most + 1)
    lo = min(-(-3 * n // 4), hi)
    cut = lo + _uniform(stream, hi - lo + 1)  # the same stream, right after the shuffle
    face = order[0][:-1]
    burn = 1 + (1 if face == "A" else 10 if face in ("10", "J", "Q", "K") else int(face))
    rounds: list[list[str]] = []
    p = burn
    while p < cut:
        cards = order[p : p + 2]
        p += 2
        if rank_of(cards[0]) == rank_of(cards[1]):
            ties = 1
            while True:  # a war for everyone: three burns, player's card, dealer's card
                war = order[p : p + 5]
                cards += war
                p += 5
                if rank_of(war[3]) != rank_of(war[4]):
                    break
                ties += 1
                if not repeat or ties >= rules["max_war_ties"]:
                    break
        rounds.append(cards)
    return order, burn, cut, rounds


class SharedRounds:
    """The ``shared_rounds`` check: every revealed shoe's seed checked against its chain's
    commitment and the shoe re-dealt; every settled bet re-settled on its round's cards, as
    a private one-hand round dealt the same cards (17.6); every bet's wallet transactions
    (reference ``shared:<table>:<shoe>:<round>``) take its stakes and pay back what it was
    paid (its stakes, when its round was void)."""

    def __init__(self, check: Check) -> None:
        self.check = check
        # shared transactions read: id -> (reference, wallet), and per (reference, wallet)
        # what they debited and credited
        self.tx: dict[int, tuple[str, str]] = {}
        self.moves: dict[tuple[str, str], list[int]] = {}
        self.seen: set[tuple[str, int]] = set()
        self.current: tuple[str, int] | None = None
        self.rules: dict[str, Any] = {}
        self.rounds: list[list[str]] | None = None
        self.counts: Counter[str] = Counter()
        self.claimed: set[int] = set()  # the transactions the bets read list

    def transaction(self, tx_id: int, reference: str, wallet: str, staked: int, paid: int) -> None:
        self.tx[tx_id] = (reference, wallet)
        moved = self.moves.setdefault((reference, wallet), [0, 0])
        moved[0] += staked
        moved[1] += paid

    def shoe(self, line: int, doc: dict[str, Any]) -> None:
        table, index, seed = doc["table_id"], doc["shoe"], doc["seed"]
        if type(table) is not str or type(index) is not int or index < 1:
            raise ValueError("a shoe's table is a string and its index a positive integer")
        key = (table, index)
        where = f"table {table} shoe {index}"
        if key in self.seen:
            self.check.fail(line, f"{where}: a second shoe line")
        self.seen.add(key)
        self.current = key
        self.rounds = None
        problem = rules_problem(doc["rules"])
        if problem is not None:
            self.rules = {}
            self.check.fail(line, f"{where}: {problem}")
            return
        self.rules = {**full_rules(doc["rules"]), "max_hands": 1}  # a bettor plays one hand
        chain = doc["chain"]
        if seed is None:
            self.counts["shoes_unrevealed"] += 1
            return
        if not _is_hex(seed, 64):
            raise ValueError("a shoe's seed is 64 hex digits")
        raw = bytes.fromhex(seed)
        if sha256_hex(raw) != doc["commitment"]:
            self.check.fail(line, f"{where}: its seed does not hash to its commitment")
        if index > chain["length"] or not seed_reaches(raw, index, chain["commitment"]):
            self.check.fail(
                line, f"{where}: its seed does not reach the chain's commitment in {index} steps"
            )
        self.rounds = shared_shoe(raw, doc["public_value"]["value"], index, self.rules)[3]
        self.counts["shoes_revealed"] += 1
        self.counts["rounds_dealt"] += len(self.rounds)

    def bet(self, line: int, doc: dict[str, Any], *, outside_ok: bool) -> None:
        table, index, number = doc["table_id"], doc["shoe"], doc["round"]
        bet_id, status, stakes = doc["id"], doc["status"], doc["bets"]
        ante, tie_bet = stakes["ante"], stakes["tie_bet"]
        raised, war_tie_bet = stakes["raise"], stakes["war_tie_bet"]
        if not all(type(v) is int and v >= 0 for v in (ante, tie_bet, raised, war_tie_bet)):
            raise ValueError("a shared bet's stakes are integers, none negative")
        self.counts["bets"] += 1
        where = f"table {table} shoe {index} round {number} bet {bet_id}"
        self.claimed.update(doc["transaction_ids"])
        if (table, index) != self.current or not self.rules:
            self.check.fail(line, f"{where}: not right after a sound line of its shoe")
            return
        staked = ante + tie_bet + raised + war_tie_bet
        returned = doc["returned"] or 0
        self._money(line, doc, where, staked, 0 if status in SHARED_OPEN else returned, outside_ok)
        if status == REFUNDED:
            self.counts["refunded"] += 1
            if returned != staked:
                self.check.fail(line, f"{where}: void, yet {returned} of {staked} returned")
            return
        if status in SHARED_OPEN:
            self.counts["open"] += 1
            return
        if status != SETTLED:
            self.check.fail(line, f"{where}: unknown status {status!r}")
            return
        if self.rounds is None:
            self.counts["not_verifiable"] += 1  # its shoe's seed is not revealed yet
            return
        if type(number) is not int or not 1 <= number <= len(self.rounds):
            self.check.fail(line, f"{where}: the shoe deals {len(self.rounds)} rounds")
            return
        self._settle(line, doc, where, self.rounds[number - 1], (ante, tie_bet), returned)

    def _money(
        self,
        line: int,
        doc: dict[str, Any],
        where: str,
        staked: int,
        returned: int,
        outside_ok: bool,
    ) -> None:
        reference = f"shared:{doc['table_id']}:{doc['shoe']}:{doc['round']}"
        wallet = f"wallet:{doc['player_id']}:{doc['currency']}"
        ids = doc["transaction_ids"]
        if any(i not in self.tx for i in ids):
            if outside_ok:
                self.counts["money_outside_range"] += 1
            else:
                self.check.fail(line, f"{where}: its transactions {ids} are not all in the export")
            return
        if any(self.tx[i] != (reference, wallet) for i in ids):
            self.check.fail(line, f"{where}: its transactions are another round's or wallet's")
            return
        debited, credited = self.moves.get((reference, wallet), (0, 0))
        if (debited, credited) != (staked, returned):
            self.check.fail(
                line,
                f"{where}: staked {staked} and returned {returned}, its transactions "
                f"took {debited} and paid {credited}",
            )
            return
        self.counts["money_matched"] += 1

    def _settle(
        self,
        line: int,
        doc: dict[str, Any],
        where: str,
        cards: list[str],
        stake: tuple[int, int],
        returned: int,
    ) -> None:
        decision = doc["decision"]
        choice = (
            None
            if decision is None
            else {
                "action": decision,
                "decided_by": doc["decided_by"],
                "war_tie_bet": doc["bets"]["war_tie_bet"],
            }
        )
        expected, wrong = play_hands(cards, self.rules, [stake], [choice])
        hand = expected["hands"][0]
        if wrong:
            self.check.fail(line, f"{where}: {wrong[0]}")
        elif hand["status"] != SETTLED:
            self.check.fail(line, f"{where}: settled, yet its round waits for its decision")
        elif hand["bets"] != doc["bets"]:
            self.check.fail(
                line, f"{where}: staked {doc['bets']}, its decision stakes {hand['bets']}"
            )
        elif hand["payouts"] != doc["payouts"] or sum(hand["payouts"].values()) != returned:
            self.check.fail(
                line,
                f"{where}: paid {doc['payouts']}, the cards of its round pay {hand['payouts']}",
            )
        elif doc["net"] != hand["net"]:
            self.check.fail(line, f"{where}: net {doc['net']}, its cards make {hand['net']}")
        else:
            self.counts["redealt"] += 1

    def finish(self) -> None:
        """Every shared transaction read belongs to a bet read (an export holds the bet of
        each shared transaction it holds): none was left without its bet's line."""
        stray = sorted(set(self.tx) - self.claimed)
        for tx_id in stray[:MAX_EXAMPLES]:
            self.check.fail(None, f"transaction {tx_id} ({self.tx[tx_id][0]}) belongs to no bet")
        self.check.failures += max(0, len(stray) - MAX_EXAMPLES)

    def summary(self) -> dict[str, int]:
        keys = ("shoes_revealed", "shoes_unrevealed", "rounds_dealt", "bets", "redealt",
                "not_verifiable", "refunded", "open", "money_matched",
                "money_outside_range")  # fmt: skip
        return {key: self.counts[key] for key in keys}

    def detail(self) -> str:
        n = self.counts
        return (
            f"{n['shoes_revealed']} shoes re-dealt from seeds that reach their chain's "
            f"commitment, {n['shoes_unrevealed']} not revealed yet; {n['bets']} bets: "
            f"{n['redealt']} re-settled on their round's cards, {n['refunded']} refunded "
            f"(void), {n['open']} open, {n['not_verifiable']} not verifiable yet (shoe not "
            f"revealed); {n['money_matched']} matched by their transactions"
            + (f", {n['money_outside_range']} with transactions outside the range"
               if n["money_outside_range"] else "")
        )  # fmt: skip


# =============================================================================================
# An incremental audit (``--state FILE``): what a run saves at the last checkpoint it
# verified, so that the next run reads only ``casino export --from-checkpoint N`` and checks it
# with the same guarantees as a full run.
# =============================================================================================

STATE_FORMAT = "casino-audit-state-v1"


class StateMismatch(Exception):
    """The saved state and the export (or the pins) do not belong together: refused."""


class Saved:
    """The verifier's state as it stood at the last checkpoint read: every wallet's chain
    head and balance, the checkpoint chain, each seed's nonces dealt, the rounds still open
    and what their transactions moved so far, the money in play. Updated at each checkpoint
    with only what changed since the one before (what the lines after the last checkpoint
    did is not in it: they are read again, with the next part)."""

    def __init__(self, state: dict[str, Any] | None) -> None:
        state = state or {}
        self.accounts: dict[str, list[str]] = dict(state.get("accounts", {}))
        self.accounts_seen: set[str] = set()
        self.wallets: dict[str, list[Any]] = dict(state.get("wallets", {}))
        self.seeds: dict[str, list[Any]] = dict(state.get("seeds", {}))
        self.rounds: dict[str, dict[str, Any]] = dict(state.get("rounds", {}))
        self.chain: list[list[Any]] = list(state.get("chain", []))
        self.checkpoint: dict[str, Any] | None = state.get("checkpoint")
        self.in_play: dict[str, int] = dict(state.get("in_play", {}))
        self.open_antes: dict[str, int] = dict(state.get("open_antes", {}))
        self.order: list[int] = list(state.get("order", [-1, -1]))
        self.unchecked = len(state.get("unchecked", []))
        self.totals: dict[str, int] = dict(state.get("totals", {}))
        self.touched_rounds: set[str] = set()
        self.touched_seeds: set[str] = set()
        self.awaiting: dict[str, RoundMoney] = {}
        self.counted: Counter[str] = Counter()  # lines up to the last checkpoint
        self.recounted = 0  # rounds continued from the state (counted before)
        self.recounted_at_checkpoint = 0
        self.blocked: str | None = None  # why no state can be saved

    def account_seen(self, check: Check, line: int, key: str, shape: tuple[str, str]) -> None:
        self.accounts_seen.add(key)
        known = self.accounts.get(key)
        if known is not None and tuple(known) != shape:
            check.fail(line, f"account {key}: another kind or currency than before")

    def opening(
        self, check: Check, line: int, key: str, opening: dict[str, Any] | None
    ) -> dict[str, Any]:
        """Where a wallet's chain starts: as the state saved it (genesis for a new one);
        the export's opening, when it gives one, must say the same."""
        length, chain_hash, balance = self.wallets.get(key, (0, GENESIS, 0))
        start = {"balance": balance, "chain_length": length, "chain_hash": chain_hash}
        if opening is not None and opening != start:
            check.fail(
                line,
                f"wallet {key}: the export opens its chain at {opening['chain_length']} links, "
                f"balance {opening['balance']}; the state saved {length}, balance {balance}",
            )
        return start

    def dealt(self, check: Check, line: int, commitment: str, player: str, first: int) -> bytearray:
        known = self.seeds.get(commitment)
        if known is None:
            return bytearray()
        if (known[0], known[1]) != (player, first):
            check.fail(
                line, f"seed {commitment[:16]}...: another player or first nonce than before"
            )
        return bytearray(bytes.fromhex(known[2]))

    def at_checkpoint(self, verifier: Verifier, cp: dict[str, Any]) -> None:
        for wallet, _ in verifier.batch_members_sealed:
            if wallet.pending:
                self.blocked = f"{wallet.key} has links read ahead of a gap at a checkpoint"
            self.wallets[wallet.key] = [wallet.next_seq - 1, wallet.prev_hash, wallet.balance]
        for commitment in self.touched_seeds:
            seed = verifier.seeds[commitment]
            self.seeds[commitment] = [seed.player_id, seed.first_nonce, seed.dealt.hex()]
        self.touched_seeds.clear()
        for round_id in self.touched_rounds:
            money = verifier.rounds.get(round_id) or self.awaiting.get(round_id)
            if money is None:
                self.rounds.pop(round_id, None)
            else:
                self.rounds[round_id] = {
                    "wallet": money.wallet,
                    "currency": money.currency,
                    "moved": list(money.moved),
                    "last_seq": money.last_seq,
                    "last_after": money.last_after,
                    "seen": sorted(set(money.ids) - money.pending),
                    "open_ante": money.open_ante,
                }
        self.touched_rounds.clear()
        self.chain.append([cp["seq"], cp["hash"]])
        # As an anchor gives it: the checkpoint without the line's own fields.
        self.checkpoint = {k: v for k, v in cp.items() if k not in ("type", "prev")}
        self.in_play = {k: v for k, v in verifier.in_play.items() if v}
        self.open_antes = {k: v for k, v in verifier.open_antes.items() if v}
        self.order = list(verifier.order)
        self.unchecked = len(verifier.unchecked)
        self.counted = Counter(verifier.counts)
        self.recounted_at_checkpoint = self.recounted

    def state(self, verifier: Verifier) -> dict[str, Any] | None:
        """The state to save (None when there is no checkpoint to save it at)."""
        if self.checkpoint is None or self.blocked:
            return None
        for key in self.accounts_seen:
            self.accounts[key] = list(verifier.accounts[key])
        totals = Counter(self.totals)
        if verifier.resumed is None or verifier.cp_count:
            totals.update({k: v for k, v in self.counted.items() if k in ("round", "transaction")})
            totals["round"] -= self.recounted_at_checkpoint
        body = {
            "format": STATE_FORMAT,
            "operator": verifier.operator,
            "checkpoint": self.checkpoint,
            "chain": self.chain,
            "accounts": dict(sorted(self.accounts.items())),
            "wallets": dict(sorted(self.wallets.items())),
            "seeds": dict(sorted(self.seeds.items())),
            "rounds": dict(sorted(self.rounds.items())),
            "in_play": dict(sorted(self.in_play.items())),
            "open_antes": dict(sorted(self.open_antes.items())),
            "order": self.order,
            "unchecked": verifier.unchecked[: self.unchecked],
            "totals": dict(sorted(totals.items())),
        }
        body["digest"] = sha256_hex(canonical(body))
        return body


def read_state(path: str) -> dict[str, Any]:
    """A state saved by ``--state``; ValueError when it is not one, or was edited."""
    with open(path, encoding="utf-8") as handle:
        state = json.load(handle)
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise ValueError(f"{path} is not a {STATE_FORMAT} file")
    digest = state.pop("digest", None)
    if digest != sha256_hex(canonical(state)):
        raise ValueError(f"{path} was changed after it was saved (its digest does not match)")
    return state


def check_state_pins(state: dict[str, Any], pins: dict[int, str]) -> None:
    """Every pinned checkpoint up to the state's must be in its chain as pinned: a state
    saved from another history than the one pinned is refused."""
    chain = {seq: digest for seq, digest in state["chain"]}
    last = state["checkpoint"]["seq"]
    for seq, digest in sorted(pins.items()):
        if seq > last:
            continue
        if seq not in chain:
            raise StateMismatch(
                f"checkpoint {seq} is pinned; the state's chain does not hold it (it was "
                "saved from a part that began after it)"
            )
        if chain[seq] != digest:
            raise StateMismatch(
                f"checkpoint {seq} is pinned with hash {digest[:16]}...; the state was saved "
                f"from a ledger where it is {chain[seq][:16]}...: not the history pinned"
            )


def write_state(path: str, state: dict[str, Any]) -> None:
    """Written under PATH.part, then renamed: never a half-written state."""
    partial = f"{path}.part"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(_CANONICAL.encode(state))
        handle.write("\n")
    os.replace(partial, path)


# =============================================================================================
# Reading in parallel: the first half (``read_block``) in worker processes, the second half
# (``Verifier.take``) here, in the export's order.
# =============================================================================================

PROLOGUE = ("header", "account", "seed", "anchor")  # what the rounds are read after
BLOCK_SIZE = 1 << 20  # bytes of lines given to a worker at a time
MAX_DEFAULT_JOBS = 4  # beyond, the ordered half is the bottleneck: more workers only wait
# "fork" starts workers in milliseconds and shares the parsed seeds; elsewhere the platform's
# default ("spawn" on macOS and Windows) works too, only slower to start.
START_METHOD = "fork" if sys.platform.startswith("linux") else None


def default_jobs() -> int:
    """The processors this process may use, up to ``MAX_DEFAULT_JOBS``."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every OS
        available = os.cpu_count() or 1
    return max(1, min(available, MAX_DEFAULT_JOBS))


def verify(
    export: Iterable[bytes] | BinaryIO,
    keys: Sequence[bytes | Trusted] = (),
    *,
    jobs: int = 1,
    block_size: int = BLOCK_SIZE,
    allow_unsealed: bool = False,
    pins: dict[int, str] | None = None,
) -> dict[str, Any]:
    """Check an export; the summary. ``export`` is a binary file, or the export's bytes in
    pieces (its lines, each with its line feed, or blocks of any size). ``keys``: the public
    keys pinned (raw bytes, or ``Trusted`` with a range of checkpoints); none: the export's
    own. A transaction no checkpoint seals fails the check unless ``allow_unsealed``;
    ``pins`` (checkpoint number -> hash) must all be in the export, as given. With ``jobs``
    > 1 that many worker processes read the lines, about ``block_size`` bytes at a time,
    where the platform can start processes; the summary is the same either way."""
    summary, _ = verify_continuing(
        export,
        keys,
        None,
        jobs=jobs,
        block_size=block_size,
        allow_unsealed=allow_unsealed,
        pins=pins,
    )
    return summary


def verify_continuing(
    export: Iterable[bytes] | BinaryIO,
    keys: Sequence[bytes | Trusted],
    state: dict[str, Any] | None,
    *,
    jobs: int = 1,
    block_size: int = BLOCK_SIZE,
    allow_unsealed: bool = False,
    pins: dict[int, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``verify``, continuing from ``state`` (a state saved by an earlier run, read with
    ``read_state``; None: from the start, a full export) when given; also the state to save
    at the last checkpoint this run verified (None if it has none, or a check failed).
    Raises ``StateMismatch`` when the export (or a pin) does not continue the state."""
    if state is not None:
        check_state_pins(state, dict(pins or {}))
    # The verifier makes no reference cycles: the garbage collector's passes over the many
    # small objects it keeps (and those the workers' records arrive as) are pure loss. It
    # is paused meanwhile (for the whole process, so also for any other thread in it).
    collecting = gc.isenabled()
    gc.disable()
    try:
        verifier = Verifier(keys, pins=pins, allow_unsealed=allow_unsealed, state=state)
        summary = _verify(_blocks(export, block_size), verifier, jobs)
    finally:
        if collecting:
            gc.enable()
    saved = verifier.saved.state(verifier) if summary["ok"] else None
    return summary, saved


def _verify(blocks: Iterator[bytes], verifier: Verifier, jobs: int) -> dict[str, Any]:
    before: bytes | None = None
    # The header, accounts and seeds, one line at a time and all here: the rounds after
    # them are re-dealt with the seeds revealed among them.
    rest = b""
    for block in blocks:
        start = 0
        while start < len(block) and not verifier.in_body:
            stop = block.find(b"\n", start) + 1 or len(block)
            line = block[start:stop]
            (record,) = read_block(before, line, verifier.revealed)
            before = line.removesuffix(b"\n")
            verifier.take(record, before)
            verifier.in_body = record[0] not in PROLOGUE
            start = stop
        if verifier.in_body:
            rest = block[start:]
            break
    if rest:
        blocks = itertools.chain([rest], blocks)
    for pieces, records in _read(before, blocks, dict(verifier.revealed), jobs):
        # The block's lines (after its last line feed, an empty piece with no record).
        for raw, record in zip(pieces, records, strict=False):
            verifier.take(record, raw)
    return verifier.finish()


def _blocks(export: Iterable[bytes] | BinaryIO, size: int) -> Iterator[bytes]:
    """The export in blocks of whole lines of at most ``size`` bytes (or one longer line)."""
    read = getattr(export, "read", None)
    pieces: Iterable[bytes] = iter(functools.partial(read, size), b"") if read else export
    held: list[bytes] = []
    length = 0
    for piece in pieces:
        held.append(piece)
        length += len(piece)
        if length < size:
            continue
        data, start = b"".join(held), 0
        view = memoryview(data)  # slices of it copy nothing until a block is made
        while len(data) - start >= size:
            # The last line feed within size bytes, else the first after them.
            cut = data.rfind(b"\n", start, start + size) + 1 or data.find(b"\n", start) + 1
            if not cut:
                break  # a line longer than size, not ended yet
            yield bytes(view[start:cut])
            start = cut
        held, length = [bytes(view[start:])], len(data) - start
    data = b"".join(held)
    if data:
        yield data


def _last_line(block: bytes) -> bytes:
    end = len(block) - 1 if block.endswith(b"\n") else len(block)
    return block[block.rfind(b"\n", 0, end) + 1 : end]  # copies the line, not the block


def _read(
    before: bytes | None, blocks: Iterator[bytes], revealed: dict[str, bytes], jobs: int
) -> Iterator[tuple[list[bytes], list[Any]]]:
    """Each block, split at its line feeds, with its records, in order: read by ``jobs``
    worker processes, or here when there is one job, a single block, or no way to start
    processes on this platform."""
    ahead = list(itertools.islice(blocks, 2))
    blocks = itertools.chain(ahead, blocks)
    workers = _start_workers(jobs, revealed) if jobs > 1 and len(ahead) > 1 else []
    if not workers:
        for block in blocks:
            pieces = block.split(b"\n")
            yield pieces, read_lines(before, pieces, revealed)
            before = _last_line(block)
        return
    # Each worker has one block at a time, given in turn, so its answers come back in turn:
    # in order. (A pipe holds less than a block: with two blocks given to a worker, it could
    # wait for this process to read its answer while this process waits to give it the
    # second.) A worker is given its next block as soon as it answers, before its answer is
    # taken, so that it reads while this process takes.
    pending: deque[tuple[bytes, Any]] = deque()  # (block, its worker's pipe)
    finished = False
    assert before is not None  # the header (or whatever came first) was read already
    try:
        for block in blocks:
            if len(pending) < len(workers):
                pipe = workers[len(pending)][1]
                _give(pipe, before, block)
                pending.append((block, pipe))
            else:
                done, pipe = pending.popleft()
                records = _answer(pipe)
                _give(pipe, before, block)
                pending.append((block, pipe))
                yield done.split(b"\n"), records
            before = _last_line(block)
        while pending:
            done, pipe = pending.popleft()
            yield done.split(b"\n"), _answer(pipe)
        finished = True
    finally:
        _stop_workers(workers, finished)


def _start_workers(jobs: int, revealed: dict[str, bytes]) -> list[tuple[Any, Any]]:
    """``jobs`` worker processes that know the revealed seeds, each with a pipe to it; none
    where the platform cannot start processes."""
    workers: list[tuple[Any, Any]] = []
    try:
        method = START_METHOD if START_METHOD in multiprocessing.get_all_start_methods() else None
        context: Any = multiprocessing.get_context(method)
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs, revealed), daemon=True)
            process.start()
            theirs.close()
            workers.append((process, mine))
    except (ImportError, NotImplementedError, OSError, ValueError):
        _stop_workers(workers, finished=False)
        return []
    return workers


def _stop_workers(workers: list[tuple[Any, Any]], finished: bool) -> None:
    for process, pipe in workers:
        if finished:
            _give(pipe, b"", b"")  # done: the worker returns
        else:
            process.terminate()  # interrupted: its block is no longer wanted
        pipe.close()
    for process, _ in workers:
        process.join()


def _give(pipe: Any, before: bytes, block: bytes) -> None:
    """A block and the line before it, as they are (a block is never empty; the body of an
    export always has a line before it)."""
    pipe.send_bytes(before)
    pipe.send_bytes(block)


def _answer(pipe: Any) -> list[Any]:
    try:
        records: list[Any] = marshal.loads(pipe.recv_bytes())
    except EOFError:
        raise RuntimeError("a worker process ended unexpectedly") from None
    return records


def _work(pipe: Any, revealed: dict[str, bytes]) -> None:
    """A worker process: read each block it is given until it is given an empty one."""
    gc.disable()  # as in verify(): nothing to collect
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is for the main process
    while True:
        before, block = pipe.recv_bytes(), pipe.recv_bytes()
        if not block:
            return
        # Records are made of numbers, strings, bytes, tuples, lists and dictionaries only:
        # marshal writes those several times faster than pickle.
        pipe.send_bytes(marshal.dumps(read_block(before, block, revealed)))


# =============================================================================================
# The command
# =============================================================================================


def format_summary(summary: dict[str, Any], *, listed: int = 20) -> str:
    out = [
        f"export: {summary['format']}, {summary['scope']} (since {summary['since'] or 'the start'}"
        f", until {summary['until'] or 'the end'})"
    ]
    width = max(len(name) for name in CHECKS)
    for check in summary["checks"]:
        out.append(
            f"[{'ok' if check['ok'] else 'FAIL':>4}] {check['name']:<{width}}  {check['detail']}"
        )
        if not check["ok"]:
            out.append(f"       {check['failures']} problem(s):")
            out.extend(f"         {example}" for example in check["examples"])
    unchecked = summary["unchecked_rounds"]
    if unchecked:
        out.append(f"rounds not re-dealt, their server seed not revealed yet: {len(unchecked)}")
        out.extend(f"  {round_id}" for round_id in unchecked[:listed])
        if len(unchecked) > listed:
            out.append(f"  ... and {len(unchecked) - listed} more (--json lists them all)")
    sealing = summary["transactions"]
    out.append(
        f"transactions sealed: {sealing['sealed']}, not sealed: {sealing['unsealed']}"
        + (" (allowed)" if sealing["unsealed"] and summary["allow_unsealed"] else "")
    )
    rate = summary["rounds_per_second"]
    out.append(
        f"{summary['rounds']['total']} rounds, {summary['counts'].get('transaction', 0)} "
        f"transactions in {summary['seconds']} s" + (f" ({rate} rounds/s)" if rate else "")
    )
    incremental = summary.get("incremental")
    if incremental:
        out.append(
            f"continued from the state saved at checkpoint {incremental['from_checkpoint']} "
            f"({incremental['rounds_before']} rounds and {incremental['transactions_before']} "
            "transactions verified before)"
        )
    if summary.get("state_saved"):
        saved = summary["state_saved"]
        out.append(f"state saved at checkpoint {saved['checkpoint']} to {saved['file']}")
    failed = sum(not check["ok"] for check in summary["checks"])
    out.append(
        "verify-export: all checks passed"
        if summary["ok"]
        else f"verify-export: {failed} check(s) FAILED"
    )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="casino_audit_export.py",
        description="Check a casino ledger export (NDJSON) offline: balances, wallet chains, "
        "signed checkpoints, and every round re-dealt and re-settled.",
    )
    parser.add_argument("file", help="the export, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="PUBLIC_KEY",
        help="a public key checkpoints may be signed with (64 hex digits, or a PEM file's "
        "path), obtained from the casino beforehand; KEY@FIRST-LAST (or KEY@FIRST-) trusts "
        "it only for those checkpoints (a retired key); repeat for several. Without it the "
        "keys the export names are used, which proves only that the export is "
        "self-consistent.",
    )
    parser.add_argument(
        "--allow-unsealed",
        action="store_true",
        help="accept transactions no signed checkpoint covers yet (they are still counted "
        "and their chains checked); without it they fail the check",
    )
    parser.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="SEQ:HASH",
        help="a checkpoint seen earlier (e.g. published): the export must hold checkpoint "
        "SEQ with this hash; repeat for several",
    )
    parser.add_argument(
        "--pin-file",
        action="append",
        default=[],
        metavar="FILE",
        help="checkpoints saved earlier, the JSON of GET /api/v1/ledger/checkpoints (a list "
        "of checkpoints; or one); each must be in the export as saved",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        metavar="N",
        help="processes reading the lines in parallel (default: the processors available, at "
        "most 4); 1 reads them in this process alone. The result is the same.",
    )
    parser.add_argument(
        "--block-size",
        type=int,
        default=BLOCK_SIZE,
        metavar="BYTES",
        help=f"bytes of lines a worker is given at a time (default {BLOCK_SIZE})",
    )
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="an incremental audit: when FILE exists, the export must be `casino export "
        "--from-checkpoint N` of the checkpoint the state in FILE was saved at, and is checked "
        "as the rest of the ledger (with the same guarantees as a full export); when every "
        "check holds, FILE is (re)written with the state at the last checkpoint verified",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.block_size < 1:
        parser.error("--jobs and --block-size must be at least 1")
    try:
        keys = [_trusted_key(text) for text in args.key]
    except (OSError, ValueError, binascii.Error) as error:
        print(f"error: bad --key: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        pins = read_pins(args.pin, args.pin_file)
    except (OSError, ValueError) as error:
        print(f"error: bad --pin or --pin-file: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    state = None
    if args.state is not None and os.path.exists(args.state):
        try:
            state = read_state(args.state)
        except (OSError, ValueError) as error:
            print(f"error: bad --state: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
    options: dict[str, Any] = {
        "jobs": args.jobs,
        "block_size": args.block_size,
        "allow_unsealed": args.allow_unsealed,
        "pins": pins,
    }
    try:
        if args.file == "-":
            summary, saved = verify_continuing(sys.stdin.buffer, keys, state, **options)
        else:
            with open(args.file, "rb") as export:
                summary, saved = verify_continuing(export, keys, state, **options)
    except OSError as error:
        print(f"error: cannot read {args.file}: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    except StateMismatch as error:
        print(f"error: refused: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.state is not None and saved is not None:
        write_state(args.state, saved)
        summary["state_saved"] = {"file": args.state, "checkpoint": saved["checkpoint"]["seq"]}
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return EXIT_OK if summary["ok"] else EXIT_FAILED


def _trusted_key(text: str) -> Trusted:
    """``--key``: hex or a PEM file's path, with an optional ``@FIRST-LAST``."""
    key, first, last = split_range(text)
    return Trusted(parse_public_key(_read_key(key)), first, last)


def read_pins(pins: Sequence[str], files: Sequence[str]) -> dict[int, str]:
    """Checkpoint number -> hash, from ``--pin SEQ:HASH`` and ``--pin-file`` (the JSON of
    ``GET /api/v1/ledger/checkpoints``: a list of checkpoints, or one). Raises ValueError
    (OSError for a file that cannot be read)."""
    found: list[tuple[int, Any]] = []
    for pin in pins:
        number, colon, digest = pin.partition(":")
        if not colon or not number.strip().isdigit():
            raise ValueError(f"{pin!r} is not SEQ:HASH")
        found.append((int(number), digest.strip().lower()))
    for name in files:
        with open(name, encoding="utf-8") as handle:
            document = json.load(handle)
        for entry in document if isinstance(document, list) else [document]:
            if not isinstance(entry, dict) or type(entry.get("seq")) is not int:
                raise ValueError(f"{name}: not a list of checkpoints (each with seq and hash)")
            found.append((entry["seq"], entry.get("hash")))
    pinned: dict[int, str] = {}
    for seq, digest in found:
        if seq < 1 or not _is_hex(digest, 64):
            raise ValueError(f"checkpoint {seq}: a pin is a number and a 64-hex-digit hash")
        if pinned.setdefault(seq, digest) != digest:
            raise ValueError(f"checkpoint {seq} is pinned with two different hashes")
    return pinned


def _read_key(text: str) -> str:
    if "BEGIN" in text or _is_hex(text.strip().lower(), 64):
        return text
    with open(text, encoding="ascii") as pem:
        return pem.read()


if __name__ == "__main__":
    sys.exit(main())

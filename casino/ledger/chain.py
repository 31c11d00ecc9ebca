"""The hash chain of each wallet.

Every transaction moves exactly one wallet and takes the next place in that wallet's chain
(``wallet_seq``, gapless from 1):

    digest = SHA-256(canonical JSON of the transaction and its postings), hex
    hash   = SHA-256(prev_hash + ":" + wallet_seq + ":" + digest), hex  (prev of seq 1: 64 zeros)

The canonical JSON has sorted keys, no spaces, ASCII only; timestamps are UTC ISO 8601 with
microseconds; postings are [leg, account key, amount] in leg order. The wallet row keeps the
chain's head (length and last hash), and it is locked by every movement of the wallet anyway,
so linking costs no lock that the player does not already hold. The transaction id is in the
digest and the position in the link, so rows can be neither edited, renumbered nor dropped
unnoticed: an edited row no longer hashes to its link, a dropped one leaves a gap, and a
dropped last one disagrees with the head. What a database administrator could still do with
all of these at once (rewrite a wallet's whole chain and its head) is what the signed
checkpoints rule out (casino.ledger.checkpoints).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime

GENESIS_HASH = "0" * 64


def canonical_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def content_digest(
    *,
    tx_id: int,
    kind: str,
    currency: str,
    player_id: str | None,
    round_id: str | None,
    reference: str | None,
    wallet_balance_after: int | None,
    created_at: datetime,
    postings: Sequence[tuple[int, str, int]],
) -> str:
    document = {
        "id": tx_id,
        "kind": kind,
        "currency": currency,
        "player_id": player_id,
        "round_id": round_id,
        "reference": reference,
        "wallet_balance_after": wallet_balance_after,
        "created_at": canonical_time(created_at),
        "postings": [[leg, account, amount] for leg, account, amount in postings],
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def link_hash(prev_hash: str, seq: int, digest: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{seq}:{digest}".encode("ascii")).hexdigest()

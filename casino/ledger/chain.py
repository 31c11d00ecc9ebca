"""The hash chain over ledger transactions.

Each transaction has a content digest and a place in the chain (``seq``, gapless from 1):

    digest = SHA-256(canonical JSON of the transaction and its postings), hex
    hash   = SHA-256(prev_hash + ":" + seq + ":" + digest), hex     (prev of seq 1: 64 zeros)

The canonical JSON has sorted keys, no spaces, ASCII only; timestamps are UTC ISO 8601 with
microseconds; postings are [leg, account key, amount] in leg order. The transaction id is in
the digest and the position in the link, so rows can be neither edited, renumbered nor
dropped unnoticed; the chain head row (count, last id, last hash) covers the last row too.

The link step is also computed by the database function ``ledger_append`` on PostgreSQL
(see migrations); both must stay byte-for-byte identical, which the audit checks.
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

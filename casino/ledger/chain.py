"""The hash chain over ledger transactions.

hash(tx) = SHA-256(prev_hash || canonical JSON of the transaction and its postings), hex.
The canonical JSON has sorted keys, no spaces, ASCII only; timestamps are UTC ISO 8601 with
microseconds; postings are [leg, account_id, amount] in leg order. The transaction id is part
of what is hashed, so ids (which are gapless) cannot be renumbered to hide a deleted row.
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


def transaction_hash(
    prev_hash: str,
    *,
    tx_id: int,
    kind: str,
    currency: str,
    player_id: str | None,
    round_id: str | None,
    reference: str | None,
    wallet_balance_after: int | None,
    created_at: datetime,
    postings: Sequence[tuple[int, int, int]],
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
    return hashlib.sha256((prev_hash + text).encode("ascii")).hexdigest()

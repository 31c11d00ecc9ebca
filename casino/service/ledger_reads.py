"""Operators' reads across every player: the ledger's transactions, filtered and paged."""

from __future__ import annotations

from datetime import UTC, datetime

from casino.ledger.accounts import account_name
from casino.service.common import check_currency, clamp_limit, decode_cursor, encode_cursor
from casino.service.errors import Invalid
from casino.service.views import TRANSACTION_KINDS, LedgerTransactionView, Page
from casino.store.records import TransactionRecord
from casino.store.uow import UnitOfWork


def check_range(
    since: datetime | None, until: datetime | None
) -> tuple[datetime | None, datetime | None]:
    """A time range in UTC (a time without a zone is UTC), ``since`` before ``until``."""
    since, until = _utc(since), _utc(until)
    if since is not None and until is not None and since >= until:
        raise Invalid("since must be earlier than until", code="invalid_range")
    return since, until


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 shifted out of range by its offset
        raise Invalid("a time out of range", code="invalid_range") from None


def list_ledger_transactions(
    uow: UnitOfWork,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    player_id: str | None = None,
    round_id: str | None = None,
    kind: str | None = None,
    currency: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[LedgerTransactionView]:
    """Every player's transactions matching the filters, newest first. Filters on ids that
    match nothing give an empty page, as any filter does."""
    since, until = check_range(since, until)
    if kind is not None and kind not in TRANSACTION_KINDS:
        raise Invalid(f"kind must be one of {', '.join(TRANSACTION_KINDS)}", code="invalid_kind")
    if currency is not None:
        check_currency(currency)
    size = clamp_limit(limit)
    before = None
    if cursor:
        (text,) = decode_cursor(cursor, 1)
        if not (text.isdigit() and len(text) <= 18):  # a transaction id fits a bigint
            raise Invalid("malformed cursor", code="invalid_cursor")
        before = int(text)
    found = uow.ledger_reads.transaction_page(
        since=since,
        until=until,
        player_id=player_id,
        round_id=round_id,
        kind=kind,
        currency=currency,
        before_id=before,
        limit=size + 1,
    )
    more = len(found) > size
    found = found[:size]
    next_cursor = encode_cursor(str(found[-1].id)) if more and found else None
    return Page(items=[_view(tx) for tx in found], next_cursor=next_cursor)


def _view(tx: TransactionRecord) -> LedgerTransactionView:
    return LedgerTransactionView(
        id=tx.id,
        kind=tx.kind,
        player_id=tx.player_id,
        round_id=tx.round_id,
        currency=tx.currency,
        postings=[
            {"account": account_name(key), "amount": amount} for _, key, amount in tx.postings
        ],
        balance_after=tx.wallet_balance_after,
        reference=tx.reference,
        created_at=tx.created_at,
        wallet_seq=tx.wallet_seq,
        prev_hash=tx.prev_hash,
        hash=tx.hash,
        commit_seq=tx.commit_seq,
    )

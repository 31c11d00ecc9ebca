"""Schemas of the ledger's own resources: signed checkpoints, the public key, proofs, the
operator-wide transaction list and the export."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import Currency, Uuid, UUIDString
from casino.api.schemas import (
    Choice,
    Instant,
    PageQuerySchema,
    PostingSchema,
    RequestSchema,
    ResponseSchema,
)
from casino.service.views import TRANSACTION_KINDS


class CheckpointQuerySchema(RequestSchema):
    after = ma.fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**62),
        metadata={"description": "List checkpoints after this sequence number"},
    )
    limit = ma.fields.Integer(
        load_default=100,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": "Checkpoints per page, 1 to 1000"},
    )


class CheckpointSchema(ResponseSchema):
    seq = ma.fields.Integer(metadata={"description": "1, 2, 3 ... in sealing order"})
    commit_from = ma.fields.Integer(metadata={"description": "First commit_seq sealed"})
    commit_to = ma.fields.Integer(metadata={"description": "First commit_seq not sealed"})
    tx_count = ma.fields.Integer(metadata={"description": "Transactions in this checkpoint"})
    total_count = ma.fields.Integer(metadata={"description": "Transactions sealed in all"})
    root = ma.fields.String(metadata={"description": "Merkle root (RFC 6962) of id:hash leaves"})
    balances = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Integer(),
        metadata={"description": "Shared accounts' balances after it, e.g. house:EUR"},
    )
    created_at = ma.fields.String(metadata={"description": "UTC, ISO 8601, microseconds"})
    prev_hash = ma.fields.String(metadata={"description": "The previous checkpoint's hash"})
    hash = ma.fields.String(metadata={"description": "SHA-256 of the canonical fields above"})
    key_id = ma.fields.String(metadata={"description": "Which public key signed it"})
    signature = ma.fields.String(
        metadata={"description": 'Ed25519 over "casino-checkpoint-v1:" + hash, hex'}
    )


class PublicKeySchema(ResponseSchema):
    algorithm = ma.fields.String(metadata={"description": "Ed25519"})
    key_id = ma.fields.String()
    public_key = ma.fields.String(metadata={"description": "32 bytes, hex"})
    pem = ma.fields.String(metadata={"description": "SubjectPublicKeyInfo PEM"})
    trusted = ma.fields.List(
        ma.fields.Dict(),
        metadata={
            "description": "Every key checkpoints may be signed with: key_id, public_key, and "
            "for a retired key first and last, the checkpoints it may have signed"
        },
    )


class InclusionProofSchema(ResponseSchema):
    transaction_id = ma.fields.Integer()
    transaction_hash = ma.fields.String()
    index = ma.fields.Integer(metadata={"description": "The leaf's position in the tree"})
    size = ma.fields.Integer(metadata={"description": "Leaves in the checkpoint's tree"})
    path = ma.fields.List(
        ma.fields.String(), metadata={"description": "Audit path, leaf level first (RFC 6962)"}
    )
    checkpoint = ma.fields.Nested(CheckpointSchema)


# ---------------------------------------------------------------- operator-wide reads, export


class LedgerTransactionsQuerySchema(PageQuerySchema):
    since = Instant("Only transactions created at or after this time")
    until = Instant("Only transactions created before this time")
    player_id = UUIDString(metadata={"description": "Only this player's transactions"})
    round_id = UUIDString(metadata={"description": "Only this round's transactions"})
    kind = Choice(TRANSACTION_KINDS)
    currency = Currency()


class LedgerTransactionSchema(ResponseSchema):
    id = ma.fields.Integer()
    kind = Choice(TRANSACTION_KINDS)
    player_id = Uuid()
    round_id = Uuid(allow_none=True)
    currency = ma.fields.String()
    postings = ma.fields.List(ma.fields.Nested(PostingSchema))
    balance_after = ma.fields.Integer(metadata={"description": "The wallet right after it"})
    reference = ma.fields.String(allow_none=True)
    created_at = ma.fields.DateTime()
    wallet_seq = ma.fields.Integer(metadata={"description": "Its place in its wallet's chain"})
    prev_hash = ma.fields.String(metadata={"description": "The wallet's previous link"})
    hash = ma.fields.String(metadata={"description": "Its own link (docs/ledger.md)"})
    commit_seq = ma.fields.Integer(metadata={"description": "The order checkpoints seal in"})


class LedgerTransactionPageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(LedgerTransactionSchema))
    next_cursor = ma.fields.String(allow_none=True)


class ExportQuerySchema(RequestSchema):
    since = Instant("Only what was created at or after this time (a partial export)")
    until = Instant("Only what was created before this time (a partial export)")

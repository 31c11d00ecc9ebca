"""The ledger's signed checkpoints, the key that signs them, inclusion proofs, and for
operators every transaction (filtered) and the export auditors verify offline."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import current_app
from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE

from casino.api.auth import (
    OPERATOR,
    PLAYER,
    WITH_AUDITOR,
    current_principal,
    requires,
    scope_player_id,
)
from casino.api.database import database
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses
from casino.api.resources._uow import read
from casino.api.schemas_ledger import (
    CheckpointQuerySchema,
    CheckpointSchema,
    ExportQuerySchema,
    InclusionProofSchema,
    LedgerTransactionPageSchema,
    LedgerTransactionsQuerySchema,
    PublicKeySchema,
)
from casino.ledger.checkpoints import Checkpoint, VerifyingKey
from casino.service import export as export_service
from casino.service import sealing
from casino.service.errors import Conflict, NotFound
from casino.service.ledger_reads import check_range, list_ledger_transactions
from casino.service.views import LedgerTransactionView, Page

blp = ApiBlueprint(
    "ledger",
    __name__,
    url_prefix="/api/v1/ledger",
    description="Signed checkpoints of the ledger, proofs of inclusion, every transaction and "
    "the export auditors verify offline",
)


def _checkpoint(checkpoint: Checkpoint) -> dict[str, Any]:
    return checkpoint.to_dict()


@blp.route("/checkpoints")
class Checkpoints(MethodView):
    @requires(OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(CheckpointQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, CheckpointSchema(many=True))
    @blp.doc(operationId="listCheckpoints", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        """Checkpoints in sealing order, each signed by the operator's Ed25519 key."""
        found = read(lambda uow: sealing.list_checkpoints(uow, query["after"], query["limit"]))
        return [_checkpoint(c) for c in found]


@blp.route("/checkpoints/<int:seq>")
class CheckpointBySeq(MethodView):
    @requires(OPERATOR, scopes=WITH_AUDITOR)
    @blp.response(200, CheckpointSchema)
    @blp.doc(operationId="getCheckpoint", responses=error_responses(404))
    def get(self, seq: int) -> dict[str, Any]:
        """One checkpoint."""
        return _checkpoint(read(lambda uow: sealing.get_checkpoint(uow, seq)))


@blp.route("/public-key")
class PublicKey(MethodView):
    @blp.response(200, PublicKeySchema)
    @blp.doc(operationId="getLedgerPublicKey")
    def get(self) -> dict[str, Any]:
        """The public key checkpoints are signed with (no authentication: anyone may check a
        checkpoint's signature), and the earlier keys still trusted."""
        config = current_app.config
        key = VerifyingKey.parse(config["SIGNING_PUBLIC_KEY"])
        trusted = sealing.trusted_keys(key.hex, config["TRUSTED_SIGNING_KEYS"])
        return {
            "algorithm": "Ed25519",
            "key_id": key.key_id,
            "public_key": key.hex,
            "pem": key.pem(),
            "trusted": [entry.to_dict() for entry in trusted],
        }


@blp.route("/transactions/<int:tx_id>/proof")
class Proof(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_AUDITOR)
    @blp.response(200, InclusionProofSchema)
    @blp.doc(operationId="getTransactionProof", responses=error_responses(404, 409))
    def get(self, tx_id: int) -> dict[str, Any]:
        """The Merkle path proving a transaction is in a signed checkpoint (a player sees
        its own transactions only); 409 transaction_not_sealed until the sealer got to it."""
        player_id = scope_player_id()

        def prove(uow: Any) -> sealing.InclusionProof:
            owner = uow.ledger.owner_of(tx_id)
            if owner is None or (player_id is not None and owner != player_id):
                raise NotFound("no such transaction", code="transaction_not_found")
            proof = sealing.inclusion(uow, tx_id)
            if proof is None:
                raise Conflict(
                    "the transaction is not sealed yet; retry in a few seconds",
                    code="transaction_not_sealed",
                )
            return proof

        proof = read(prove)
        return {
            "transaction_id": proof.tx_id,
            "transaction_hash": proof.tx_hash,
            "index": proof.index,
            "size": proof.size,
            "path": proof.path,
            "checkpoint": _checkpoint(proof.checkpoint),
        }


@blp.route("/transactions")
class LedgerTransactions(MethodView):
    @requires(OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(LedgerTransactionsQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, LedgerTransactionPageSchema)
    @blp.doc(operationId="listLedgerTransactions", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> Page[LedgerTransactionView]:
        """Every player's transactions, newest first, one page at a time. Filters (all
        optional, combined): creation time from since (included) to until (excluded),
        player_id, round_id, kind, currency; ids that match nothing give an empty page.
        422 invalid_range when since is not before until."""
        return read(
            lambda uow: list_ledger_transactions(
                uow,
                since=query.get("since"),
                until=query.get("until"),
                player_id=query.get("player_id"),
                round_id=query.get("round_id"),
                kind=query.get("kind"),
                currency=query.get("currency"),
                cursor=query.get("cursor"),
                limit=query["limit"],
            )
        )


@blp.route("/export")
class Export(MethodView):
    @requires(OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(ExportQuerySchema(), location="query", unknown=RAISE)
    @blp.response(
        200,
        {"type": "string", "description": "One JSON object per line (docs/audit.md)"},
        content_type=export_service.MEDIA_TYPE,
        description="The export, streamed",
    )
    @blp.doc(operationId="exportLedger", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> Response:
        """The ledger for auditors (NDJSON, docs/audit.md): accounts, every transaction with
        its postings and chain links, every round with its cards, bets, payouts, rules and
        fairness data, the revealed server seeds and the signed checkpoints, read in one
        snapshot and streamed. since/until (creation times, until excluded) make a partial
        export, still verifiable; 422 invalid_range when since is not before until. Check it
        offline with casino_audit_export.py (casino verify-export). A stream cut short has no
        trailer, which the verifier reports."""
        since, until = check_range(query.get("since"), query.get("until"))
        config = current_app.config
        keys = sealing.trusted_keys(config["SIGNING_PUBLIC_KEY"], config["TRUSTED_SIGNING_KEYS"])
        source = database()
        operator = current_principal().operator_id

        def stream() -> Iterator[bytes]:
            # Its own unit of work (for the caller's operator), so the whole export reads one
            # snapshot; it runs after the view has returned, while the response is sent.
            with source.unit_of_work(operator) as uow:
                yield from export_service.export(uow, since=since, until=until, keys=keys)

        stamp = "full" if since is None and until is None else "partial"
        return Response(
            stream(),
            mimetype=export_service.MEDIA_TYPE,
            headers={"Content-Disposition": f'attachment; filename="casino-{stamp}.ndjson"'},
        )

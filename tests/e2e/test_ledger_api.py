"""The ledger's own resources over HTTP: signed checkpoints, the public key, and a player's
proof that its transaction is in a signed checkpoint."""

from __future__ import annotations

from flask import Flask

from casino.api.database import EXTENSION_KEY
from casino.ledger.checkpoints import Checkpoint, SigningKey, VerifyingKey, recomputed_hash
from casino.ledger.merkle import transaction_leaf, verify_inclusion
from casino.service.sealing import seal_pending

from .helpers import Api, Player, assert_problem, new_key


def play(api: Api, player: Player) -> dict[str, object]:
    """One round played to its end (a tie is surrendered)."""
    body: dict[str, object] = api.bet(player).get_json()
    if body["status"] == "awaiting_decision":
        body = api.post(
            f"/api/v1/rounds/{body['id']}/decision",
            {"action": "surrender"},
            auth=player.auth,
            key=new_key(),
        ).get_json()
    return body


def seal(app: Flask) -> list[Checkpoint]:
    key = SigningKey.parse(app.config["SIGNING_KEY"])
    with app.extensions[EXTENSION_KEY].unit_of_work("default") as uow:
        made = seal_pending(uow, key)
        uow.commit()
    return made


def test_checkpoints_are_signed_by_the_published_key(app: Flask, api: Api, funded: Player) -> None:
    transactions = 1  # the deposit
    for _ in range(3):
        transactions += len(play(api, funded)["transaction_ids"])  # type: ignore[arg-type]
    published = api.get("/api/v1/ledger/public-key")  # no token: anyone may check
    assert published.status_code == 200
    key = VerifyingKey.parse(published.get_json()["public_key"])
    assert VerifyingKey.parse(published.get_json()["pem"]) == key
    assert published.get_json()["trusted"][0]["key_id"] == key.key_id

    assert api.get("/api/v1/ledger/checkpoints", auth=api.operator_auth).get_json() == []
    (made,) = seal(app)
    listed = api.get("/api/v1/ledger/checkpoints", auth=api.operator_auth).get_json()
    assert [c["seq"] for c in listed] == [1]
    assert listed[0]["tx_count"] == made.tx_count == transactions
    one = api.get("/api/v1/ledger/checkpoints/1", auth=api.operator_auth).get_json()
    assert one == listed[0]
    assert key.verifies(one["hash"], one["signature"]) and one["key_id"] == key.key_id
    assert recomputed_hash(made) == one["hash"]
    assert api.get("/api/v1/ledger/checkpoints?after=1", auth=api.operator_auth).get_json() == []

    # Operators only; unknown and absurd sequence numbers are plain 404s.
    assert_problem(api.get("/api/v1/ledger/checkpoints", auth=funded.auth), 403, "forbidden")
    for seq in ("2", "0", str(2**64)):
        missing = api.get(f"/api/v1/ledger/checkpoints/{seq}", auth=api.operator_auth)
        assert_problem(missing, 404, "checkpoint_not_found")


def test_a_player_proves_its_transaction_is_sealed(app: Flask, api: Api, funded: Player) -> None:
    other = api.create_player()
    api.deposit(other, 5_000)
    tx_id = play(api, funded)["transaction_ids"][0]  # type: ignore[index]
    path = f"/api/v1/ledger/transactions/{tx_id}/proof"
    assert_problem(api.get(path, auth=funded.auth), 409, "transaction_not_sealed")
    seal(app)
    proof = api.get(path, auth=funded.auth).get_json()
    checkpoint = proof["checkpoint"]
    leaf = transaction_leaf(proof["transaction_id"], proof["transaction_hash"])
    assert verify_inclusion(leaf, proof["index"], proof["size"], proof["path"], checkpoint["root"])
    assert proof["size"] == checkpoint["tx_count"] >= 3
    key = VerifyingKey.parse(api.get("/api/v1/ledger/public-key").get_json()["public_key"])
    assert key.verifies(checkpoint["hash"], checkpoint["signature"])
    # The player's own transaction list shows the same hash.
    listed = api.get(f"/api/v1/players/{funded.id}/transactions", auth=funded.auth).get_json()
    assert {tx["hash"] for tx in listed["items"]} >= {proof["transaction_hash"]}
    # Another player's transaction is not found, as if it did not exist; operators see all.
    assert_problem(api.get(path, auth=other.auth), 404, "transaction_not_found")
    assert api.get(path, auth=api.operator_auth).status_code == 200
    for tx in ("999999", str(2**64)):
        missing = api.get(f"/api/v1/ledger/transactions/{tx}/proof", auth=api.operator_auth)
        assert_problem(missing, 404, "transaction_not_found")

"""Signed checkpoints: the hash covers every field, the signature needs the private key."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from casino.ledger.chain import GENESIS_HASH
from casino.ledger.checkpoints import (
    CheckpointBody,
    SigningKey,
    VerifyingKey,
    checkpoint_hash,
    recomputed_hash,
    roll_up,
    seal,
)

KEY = SigningKey.parse("11" * 32)


def make(**changes: object) -> object:
    fields = {
        "seq": 1,
        "commit_from": 0,
        "commit_to": 100,
        "tx_count": 3,
        "total_count": 3,
        "root": "ab" * 32,
        "balances": {"house:EUR": 250, "cash:EUR": -1000},
        "created_at": datetime(2026, 11, 30, tzinfo=UTC),
        "prev_hash": GENESIS_HASH,
    }
    fields.update(changes)
    return seal(CheckpointBody(**fields), KEY)  # type: ignore[arg-type]


def test_a_sealed_checkpoint_verifies_with_its_public_key_only() -> None:
    checkpoint = make()
    assert recomputed_hash(checkpoint) == checkpoint.hash  # type: ignore[attr-defined]
    assert KEY.verifying.verifies(checkpoint.hash, checkpoint.signature)  # type: ignore[attr-defined]
    other = SigningKey.parse("22" * 32).verifying
    assert not other.verifies(checkpoint.hash, checkpoint.signature)  # type: ignore[attr-defined]
    assert checkpoint.key_id == KEY.key_id != other.key_id  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "change",
    [
        {"seq": 2},
        {"commit_from": 1},
        {"commit_to": 101},
        {"tx_count": 4},
        {"total_count": 4},
        {"root": "cd" * 32},
        {"balances": {"house:EUR": 251, "cash:EUR": -1000}},
        {"created_at": datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC)},
        {"prev_hash": "1" * 64},
    ],
)
def test_every_field_is_in_the_hash(change: dict[str, object]) -> None:
    checkpoint = make()
    edited = replace(checkpoint, **change)  # type: ignore[type-var]
    assert recomputed_hash(edited) != checkpoint.hash  # type: ignore[attr-defined]


def test_keys_parse_from_hex_and_pem_and_refuse_garbage() -> None:
    pem_public = KEY.verifying.pem()
    assert VerifyingKey.parse(pem_public) == KEY.verifying == VerifyingKey.parse(KEY.verifying.hex)
    assert SigningKey.parse(KEY.private_hex()).key_id == KEY.key_id
    for bad in ("", "zz" * 32, "11" * 31, "-----BEGIN PUBLIC KEY-----\nnope\n"):
        with pytest.raises(ValueError):
            VerifyingKey.parse(bad)
    with pytest.raises(ValueError):
        SigningKey.parse("not a key")
    assert not KEY.verifying.verifies("00" * 32, "not hex")


def test_balances_roll_up_batch_by_batch() -> None:
    first = roll_up({}, [("house:EUR", 100), ("cash:EUR", -500), ("house:EUR", 20)])
    assert first == {"house:EUR": 120, "cash:EUR": -500}
    assert roll_up(first, [("in_play:EUR", 30)]) == {
        "house:EUR": 120,
        "cash:EUR": -500,
        "in_play:EUR": 30,
    }


def test_the_hash_is_the_canonical_json_of_the_fields() -> None:
    # Two strangers implementing docs/ledger.md must agree: key order and spacing are fixed.
    digest = checkpoint_hash(
        seq=1,
        commit_from=0,
        commit_to=2,
        tx_count=1,
        total_count=1,
        root="00" * 32,
        balances={"b": 1, "a": -1},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        prev_hash=GENESIS_HASH,
    )
    import hashlib

    text = (
        '{"balances":{"a":-1,"b":1},"commit_from":0,"commit_to":2,'
        '"created_at":"2026-01-01T00:00:00.000000+00:00","prev_hash":"' + GENESIS_HASH + '",'
        '"root":"' + "00" * 32 + '","seq":1,"total_count":1,"tx_count":1}'
    )
    assert digest == hashlib.sha256(text.encode()).hexdigest()

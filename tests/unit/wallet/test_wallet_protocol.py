"""The protocol's messages: what a call allows, the bytes it is sent as, how a wallet parses
a request and how the game server parses an answer."""

from __future__ import annotations

import json

import pytest

from casino.wallet.protocol import (
    MAX_AMOUNT,
    Answer,
    Balance,
    Bet,
    BetKind,
    MalformedAnswer,
    MalformedRequest,
    Rollback,
    Status,
    Win,
    encode,
    fingerprint,
    from_record,
    parse_answer,
    parse_request,
    rollback_of,
    to_record,
)

BET = Bet("player-42", "op-session", "EUR", "tx-1", "round-1", 250, BetKind.DEAL)
WIN = Win("player-42", "op-session", "EUR", "tx-2", "round-1", 500)
ROLLBACK = Rollback("player-42", "op-session", "EUR", "tx-3", "tx-1", "round-1", 250)
BALANCE = Balance("player-42", "op-session", "EUR")


# ------------------------------------------------------------------------------- the calls


@pytest.mark.parametrize("amount", [1, 2, MAX_AMOUNT])
def test_a_bet_takes_amounts_from_1_to_2_53_minus_1(amount: int) -> None:
    assert Bet("p", "", "EUR", "t", "r", amount, BetKind.RAISE).amount == amount


@pytest.mark.parametrize("amount", [0, -1, MAX_AMOUNT + 1, 2**63, 1.0, 100.5, "100", True, None])
def test_a_bet_refuses_other_amounts(amount: object) -> None:
    with pytest.raises(MalformedRequest, match="amount"):
        Bet("p", "", "EUR", "t", "r", amount, BetKind.DEAL)  # type: ignore[arg-type]


def test_a_win_may_be_zero_but_not_negative() -> None:
    assert Win("p", "", "EUR", "t", "r", 0).amount == 0
    with pytest.raises(MalformedRequest):
        Win("p", "", "EUR", "t", "r", -1)


@pytest.mark.parametrize(
    "change",
    [
        {"player": ""},
        {"player": "x" * 201},
        {"session": "x" * 4097},
        {"currency": "eur"},
        {"currency": "EURO"},
        {"transaction_id": ""},
        {"round_id": 7},
        {"kind": "split"},
    ],
)
def test_a_bet_refuses_fields_out_of_their_rules(change: dict[str, object]) -> None:
    fields = to_record(BET) | change
    with pytest.raises(MalformedRequest):
        from_record(fields)


def test_a_session_may_be_empty_and_kind_may_be_given_as_text() -> None:
    bet = Bet("p", "", "EUR", "t", "r", 1, "raise")  # type: ignore[arg-type]
    assert bet.kind is BetKind.RAISE and bet.session == ""


def test_a_bets_rollback_matches_it_under_one_id_derived_from_the_bets() -> None:
    cancel = rollback_of(BET)
    assert (cancel.player, cancel.currency, cancel.round_id, cancel.amount) == (
        "player-42",
        "EUR",
        "round-1",
        250,
    )
    assert cancel.reference_transaction_id == "tx-1" and cancel.transaction_id != "tx-1"
    assert rollback_of(BET) == cancel  # decided twice (a crash, two workers): one rollback
    other = Bet("player-42", "op-session", "EUR", "tx-9", "round-1", 250, BetKind.DEAL)
    assert rollback_of(other).transaction_id != cancel.transaction_id
    assert rollback_of(BET, "chosen").transaction_id == "chosen"


def test_a_rollback_cannot_name_itself() -> None:
    with pytest.raises(MalformedRequest, match="itself"):
        Rollback("p", "", "EUR", "t", "t", "r", 1)


# -------------------------------------------------------------------------------- encoding


def test_a_request_is_compact_json_with_sorted_keys_and_round_closed() -> None:
    body = encode(BET, "request-1")
    assert body == (
        b'{"amount":250,"currency":"EUR","kind":"deal","player":"player-42",'
        b'"request_id":"request-1","round_closed":false,"round_id":"round-1",'
        b'"session":"op-session","transaction_id":"tx-1"}'
    )
    assert json.loads(encode(WIN, "r"))["round_closed"] is True
    assert "round_closed" not in json.loads(encode(ROLLBACK, "r"))
    assert json.loads(encode(BALANCE, "r")) == {
        "currency": "EUR",
        "player": "player-42",
        "request_id": "r",
        "session": "op-session",
    }


def test_non_ascii_is_escaped_so_the_body_is_ascii() -> None:
    body = encode(Balance("joueur-é", "", "EUR"), "r")
    assert body.isascii() and json.loads(body)["player"] == "joueur-é"


def test_every_call_round_trips_through_its_record_and_its_request() -> None:
    for call in (BALANCE, BET, WIN, ROLLBACK):
        record = to_record(call)
        assert json.loads(json.dumps(record)) == record  # plain JSON data: an outbox row
        assert from_record(record) == call
        assert parse_request(call.endpoint.value, encode(call, "rid-9")) == ("rid-9", call)


# ------------------------------------------------------------------------ the same payload


def test_the_same_payload_ignores_the_session() -> None:
    other_session = Bet("player-42", "renewed", "EUR", "tx-1", "round-1", 250, BetKind.DEAL)
    assert fingerprint(other_session) == fingerprint(BET)


@pytest.mark.parametrize(
    "other",
    [
        Bet("player-43", "op-session", "EUR", "tx-1", "round-1", 250, BetKind.DEAL),
        Bet("player-42", "op-session", "USD", "tx-1", "round-1", 250, BetKind.DEAL),
        Bet("player-42", "op-session", "EUR", "tx-1", "round-2", 250, BetKind.DEAL),
        Bet("player-42", "op-session", "EUR", "tx-1", "round-1", 251, BetKind.DEAL),
        Bet("player-42", "op-session", "EUR", "tx-1", "round-1", 250, BetKind.RAISE),
        Win("player-42", "op-session", "EUR", "tx-1", "round-1", 250),
    ],
)
def test_the_same_payload_compares_every_other_field_and_the_path(other: Bet | Win) -> None:
    assert fingerprint(other) != fingerprint(BET)


def test_a_rollbacks_payload_includes_the_bet_it_cancels() -> None:
    other = Rollback("player-42", "op-session", "EUR", "tx-3", "tx-9", "round-1", 250)
    assert fingerprint(other) != fingerprint(ROLLBACK)


# ---------------------------------------------------------------- parsing what was received


def _bet_body(**change: object) -> bytes:
    data = json.loads(encode(BET, "r")) | change
    return json.dumps(data).encode()


def test_fields_a_wallet_does_not_know_are_ignored() -> None:
    assert parse_request("bet", _bet_body(future_field={"x": 1}))[1] == BET


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b"\xff\xfe",
        b'{"amount": NaN}',
        _bet_body(amount=250.0),
        _bet_body(amount=2.5e2),
        _bet_body(round_closed=True),
        _bet_body(round_closed=None),
        _bet_body(request_id=""),
        json.dumps({k: v for k, v in json.loads(_bet_body()).items() if k != "kind"}).encode(),
        _bet_body()[:-1] + b',"amount":251}',  # a repeated key
    ],
)
def test_malformed_requests_are_refused(body: bytes) -> None:
    with pytest.raises(MalformedRequest):
        parse_request("bet", body)


def test_an_unknown_path_is_refused() -> None:
    with pytest.raises(MalformedRequest, match="endpoint"):
        parse_request("deposit", _bet_body())


def test_a_win_must_close_its_round() -> None:
    body = json.loads(encode(WIN, "r")) | {"round_closed": False}
    with pytest.raises(MalformedRequest, match="round_closed"):
        parse_request("win", json.dumps(body).encode())


# ---------------------------------------------------------------------------- the answers


def test_an_answer_round_trips() -> None:
    for answer in (
        Answer(Status.OK, 9750, "w-1"),
        Answer(Status.NOT_ENOUGH_MONEY, 10),
        Answer(Status.INVALID_SIGNATURE),
    ):
        assert parse_answer(answer.encode()) == answer
    assert Answer(Status.INVALID_SIGNATURE).encode() == b'{"status":"INVALID_SIGNATURE"}'


def test_every_status_of_the_protocol_is_understood() -> None:
    assert {status.value for status in Status} == {
        "OK",
        "NOT_ENOUGH_MONEY",
        "LIMIT_REACHED",
        "PLAYER_BLOCKED",
        "SESSION_EXPIRED",
        "DUPLICATE_TRANSACTION",
        "TRANSACTION_NOT_FOUND",
        "INVALID_SIGNATURE",
        "UNKNOWN",
    }
    for status in Status:
        assert (
            parse_answer(json.dumps({"status": status.value, "balance": 0}).encode()).status
            is status
        )


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html>502 Bad Gateway</html>",
        b'"OK"',
        b"{}",
        b'{"status":"ok","balance":1}',
        b'{"status":["OK"],"balance":1}',
        b'{"status":"SUCCESS","balance":1}',
        b'{"status":"OK"}',
        b'{"status":"OK","balance":null}',
        b'{"status":"OK","balance":"100"}',
        b'{"status":"OK","balance":100.0}',
        b'{"status":"OK","balance":true}',
        b'{"status":"OK","balance":9007199254740992}',
        b'{"status":"OK","balance":1,"operator_transaction_id":17}',
        b'{"status":"OK","balance":1,"status":"NOT_ENOUGH_MONEY"}',
    ],
)
def test_answers_that_are_not_the_protocols_are_refused(body: bytes) -> None:
    with pytest.raises(MalformedAnswer):
        parse_answer(body)


def test_a_negative_balance_within_the_range_is_an_answer() -> None:
    assert parse_answer(b'{"status":"OK","balance":-5}').balance == -5

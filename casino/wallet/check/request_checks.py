"""The checks of what a wallet accepts: signatures over the bytes received, timestamps, and
the values and bodies it must refuse (docs/integration.md §2 and §3)."""

from __future__ import annotations

import json

from casino.wallet import signing
from casino.wallet.check.kit import CheckFailed, Kit, Signer, body_of, compact
from casino.wallet.check.registry import check
from casino.wallet.protocol import MAX_AMOUNT, Bet, Status

STAKE = 10
WRONG_SECRET = b"not-the-wallet-secret-at-all"


def _status(kit: Kit, bet: Bet, timestamp_offset: int = 0, signer: Signer | None = None) -> Status:
    """The status a bet gets when sent with this timestamp offset and signature."""
    raw = kit.exchange("/bet", lambda rid: compact(body_of(bet, rid)), timestamp_offset, signer)
    return kit.answer_of(raw, "/bet").status


def _settle(kit: Kit, bet: Bet) -> None:
    """The bet sent correctly (debited once), and its round closed with its stake back."""
    kit.expect(bet, Status.OK)
    kit.expect(kit.win(bet, bet.amount), Status.OK)


@check("bad signature")
def bad_signature(kit: Kit) -> None:
    before = kit.balance()
    bet = kit.bet(STAKE)

    def wrong(timestamp: str, body: bytes) -> str:
        return signing.signature_header([WRONG_SECRET], timestamp, body)

    status = _status(kit, bet, signer=wrong)
    if status is not Status.INVALID_SIGNATURE:
        raise CheckFailed(f"a wrong signature: expected INVALID_SIGNATURE, got {status}")
    kit.expect_balance(before, "after a badly signed bet")
    # Nothing recorded: the same transaction, signed right, is a new bet.
    outcome = kit.expect(bet, Status.OK)
    kit.expect_answered_balance(outcome, before - STAKE)
    kit.expect(kit.win(bet, STAKE), Status.OK)


@check("stale timestamp")
def stale_timestamp(kit: Kit) -> None:
    before = kit.balance()
    bet = kit.bet(STAKE)
    for offset in (-600, 600):
        status = _status(kit, bet, timestamp_offset=offset)
        if status is not Status.INVALID_SIGNATURE:
            raise CheckFailed(
                f"a timestamp {offset:+d} s off: expected INVALID_SIGNATURE, got {status}"
            )
    kit.expect_balance(before, "after bets with stale timestamps")
    status = _status(kit, bet, timestamp_offset=-120)
    if status is not Status.OK:
        raise CheckFailed(f"a timestamp 120 s old (within 300 s): expected OK, got {status}")
    kit.expect_balance(before - STAKE, "after a bet 120 s old")
    kit.expect(kit.win(bet, STAKE), Status.OK)


@check("signature over the bytes received")
def signature_over_bytes(kit: Kit) -> None:
    before = kit.balance()
    bet = kit.bet(STAKE)

    def unusual(request_id: str) -> bytes:
        fields = body_of(bet, request_id)
        reordered = dict(reversed(list(fields.items())))
        return ("\n  " + json.dumps(reordered, indent=3, ensure_ascii=False) + " \n").encode()

    raw = kit.exchange("/bet", unusual)
    status = kit.answer_of(raw, "/bet").status
    if status is not Status.OK:
        raise CheckFailed(
            f"a body with other spacing and key order, signed as sent: expected OK, got {status}"
        )
    kit.expect_balance(before - STAKE, "after a bet written unusually")
    kit.expect(kit.win(bet, STAKE), Status.OK)


@check("two signatures")
def two_signatures(kit: Kit) -> None:
    bet = kit.bet(STAKE)

    def rotating(timestamp: str, body: bytes) -> str:
        return signing.signature_header([WRONG_SECRET, kit.options.secret], timestamp, body)

    status = _status(kit, bet, signer=rotating)
    if status is not Status.OK:
        raise CheckFailed(f"v1=<wrong>,v1=<right>: expected OK, got {status}")
    kit.expect(kit.win(bet, STAKE), Status.OK)


def _expect_400(kit: Kit, path: str, body: bytes, what: str) -> None:
    raw = kit.exchange(path, lambda _rid: body)
    if raw.status != 400:
        raise CheckFailed(f"{what}: expected HTTP 400, got {raw.status} {raw.body[:120]!r}")


def _bet_body(kit: Kit, **overrides: object) -> dict[str, object]:
    return body_of(kit.bet(STAKE), kit.new_id("request"), **overrides)


@check("amounts at the limits")
def amounts_at_the_limits(kit: Kit) -> None:
    before = kit.balance()
    smallest = kit.bet(1)
    kit.expect(smallest, Status.OK)
    kit.expect_balance(before - 1, "after a bet of 1")
    kit.expect(kit.win(smallest, 1), Status.OK)
    kit.expect(kit.bet(MAX_AMOUNT), Status.NOT_ENOUGH_MONEY, Status.LIMIT_REACHED)
    refused: dict[str, object] = {
        "0": 0,
        "-1": -1,
        "2^53": MAX_AMOUNT + 1,
        "100.5": 100.5,
        '"100"': "100",
        "true": True,
        "null": None,
    }
    for text, amount in refused.items():
        _expect_400(kit, "/bet", compact(_bet_body(kit, amount=amount)), f"a bet of {text}")
    won = kit.bet(STAKE)
    _expect_400(kit, "/win", compact(body_of(kit.win(won, 0), "r", amount=-1)), "a win of -1")
    kit.expect_balance(before, "after amounts out of range")


@check("malformed requests")
def malformed_requests(kit: Kit) -> None:
    before = kit.balance()
    without_amount = _bet_body(kit)
    del without_amount["amount"]
    bodies = {
        "a body that is not JSON": b"amount=100",
        "a JSON array": b"[]",
        "a bet without amount": compact(without_amount),
        "a bet with round_closed true": compact(_bet_body(kit, round_closed=True)),
        "a bet of kind 'split'": compact(_bet_body(kit, kind="split")),
        "a lowercase currency": compact(_bet_body(kit, currency="eur")),
    }
    for what, body in bodies.items():
        _expect_400(kit, "/bet", body, what)
    kit.expect_balance(before, "after malformed requests")

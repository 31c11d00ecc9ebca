"""docs/integration.md's worked example is right: the signature it prints is the HMAC of the
request it prints, under the secret it names, and our client writes that body byte for byte."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

from casino.wallet import signing
from casino.wallet.protocol import Bet, BetKind, encode, parse_answer, parse_request

DOC = Path(__file__).resolve().parents[3] / "docs" / "integration.md"


def example() -> tuple[bytes, dict[str, str], bytes]:
    """(secret, headers, body) as the page writes them."""
    text = DOC.read_text()
    secret = re.search(r"With the secret `([^`]+)`", text)
    request = re.search(r"```http\n(POST /bet HTTP/1\.1\n.*?)\n```", text, re.DOTALL)
    assert secret and request, "the worked example is missing from docs/integration.md"
    head, body = request.group(1).split("\n\n", 1)
    headers = dict(line.split(": ", 1) for line in head.splitlines()[1:])
    return secret.group(1).encode(), headers, body.encode()


def test_the_example_signature_is_the_hmac_of_the_example_request() -> None:
    secret, headers, body = example()
    timestamp = headers["X-Casino-Timestamp"]
    digest = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    assert headers["X-Casino-Signature"] == f"v1={digest}"
    assert signing.verify(
        [secret], timestamp, headers["X-Casino-Signature"], body, now=int(timestamp)
    )


def test_the_example_headers_agree_with_the_body() -> None:
    _, headers, body = example()
    request_id, _ = parse_request("bet", body)
    assert headers["Content-Length"] == str(len(body))
    assert headers["X-Request-Id"] == request_id


def test_our_client_writes_the_example_body_byte_for_byte() -> None:
    _, _, body = example()
    _, call = parse_request("bet", body)
    assert call == Bet(
        player="player-42",
        session="op-session-7f3a",
        currency="EUR",
        transaction_id="c0ffee00-1234-4abc-9def-0123456789ab",
        round_id="9b2f3c1e-7a45-4e0c-8d9b-0a1b2c3d4e5f",
        amount=250,
        kind=BetKind.DEAL,
    )
    assert encode(call, "5d0f6a0e-8f4c-4d5e-9a57-1c2b3d4e5f60") == body


def test_the_shell_line_of_the_page_signs_the_same_message() -> None:
    text = DOC.read_text()
    _, headers, body = example()
    assert f"printf '%s' '{headers['X-Casino-Timestamp']}.{body.decode()}'" in text
    assert headers["X-Casino-Signature"].removeprefix("v1=") in text.split("openssl dgst")[1]


def test_the_example_answer_is_the_protocols() -> None:
    text = DOC.read_text()
    answer = re.search(r"HTTP/1\.1 200 OK\n.*?\n\n(\{.*?\})\n```", text, re.DOTALL)
    assert answer
    assert parse_answer(answer.group(1).encode()).balance == 9750

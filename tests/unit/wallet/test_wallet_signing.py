"""Signatures over the exact bytes sent, verified over the exact bytes received; timestamps
within 300 s; several signatures while a secret is replaced."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from casino.wallet import signing

SECRET = b"unit-test-secret-0123456789"
NOW = 1_767_225_600
BODY = b'{"amount":250,"currency":"EUR"}'


def header(secret: bytes = SECRET, timestamp: int = NOW, body: bytes = BODY) -> str:
    return signing.signature_header([secret], str(timestamp), body)


def test_the_signature_is_hmac_sha256_of_timestamp_dot_body_in_lowercase_hex() -> None:
    expected = hmac.new(SECRET, b"1767225600." + BODY, hashlib.sha256).hexdigest()
    assert signing.sign(SECRET, "1767225600", BODY) == expected
    assert header() == f"v1={expected}"
    assert expected == expected.lower()


def test_a_genuine_request_verifies() -> None:
    assert signing.verify([SECRET], str(NOW), header(), BODY, now=NOW)


def test_the_signature_covers_the_bytes_not_the_json_they_encode() -> None:
    same_json = json.dumps(json.loads(BODY)).encode()  # spaces after ':' and ','
    assert json.loads(same_json) == json.loads(BODY) and same_json != BODY
    assert not signing.verify([SECRET], str(NOW), header(), same_json, now=NOW)
    assert signing.verify([SECRET], str(NOW), header(body=same_json), same_json, now=NOW)


@pytest.mark.parametrize(
    "change",
    ["another secret", "another timestamp", "a byte of the body", "no header", "no timestamp"],
)
def test_anything_changed_fails(change: str) -> None:
    timestamp: str | None = str(NOW)
    signature: str | None = header()
    body = BODY
    if change == "another secret":
        signature = header(secret=b"another-secret-0123456789")
    elif change == "another timestamp":
        timestamp = str(NOW - 1)
    elif change == "a byte of the body":
        body = BODY.replace(b"250", b"251")
    elif change == "no header":
        signature = None
    else:
        timestamp = None
    assert not signing.verify([SECRET], timestamp, signature, body, now=NOW)


@pytest.mark.parametrize("skew", [-300, -1, 0, 1, 300])
def test_timestamps_within_300_seconds_are_accepted(skew: int) -> None:
    signed_at = NOW + skew
    assert signing.verify([SECRET], str(signed_at), header(timestamp=signed_at), BODY, now=NOW)


@pytest.mark.parametrize("skew", [-301, 301, -86_400, 86_400])
def test_timestamps_further_than_300_seconds_are_refused(skew: int) -> None:
    signed_at = NOW + skew
    assert not signing.verify([SECRET], str(signed_at), header(timestamp=signed_at), BODY, now=NOW)


@pytest.mark.parametrize(
    "timestamp", ["", "-1767225600", "1767225600.0", " 1767225600", "1e9", "١٧٦٧"]
)
def test_a_timestamp_must_be_plain_digits(timestamp: str) -> None:
    signature = signing.signature_header([SECRET], timestamp, BODY)
    assert not signing.verify([SECRET], timestamp, signature, BODY, now=NOW)


def test_any_v1_entry_may_verify_while_a_secret_is_replaced() -> None:
    rotating = signing.signature_header([b"the-new-secret-0123456789", SECRET], str(NOW), BODY)
    assert rotating.count("v1=") == 2
    assert signing.verify([SECRET], str(NOW), rotating, BODY, now=NOW)
    assert signing.verify([b"the-new-secret-0123456789"], str(NOW), rotating, BODY, now=NOW)


def test_entries_of_other_schemes_and_odd_spacing_are_handled() -> None:
    digest = signing.sign(SECRET, str(NOW), BODY)
    assert signing.verify([SECRET], str(NOW), f"v2=abc, v1={digest.upper()} ", BODY, now=NOW)
    assert not signing.verify([SECRET], str(NOW), f"v2={digest}", BODY, now=NOW)
    assert not signing.verify([SECRET], str(NOW), f"v1={digest[:-1]}é", BODY, now=NOW)
    assert not signing.verify([SECRET], str(NOW), "v1=", BODY, now=NOW)


def test_signing_needs_a_secret() -> None:
    with pytest.raises(ValueError):
        signing.signature_header([], str(NOW), BODY)


def test_a_secret_file_is_its_text_without_surrounding_whitespace(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    path.write_text("  a-secret-of-some-length \n")
    assert signing.read_secret(path) == b"a-secret-of-some-length"
    path.write_text("short\n")
    with pytest.raises(ValueError, match="at least 16"):
        signing.read_secret(path)

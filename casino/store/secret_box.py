"""Seamless operators' wallet secrets sealed at rest (AES-256-GCM, ``cryptography``).

The secret that signs our calls to an operator's wallet is symmetric: we must read it back
to sign, so it can't be hashed like a token. Stored in clear, anyone who reads the database
(a backup, a replica, a support query) could sign wallet calls as us. Sealed, the database
holds ``sealed:v1:<key id>:<nonce + ciphertext, base64url>`` and the key lives outside it
(``CASINO_WALLET_SECRETS_KEY``, or the file ``CASINO_WALLET_SECRETS_KEY_FILE`` names: 32
bytes, hex). The operator's id and the column are the additional data, so a sealed value
copied to another operator or column does not open.

Keys rotate: values sealed under the keys of ``CASINO_WALLET_SECRETS_OLD_KEYS`` (a comma
list) still open, and ``casino seal-wallet-secrets`` seals every value again under the
current key (values stored in clear before a key was set included). Without a key the
store keeps writing values in clear, as before, and says so once (deployment.md); a sealed
value without its key is an error, never a silent fallback.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import secrets
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

logger = logging.getLogger(__name__)

PREFIX = "sealed:v1:"
KEY_BYTES = 32
NONCE_BYTES = 12
KEY_ENV = "CASINO_WALLET_SECRETS_KEY"
OLD_KEYS_ENV = "CASINO_WALLET_SECRETS_OLD_KEYS"


class SecretBoxError(RuntimeError):
    """A sealed secret that can't be opened (no key, an unknown key, tampered), or a key
    that isn't one."""


def _key_id(key: bytes) -> str:
    # Names the key in the stored value (a rotation knows which key opens it) without
    # revealing anything usable about it.
    return hashlib.sha256(b"casino wallet secrets key id\0" + key).hexdigest()[:8]


def parse_key(text: str, name: str = KEY_ENV) -> bytes:
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise SecretBoxError(f"{name}: not hex") from None
    if len(key) != KEY_BYTES:
        raise SecretBoxError(f"{name}: {len(key)} bytes, {KEY_BYTES} expected (64 hex digits)")
    return key


def new_key() -> str:
    """A fresh key, as ``CASINO_WALLET_SECRETS_KEY`` takes it."""
    return secrets.token_bytes(KEY_BYTES).hex()


class SecretBox:
    """Seals with the first key; opens with any of them."""

    def __init__(self, keys: Sequence[bytes] = ()) -> None:
        self._keys = {_key_id(key): AESGCM(key) for key in keys}
        self._current = _key_id(keys[0]) if keys else None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> SecretBox:
        env = os.environ if environ is None else environ
        text = env.get(KEY_ENV, "").strip()
        path = env.get(f"{KEY_ENV}_FILE", "").strip()
        if not text and path:
            try:
                text = Path(path).read_text().strip()
            except OSError as error:
                raise SecretBoxError(f"{KEY_ENV}_FILE cannot be read: {error}") from None
        keys = [parse_key(text)] if text else []
        for part in env.get(OLD_KEYS_ENV, "").split(","):
            if part.strip():
                keys.append(parse_key(part, OLD_KEYS_ENV))
        if not text and keys:
            raise SecretBoxError(f"{OLD_KEYS_ENV} without {KEY_ENV}: nothing to seal with")
        return cls(keys)

    @property
    def sealing(self) -> bool:
        """Whether new values are sealed (a current key is set)."""
        return self._current is not None

    @staticmethod
    def is_sealed(stored: str) -> bool:
        return stored.startswith(PREFIX)

    def sealed_by_current(self, stored: str) -> bool:
        return self._current is not None and stored.startswith(f"{PREFIX}{self._current}:")

    def seal(self, plain: str | None, context: str) -> str | None:
        """The stored form of ``plain`` (in clear when no key is set)."""
        if plain is None or self._current is None:
            return plain
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = self._keys[self._current].encrypt(nonce, plain.encode(), context.encode())
        body = base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")
        return f"{PREFIX}{self._current}:{body}"

    def open(self, stored: str | None, context: str) -> str | None:
        """The secret of a stored value (a value in clear is its own secret)."""
        if stored is None or not stored.startswith(PREFIX):
            return stored
        key_id, _, body = stored[len(PREFIX) :].partition(":")
        box = self._keys.get(key_id)
        if box is None:
            raise SecretBoxError(
                f"a wallet secret is sealed under key {key_id}, which is not configured "
                f"({KEY_ENV} / {OLD_KEYS_ENV})"
            )
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            plain = box.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], context.encode())
        except (InvalidTag, ValueError):
            raise SecretBoxError(
                f"a wallet secret sealed under key {key_id} does not open "
                "(altered, or moved from another operator or column)"
            ) from None
        return plain.decode()


def from_environment() -> SecretBox:
    """The box of the process's environment now (built once per distinct setting)."""
    env = os.environ
    return _box(env.get(KEY_ENV, ""), env.get(f"{KEY_ENV}_FILE", ""), env.get(OLD_KEYS_ENV, ""))


@lru_cache(maxsize=8)
def _box(key: str, path: str, old_keys: str) -> SecretBox:
    return SecretBox.from_environ({KEY_ENV: key, f"{KEY_ENV}_FILE": path, OLD_KEYS_ENV: old_keys})


def warn_if_clear(box: SecretBox) -> None:
    if not box.sealing:
        logger.warning(
            "%s is not set: seamless operators' wallet secrets are stored in clear", KEY_ENV
        )

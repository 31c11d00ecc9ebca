"""Seamless operators' wallet secrets are sealed at rest (casino.store.secret_box): the
database holds no secret in clear, the service still signs with the secret itself, a sealed
value moved to another operator or column does not open, and keys rotate with
``casino operators seal-secrets``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from casino.cli import main as cli
from casino.service.operators import create_operator, seal_wallet_secrets, update_operator
from casino.store.secret_box import (
    KEY_ENV,
    OLD_KEYS_ENV,
    PREFIX,
    SecretBox,
    SecretBoxError,
    new_key,
    parse_key,
)
from casino.store.uow import UnitOfWork

SECRET = "the-operator-signing-secret-0123456789"
NEW_SECRET = "a-second-operator-signing-secret-98765"
SEAMLESS = {"mode": "seamless", "url": "http://127.0.0.1:9/wallet", "secret": SECRET}


def box(*keys: str) -> SecretBox:
    return SecretBox([parse_key(key) for key in keys])


def stored(engine: Engine, operator_id: str) -> tuple[str | None, str | None]:
    with engine.connect() as connection:
        row = connection.execute(
            text("SELECT wallet_secret, wallet_previous_secret FROM operators WHERE id = :id"),
            {"id": operator_id},
        ).one()
    return row[0], row[1]


def make(factory: sessionmaker[Session], secrets: SecretBox, operator_id: str = "acme") -> None:
    with UnitOfWork(factory, secrets=secrets) as uow:
        create_operator(uow, operator_id, "Acme", wallet=dict(SEAMLESS))
        uow.commit()


def test_the_database_holds_the_secret_sealed_and_the_service_reads_it_opened(
    engine: Engine, session_factory: sessionmaker[Session]
) -> None:
    key = new_key()
    make(session_factory, box(key))
    current, previous = stored(engine, "acme")
    assert current is not None and current.startswith(PREFIX)
    assert SECRET not in current and previous is None
    with UnitOfWork(session_factory, secrets=box(key)) as uow:
        record = uow.operators.get("acme")
        assert record is not None and record.seamless is not None
        assert record.seamless.secret == SECRET
    # A new secret: both are sealed, the replaced one under its own column's context.
    with UnitOfWork(session_factory, secrets=box(key)) as uow:
        update_operator(uow, "acme", {"wallet": {"secret": NEW_SECRET}})
        uow.commit()
    current, previous = stored(engine, "acme")
    assert current and previous and current.startswith(PREFIX) and previous.startswith(PREFIX)
    with UnitOfWork(session_factory, secrets=box(key)) as uow:
        record = uow.operators.get("acme")
        assert record is not None
        assert (record.wallet_secret, record.wallet_previous_secret) == (NEW_SECRET, SECRET)
    # Without the key, or with another one, a sealed secret is an error, never a guess.
    for wrong in (SecretBox(), box(new_key())):
        with UnitOfWork(session_factory, secrets=wrong) as uow, pytest.raises(SecretBoxError):
            uow.operators.get("acme")


def test_a_sealed_secret_moved_to_another_operator_or_column_does_not_open(
    engine: Engine, session_factory: sessionmaker[Session]
) -> None:
    key = new_key()
    make(session_factory, box(key), "acme")
    make(session_factory, box(key), "other")
    sealed, _ = stored(engine, "acme")
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE operators SET wallet_secret = :s WHERE id = 'other'"), {"s": sealed}
        )
        connection.execute(
            text("UPDATE operators SET wallet_previous_secret = :s WHERE id = 'acme'"),
            {"s": sealed},
        )
    for operator_id in ("other", "acme"):
        with UnitOfWork(session_factory, secrets=box(key)) as uow, pytest.raises(SecretBoxError):
            uow.operators.get(operator_id)


def test_seal_secrets_seals_clear_values_and_rotates_keys(
    engine: Engine, session_factory: sessionmaker[Session], db_url: str
) -> None:
    make(session_factory, SecretBox())  # a deployment from before any key: in clear
    assert stored(engine, "acme") == (SECRET, None)
    with UnitOfWork(session_factory, secrets=SecretBox()) as uow, pytest.raises(LookupError):
        seal_wallet_secrets(uow)

    first, second = new_key(), new_key()
    runner = CliRunner()
    env = {KEY_ENV: first, OLD_KEYS_ENV: ""}
    result = runner.invoke(cli, ["operators", "seal-secrets", "--database-url", db_url], env=env)
    assert result.exit_code == 0, result.output
    assert "1 operator" in result.output
    sealed_first, _ = stored(engine, "acme")
    assert sealed_first and sealed_first.startswith(PREFIX)
    # Sealed already under the current key: nothing to do.
    with UnitOfWork(session_factory, secrets=box(first)) as uow:
        assert seal_wallet_secrets(uow) == 0
        uow.commit()

    # Rotation: the new key seals, the old one still opens what it sealed until resealed.
    rotated = box(second, first)
    with UnitOfWork(session_factory, secrets=rotated) as uow:
        record = uow.operators.get("acme")
        assert record is not None and record.wallet_secret == SECRET
        assert seal_wallet_secrets(uow) == 1
        uow.commit()
    sealed_second, _ = stored(engine, "acme")
    assert sealed_second and sealed_second != sealed_first
    with UnitOfWork(session_factory, secrets=box(second)) as uow:
        record = uow.operators.get("acme")
        assert record is not None and record.wallet_secret == SECRET


def test_keys_are_checked() -> None:
    with pytest.raises(SecretBoxError, match="not hex"):
        SecretBox.from_environ({KEY_ENV: "zz" * 32})
    with pytest.raises(SecretBoxError, match="32 expected"):
        SecretBox.from_environ({KEY_ENV: "ab" * 16})
    with pytest.raises(SecretBoxError, match="without"):
        SecretBox.from_environ({OLD_KEYS_ENV: new_key()})
    assert not SecretBox.from_environ({}).sealing
    clear = SecretBox()
    assert clear.seal("x" * 20, "c") == "x" * 20 and clear.open("x" * 20, "c") == "x" * 20


def test_the_longest_secret_fits_its_column_once_sealed(
    engine: Engine, session_factory: sessionmaker[Session]
) -> None:
    key = new_key()
    with UnitOfWork(session_factory, secrets=box(key)) as uow:
        create_operator(uow, "acme", "Acme", wallet={**SEAMLESS, "secret": "k" * 256})
        uow.commit()
    with UnitOfWork(session_factory, secrets=box(key)) as uow:
        record = uow.operators.get("acme")
        assert record is not None and record.wallet_secret == "k" * 256

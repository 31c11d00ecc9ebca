"""Issue 19, points 2 and 5: the private key lives with the sealer only, and production is
what runs where production runs.

- The web app needs only the checkpoints' public key (``CASINO_SIGNING_PUBLIC_KEY`` or
  ``CASINO_SIGNING_PUBLIC_KEY_FILE``, hex or PEM), derived from the private key when only
  that is given; production starts without the private key and publishes the public one.
- ``wsgi.py`` (what the Procfile's gunicorn loads) runs production settings unless
  ``CASINO_ENV`` says otherwise; ``casino serve`` keeps development and says so to gunicorn
  and the sealer beside it; ``casino seed-demo`` refuses production without ``--force``.
"""

from __future__ import annotations

import importlib
import secrets
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import config
from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.cli import main as cli
from casino.ledger.checkpoints import SigningKey, VerifyingKey
from casino.store.migrate import upgrade

REPO = Path(__file__).resolve().parents[2]
SEALER_KEY = SigningKey.parse("3c" * 32)
OTHER = SigningKey.parse("4d" * 32)


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Production's environment without any checkpoint key; the database's URL."""
    url = f"sqlite:///{tmp_path / 'prod.db'}"
    upgrade(url)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")  # one process, on purpose
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", secrets.token_urlsafe(32))
    for name in ("CASINO_ENV", "CASINO_TRUSTED_SIGNING_KEYS", "CASINO_SEALER_STATE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("CASINO_SIGNING_KEY", "CASINO_SIGNING_PUBLIC_KEY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"{name}_FILE", raising=False)
    return url


def _published(app: Any) -> dict[str, Any]:
    try:
        response = app.test_client().get("/api/v1/ledger/public-key")
        assert response.status_code == 200
        return dict(response.get_json())
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()


@pytest.mark.parametrize("form", ["hex", "pem-file", "hex-file"])
def test_production_starts_with_the_public_key_alone(
    production: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, form: str
) -> None:
    public = SEALER_KEY.verifying
    if form == "hex":
        monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", public.hex)
    else:
        key_file = tmp_path / "checkpoints.pub"
        key_file.write_text(public.pem() if form == "pem-file" else public.hex + "\n")
        monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY_FILE", str(key_file))
    app = create_app("production")
    assert app.config["SIGNING_KEY"] is None  # the web tier never holds the private key
    assert app.config["SIGNING_PUBLIC_KEY"] == public.hex
    published = _published(app)
    assert published["public_key"] == public.hex and published["key_id"] == public.key_id
    assert VerifyingKey.parse(published["pem"]) == public


def test_the_public_key_is_derived_from_the_private_key_alone(
    production: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_SIGNING_KEY", SEALER_KEY.private_hex())
    app = create_app("production")
    assert app.config["SIGNING_PUBLIC_KEY"] == SEALER_KEY.verifying.hex
    assert _published(app)["key_id"] == SEALER_KEY.key_id


def test_keys_that_do_not_agree_stop_the_start(
    production: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_SIGNING_KEY", SEALER_KEY.private_hex())
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", OTHER.verifying.hex)
    with pytest.raises(config.ConfigError, match="is not the public key of CASINO_SIGNING_KEY"):
        create_app("production")
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", "not a key")
    with pytest.raises(config.ConfigError, match="CASINO_SIGNING_PUBLIC_KEY"):
        create_app("production")
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", SEALER_KEY.verifying.hex)
    monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", f"{OTHER.verifying.hex}@5-2")
    with pytest.raises(config.ConfigError, match="CASINO_TRUSTED_SIGNING_KEYS"):
        create_app("production")


def test_retired_keys_are_published_with_their_range(
    production: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", SEALER_KEY.verifying.hex)
    monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", f"{OTHER.verifying.hex}@1-40")
    trusted = _published(create_app("production"))["trusted"]
    assert trusted == [
        {"key_id": SEALER_KEY.key_id, "public_key": SEALER_KEY.verifying.hex},
        {"key_id": OTHER.key_id, "public_key": OTHER.verifying.hex, "first": 1, "last": 40},
    ]


# ---------------------------------------------------------------- 5: production by default


def _load_wsgi(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(REPO))
    sys.modules.pop("wsgi", None)
    return importlib.import_module("wsgi")


def test_wsgi_runs_production_unless_told_otherwise(
    production: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What a deployment that forgot CASINO_ENV gets: production's refusals, not
    development's SQLite under instance/ and a signing key made on the spot."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL")
    with pytest.raises(config.ConfigError, match="DATABASE_URL is required in production"):
        _load_wsgi(monkeypatch)
    monkeypatch.setenv("DATABASE_URL", production)
    with pytest.raises(config.ConfigError, match="public key is required in production"):
        _load_wsgi(monkeypatch)
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", SEALER_KEY.verifying.hex)
    app = _load_wsgi(monkeypatch).app
    assert app.config["ENV_NAME"] == "production" and app.config["LOG_LEVEL"] == "INFO"
    assert not (tmp_path / "instance").exists()  # no development key, no SQLite file
    app.extensions[EXTENSION_KEY].engine.dispose()
    monkeypatch.setenv("CASINO_ENV", "development")
    monkeypatch.delenv("DATABASE_URL")
    developing = _load_wsgi(monkeypatch).app
    assert developing.config["ENV_NAME"] == "development"
    developing.extensions[EXTENSION_KEY].engine.dispose()


def test_casino_serve_names_development_for_gunicorn_and_the_sealer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served: dict[str, Any] = {}

    def fake_serve(host: str, port: int, **options: Any) -> None:
        import os

        served.update(options, environment=os.environ.get("CASINO_ENV"))

    monkeypatch.setattr("casino.api.serve.serve", fake_serve)
    monkeypatch.delenv("CASINO_ENV", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--seal-every", "0"])
    assert result.exit_code == 0, result.output
    assert served["config"] == "development" and served["environment"] == "development"
    monkeypatch.setenv("CASINO_ENV", "testing")
    assert CliRunner().invoke(cli, ["serve", "--seal-every", "0"]).exit_code == 0
    assert served["config"] == "testing"


def test_seed_demo_refuses_production_unless_forced(
    production: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CASINO_ENV", "production")
    kept = str(tmp_path / "demo-credentials.json")
    refused = CliRunner().invoke(cli, ["seed-demo", "--credentials-file", kept])
    assert refused.exit_code == 1 and "refuses to run in production" in refused.output
    assert not Path(kept).exists()
    forced = CliRunner().invoke(cli, ["seed-demo", "--credentials-file", kept, "--force"])
    assert forced.exit_code == 0 and "operator token:" in forced.output, forced.output


def test_a_malformed_wallet_secrets_key_stops_the_start_and_none_is_logged(
    production: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The wallet secrets' key (casino.store.secret_box) is checked when production starts,
    not at the first seamless bet; without one, the log says the secrets are in clear."""
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", SEALER_KEY.verifying.hex)
    monkeypatch.setenv("CASINO_WALLET_SECRETS_KEY", "not hex")
    with pytest.raises(config.ConfigError, match="CASINO_WALLET_SECRETS_KEY"):
        create_app("production")
    monkeypatch.delenv("CASINO_WALLET_SECRETS_KEY")
    with caplog.at_level("WARNING", logger="casino.store.secret_box"):
        app = create_app("production")
    assert "stored in clear" in caplog.text
    app.extensions[EXTENSION_KEY].engine.dispose()

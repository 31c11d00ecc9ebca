"""Helpers shared by the end-to-end tests: a thin client over Flask's test client."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient

import config
from casino.engine.casino_war import CasinoWarDeal, deal_casino_war
from casino.ledger.audit import AuditReport

OPERATOR_TOKEN = "e2e-operator-token-0123456789"
#: Manages operators (docs/operators.md).
PLATFORM_TOKEN = "e2e-platform-token-0123456789"


def make_config(url: str, **overrides: Any) -> type:
    attrs = {
        "DATABASE_URL": url,
        "CASINO_OPERATOR_TOKENS": [OPERATOR_TOKEN],
        "CASINO_PLATFORM_TOKENS": [PLATFORM_TOKEN],
        **overrides,
    }
    return type("E2EConfig", (config.TestingConfig,), attrs)


@dataclass
class Player:
    id: str
    token: str
    external_ref: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Api:
    """The Flask test client with the conveniences every test needs."""

    client: FlaskClient
    operator_auth: dict[str, str] = field(
        default_factory=lambda: {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    )
    platform_auth: dict[str, str] = field(
        default_factory=lambda: {"Authorization": f"Bearer {PLATFORM_TOKEN}"}
    )

    def get(self, path: str, auth: dict[str, str] | None = None, **kwargs: Any) -> Any:
        return self.client.get(path, headers=_headers(auth, kwargs), **kwargs)

    def post(
        self,
        path: str,
        body: Any = None,
        auth: dict[str, str] | None = None,
        key: str | None = None,
        **kwargs: Any,
    ) -> Any:
        headers = _headers(auth, kwargs)
        if key is not None:
            headers["Idempotency-Key"] = key
        if body is not None:
            kwargs["json"] = body
        return self.client.post(path, headers=headers, **kwargs)

    def put(self, path: str, body: Any, auth: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.client.put(path, json=body, headers=_headers(auth, kw), **kw)

    def patch(self, path: str, body: Any, auth: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.client.patch(path, json=body, headers=_headers(auth, kw), **kw)

    # -- scenario helpers (operator actions unless told otherwise)

    def create_player(self, external_ref: str | None = None) -> Player:
        ref = external_ref or f"ext-{uuid.uuid4().hex[:10]}"
        response = self.post("/api/v1/players", {"external_ref": ref}, auth=self.operator_auth)
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        return Player(id=body["id"], token=body["token"], external_ref=ref)

    def deposit(self, player: Player, amount: int, currency: str = "EUR") -> Any:
        response = self.post(
            f"/api/v1/players/{player.id}/deposits",
            {"currency": currency, "amount": amount, "reference": f"dep-{uuid.uuid4().hex[:8]}"},
            auth=self.operator_auth,
            key=new_key(),
        )
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def create_table(self, table_id: str = "classic", **rules: Any) -> dict[str, Any]:
        body = {"id": table_id, "currency": "EUR", "rules": rules}
        response = self.post("/api/v1/tables", body, auth=self.operator_auth)
        assert response.status_code == 201, response.get_json()
        return dict(response.get_json())

    def balance(self, player: Player, currency: str = "EUR") -> int:
        response = self.get(f"/api/v1/players/{player.id}/wallets", auth=self.operator_auth)
        assert response.status_code == 200
        wallets = {w["currency"]: w["balance"] for w in response.get_json()}
        return int(wallets.get(currency, 0))

    def bet(
        self,
        player: Player,
        ante: int = 100,
        tie_bet: int = 0,
        table: str = "classic",
        client_seed: str | None = None,
    ) -> Any:
        body: dict[str, Any] = {"table_id": table, "ante": ante}
        if tie_bet:
            body["tie_bet"] = tie_bet
        if client_seed is not None:
            body["client_seed"] = client_seed
        return self.post("/api/v1/rounds", body, auth=player.auth, key=new_key())


def _headers(auth: dict[str, str] | None, kwargs: dict[str, Any]) -> dict[str, str]:
    headers = dict(auth or {})
    headers.update(kwargs.pop("headers", {}) or {})
    return headers


def new_key() -> str:
    return str(uuid.uuid4())


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status
    assert body["code"] == code, body
    for member in ("type", "title", "detail"):
        assert isinstance(body[member], str) and body[member]
    return dict(body)


# ---------------------------------------------------------------- steering the deal


def active_server_seed(database_url: str, player_id: str) -> tuple[bytes, int]:
    """The player's active server seed and next nonce, read straight from the database.

    Only tests do this: it is how a test arranges a known deal through the real API path
    (choose a client seed, then bet) without any hook in the service.
    """
    from sqlalchemy import create_engine, select

    from casino.store.models import ServerSeed

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            row = connection.execute(
                select(ServerSeed.seed, ServerSeed.next_nonce).where(
                    ServerSeed.player_id == player_id, ServerSeed.active.is_(True)
                )
            ).one()
    finally:
        engine.dispose()
    return bytes(row.seed), int(row.next_nonce)


def committed_next_seed(database_url: str, player_id: str) -> bytes:
    """The server seed the player's next rotation makes active, read straight from the
    database (only tests look there)."""
    from sqlalchemy import create_engine, select

    from casino.store.models import ServerSeed

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            seed = connection.execute(
                select(ServerSeed.next_seed).where(
                    ServerSeed.player_id == player_id, ServerSeed.active.is_(True)
                )
            ).scalar_one()
    finally:
        engine.dispose()
    return bytes(seed)


def steer_next_deal(
    api: Api,
    database_url: str,
    player: Player,
    wanted: Callable[[CasinoWarDeal], bool],
    decks: int = 6,
) -> CasinoWarDeal:
    """Set a client seed whose deal at the next nonce satisfies ``wanted``; return the deal."""
    server_seed, nonce = active_server_seed(database_url, player.id)
    for attempt in range(100_000):
        client_seed = f"steer-{attempt}"
        deal = deal_casino_war(server_seed, client_seed, nonce, decks)
        if wanted(deal):
            response = api.put(
                f"/api/v1/players/{player.id}/seeds/client",
                {"client_seed": client_seed},
                auth=player.auth,
            )
            assert response.status_code == 200, response.get_json()
            assert response.get_json()["next_nonce"] == nonce
            return deal
    raise AssertionError("no client seed gives the wanted deal")


def is_tie(deal: CasinoWarDeal) -> bool:
    return deal.is_tie


def player_wins(deal: CasinoWarDeal) -> bool:
    return deal.player.rank > deal.dealer.rank


def dealer_wins(deal: CasinoWarDeal) -> bool:
    return deal.player.rank < deal.dealer.rank


def tie_then_war_won(deal: CasinoWarDeal) -> bool:
    return deal.is_tie and deal.war_player.rank > deal.war_dealer.rank


def tie_then_war_lost(deal: CasinoWarDeal) -> bool:
    return deal.is_tie and deal.war_player.rank < deal.war_dealer.rank


def tie_then_war_tied(deal: CasinoWarDeal) -> bool:
    return deal.is_tie and deal.war_player.rank == deal.war_dealer.rank


def audit_database(url: str) -> AuditReport:
    """The audit of a test app's database, trusting the key test apps sign with."""
    import config
    from casino.service.audit import run_audit
    from casino.service.sealing import trusted_keys
    from casino.store.database import Database

    key = config.settings({"CASINO_ENV": "testing"})["SIGNING_KEY"]
    database = Database.open(url)
    try:
        with database.unit_of_work() as uow:
            return run_audit(uow.all_operators(), trusted_keys(key, []))
    finally:
        database.dispose()

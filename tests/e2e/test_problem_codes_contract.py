"""Each money and protection operation says which problem codes it answers (``x-problem-codes``
and a sentence in its description), and it answers each of them: one request provoking each
listed code, on both databases, checked against the spec (status declared, body a Problem).

One listed code comes only from a race (two requests with one key at the same instant) and
is left to the concurrency tests: ``request_in_progress`` (tests/e2e/test_concurrency.py).
``seed_rotation_in_progress`` is provoked here by the state a rotation leaves for an instant
(no active seed), written straight into the database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from casino.api.errors import PROBLEM_CODES
from casino.api.openapi import GENERIC_PROBLEM_CODES, PROBLEM_CODES_EXTENSION

from .helpers import Api, Player, is_tie, new_key, steer_next_deal
from .protection_helpers import Clock, set_limits
from .test_openapi_contract import Contract, served_spec

MISSING = "00000000-0000-4000-8000-000000000000"
#: The operations every client moving money or protecting a player calls.
REQUIRED = (
    "deposit",
    "withdraw",
    "placeBet",
    "decideRound",
    "setLimits",
    "excludePlayer",
    "createPlayer",
    "createGameSession",
    "rotateSeeds",
    "getCurrentGameSession",
    "revokeGameSession",
    "exchangeLaunchCode",
    "listGameSessions",
    "revokePlayerSessions",
    "endCurrentGameSession",
)
#: Listed, and provoked by the concurrency tests named in the docstring.
RACES = {"request_in_progress"}

_SPEC: dict[str, Any] = {}


def spec_of(api: Api) -> dict[str, Any]:
    """The served spec, built once (it is the same for every app of the suite)."""
    if not _SPEC:
        _SPEC.update(served_spec(api))
    return _SPEC


@dataclass
class World:
    """A 'classic' table (antes in tens from 10) and a player with 1,000,000 EUR."""

    api: Api
    player: Player
    database_url: str
    clock: Clock

    @property
    def op(self) -> dict[str, str]:
        return self.api.operator_auth

    @property
    def base(self) -> str:
        return f"/api/v1/players/{self.player.id}"

    def money(self, kind: str, key: str | None = "new", **body: Any) -> Any:
        payload = {"currency": "EUR", "amount": 100, "reference": new_key(), **body}
        path = f"{self.base}/{kind}"
        return self.api.post(path, payload, auth=self.op, key=new_key() if key == "new" else key)

    def reused(self, path: str, first: Any, second: Any, auth: dict[str, str]) -> Any:
        key = new_key()
        assert self.api.post(path, first, auth=auth, key=key).status_code < 300
        return self.api.post(path, second, auth=auth, key=key)

    def bet(self, key: str | None = "new", player: Player | None = None, **body: Any) -> Any:
        payload = {"table_id": "classic", "ante": 100, **body}
        payload = {name: value for name, value in payload.items() if value is not None}
        who = player or self.player
        return self.api.post(
            "/api/v1/rounds", payload, auth=who.auth, key=new_key() if key == "new" else key
        )

    def tie(self, player: Player | None = None, **body: Any) -> str:
        who = player or self.player
        steer_next_deal(self.api, self.database_url, who, is_tie)
        response = self.bet(player=who, **body)
        assert response.get_json()["status"] == "awaiting_decision", response.get_json()
        return str(response.get_json()["id"])

    def decide(self, round_id: str, action: str, player: Player | None = None) -> Any:
        who = player or self.player
        return self.api.post(
            f"/api/v1/rounds/{round_id}/decision", {"action": action}, who.auth, new_key()
        )

    def block(self, code: str) -> None:
        """Put the account in the state that answers ``code``."""
        if code in ("account_suspended", "account_closed"):
            action = "suspend" if code == "account_suspended" else "close"
            done = self.api.post(f"{self.base}/{action}", {"reason": "test"}, auth=self.op)
        else:
            body = (
                {"kind": "cool_off", "days": 1}
                if code == "cooling_off"
                else {"kind": "self_exclusion", "months": 6}
            )
            done = self.api.post(f"{self.base}/exclusions", body, auth=self.op)
        assert done.status_code in (200, 201), done.get_json()

    def poor(self, amount: int) -> Player:
        someone = self.api.create_player()
        if amount:
            self.api.deposit(someone, amount)
        return someone

    def session_token(self, **launch: Any) -> dict[str, str]:
        launched = self.api.post(f"{self.base}/sessions", launch, auth=self.op)
        code = launched.get_json()["launch_code"]
        exchanged = self.api.post("/api/v1/sessions/exchange", {"code": code})
        return {"Authorization": f"Bearer {exchanged.get_json()['token']}"}


Provoke = Callable[[World], Any]


def _blocked(code: str, then: Callable[[World], Any]) -> Provoke:
    def provoke(w: World) -> Any:
        w.block(code)
        return then(w)

    return provoke


def _session_limit(w: World) -> Any:
    set_limits(w.api, w.player, {"session_minutes": 60}, w.player.auth)
    for minutes in (0, 25, 25):  # less than a break apart: one session
        w.clock.advance(minutes=minutes)
        steer_next_deal(w.api, w.database_url, w.player, lambda d: not d.is_tie)
        assert w.bet().status_code == 201
    w.clock.advance(minutes=10)
    return w.bet()


def _client_seed_fixed(w: World) -> Any:
    chosen = w.api.put(f"{w.base}/seeds/client", {"client_seed": "mine"}, auth=w.player.auth)
    assert chosen.status_code == 200
    return w.bet(client_seed="another")


def _settled(w: World) -> str:
    steer_next_deal(w.api, w.database_url, w.player, lambda d: not d.is_tie)
    return str(w.bet().get_json()["id"])


def _no_surrender(w: World) -> Any:
    w.api.create_table("strict", min_ante=10, bet_increment=10, surrender_allowed=False)
    round_id = w.tie(table_id="strict")
    return w.decide(round_id, "surrender")


def _war_beyond_the_wallet(w: World) -> Any:
    someone = w.poor(100)
    return w.decide(w.tie(someone), "war", someone)


def _war_beyond_the_loss_limit(w: World) -> Any:
    set_limits(w.api, w.player, {"currency": "EUR", "loss": {"day": 100}}, w.player.auth)
    return w.decide(w.tie(), "war")


def _table_inactive(w: World) -> Any:
    closed = w.api.patch("/api/v1/tables/classic", {"active": False}, auth=w.op)
    assert closed.status_code == 200
    return w.bet()


def _session_raise(w: World) -> Any:
    set_limits(w.api, w.player, {"currency": "EUR", "loss": {"day": 100}})
    body = {"currency": "EUR", "loss": {"day": 200}}
    return w.api.put(f"{w.base}/limits", body, auth=w.session_token())


def _other_table(w: World) -> Any:
    w.api.create_table("other", min_ante=10, bet_increment=10)
    auth = w.session_token(table_id="other")
    return w.api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, auth, new_key())


def _war_when_blocked(code: str) -> Provoke:
    def provoke(w: World) -> Any:
        round_id = w.tie()
        w.block(code)
        return w.decide(round_id, "war")

    return provoke


def _exclusion_in_force(w: World) -> Any:
    path = f"{w.base}/exclusions"
    assert w.api.post(path, {"kind": "cool_off", "days": 2}, auth=w.op).status_code == 201
    return w.api.post(path, {"kind": "cool_off", "days": 1}, auth=w.op)


def _mid_rotation(then: Callable[[World], Any]) -> Provoke:
    """The player's active seed revealed and its successor not yet in: what a rotation
    committing meanwhile shows a request that locked the old row (it finds no active one,
    retries, and gives up with 409)."""

    def provoke(w: World) -> Any:
        from sqlalchemy import create_engine, update

        from casino.store.models import ServerSeed

        w.api.get(f"{w.base}/seeds", auth=w.player.auth)  # the first pair exists
        engine = create_engine(w.database_url)
        try:
            with engine.begin() as connection:
                connection.execute(
                    update(ServerSeed)
                    .where(ServerSeed.player_id == w.player.id)
                    .values(active=False, next_seed=None, revealed_at=w.clock.now)
                )
        finally:
            engine.dispose()
        return then(w)

    return provoke


def _rotate_during_a_tie(w: World) -> Any:
    w.tie()
    return w.api.post(f"{w.base}/seeds/rotate", auth=w.player.auth)


def _deposit_limit(w: World) -> Any:
    # Today's funding (1,000,000) already exceeds the new limit, counted from the ledger.
    set_limits(w.api, w.player, {"currency": "EUR", "deposit": {"day": 100}})
    return w.money("deposits")


def _duplicate_reference(kind: str) -> Provoke:
    def provoke(w: World) -> Any:
        assert w.money(kind, reference="once").status_code == 201
        return w.money(kind, reference="once")

    return provoke


def _money_codes(kind: str) -> dict[str, Provoke]:
    path = lambda w: f"{w.base}/{kind}"  # noqa: E731
    return {
        "validation_failed": lambda w: w.money(kind, amount=0),
        "idempotency_key_required": lambda w: w.money(kind, key=None),
        "idempotency_key_invalid": lambda w: w.money(kind, key="has space"),
        "idempotency_key_reused": lambda w: w.reused(
            path(w),
            {"currency": "EUR", "amount": 100, "reference": "r1"},
            {"currency": "EUR", "amount": 200, "reference": "r1"},
            w.op,
        ),
        "player_not_found": lambda w: w.api.post(
            f"/api/v1/players/{MISSING}/{kind}",
            {"currency": "EUR", "amount": 100, "reference": "r"},
            auth=w.op,
            key=new_key(),
        ),
        "unsupported_currency": lambda w: w.money(kind, currency="JPY"),
        "duplicate_reference": _duplicate_reference(kind),
    }


def _bet_blocked(code: str) -> Provoke:
    return _blocked(code, lambda w: w.bet())


def _deposit_blocked(code: str) -> Provoke:
    return _blocked(code, lambda w: w.money("deposits"))


BLOCKED = ("account_suspended", "account_closed", "self_excluded", "cooling_off")

PROVOKE: dict[str, dict[str, Provoke]] = {
    "deposit": {
        **_money_codes("deposits"),
        "limit_exceeded": _deposit_limit,
        **{code: _deposit_blocked(code) for code in BLOCKED},
    },
    "withdraw": {
        **_money_codes("withdrawals"),
        "insufficient_funds": lambda w: w.money("withdrawals", amount=10_000_000),
    },
    "placeBet": {
        "validation_failed": lambda w: w.bet(ante=-100),
        "invalid_bet": lambda w: w.bet(ante=None, hands=[{"ante": 100}, {"ante": 100}]),
        "idempotency_key_required": lambda w: w.bet(key=None),
        "idempotency_key_invalid": lambda w: w.bet(key="has space"),
        "idempotency_key_reused": lambda w: w.reused(
            "/api/v1/rounds",
            {"table_id": "classic", "ante": 100},
            {"table_id": "classic", "ante": 200},
            w.player.auth,
        ),
        "table_not_found": lambda w: w.bet(table_id="nowhere"),
        "table_inactive": _table_inactive,
        "ante_out_of_range": lambda w: w.bet(ante=5),
        "ante_not_multiple_of_increment": lambda w: w.bet(ante=15),
        "tie_bet_out_of_range": lambda w: w.bet(tie_bet=10**9),
        "tie_bet_not_multiple_of_increment": lambda w: w.bet(tie_bet=15),
        "insufficient_funds": lambda w: w.bet(player=w.poor(0)),
        "round_in_progress": lambda w: (w.tie(), w.bet())[1],
        "client_seed_fixed": _client_seed_fixed,
        "seed_rotation_in_progress": _mid_rotation(lambda w: w.bet()),
        "limit_exceeded": lambda w: (
            set_limits(w.api, w.player, {"currency": "EUR", "loss": {"day": 50}}),
            w.bet(),
        )[1],
        **{code: _bet_blocked(code) for code in BLOCKED},
        "session_time_limit": _session_limit,
        "session_table_mismatch": _other_table,
    },
    "decideRound": {
        "validation_failed": lambda w: w.decide(w.tie(), "run"),
        "idempotency_key_required": lambda w: w.api.post(
            f"/api/v1/rounds/{w.tie()}/decision", {"action": "war"}, auth=w.player.auth
        ),
        "idempotency_key_invalid": lambda w: w.api.post(
            f"/api/v1/rounds/{w.tie()}/decision",
            {"action": "war"},
            auth=w.player.auth,
            key="has space",
        ),
        "idempotency_key_reused": lambda w: w.reused(
            f"/api/v1/rounds/{w.tie()}/decision",
            {"action": "surrender"},
            {"action": "war"},
            w.player.auth,
        ),
        "round_not_found": lambda w: w.decide(MISSING, "war"),
        "round_not_awaiting_decision": lambda w: w.decide(_settled(w), "war"),
        "illegal_action": lambda w: w.api.post(
            f"/api/v1/rounds/{w.tie()}/decision", {"hands": {"3": "war"}}, w.player.auth, new_key()
        ),
        "invalid_bet": lambda w: w.api.post(
            f"/api/v1/rounds/{w.tie()}/decision",
            {"action": "war", "war_tie_bet": 100},
            w.player.auth,
            new_key(),
        ),
        "surrender_not_allowed": _no_surrender,
        "insufficient_funds": _war_beyond_the_wallet,
        "limit_exceeded": _war_beyond_the_loss_limit,
        **{code: _war_when_blocked(code) for code in BLOCKED},
    },
    "setLimits": {
        "validation_failed": lambda w: w.api.put(
            f"{w.base}/limits", {"currency": "EUR", "loss": {"day": 0}}, auth=w.op
        ),
        "player_not_found": lambda w: w.api.put(
            f"/api/v1/players/{MISSING}/limits", {"session_minutes": 5}, auth=w.op
        ),
        "unsupported_currency": lambda w: w.api.put(
            f"{w.base}/limits", {"currency": "JPY", "loss": {"day": 1}}, auth=w.op
        ),
        "forbidden": _session_raise,
    },
    "excludePlayer": {
        "validation_failed": lambda w: w.api.post(
            f"{w.base}/exclusions", {"kind": "cool_off", "days": 0}, auth=w.op
        ),
        "player_not_found": lambda w: w.api.post(
            f"/api/v1/players/{MISSING}/exclusions", {"kind": "cool_off", "days": 1}, auth=w.op
        ),
        "exclusion_in_force": _exclusion_in_force,
    },
    "createPlayer": {
        "validation_failed": lambda w: w.api.post("/api/v1/players", {}, auth=w.op),
        "duplicate_external_ref": lambda w: w.api.post(
            "/api/v1/players", {"external_ref": w.player.external_ref}, auth=w.op
        ),
        "idempotency_key_invalid": lambda w: w.api.post(
            "/api/v1/players", {"external_ref": "new"}, auth=w.op, key="has space"
        ),
        "idempotency_key_reused": lambda w: w.reused(
            "/api/v1/players", {"external_ref": "one"}, {"external_ref": "two"}, w.op
        ),
    },
    "createGameSession": {
        "validation_failed": lambda w: w.api.post(
            f"{w.base}/sessions", {"ttl_seconds": 5}, auth=w.op
        ),
        "player_not_found": lambda w: w.api.post(
            f"/api/v1/players/{MISSING}/sessions", {}, auth=w.op
        ),
        "table_not_found": lambda w: w.api.post(
            f"{w.base}/sessions", {"table_id": "nowhere"}, auth=w.op
        ),
    },
    "getCurrentGameSession": {
        "session_not_found": lambda w: w.api.get("/api/v1/sessions/current", auth=w.player.auth)
    },
    "revokeGameSession": {
        "session_not_found": lambda w: w.api.client.delete(
            f"/api/v1/sessions/{MISSING}", headers=w.op
        )
    },
    "exchangeLaunchCode": {
        "validation_failed": lambda w: w.api.post("/api/v1/sessions/exchange", {}),
    },
    "listGameSessions": {
        "player_not_found": lambda w: w.api.get(f"/api/v1/players/{MISSING}/sessions", auth=w.op),
    },
    "revokePlayerSessions": {
        "player_not_found": lambda w: w.api.client.delete(
            f"/api/v1/players/{MISSING}/sessions", headers=w.op
        ),
    },
    "endCurrentGameSession": {
        "session_not_found": lambda w: w.api.client.delete(
            "/api/v1/sessions/current", headers=w.player.auth
        ),
    },
    "rotateSeeds": {
        "validation_failed": lambda w: w.api.post(
            f"{w.base}/seeds/rotate", {"client_seed": "\u00e9"}, auth=w.player.auth
        ),
        "player_not_found": lambda w: w.api.post(
            f"/api/v1/players/{MISSING}/seeds/rotate", auth=w.player.auth
        ),
        "round_in_progress": _rotate_during_a_tie,
        "seed_rotation_in_progress": _mid_rotation(
            lambda w: w.api.post(f"{w.base}/seeds/rotate", auth=w.player.auth)
        ),
        "idempotency_key_invalid": lambda w: w.api.post(
            f"{w.base}/seeds/rotate", auth=w.player.auth, key="has space"
        ),
        "idempotency_key_reused": lambda w: w.reused(
            f"{w.base}/seeds/rotate", {"client_seed": "one"}, {"client_seed": "two"}, w.player.auth
        ),
    },
}


def _listed(spec: dict[str, Any]) -> dict[str, tuple[list[str], str]]:
    found = {}
    for item in spec["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and PROBLEM_CODES_EXTENSION in operation:
                found[operation["operationId"]] = (
                    operation[PROBLEM_CODES_EXTENSION],
                    operation.get("description", ""),
                )
    return found


def test_each_money_and_protection_operation_lists_declared_codes(api: Api) -> None:
    spec = spec_of(api)
    enum = set(spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    assert enum == set(PROBLEM_CODES)
    assert set(GENERIC_PROBLEM_CODES) <= enum
    listed = _listed(spec)
    assert set(REQUIRED) <= set(listed), sorted(set(REQUIRED) - set(listed))
    for operation_id, (codes, description) in listed.items():
        assert codes and len(codes) == len(set(codes)), operation_id
        assert set(codes) <= enum, (operation_id, sorted(set(codes) - enum))
        # Generic codes are named once, in the introduction, except where an operation
        # answers one for a reason of its own (a game session raising a limit).
        assert not set(codes) & (set(GENERIC_PROBLEM_CODES) - {"forbidden"}), operation_id
        sentence = "Problem codes: " + ", ".join(f"`{code}`" for code in codes) + "."
        assert description.endswith(sentence), (operation_id, description[-200:])
    assert "x-problem-codes" in spec["info"]["description"]


def test_every_listed_code_has_a_provocation_here_or_is_a_race(api: Api) -> None:
    """The table below and the spec say the same: nothing listed goes unprovoked, nothing
    provoked goes unlisted."""
    listed = _listed(spec_of(api))
    for operation_id in REQUIRED:
        codes = set(listed[operation_id][0])
        assert codes - RACES == set(PROVOKE[operation_id]), operation_id


CASES = [(operation, code) for operation, codes in PROVOKE.items() for code in codes]


@pytest.mark.parametrize(("operation_id", "code"), CASES, ids=[f"{o}-{c}" for o, c in CASES])
def test_a_listed_code_is_answered(
    capi: Api,
    gambler: Player,
    database_url: str,
    clock: Clock,
    operation_id: str,
    code: str,
) -> None:
    spec = spec_of(capi)
    assert code in _listed(spec)[operation_id][0]
    world = World(capi, gambler, database_url, clock)
    response = PROVOKE[operation_id][code](world)
    body = Contract(spec).check(operation_id, response)
    assert body["code"] == code, (operation_id, response.status_code, body)

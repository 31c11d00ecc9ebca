"""Free-play War over REST: variants, games (view, moves, autoplay) and simulations.

No money and no token; rate-limited per client address. Thin flask-smorest views over
`casino.service.free_play`; errors are mapped in `casino.api.errors`.

Settings (app config; module defaults below):

* ``FREE_PLAY_RATE_LIMIT`` - every free-play request, per client address;
* ``FREE_PLAY_SIMULATION_RATE_LIMIT`` - simulations, per client address, on top;
* ``FREE_PLAY_SIMULATION_MAX_BATTLES`` / ``FREE_PLAY_SIMULATION_MAX_SECONDS`` - the work one
  simulation request may do; it stops after the game that reaches either bound.

Each can be set in the environment as ``CASINO_<NAME>`` (read once, when the app is built;
a value the app's configuration sets itself wins). Limits use the ``limits`` syntax ("30 per
minute; 500 per hour") and the counters of ``casino.api.throttling``; they are off when
``RATELIMIT_ENABLED`` is false (the testing configuration); an empty limit disables one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from flask import current_app, request, url_for
from flask.blueprints import BlueprintSetupState
from flask.views import MethodView
from limits import parse_many
from marshmallow import RAISE

from casino.api.database import retry_on_disconnect
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses
from casino.api.resources._uow import read, write
from casino.api.schemas_free_play import (
    AutoplaySchema,
    GameCreateSchema,
    GameQuerySchema,
    GameSchema,
    LogQuerySchema,
    MoveSchema,
    SimulationCreateSchema,
    SimulationSchema,
    VariantListSchema,
)
from casino.api.throttling import client_address, current_throttle
from casino.service import free_play as service
from config import ConfigError

log = logging.getLogger(__name__)

DEFAULT_RATE_LIMIT = "300 per minute"
DEFAULT_SIMULATION_RATE_LIMIT = "10 per minute"
SIMULATIONS_ENDPOINT = "free-play.Simulations"

blp = ApiBlueprint(
    "free-play",
    __name__,
    url_prefix="/api/v1/free-play",
    description="Free-play War and its variants: no money, no token, rate-limited per address",
)


# ---------------------------------------------------------------- settings


def _limit_text(value: str) -> str:
    if value.strip():
        parse_many(value)  # raises ValueError for a malformed limit
    return value


#: Setting -> (default, parser of its environment value).
SETTINGS: dict[str, tuple[Any, Callable[[str], Any]]] = {
    "FREE_PLAY_RATE_LIMIT": (DEFAULT_RATE_LIMIT, _limit_text),
    "FREE_PLAY_SIMULATION_RATE_LIMIT": (DEFAULT_SIMULATION_RATE_LIMIT, _limit_text),
    "FREE_PLAY_SIMULATION_MAX_BATTLES": (service.DEFAULT_SIMULATION_MAX_BATTLES, int),
    "FREE_PLAY_SIMULATION_MAX_SECONDS": (service.DEFAULT_SIMULATION_MAX_SECONDS, float),
}


def settings_from(environ: Mapping[str, str]) -> dict[str, Any]:
    """The free-play settings given in ``environ`` (``CASINO_<NAME>``), parsed."""
    found: dict[str, Any] = {}
    for name, (_default, parse) in SETTINGS.items():
        raw = environ.get(f"CASINO_{name}")
        if raw is None:
            continue
        try:
            found[name] = parse(raw)
        except ValueError:
            raise ConfigError(f"CASINO_{name} is not valid: {raw!r}") from None
    return found


@blp.record
def _configure(state: BlueprintSetupState) -> None:
    config = state.app.config
    for name, value in settings_from(os.environ).items():
        config.setdefault(name, value)
    for name, (default, parse) in SETTINGS.items():
        config.setdefault(name, default)
        try:
            parse(str(config[name]))  # a bad value stops the app here, not a request later
        except ValueError:
            raise ConfigError(f"{name} is not valid: {config[name]!r}") from None


# ---------------------------------------------------------------- throttling


def _limits() -> list[tuple[str, str]]:
    config = current_app.config
    limits = [("free-play", config["FREE_PLAY_RATE_LIMIT"])]
    if request.endpoint == SIMULATIONS_ENDPOINT:
        limits.append(("free-play-simulations", config["FREE_PLAY_SIMULATION_RATE_LIMIT"]))
    return limits


@blp.before_request
def throttle() -> None:
    """Count the request against the client address's limits; over one -> 429."""
    counters = current_throttle()
    if counters is None:
        return
    address = client_address()
    for scope, text in _limits():
        counters.refuse_over_limit(
            scope,
            text,
            address,
            f"Too many free-play requests from this address ({text}); retry later.",
        )


# ---------------------------------------------------------------- views


@blp.route("/variants")
class Variants(MethodView):
    @blp.response(200, VariantListSchema)
    @blp.doc(responses=error_responses(429))
    def get(self) -> dict[str, Any]:
        """Every preset: title, description, base rules and the options a player may change
        (default, allowed values, meaning)."""
        return {"items": service.variants()}


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(GameCreateSchema)
    @blp.response(201, GameSchema)
    @blp.doc(responses=error_responses(422, 429))
    def post(self, data: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Deal a new game. Nothing is played yet: autoplay plays on, moves answer choices.

        422 invalid_rules (option outside the preset's allowed values, impossible combination,
        wrong number of seats, a human_seat the game does not have or given with seats),
        invalid_seed.
        """
        game = write(
            lambda uow: service.create_game(
                uow,
                data["variant"],
                data["options"],
                data.get("seed"),
                data.get("seats"),
                data.get("human_seat"),
            )
        )
        location = url_for("free-play.Game", game_id=game["id"])
        return game, 201, {"Location": location}


@blp.route("/games/<uuid_str:game_id>")
class Game(MethodView):
    @blp.arguments(GameQuerySchema, location="query", unknown=RAISE)
    @blp.response(200, GameSchema)
    @blp.doc(responses=error_responses(404, 409, 422, 429))
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The game as a seat may see it: stocks as counts, face-down cards as counts, its
        own hand and pending choice with the legal moves, the log and the result. The seed is
        shown once the game is over.

        422 invalid_seat for a seat the game does not have.
        """
        return retry_on_disconnect(
            lambda: read(
                lambda uow: service.get_game(uow, game_id, query.get("seat"), query.get("log_tail"))
            )
        )


@blp.route("/games/<uuid_str:game_id>/moves")
class Moves(MethodView):
    @blp.arguments(LogQuerySchema, location="query", unknown=RAISE)
    @blp.arguments(MoveSchema)
    @blp.response(200, GameSchema)
    @blp.doc(responses=error_responses(404, 409, 422, 429))
    def post(self, query: dict[str, Any], data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """A human seat's move, e.g. {"action": "play", "card": "QH"}; play goes on to the
        end of the battle or the next choice. Returns the mover's view.

        409 illegal_move (members legal = the legal moves, pending), 409 game_finished,
        409 concurrent_update (another move won the race: fetch and retry),
        422 seat_required (several human seats), 422 invalid_seat.
        """
        seat = data.pop("seat", None)
        return write(lambda uow: service.make_move(uow, game_id, data, seat, query.get("log_tail")))


@blp.route("/games/<uuid_str:game_id>/autoplay")
class Autoplay(MethodView):
    @blp.arguments(LogQuerySchema, location="query", unknown=RAISE)
    @blp.arguments(AutoplaySchema)
    @blp.response(200, GameSchema)
    @blp.doc(responses=error_responses(404, 409, 422, 429))
    def post(self, query: dict[str, Any], data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Play on: until a human seat must choose ("decision", the default), to the end
        ("end": pending human choices are made by the greedy strategy and recorded) or for
        one battle ("battle"). A finished game is returned as it is.
        """
        return write(
            lambda uow: service.autoplay(
                uow, game_id, data["until"], data.get("seat"), query.get("log_tail")
            )
        )


@blp.route("/simulations")
class Simulations(MethodView):
    @blp.arguments(SimulationCreateSchema)
    @blp.response(200, SimulationSchema)
    @blp.doc(responses=error_responses(422, 429))
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Play up to 10,000 seeded all-computer games (greedy) and summarise them: battles
        (mean, median, p95, max), wars per game, wins per seat, draws, cycles, endings.

        One request does bounded work: it stops after the game that reaches the battle
        budget or the time limit (see ``limits``), answering with ``complete`` false,
        ``stopped_by`` and the statistics of the games played. Nothing is stored.
        """
        config = current_app.config
        limits = service.SimulationLimits(
            max_battles=int(config["FREE_PLAY_SIMULATION_MAX_BATTLES"]),
            max_seconds=float(config["FREE_PLAY_SIMULATION_MAX_SECONDS"]),
        )
        return service.simulate(
            data["variant"], data["options"], data["games"], data["seed"], limits
        )

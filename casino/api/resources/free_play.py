"""Free-play War over REST: variants, games (view, moves, autoplay) and simulations.

No money and no account; rate-limited per client address. A game belongs to whoever created
it: the creation answers with a game token, sent back as ``Authorization: Bearer <token>``
on every request about that game (without it, or with another game's, the game is a 404).
Thin flask-smorest views over `casino.service.free_play`; errors are mapped in
`casino.api.errors`.

Settings (app config; module defaults below):

* ``FREE_PLAY_RATE_LIMIT`` - every free-play request, per client address;
* ``FREE_PLAY_SIMULATION_RATE_LIMIT`` - simulations, per client address, on top;
* ``FREE_PLAY_SIMULATION_MAX_BATTLES`` / ``FREE_PLAY_SIMULATION_MAX_SECONDS`` - the work one
  simulation may do; it stops after the game that reaches either bound;
* ``FREE_PLAY_SIMULATION_SLOTS`` - simulations running at once in the whole deployment
  (counted in the database), ``FREE_PLAY_SIMULATION_PER_ADDRESS`` - of which one client
  address may run; past either the request is refused (503 simulations_busy, 429
  rate_limited) with Retry-After;
* ``FREE_PLAY_SIMULATION_WAIT_SECONDS`` - how long a request waits for its simulation:
  done by then, the answer is the summary (200); else 202 and the job to poll;
* ``FREE_PLAY_SIMULATION_PROCESSES`` - processes of each worker's simulation pool (the
  work never runs in a request worker: ``casino.api.simulation_pool``).

Each can be set in the environment as ``CASINO_<NAME>`` (read once, when the app is built;
a value the app's configuration sets itself wins). Limits use the ``limits`` syntax ("30 per
minute; 500 per hour") and the counters of ``casino.api.throttling``; they are off when
``RATELIMIT_ENABLED`` is false (the testing configuration); an empty limit disables one.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from flask import Response, current_app, request, url_for
from flask.blueprints import BlueprintSetupState
from flask.views import MethodView
from limits import parse_many
from marshmallow import RAISE

from casino.api.database import database, retry_on_disconnect, unit_of_work
from casino.api.errors import ApiError
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import LOCATION, error_responses
from casino.api.resources._uow import read, write
from casino.api.schemas_free_play import (
    AutoplaySchema,
    GameCreateSchema,
    GameQuerySchema,
    GameSchema,
    LogQuerySchema,
    MoveSchema,
    SimulationCreateSchema,
    SimulationJobSchema,
    SimulationSchema,
    VariantListSchema,
)
from casino.api.simulation_pool import SimulationPool
from casino.api.throttling import client_address, current_throttle, rate_limited
from casino.engine.war.simulation import simulate_bounded
from casino.service import free_play as service
from casino.service import simulations
from casino.store.uow import UnitOfWork
from config import ConfigError

log = logging.getLogger(__name__)

DEFAULT_RATE_LIMIT = "300 per minute"
DEFAULT_SIMULATION_RATE_LIMIT = "10 per minute"
SIMULATIONS_ENDPOINT = "free-play.Simulations"
POOL_KEY = "casino.simulation_pool"

blp = ApiBlueprint(
    "free-play",
    __name__,
    url_prefix="/api/v1/free-play",
    description="Free-play War and its variants: no money, no account, rate-limited per "
    "address; a game is seen and played only with the game token its creation returned",
)

#: OpenAPI security scheme of a game's own token (registered in ``casino.api.openapi``).
GAME_TOKEN_SCHEME = "gameToken"
_GAME_SECURITY: list[dict[str, list[str]]] = [{GAME_TOKEN_SCHEME: []}]
_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")


def game_token() -> str | None:
    """The bearer token of the request, if it has a well-formed one (checked by the service:
    a missing or wrong token answers as an unknown game)."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        return None
    return token


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
    "FREE_PLAY_SIMULATION_SLOTS": (simulations.Slots.total, int),
    "FREE_PLAY_SIMULATION_PER_ADDRESS": (simulations.Slots.per_client, int),
    "FREE_PLAY_SIMULATION_WAIT_SECONDS": (1.0, float),
    "FREE_PLAY_SIMULATION_PROCESSES": (1, int),
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
    # Its processes start with the first simulation, in the worker that runs it.
    state.app.extensions[POOL_KEY] = SimulationPool(int(config["FREE_PLAY_SIMULATION_PROCESSES"]))


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
    @blp.doc(operationId="listVariants", responses=error_responses(429))
    def get(self) -> dict[str, Any]:
        """Every preset: title, description, base rules and the options a player may change
        (default, allowed values, meaning)."""
        return {"items": service.variants()}


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(GameCreateSchema)
    @blp.response(201, GameSchema, headers={"Location": LOCATION})
    @blp.doc(operationId="createGame", responses=error_responses(422, 429, 503))
    def post(self, data: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Deal a new game. Nothing is played yet: autoplay plays on, moves answer choices.

        The answer's ``token`` (shown once) is the game's: send it as
        ``Authorization: Bearer <token>`` to view or play the game.

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
    @blp.doc(
        operationId="getGame",
        responses=error_responses(404, 409, 422, 429, 503),
        security=_GAME_SECURITY,
    )
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The game as a seat may see it: stocks as counts, face-down cards as counts, its
        own hand and pending choice with the legal moves, the log and the result. The seed is
        shown once the game is over.

        422 invalid_seat for a seat the game does not have; 404 game_not_found without the
        game's token.
        """
        token = game_token()
        return retry_on_disconnect(
            lambda: read(
                lambda uow: service.get_game(
                    uow, game_id, query.get("seat"), query.get("log_tail"), token=token
                )
            )
        )


@blp.route("/games/<uuid_str:game_id>/moves")
class Moves(MethodView):
    @blp.arguments(LogQuerySchema, location="query", unknown=RAISE)
    @blp.arguments(MoveSchema)
    @blp.response(200, GameSchema)
    @blp.doc(
        operationId="makeMove",
        responses=error_responses(404, 409, 422, 429, 503),
        security=_GAME_SECURITY,
    )
    def post(self, query: dict[str, Any], data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """A human seat's move, e.g. {"action": "play", "card": "QH"}; play goes on to the
        end of the battle or the next choice. Returns the mover's view.

        409 illegal_move (members legal = the legal moves, pending), 409 game_finished,
        409 concurrent_update (another move won the race: fetch and retry),
        422 seat_required (several human seats), 422 invalid_seat.
        """
        seat = data.pop("seat", None)
        token = game_token()
        return write(
            lambda uow: service.make_move(
                uow, game_id, data, seat, query.get("log_tail"), token=token
            )
        )


@blp.route("/games/<uuid_str:game_id>/autoplay")
class Autoplay(MethodView):
    @blp.arguments(LogQuerySchema, location="query", unknown=RAISE)
    @blp.arguments(AutoplaySchema)
    @blp.response(200, GameSchema)
    @blp.doc(
        operationId="autoplayGame",
        responses=error_responses(404, 409, 422, 429, 503),
        security=_GAME_SECURITY,
    )
    def post(self, query: dict[str, Any], data: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Play on: until a human seat must choose ("decision", the default), to the end
        ("end": pending human choices are made by the greedy strategy and recorded) or for
        one battle ("battle"). A finished game is returned as it is.
        """
        token = game_token()
        return write(
            lambda uow: service.autoplay(
                uow, game_id, data["until"], data.get("seat"), query.get("log_tail"), token=token
            )
        )


def _simulation_bounds() -> tuple[service.SimulationLimits, simulations.Slots]:
    config = current_app.config
    limits = service.SimulationLimits(
        max_battles=int(config["FREE_PLAY_SIMULATION_MAX_BATTLES"]),
        max_seconds=float(config["FREE_PLAY_SIMULATION_MAX_SECONDS"]),
    )
    slots = simulations.Slots(
        total=int(config["FREE_PLAY_SIMULATION_SLOTS"]),
        per_client=int(config["FREE_PLAY_SIMULATION_PER_ADDRESS"]),
    )
    return limits, slots


class _Run:
    """One job's run in the pool: its outcome is recorded in the database by the pool's
    callback (so any worker can serve it), then handed to the request if it still waits."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        self.done = threading.Event()
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self._database = database()

    def record(self, future: Any) -> None:
        try:
            self.result = future.result()
        except BaseException as error:  # the pool process died, or the engine refused
            log.error("simulation %s failed: %s", self.job_id, type(error).__name__)
            self.error = f"the simulation could not run ({type(error).__name__})"
        try:
            with UnitOfWork(self._database.session_factory) as uow:
                simulations.finish(uow, self.job_id, self.result, self.error)
                uow.commit()
        except Exception:
            log.exception("simulation %s: its outcome could not be stored", self.job_id)
        finally:
            self.done.set()


def _job_response(job: dict[str, Any], status: int) -> Response:
    body = json.dumps(SimulationJobSchema().dump(job))
    response = current_app.response_class(body, status=status, mimetype="application/json")
    response.headers["Location"] = url_for("free-play.Simulation", simulation_id=job["id"])
    return response


@blp.route("/simulations")
class Simulations(MethodView):
    @blp.arguments(SimulationCreateSchema)
    @blp.response(200, SimulationSchema)
    @blp.alt_response(
        202,
        schema=SimulationJobSchema,
        description="Still running: poll the job at Location (GET /simulations/{id})",
        success=True,
    )
    @blp.doc(operationId="runSimulation", responses=error_responses(422, 429, 503))
    def post(self, data: dict[str, Any]) -> Any:
        """Play up to 10,000 seeded all-computer games (greedy) and summarise them: battles
        (mean, median, p95, max), wars per game, wins per seat, draws, cycles, endings.

        The games are played by a pool of worker processes, never by the request's own
        worker. A simulation done within a short wait is answered at once (200, the
        summary); a longer one answers 202 with a job to poll at its Location.

        Each simulation does bounded work: it stops after the game that reaches the battle
        budget or the time limit (see ``limits``), with ``complete`` false, ``stopped_by``
        and the statistics of the games played. A few run at once in the whole service, one
        per client address: past that, 503 simulations_busy or 429 rate_limited, with
        Retry-After.
        """
        limits, slots = _simulation_bounds()
        address = client_address()
        try:
            job = write(
                lambda uow: simulations.start(
                    uow,
                    data["variant"],
                    data["options"],
                    data["games"],
                    data["seed"],
                    client=address,
                    limits=limits,
                    slots=slots,
                )
            )
        except simulations.Busy as busy:
            if busy.by == "client":
                raise rate_limited(busy.detail, busy.retry_after) from None
            raise ApiError(
                503,
                "simulations_busy",
                busy.detail,
                headers={"Retry-After": str(busy.retry_after)},
            ) from None
        run = _Run(job["id"])
        pool: SimulationPool = current_app.extensions[POOL_KEY]
        try:
            future = pool.submit(
                simulate_bounded,
                data["variant"],
                data["options"],
                data["games"],
                data["seed"],
                limits.max_battles,
                limits.max_seconds,
            )
        except Exception:
            log.exception("the simulation pool could not take simulation %s", job["id"])
            with unit_of_work() as uow:
                simulations.finish(uow, job["id"], error="the simulation pool is unavailable")
                uow.commit()
            raise ApiError(
                503,
                "service_unavailable",
                "Simulations cannot run right now; retry later.",
                headers={"Retry-After": str(current_app.config.get("RETRY_AFTER_SECONDS", 1))},
            ) from None
        future.add_done_callback(run.record)
        if not run.done.wait(float(current_app.config["FREE_PLAY_SIMULATION_WAIT_SECONDS"])):
            return _job_response(job, 202)
        if run.result is None:
            raise ApiError(
                503,
                "service_unavailable",
                "The simulation could not run; start it again.",
                headers={"Retry-After": str(current_app.config.get("RETRY_AFTER_SECONDS", 1))},
            )
        return {**run.result, "id": job["id"]}


@blp.route("/simulations/<uuid_str:simulation_id>")
class Simulation(MethodView):
    @blp.response(200, SimulationJobSchema)
    @blp.doc(operationId="getSimulation", responses=error_responses(404, 429, 503))
    def get(self, simulation_id: str) -> dict[str, Any]:
        """A simulation job: running, done (with its ``result``) or failed (start it
        again). Anyone with its id may read it: a simulation is fully determined by its
        request, and nothing in it is secret."""
        limits, slots = _simulation_bounds()
        return retry_on_disconnect(
            lambda: read(lambda uow: simulations.view(uow, simulation_id, limits, slots))
        )
